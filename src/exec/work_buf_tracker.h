// WorkBufTracker: notices a work_buf used by executions on different streams.
//
// The vendor rule (spec §2.2): one work_buf may serve every model executed on the SAME
// stream, never two streams. On a board the violation is silent: two executions that can
// be in flight at once write their intermediates over each other. That can happen when a
// model is preemptible (the other stream's task runs between its segments), when a model
// releases the core during a non-busy-wait AI-CPU operator, or when the device has more
// than one core. The tracker remembers, per work_buf address, the last stream that used it
// and whether that use was exposed; a new execution on another stream where either use is
// exposed is reported — a warning normally, an error in strict mode. Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "common/status.h"

namespace svp::exec {

class WorkBufTracker {
 public:
  struct Use {
    std::uint64_t stream = 0;  // stream serial
    std::uint32_t model_id = 0;
    bool exposed = false;      // may interleave with another stream's task
  };
  // Records `use` of `work_buf`. Returns a description of the conflict with the previous
  // use on another stream, or "" when there is none.
  std::string record(const void* work_buf, const Use& use);
  void clear();

 private:
  std::mutex mu_;
  std::unordered_map<const void*, Use> last_;
};

}  // namespace svp::exec
