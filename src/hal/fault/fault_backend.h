// The "fault" backend: the software NPU with injected task failures, for testing how
// errors travel (task -> stream -> synchronize_stream / synchronize_event /
// synchronize_device) without any change to the runtime.
//
// Rules are added programmatically (tests reach the backend through the runtime's
// backend accessor) or through acl.json: "softnpu": {"backend": "fault",
// "fail_every_nth_task": N} fails every N-th NPU task submitted to any queue.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "hal/hal.h"

namespace svp::hal::fault {

struct FaultRule {
  std::int64_t device = -1;      // -1 = any device
  std::int64_t sq = -1;          // -1 = any queue
  std::uint64_t nth = 1;         // fail the nth matching task (1-based) ...
  bool every = false;            // ... or every nth
  std::size_t segment = 0;       // segment that fails (clamped to the task's last)
  int code = err::kRtFailure;    // error the segment returns
};

class FaultBackend final : public Backend {
 public:
  FaultBackend(std::unique_ptr<Backend> inner, std::uint64_t fail_every);
  ~FaultBackend() override;

  std::uint32_t device_count() const override;
  Device& device(std::uint32_t index) override;
  Memory& memory() override;

  void add_rule(const FaultRule& rule);
  void clear_rules();
  std::uint64_t injected() const { return injected_.load(); }

  // Called by the wrapped devices on every task submission.
  std::shared_ptr<SegmentedTask> maybe_wrap(std::uint32_t device, SqId sq, std::shared_ptr<SegmentedTask> task);

 private:
  struct RuleState {
    FaultRule rule;
    std::uint64_t seen = 0;
    bool spent = false;
  };
  std::unique_ptr<Backend> inner_;
  std::vector<std::unique_ptr<Device>> devices_;
  std::mutex mu_;
  std::vector<RuleState> rules_;
  std::atomic<std::uint64_t> injected_{0};
};

}  // namespace svp::hal::fault
