// A one-shot host waitable. A Barrier entry signals it when the barrier retires; the
// thread that called synchronize waits on it with a timeout.
#pragma once

#include <mutex>

#include "common/status.h"
#include "common/waiter.h"
#include "hal/hal.h"

namespace svp::hal {

class Fence {
 public:
  void signal(Status status) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (done_) return;
      done_ = true;
      status_ = std::move(status);
    }
    waiter_.notify();
  }

  // Returns the signalled status, or a timeout error.
  Status wait(TimeoutMs timeout, const WaitPolicy& policy) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!waiter_.wait(lock, timeout, policy, [&] { return done_; })) {
      return Error(err::kRtFailure, "timed out after {} ms waiting for queued work to finish", timeout);
    }
    return status_;
  }

 private:
  std::mutex mu_;
  Waiter waiter_;
  bool done_ = false;
  Status status_;
};

}  // namespace svp::hal
