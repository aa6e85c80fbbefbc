#include "common/waiter.h"

#include <climits>
#include <vector>

#include <sched.h>

#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#endif

namespace svp {
namespace {

// Per-thread counters: a shared atomic would bounce its cache line between the two
// threads of every handoff, which is the very cost the spinning saves. Readers sum the
// live threads' blocks and the totals of threads that ended.
struct WaiterCounters {
  std::atomic<std::uint64_t> waits{0};
  std::atomic<std::uint64_t> spun{0};
  std::atomic<std::uint64_t> sleeps{0};
  std::atomic<std::uint64_t> spin_ns{0};
  std::atomic<bool> spinning{false};  // in a wait's spin phase now
};

struct WaiterCounterRegistry {
  std::mutex mu;
  std::vector<WaiterCounters*> live;
  WaitStats retired;
};

WaiterCounterRegistry& waiter_registry() {
  static auto* r = new WaiterCounterRegistry;  // leaked: threads may exit during static destruction
  return *r;
}

struct WaiterThreadCounters {
  WaiterCounters c;
  WaiterThreadCounters() {
    auto& r = waiter_registry();
    std::lock_guard<std::mutex> lock(r.mu);
    r.live.push_back(&c);
  }
  ~WaiterThreadCounters() {
    auto& r = waiter_registry();
    std::lock_guard<std::mutex> lock(r.mu);
    r.retired.waits += c.waits.load(std::memory_order_relaxed);
    r.retired.spun += c.spun.load(std::memory_order_relaxed);
    r.retired.sleeps += c.sleeps.load(std::memory_order_relaxed);
    r.retired.spin_ns += c.spin_ns.load(std::memory_order_relaxed);
    for (auto it = r.live.begin(); it != r.live.end(); ++it) {
      if (*it == &c) {
        r.live.erase(it);
        break;
      }
    }
  }
};

WaiterCounters& waiter_counters() {
  thread_local WaiterThreadCounters t;
  return t.c;
}

// Only this thread writes its counters: a plain load + store avoids a locked instruction.
void waiter_bump(std::atomic<std::uint64_t>& v, std::uint64_t by) {
  v.store(v.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
}

inline void waiter_cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  asm volatile("yield" ::: "memory");
#endif
}

// Pure pause-spinning before kAuto starts yielding: a handoff between two spinning
// threads on two CPUs takes 0.1-0.2 us, and an empty task's round trip through the core
// about 1-2 us, so this catches those without a system call.
constexpr std::int64_t kAutoPauseOnlyNs = 2000;

// kAuto stops yielding for a while after a sched_yield that took this long: the CPU went
// to another runnable thread for its time slice, so the machine is busy, and there every
// yield costs milliseconds (CFS runs the other thread until its slice ends; a sleeper that
// is woken instead preempts it at once). Two CPU-bound processes on two CPUs made a
// transformer whose AI-CPU layers hand over between threads 6× slower with yields than
// without. A yield with nothing else to run returns within microseconds. The flag is
// process-wide, so the whole process pays one such yield per kNoYieldNs at most.
constexpr std::int64_t kCostlyYieldNs = 1'000'000;
constexpr std::int64_t kNoYieldNs = 1'000'000'000;
std::atomic<std::int64_t> g_no_yield_until{0};

// CPU the last wait of this thread was ended from (-1: unknown). kAuto sleeps at once
// when that is the CPU this thread runs on: the partner is co-located, spinning cannot
// see it progress, and a busy CPU makes the kernel wake the next thread on the idle
// vCPU, the expensive wake-up this is about.
thread_local int tl_waiter_partner_cpu = -1;
// Set when this thread woke a sleeper whose last CPU is the one this thread runs on:
// the kernel will most likely queue the wakee right here, so a spinning waker would only
// keep it from running (the failure of the earlier spin-before-block prototype, see
// docs/performance.md). Cleared by the next wait, which then sleeps at once.
thread_local bool tl_waiter_woke_local = false;

int waiter_current_cpu() {
#ifdef __linux__
  return sched_getcpu();  // glibc reads it from rseq: no system call
#else
  return -1;
#endif
}

}  // namespace

WaitMode resolve_wait_mode(WaitMode mode, unsigned cpus) {
  if (mode == WaitMode::kAuto && cpus <= 1) return WaitMode::kBlock;
  return mode;
}

unsigned allowed_cpu_count() {
  struct Cached {
    std::int64_t at = 0;
    unsigned cpus = 0;
  };
  thread_local Cached cache;
  const std::int64_t now = Waiter::now_ns();
  if (cache.cpus == 0 || now - cache.at > 100'000'000) {
    unsigned n = 1;
#ifdef __linux__
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) n = static_cast<unsigned>(CPU_COUNT(&set));
#endif
    cache.cpus = n == 0 ? 1 : n;
    cache.at = now;
  }
  return cache.cpus;
}

const char* wait_mode_name(WaitMode mode) {
  switch (mode) {
    case WaitMode::kAuto:
      return "auto";
    case WaitMode::kSpin:
      return "spin";
    case WaitMode::kYield:
      return "yield";
    case WaitMode::kBlock:
      return "block";
  }
  return "?";
}

bool waiter_yields_suspended() { return Waiter::now_ns() < g_no_yield_until.load(std::memory_order_relaxed); }

int spinning_waiters() {
  auto& r = waiter_registry();
  std::lock_guard<std::mutex> lock(r.mu);
  int n = 0;
  for (const WaiterCounters* c : r.live) n += c->spinning.load(std::memory_order_relaxed) ? 1 : 0;
  return n;
}

