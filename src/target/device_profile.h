// Targets as data: one DeviceProfile per SoC the project compiles for and emulates. A
// profile holds what the compiler, the runtime and the board timing model need to know
// about the chip — its NPU op support set, cores, native layouts, memory and its figures
// for timing — so adding a target is adding a row to device_profile.cpp (and, for a new op
// support set, a list beside it), never editing a pass.
//
// Immutable static data: every function here is safe from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace svp::target {

// Which vendor SDK the target belongs to: the front-end (svp_atc / the RKNN converter) and
// the C API its applications use.
enum class Family : std::uint8_t { kSvp, kRknn };

// Where a target runs an op.
enum class Support : std::uint8_t {
  kNpu,      // on the NPU core
  kCpu,      // the runtime's CPU fallback (SVP: the AI-CPU; RKNN: the runtime's CPU ops)
  kRefused,  // neither: a model using it does not compile for this target
};

// One op's rule in a support set: where it runs, and the limits beyond which the NPU
// hands it to the CPU (0 = no limit).
struct OpRule {
  const char* op;
  Support where;
  std::uint8_t max_rank;  // the NPU takes operands of at most this rank
  const char* note;       // the limit in words (generated docs); "" if none
};

// A target's op support set: explicit rules, and what an op with a reference kernel but
// no rule gets.
struct OpSupport {
  const char* name;           // e.g. "SVP ATC operator specification"
  std::vector<OpRule> rules;  // sorted by op name
  bool npu_from_op_table;     // ops whose table row says svp_npu run on the NPU
  Support unlisted;           // every other op that has a kernel
  const char* source;         // where the list comes from
};

// Board timing figures beyond the peak rate (src/target/board_time.h).
struct BoardFigures {
  // The fitted factor set the chip's NPU uses (src/target/data/board_time_factors.inc):
  // chips of one NPU design share it.
  const char* factor_set;
  double npu_clock_ghz;  // the per-layer overhead is fitted in NPU cycles
  double a16w8_ratio;    // A16W8 MAC rate / A8W8 MAC rate
  double fp16_ratio;     // fp16 MAC rate / A8W8 MAC rate
  const char* source;
};

struct DeviceProfile {
  const char* name;   // the --soc_version / target_platform spelling
  const char* alias;  // a second accepted spelling (RK3568 for RK3566), or ""
  Family family;
  std::uint32_t npu_cores;
  // Timing figures: nominal peak int8 rate (tera-operations/s, 1 MAC = 2 operations, all
  // cores), DRAM bandwidth shared by NPU and CPU (GB/s, 1e9 bytes), the CPU fallback's
  // fp32 MAC rate (1e9 MAC/s), and the on-chip buffer the NPU can keep tensors in.
  double npu_int8_tops;
  double ddr_gbps;
  double cpu_gmacs;
  std::uint64_t sram_bytes;
  // Native feature-map layout: NC1HWC2 with C2 channels per block by element type (RKNN,
  // seed 000 table 5-1; 0 = the type has no native layout on this target), or "NCHW" rows
  // aligned to `row_align` bytes (SVP).
  const char* native_layout;
  std::uint32_t c2_int8;
  std::uint32_t c2_fp16;
  std::uint32_t row_align;
  const OpSupport* ops;
  // Memory a typical board of this SoC has (DDR shared by the CPU and the NPU): the
  // emulator's default limit on what the application's device allocations may hold at
  // once (acl.json softnpu.soc_version / device_memory_mb, docs/runtime.md). A board's
  // real budget is smaller (the OS takes its share; on HiSilicon boards svp_acl_rt_malloc
  // draws from the MMZ region), so the default never refuses what a board would give.
  std::uint64_t board_memory_bytes;
  const char* source;  // where the figures come from (printed in the compiler's log)
  BoardFigures board;
  // RKNN runtimes with the zero-copy API only (RV1106/RV1103's, seed 000 §5.2.1): no
  // rknn_inputs_set / rknn_outputs_get / rknn_outputs_release.
  bool zero_copy_api_only = false;
};

// Every known target, in the order the docs list them.
const std::vector<DeviceProfile>& all_profiles();

// The profile named `name` (or its alias), nullptr if none.
const DeviceProfile* find_profile(std::string_view name);

// The profile svp_atc compiles for when --soc_version is not given.
const DeviceProfile& default_profile();

// "SS928V100, SS626V100, ..." — the names of a family's targets, for error messages.
std::string profile_names(Family family);

// Where `profile` runs `op` given its operands' ranks (ops without a kernel are the caller's
// business: this answers for the ops the table knows). `why`, if given, receives the limit
// that sent an op to the CPU.
Support op_support(const DeviceProfile& profile, std::string_view op, const std::vector<std::size_t>& operand_ranks,
                   std::string* why = nullptr);

// The rule in words, for the generated op docs: "NPU", "NPU up to 4-D operands, else CPU", ...
std::string op_support_rule(const DeviceProfile& profile, std::string_view op);

const char* to_string(Family f);

}  // namespace svp::target
