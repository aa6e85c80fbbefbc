// The process's AI-CPU task queue.
//
// When an asynchronously executed model reaches a segment of AI-CPU operators, the device
// posts a job here; application threads take jobs in svp_acl_ext_process_aicpu_task and
// run them (Device::run_aicpu). Any thread may serve any job; jobs are served in the order
// they were posted.
#pragma once

#include <deque>
#include <mutex>

#include "common/status.h"
#include "common/waiter.h"
#include "hal/hal.h"

namespace svp::runtime {

class AiCpuQueue final : public hal::AiCpuSink {
 public:
  AiCpuQueue(hal::Backend* backend, const WaitPolicy& wait) : backend_(backend), wait_(wait) {}

  void post(const hal::AiCpuJob& job) override;
  // Runs one job, waiting up to `timeout` ms (-1 = forever) for one to arrive.
  Status process(hal::TimeoutMs timeout);
  // Wakes waiting threads and refuses further work (svp_acl_finalize).
  void shutdown();
  std::size_t pending() const;

 private:
  hal::Backend* backend_;
  const WaitPolicy wait_;
  mutable std::mutex mu_;
  Waiter waiter_;  // threads in process(); condition under mu_
  std::deque<hal::AiCpuJob> jobs_;
  bool shut_down_ = false;
};

}  // namespace svp::runtime
