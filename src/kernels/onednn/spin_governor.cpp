#include "kernels/onednn/spin_governor.h"

#include <fcntl.h>
#include <omp.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

#include "common/log.h"
#include "common/waiter.h"

namespace svp::kernels::onednn {

bool ContentionFilter::add(bool oversubscribed) {
  level_ = (1.0 - weight_) * level_ + (oversubscribed ? weight_ : 0.0);
  if (!on_ && level_ >= on_level_) on_ = true;
  if (on_ && level_ <= off_level_) on_ = false;
  return on_;
}

int runnable_threads() {
  // "0.13 0.34 0.99 2/81 27816": the fourth field is runnable/total scheduling entities.
  const int fd = ::open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[128];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return -1;
  buf[n] = '\0';
  const char* p = buf;
  for (int field = 0; field < 3; ++field) {
    while (*p != '\0' && *p != ' ') ++p;
    while (*p == ' ') ++p;
  }
  if (*p < '0' || *p > '9') return -1;
  int runnable = 0;
  for (; *p >= '0' && *p <= '9' && runnable < 1'000'000; ++p) runnable = runnable * 10 + (*p - '0');
  return *p == '/' ? runnable : -1;
}

namespace {

constexpr std::int64_t kSampleNs = 10'000'000;       // at most one /proc read per 10 ms
constexpr std::int64_t kForcedHoldNs = 200'000'000;  // kThrottle keeps the team this long after its last tick

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// One OpenMP team that ran an empty region and stays docked: its threads sleep in libgomp's
// pool (no CPU), yet count as the process's OpenMP threads until the holder thread exits.
class DockedTeam {
 public:
  // Returns once the team exists, so the process is over libgomp's line from then on.
  explicit DockedTeam(int threads) : holder_([this, threads] { hold(threads); }) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [this] { return docked_; });
  }
  ~DockedTeam() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    holder_.join();  // the holder's exit frees its pool, and libgomp's count drops again
  }
  DockedTeam(const DockedTeam&) = delete;
  DockedTeam& operator=(const DockedTeam&) = delete;

 private:
  void hold(int threads) {
    // The team only has to exist; each member checks in (GCC removes an empty region, and
    // the count tells whether libgomp gave the threads asked for).
    std::atomic<int> joined{0};
#pragma omp parallel num_threads(threads)
    joined.fetch_add(1, std::memory_order_relaxed);
    if (const int got = joined.load(std::memory_order_relaxed); got <= omp_get_num_procs()) {
      SVP_LOG_WARN("kernel threads: libgomp gave {} of {} threads to the team that shortens spin-waits; they stay long",
                   got, threads);
    }
    std::unique_lock<std::mutex> lock(mutex_);
    docked_ = true;
    cv_.notify_all();
    cv_.wait(lock, [this] { return stop_; });
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  bool docked_ = false;
  bool stop_ = false;
  std::thread holder_;  // declared last: it starts once the members it uses exist
};