WaitStats wait_stats() {
  auto& r = waiter_registry();
  std::lock_guard<std::mutex> lock(r.mu);
  WaitStats s = r.retired;
  for (const WaiterCounters* c : r.live) {
    s.waits += c->waits.load(std::memory_order_relaxed);
    s.spun += c->spun.load(std::memory_order_relaxed);
    s.sleeps += c->sleeps.load(std::memory_order_relaxed);
    s.spin_ns += c->spin_ns.load(std::memory_order_relaxed);
  }
  return s;
}

void Waiter::notify() noexcept {
  // seq_cst on both sides (here: bump then read sleepers_; in sleep_until_change: raise
  // sleepers_ then read seq_): either this sees the sleeper, or the sleeper sees the bump.
  const int cpu = waiter_current_cpu();
  notifier_cpu_.store(cpu, std::memory_order_relaxed);
  seq_.fetch_add(1, std::memory_order_seq_cst);
  if (sleepers_.load(std::memory_order_seq_cst) == 0) return;
  if (cpu >= 0 && sleeper_cpu_.load(std::memory_order_relaxed) == cpu) tl_waiter_woke_local = true;
#ifdef __linux__
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&seq_), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
#else
  { std::lock_guard<std::mutex> lock(sleep_mu_); }  // a sleeper between its check and its wait finishes them first
  sleep_cv_.notify_all();
#endif
}

bool Waiter::wait_change(std::uint32_t key, std::int64_t deadline, const WaitPolicy& policy) {
  WaiterCounters& counters = waiter_counters();
  waiter_bump(counters.waits, 1);
  WaitMode mode = policy.mode;
  if (mode == WaitMode::kAuto) {
    mode = resolve_wait_mode(mode, allowed_cpu_count());
    if (mode == WaitMode::kAuto && tl_waiter_partner_cpu >= 0 && tl_waiter_partner_cpu == waiter_current_cpu()) {
      mode = WaitMode::kBlock;
    }
    if (tl_waiter_woke_local) mode = WaitMode::kBlock;
  }
  tl_waiter_woke_local = false;
  if (mode != WaitMode::kBlock && policy.spin_us > 0) {
    const std::int64_t t0 = now_ns();
    std::int64_t end = t0 + std::int64_t{policy.spin_us} * 1000;
    if (deadline >= 0 && deadline < end) end = deadline;
    counters.spinning.store(true, std::memory_order_relaxed);
    for (std::int64_t now = t0;; now = now_ns()) {
      if (seq_.load(std::memory_order_acquire) != key) {
        counters.spinning.store(false, std::memory_order_relaxed);
        tl_waiter_partner_cpu = notifier_cpu_.load(std::memory_order_relaxed);
        waiter_bump(counters.spun, 1);
        waiter_bump(counters.spin_ns, static_cast<std::uint64_t>(now - t0));
        return true;
      }
      if (now >= end) {
        counters.spinning.store(false, std::memory_order_relaxed);
        waiter_bump(counters.spin_ns, static_cast<std::uint64_t>(now - t0));
        break;
      }
      if (mode == WaitMode::kYield) {
        sched_yield();
      } else if (mode == WaitMode::kAuto && now - t0 >= kAutoPauseOnlyNs &&
                 now >= g_no_yield_until.load(std::memory_order_relaxed)) {
        sched_yield();
        if (const std::int64_t after = now_ns(); after - now > kCostlyYieldNs) {
          g_no_yield_until.store(after + kNoYieldNs, std::memory_order_relaxed);
        }
      }
      if (mode != WaitMode::kYield) {
        for (int i = 0; i < 8; ++i) waiter_cpu_relax();
      }
    }
  }
  if (deadline >= 0 && now_ns() >= deadline) return seq_.load(std::memory_order_acquire) != key;
  waiter_bump(counters.sleeps, 1);
  const bool moved = sleep_until_change(key, deadline);
  if (moved) tl_waiter_partner_cpu = notifier_cpu_.load(std::memory_order_relaxed);
  return moved;
}

bool Waiter::sleep_until_change(std::uint32_t key, std::int64_t deadline) {
  bool moved = true;
  // Before the sleepers_ increment, so a notifier that sees the sleeper sees its CPU.
  sleeper_cpu_.store(waiter_current_cpu(), std::memory_order_relaxed);
#ifdef __linux__
  sleepers_.fetch_add(1, std::memory_order_seq_cst);
  while (seq_.load(std::memory_order_seq_cst) == key) {
    timespec rel{};
    timespec* timeout = nullptr;
    if (deadline >= 0) {
      const std::int64_t left = deadline - now_ns();
      if (left <= 0) {
        moved = false;
        break;
      }
      rel.tv_sec = static_cast<time_t>(left / 1'000'000'000);
      rel.tv_nsec = static_cast<long>(left % 1'000'000'000);
      timeout = &rel;
    }
    // Returns at once (EAGAIN) if seq_ already moved; EINTR and spurious wake-ups loop.
    syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&seq_), FUTEX_WAIT_PRIVATE, key, timeout, nullptr, 0);
  }
  sleepers_.fetch_sub(1, std::memory_order_seq_cst);
#else
  std::unique_lock<std::mutex> lock(sleep_mu_);
  sleepers_.fetch_add(1, std::memory_order_seq_cst);
  while (seq_.load(std::memory_order_seq_cst) == key) {
    if (deadline < 0) {
      sleep_cv_.wait(lock);
    } else if (sleep_cv_.wait_until(lock, std::chrono::steady_clock::time_point(std::chrono::nanoseconds(deadline))) ==
               std::cv_status::timeout) {
      moved = seq_.load(std::memory_order_seq_cst) != key;
      break;
    }
  }
  sleepers_.fetch_sub(1, std::memory_order_seq_cst);
#endif
  return moved;
}

}  // namespace svp
