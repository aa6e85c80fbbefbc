// Model dump: the layer inputs/outputs an execution really computed, written as .npy files
// with a JSON-lines index (docs/runtime.md "Model dump").
//
// Configuration comes from acl.json's "dump" section (for the whole process) or from
// svp_acl_mdl_init_dump / set_dump / finalize_dump; it applies to models loaded while it is
// active, each of which gets a DumpPlan at load. During an execution, the thread running a
// dumped layer copies the tensor (converted to logical order) and queues it; one writer
// thread writes the files, so a core stalls only for the copy (and only when more than
// 256 MiB wait to be written, until the disk catches up).
//
// Threading: every member is thread-safe. The writer thread starts with the first record
// and stops at shutdown().
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"
#include "exec/dump_config.h"
#include "model/program.h"

namespace svp::exec {

// What one loaded model dumps; fixed at load.
struct DumpPlan {
  std::string dir;            // <dump_path>/<model name>
  std::string model_name;
  std::uint32_t model_id = 0;
  bool inputs = false;
  bool outputs = true;
  std::vector<bool> layers;   // per program layer
  std::uint64_t session = 0;  // the configuration it came from (finalize_dump ends it)
  DumpSteps steps;  // DumpConfig::steps
  std::atomic<std::uint64_t> executions{0};  // counted whether dumped or not (dump_step)

  bool dumps_execution(std::uint64_t n) const { return step_selected(steps, n); }
};

// One tensor to write. `bytes` empty with a `note` = not available (e.g. fused away).
struct DumpRecord {
  std::shared_ptr<DumpPlan> plan;
  std::uint64_t execution = 0;
  std::uint64_t batch_item = 0;
  std::uint64_t batch = 1;
  std::string layer;
  std::string op;
  bool input = false;  // else output
  std::size_t index = 0;
  std::string tensor;
  model::DType dtype = model::DType::kFloat32;
  std::vector<std::int64_t> dims;
  model::Quant quant;
  std::vector<std::uint8_t> bytes;
  std::string note;
};

class Dumper {
 public:
  static Dumper& instance();
  ~Dumper();

  // svp_acl_init with an acl.json "dump" section.
  void start_from_acl_json(DumpConfig config);
  // svp_acl_finalize: writes what is queued, then forgets every configuration.
  void shutdown();

  // The API (spec §1, svp_acl_mdl_*_dump). Errors: err::kDumpAlreadyRun,
  // err::kDumpNotRun, err::kInvalidDumpConfig.
  Status api_init();
  Status api_set(const std::string& config_path);
  Status api_finalize();

  // The plan of a model being loaded as `model_id`, or null when the active configuration
  // (if any) does not select it.
  std::shared_ptr<DumpPlan> plan_for(const model::Program& program, std::uint32_t model_id);
  // True while the configuration `plan` came from is still active.
  bool active(const DumpPlan& plan) const { return plan.session == session_.load(); }

  void write(DumpRecord record);
  // Blocks until everything queued so far is on disk.
  void drain();

  // Records written and records that failed (a write error is logged once per model).
  std::uint64_t written() const { return written_.load(); }
  std::uint64_t failed() const { return failed_.load(); }

 private:
  enum class Mode { kOff, kAclJson, kApi };
  void writer_main();
  void stop_writer();  // finishes the queue, then joins the writer thread
  void write_one(const DumpRecord& r);

  mutable std::mutex mu_;  // state and queue
  Mode mode_ = Mode::kOff;
  std::optional<DumpConfig> config_;
  std::atomic<std::uint64_t> session_{1};
  std::deque<DumpRecord> queue_;
  std::size_t queued_bytes_ = 0;
  bool busy_ = false;  // the writer holds a record taken from the queue
  bool stop_ = false;
  std::condition_variable cv_;        // the writer waits for records
  std::condition_variable space_cv_;  // producers and drain() wait for the writer
  std::thread writer_;
  std::atomic<std::uint64_t> written_{0};
  std::atomic<std::uint64_t> failed_{0};
};

}  // namespace svp::exec