class Governor {
 public:
  Governor()
      : cpus_(static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN))),
        user_policy_(std::getenv("GOMP_SPINCOUNT") != nullptr || std::getenv("OMP_WAIT_POLICY") != nullptr) {}

  void tick(KernelSpin policy, int threads) {
    if (policy == KernelSpin::kSpin) return;
    const std::int64_t now = now_ns();
    std::int64_t due = next_sample_.load(std::memory_order_relaxed);
    if (now < due) return;
    // One thread samples; the others go on at once.
    if (!next_sample_.compare_exchange_strong(due, now + kSampleNs, std::memory_order_relaxed)) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (policy == KernelSpin::kThrottle) forced_until_ = now + kForcedHoldNs;
    bool contended = false, reduce = false;
    if (policy == KernelSpin::kAuto && !user_policy_) {
      // Our own waiters that are spinning give way (waiter.h): a synchronize or an AI-CPU
      // worker between jobs must not make the kernels' team stop spinning.
      const int runnable = runnable_threads();
      if (runnable >= 0) {
        const int excess =
            excess_threads(runnable, spinning_waiters(), threads, reduced_.load(std::memory_order_relaxed), cpus_);
        contended = filter_.add(excess > 0);
        const bool two_over = two_over_filter_.add(excess > 1);
        reduce = reduce_filter_.add(excess > 0) || two_over;
      }
      last_runnable_ = runnable;
    } else if (policy == KernelSpin::kAuto && !told_user_policy_) {
      told_user_policy_ = true;
      SVP_LOG_INFO("kernel threads: GOMP_SPINCOUNT or OMP_WAIT_POLICY is set, so softnpu.kernel_spin \"auto\" leaves "
                   "libgomp's spin-waiting as the environment says");
    }
    const bool want = contended || now < forced_until_;
    if (want && !team_) engage();
    if (!want && team_) release();
    if (reduce != reduced_.load(std::memory_order_relaxed)) {
      reduced_.store(reduce, std::memory_order_relaxed);
      SVP_LOG_INFO("kernel threads: {}", reduce ? "one thread per layer while the machine is oversubscribed"
                                                : "back to the configured threads");
    }
  }

  int threads(KernelSpin policy, int configured) const {
    return policy == KernelSpin::kAuto && reduced_.load(std::memory_order_relaxed) ? 1 : configured;
  }

  bool reduced() const { return reduced_.load(std::memory_order_relaxed); }

  bool engaged() {
    std::lock_guard<std::mutex> lock(mutex_);
    return team_ != nullptr;
  }

  void reset() {
    std::lock_guard<std::mutex> lock(mutex_);
    team_.reset();
    filter_ = ContentionFilter{};
    reduce_filter_ = ContentionFilter::slow();
    two_over_filter_ = ContentionFilter{};
    forced_until_ = 0;
    reduced_.store(false, std::memory_order_relaxed);
    next_sample_.store(0, std::memory_order_relaxed);
  }

 private:
  void engage() {
    // CPUs + 1 threads add CPUs to libgomp's count, which starts at 1: over the line
    // whatever else the process runs.
    const int threads = omp_get_num_procs() + 1;
    try {
      team_ = std::make_unique<DockedTeam>(threads);
    } catch (const std::system_error& e) {
      SVP_LOG_WARN("kernel threads: could not start the thread that shortens OpenMP spin-waits ({}); kernels keep "
                   "spinning",
                   e.what());
      return;
    }
    SVP_LOG_INFO("kernel threads: {} runnable threads on {} CPUs; OpenMP spin-waits shortened while the machine is busy",
                 last_runnable_, cpus_);
  }

  void release() {
    team_.reset();
    SVP_LOG_INFO("kernel threads: the machine is no longer oversubscribed; OpenMP spin-waits back to libgomp's own");
  }

  const int cpus_;
  const bool user_policy_;
  std::atomic<std::int64_t> next_sample_{0};
  std::atomic<bool> reduced_{false};  // "auto" and oversubscribed: kernel work on one thread
  std::mutex mutex_;
  ContentionFilter filter_;                                    // the shortened spin-waits
  ContentionFilter reduce_filter_ = ContentionFilter::slow();  // one thread per layer: one over,
  ContentionFilter two_over_filter_;                           // or two or more over
  std::int64_t forced_until_ = 0;
  int last_runnable_ = -1;
  bool told_user_policy_ = false;
  std::unique_ptr<DockedTeam> team_;
};

// Never destroyed: a docked team must not be torn down while libgomp itself is being
// unloaded at exit; the threads end with the process.
Governor& governor() {
  static Governor* g = new Governor();
  return *g;
}

}  // namespace

bool oversubscribed(int runnable, int spinning, int team, bool reduced, int cpus) {
  return excess_threads(runnable, spinning, team, reduced, cpus) > 0;
}

int excess_threads(int runnable, int spinning, int team, bool reduced, int cpus) {
  return runnable - spinning + (reduced ? team - 1 : 0) - cpus;
}

void spin_governor_tick(KernelSpin policy, int threads) { governor().tick(policy, threads); }

int spin_governor_threads(KernelSpin policy, int threads) { return governor().threads(policy, threads); }

bool spin_governor_reduced() { return governor().reduced(); }

bool spin_throttle_engaged() { return governor().engaged(); }

void spin_governor_reset() { governor().reset(); }

}  // namespace svp::kernels::onednn
