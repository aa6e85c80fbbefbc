// A one-shot host waitable. A Barrier entry signals it when the barrier retires; the
// thread that called synchronize waits on it with a timeout.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "common/status.h"
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
    cv_.notify_all();
  }

  // Returns the signalled status, or a timeout error.
  Status wait(TimeoutMs timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    if (timeout < 0) {
      cv_.wait(lock, [&] { return done_; });
    } else if (!cv_.wait_for(lock, std::chrono::milliseconds(timeout), [&] { return done_; })) {
      return Error(err::kRtFailure, "timed out after {} ms waiting for queued work to finish", timeout);
    }
    return status_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  Status status_;
};

}  // namespace svp::hal
