#include "runtime/aicpu_queue.h"

#include "common/log.h"

namespace svp::runtime {

void AiCpuQueue::post(const hal::AiCpuJob& job) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shut_down_) return;  // the device is being torn down; the job dies with its task
    jobs_.push_back(job);
  }
  waiter_.notify();
}

Status AiCpuQueue::process(hal::TimeoutMs timeout) {
  hal::AiCpuJob job;
  {
    std::unique_lock<std::mutex> lock(mu_);
    auto ready = [&] { return !jobs_.empty() || shut_down_; };
    if (!waiter_.wait(lock, timeout, wait_, ready)) {
      return Error(err::kRtReportTimeout, "process_aicpu_task: no AI-CPU task arrived within {} ms", timeout);
    }
    if (shut_down_) return Error(err::kUninitialize, "svp_acl_finalize has been called");
    job = jobs_.front();
    jobs_.pop_front();
  }
  const Status st = backend_->device(job.device).run_aicpu(job);
  if (!st.ok()) SVP_LOG_WARN("process_aicpu_task: {}", st.message());  // a destroyed stream's leftover
  return Status::Ok();
}

void AiCpuQueue::shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    shut_down_ = true;
    jobs_.clear();
  }
  waiter_.notify();
}

std::size_t AiCpuQueue::pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return jobs_.size();
}

}  // namespace svp::runtime
