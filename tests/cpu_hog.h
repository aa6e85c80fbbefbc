// A thread that keeps one CPU busy while it lives: tests of the board clock use it to slow
// the host down and show that board-time results do not move.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

namespace svp::test {

class CpuHog {
 public:
  CpuHog()
      : thread_([this] {
          volatile std::uint64_t x = 0;
          while (!stop_.load(std::memory_order_relaxed)) x = x + 1;
        }) {}
  ~CpuHog() {
    stop_ = true;
    thread_.join();
  }
  CpuHog(const CpuHog&) = delete;
  CpuHog& operator=(const CpuHog&) = delete;

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace svp::test
