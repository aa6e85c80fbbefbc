#include "exec/work_buf_tracker.h"

#include <fmt/format.h>

namespace svp::exec {

std::string WorkBufTracker::record(const void* work_buf, const Use& use) {
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] = last_.try_emplace(work_buf, use);
  if (inserted) return {};
  const Use prev = it->second;
  it->second = use;
  if (prev.stream == use.stream || !(prev.exposed || use.exposed)) return {};
  return fmt::format(
      "work_buf {} is used by model {} on two streams (before: model {} on another stream); executions on different "
      "streams can be in flight together here (preemptible model, non-busy-wait AI-CPU operator or several cores) "
      "and would overwrite each other's intermediates: give each stream its own work_buf",
      work_buf, use.model_id, prev.model_id);
}

void WorkBufTracker::clear() {
  std::lock_guard<std::mutex> lock(mu_);
  last_.clear();
}

}  // namespace svp::exec
