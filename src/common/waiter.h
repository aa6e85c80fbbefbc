// How a host thread blocked in the runtime waits for another thread: the one primitive
// behind every wait site (synchronize_stream/event/device, process_report,
// process_aicpu_task, the softnpu core threads).
//
// Why not a plain condition variable: on small VMs waking a thread that sleeps on an idle
// vCPU costs tens of microseconds (the hypervisor has to wake the vCPU), and a
// synchronize pays it twice (application -> core -> application). A waiter that spins
// briefly sees the handoff in a fraction of a microsecond, but only when the thread it
// waits for runs on another CPU: on one CPU the spinner burns the time slice its partner
// needs. So the policy (acl.json softnpu.wait_policy) decides per wait:
//   kBlock  sleep in the kernel at once (the behaviour before policies existed);
//   kSpin   spin with the CPU's pause instruction up to spin_us, then sleep;
//   kYield  call sched_yield up to spin_us, then sleep;
//   kAuto   kBlock when the thread may run on only one CPU, or when the thread that
//           ended its previous wait ran on the CPU this thread is on now (the two are
//           co-located: spinning cannot see the partner progress, and it keeps the CPU
//           busy, so the kernel would wake the next thread on the idle vCPU - the
//           expensive wake-up this is all about); also when this thread has just
//           woken a sleeper that last ran on this CPU (the wakee is queued here and
//           needs this CPU). Otherwise pause-spin for 2 us, then
//           alternate sched_yield and pauses up to spin_us (a third thread queued on
//           this CPU gets to run), then sleep. The yields stop for a second, process-wide,
//           after one took over 1 ms: another process's thread had the CPU for a time
//           slice, and on a busy machine every yield would cost that much (pauses only).
//
// Shape: an event count. A waiter reads the counter (under the lock that guards its
// condition), tests the condition, releases the lock and waits for the counter to move;
// a notifier changes the condition under that lock, releases it and bumps the counter.
// The bump costs a futex wake only when a waiter really sleeps, so a handoff caught while
// spinning involves no system call on either side.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>

#ifndef __linux__
#include <condition_variable>
#endif

namespace svp {

enum class WaitMode : std::uint8_t { kAuto, kSpin, kYield, kBlock };

struct WaitPolicy {
  // Long enough to cover a cross-vCPU wake-up (~25 us measured on the 2-vCPU VMs of
  // docs/performance.md), short enough that a wait which will end in a sleep anyway
  // wastes little CPU; see docs/performance.md, "Host wait policy".
  static constexpr std::uint32_t kDefaultSpinUs = 30;
  WaitMode mode = WaitMode::kAuto;
  std::uint32_t spin_us = kDefaultSpinUs;
};

// The mode a wait under `mode` uses when the calling thread may run on `cpus` CPUs.
WaitMode resolve_wait_mode(WaitMode mode, unsigned cpus);
// Number of CPUs the calling thread may run on (sched_getaffinity), re-read at most
// every 100 ms per thread so that the check costs no system call per wait.
unsigned allowed_cpu_count();
const char* wait_mode_name(WaitMode mode);

// Process-wide totals over every Waiter wait (threads that ended included).
struct WaitStats {
  std::uint64_t waits = 0;    // waits that did not find their condition already true
  std::uint64_t spun = 0;     // of which ended while spinning (no sleep)
  std::uint64_t sleeps = 0;   // of which slept in the kernel
  std::uint64_t spin_ns = 0;  // wall time spent spinning or yielding, all waits
};
WaitStats wait_stats();

// True while kAuto waits do not yield because a recent sched_yield of this process gave
// its CPU away for a time slice (waiter.cpp, kCostlyYieldNs): tests and diagnostics.
bool waiter_yields_suspended();

// Threads of this process in a wait's spin phase at this moment (a snapshot: each thread
// marks its own phase without a locked instruction). They are runnable but short-lived
// (every spin ends within spin_us; kYield yields, kAuto too unless its yields are
// suspended, when it only pauses), so the kernel threads' spin
// governor does not count them as contention. Takes the registry lock: not for hot paths.
int spinning_waiters();

class Waiter {
 public:
  Waiter() = default;
  Waiter(const Waiter&) = delete;
  Waiter& operator=(const Waiter&) = delete;

  // Wakes every waiter. Call after changing the condition under the waiters' lock
  // (after releasing it is cheaper: a woken waiter does not block on it again).
  void notify() noexcept;

  // Waits until `ready()` (evaluated with `lock` held) is true, or `timeout_ms`
  // (negative: forever) has passed. Returns ready(). `lock` is held on return.
  template <typename Pred>
  bool wait(std::unique_lock<std::mutex>& lock, std::int64_t timeout_ms, const WaitPolicy& policy, Pred ready) {
    if (ready()) return true;
    const std::int64_t deadline = timeout_ms < 0 ? -1 : now_ns() + timeout_ms * 1'000'000;
    for (;;) {
      // Read under the lock, after the condition was found false: a notifier that
      // changes the condition later must take the lock first and bumps the count after.
      const std::uint32_t key = seq_.load(std::memory_order_acquire);
      lock.unlock();
      const bool moved = wait_change(key, deadline, policy);
      lock.lock();
      if (ready()) return true;
      if (!moved) return false;
    }
  }

  static std::int64_t now_ns() noexcept {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

 private:
  // Returns false when `deadline` (steady ns, -1 = none) passed without a notify.
  bool wait_change(std::uint32_t key, std::int64_t deadline, const WaitPolicy& policy);
  bool sleep_until_change(std::uint32_t key, std::int64_t deadline);

  std::atomic<std::uint32_t> seq_{0};
  std::atomic<std::uint32_t> sleepers_{0};
  std::atomic<int> notifier_cpu_{-1};  // CPU of the last notify() (kAuto's placement guess)
  std::atomic<int> sleeper_cpu_{-1};   // CPU the last sleeper went to sleep on
#ifndef __linux__
  std::mutex sleep_mu_;
  std::condition_variable sleep_cv_;
#endif
};

}  // namespace svp
