// svp_run as a function: load a model through the public C API, feed it the vendor way
// (spec §2.2), run it, write outputs and summary.json. main() only parses the command
// line, so tests run the whole tool in-process. Not reentrant: it owns svp_acl_init/finalize.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace svp::run {

struct RunOptions {
  std::string model;
  std::vector<std::string> inputs;     // one entry per data input: a file or a directory
  std::string pure_data_type = "zero"; // zero | random, when `inputs` is empty
  std::string aipp_config;             // ais_bench's [aipp_op] file for a dynamic-AIPP input
  std::string output;                  // empty: no output files, no summary.json
  std::string output_dirname;          // empty: a date-time subdirectory
  std::string outfmt = "BIN";          // BIN | TXT | NPY
  std::uint64_t loop = 1;
  std::uint64_t warmup_count = 1;
  std::uint64_t batchsize = 0;         // 0: one file per execution
  std::uint64_t dym_batch = 0;
  std::uint64_t dym_h = 0, dym_w = 0;  // both 0: no gear selected
  std::int32_t device = 0;
  std::string acl_json_path;
  bool profiler = false;
  bool dump = false;
  std::string dump_step;  // --dump_step "0|5|10-20": the executions --dump writes (empty: all)
  std::string dump_layer;  // --dump_layer "a;b": the layers --dump writes (empty: all; our extension)
  bool debug = false;
  std::uint32_t streams = 1;
  std::uint32_t threads = 1;
  std::int32_t priority = -1;          // -1: the model's default
  std::string expected;
  double atol = 1e-5, rtol = 1e-3, cosine = -1.0;  // cosine < 0: not checked
  bool display_all_summary = false;
  // --clock=board: the device runs on the predicted board time of `soc_version` (acl.json
  // softnpu.clock, docs/scheduling.md); latency and throughput are also reported in it.
  std::string clock = "host";          // host | board
  std::string soc_version;             // --soc_version: the board clock's target (empty: acl.json's or the default)
  bool progress = true;                // a stderr line per 10% ...
  double progress_after_ms = 1000.0;   // ... once the run has lasted this long
};

inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;      // input count, size, unreadable or malformed file
inline constexpr int kExitUsage = 2;         // bad command line
inline constexpr int kExitModel = 3;         // model not found or not an svp-acl model
inline constexpr int kExitRuntime = 4;       // an svp_acl call failed
inline constexpr int kExitMismatch = 5;      // --expected: outputs differ
inline constexpr int kExitUnsupported = 6;   // a feature the runtime does not implement (--dump)
inline constexpr int kExitCannotWrite = 7;   // an output could not be written

// The summary table goes to `out`; progress, warnings and errors to `err`.
int run(const RunOptions& options, std::ostream& out, std::ostream& err);

}  // namespace svp::run
