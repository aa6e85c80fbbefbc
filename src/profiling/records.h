// What the profiler collects, as it travels from the hooks to the writer thread.
//
// Records are produced on application threads (API calls), NPU core threads (operators)
// and under the device's scheduler lock (task events), and consumed by one writer thread
// that formats them for the JOB files and the subscription pipes. Times are nanoseconds
// of CLOCK_MONOTONIC (std::chrono::steady_clock on Linux, the HAL's steady clock).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <variant>

#include "hal/hal.h"

namespace svp::profiling {

using Nanos = std::uint64_t;

// CMake option SVP_ACL_PROFILING_HOOKS=OFF compiles the hooks out (the baseline of the
// "profiling off costs nothing" benchmark); profiling requests then fail as unsupported.
#ifdef SVP_ACL_NO_PROFILING_HOOKS
inline constexpr bool kHooksBuilt = false;
#else
inline constexpr bool kHooksBuilt = true;
#endif

inline Nanos now() {
  return static_cast<Nanos>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

// Data types; the bit values are those of SVP_ACL_PROF_* in svp_acl_prof.h.
enum DataType : std::uint32_t {
  kAclApi = 0x1,
  kTaskTime = 0x2,
  kAicoreMetrics = 0x4,
  kAicpuTrace = 0x8,
};
inline constexpr std::uint32_t kAllDataTypes = kAclApi | kTaskTime | kAicoreMetrics | kAicpuTrace;

// What one model execution records, decided when it is submitted so that all of its
// records follow one decision (interval sampling never cuts an execution in half).
struct ExecTrace {
  bool tasks = false;           // task events -> data/task.jsonl
  bool npu_ops_file = false;    // NPU-core operators -> data/aicore.jsonl
  bool aicpu_ops_file = false;  // AI-CPU operators -> data/aicpu.jsonl
  bool pipe = false;            // operators -> the model's subscription pipe
  bool pipe_times = true;       // the subscription's time_info_switch
  // The file session these records belong to: a record that outlives its session (an
  // execution still in flight at svp_acl_prof_finalize) must not land in the next one.
  std::uint32_t session = 0;
  // hal::TaskSettings::trace_tag of the execution's task: session << 32 | (model + 1).
  std::uint64_t tag() const { return std::uint64_t{session} << 32 | (std::uint64_t{model} + 1); }
  std::uint32_t model = 0;
  bool any_ops() const { return npu_ops_file || aicpu_ops_file || pipe; }
};

struct ApiRecord {
  const char* name = nullptr;  // the C function's __func__ (static storage)
  std::int32_t tid = 0;
  Nanos start = 0;
  Nanos end = 0;
  std::int32_t ret = 0;
};

struct TaskRecord {
  hal::TaskEvent event;
  std::int32_t tid = 0;  // host thread of kAiCpuStart/kAiCpuEnd
};

struct OpRecord {
  std::uint32_t model = 0;
  std::uint32_t device = 0;
  std::uint32_t sq = 0;
  std::uint64_t task = 0;
  std::uint32_t core = hal::kHostCore;
  std::int32_t priority = 0;
  std::uint32_t layer = 0;
  std::uint32_t segment = 0;
  std::uint64_t batch = 0;
  bool aicpu = false;
  bool to_file = false;
  bool to_pipe = false;
  bool pipe_times = true;
  std::uint32_t session = 0;  // ExecTrace::session
  Nanos start = 0;
  Nanos end = 0;
  std::string name;
  std::string type;
};

using Record = std::variant<ApiRecord, TaskRecord, OpRecord>;

// The Linux thread id of the caller (cached per thread).
std::int32_t thread_id();

}  // namespace svp::profiling
