// Kernel threads on a busy machine (acl.json softnpu.kernel_spin,
// src/kernels/onednn/spin_governor.h): parsing, the contention filter's hysteresis, the
// docked OpenMP team the governor holds and lets go, and the effect it exists for —
// libgomp's idle workers stop spinning while it is held.
#include <omp.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <list>
#include <string>
#include <thread>
#include <vector>

#include "acl/svp_acl.h"
#include "kernels/onednn/spin_governor.h"
#include "runtime/config.h"
#include "cpu_hog.h"
#include "test_support.h"

namespace {

using svp::kernels::KernelSpin;
using svp::kernels::onednn::ContentionFilter;

int thread_count() { return svp::test::process_thread_count(); }

// Waits up to 5 s for the process to have `want` threads (exiting threads leave
// /proc/self/task a moment after the join that released them).
bool threads_become(int want) {
  for (int i = 0; i < 500; ++i) {
    if (thread_count() == want) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

double process_cpu_ms() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

TEST(KernelSpinConfig, DefaultsToAutoAndReadsEveryPolicy) {
  auto cfg = svp::runtime::parse_config("{}", "test");
  ASSERT_TRUE(cfg.ok());
  EXPECT_EQ(cfg->kernel_spin, KernelSpin::kAuto);
  const std::pair<const char*, KernelSpin> names[] = {
      {"auto", KernelSpin::kAuto}, {"spin", KernelSpin::kSpin}, {"throttle", KernelSpin::kThrottle}};
  for (const auto& [name, spin] : names) {
    auto c = svp::runtime::parse_config(std::string(R"({"softnpu": {"kernel_spin": ")") + name + "\"}}", "test");
    ASSERT_TRUE(c.ok()) << c.status().message();
    EXPECT_EQ(c->kernel_spin, spin) << name;
  }
}

TEST(KernelSpinConfig, BadValuesFailWithFileAttrInvalidNamingTheKeyAndTheAllowedValues) {
  for (const char* json : {R"({"softnpu": {"kernel_spin": "passive"}})", R"({"softnpu": {"kernel_spin": 1}})",
                           R"({"softnpu": {"kernel_spin": "AUTO"}})", R"({"softnpu": {"kernel_spin": null}})"}) {
    SCOPED_TRACE(json);
    auto cfg = svp::runtime::parse_config(json, "acl.json");
    ASSERT_FALSE(cfg.ok());
    EXPECT_EQ(cfg.status().code(), svp::err::kFileAttrInvalid);
    EXPECT_NE(cfg.status().message().find(R"(softnpu.kernel_spin must be "auto")"), std::string::npos)
        << cfg.status().message();
  }
  svp::test::TempConfig file(R"({"softnpu": {"kernel_spin": "off"}})");
  EXPECT_EQ(svp_acl_init(file.path()), SVP_ACL_ERROR_FILE_ATTR_INVALID);
}

TEST(ContentionFilter, ALastingOversubscriptionSwitchesItOnWithinFourSamples) {
  ContentionFilter f;
  int samples = 0;
  while (!f.add(true)) ASSERT_LT(++samples, 4);
  EXPECT_TRUE(f.contended());
}

TEST(ContentionFilter, OneBusySampleAmongQuietOnesDoesNot) {
  ContentionFilter f;
  for (int round = 0; round < 20; ++round) {
    EXPECT_FALSE(f.add(round % 5 == 0)) << "sample " << round;
  }
}

TEST(ContentionFilter, ItSwitchesOffOnlyAfterTheMachineStaysQuiet) {
  ContentionFilter f;
  for (int i = 0; i < 10; ++i) f.add(true);
  ASSERT_TRUE(f.contended());
  // Half the samples busy: between the two thresholds, the state holds.
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(f.add(i % 2 == 0)) << "sample " << i;
  int quiet = 0;
  while (f.add(false)) ASSERT_LT(++quiet, 12);
  EXPECT_GE(quiet, 3) << "a short quiet spell must not release it";
}

// Running kernels on one thread halves a quiet machine's throughput when wrong, so that
// decision ignores bursts that shorten the spin-waits: on a 2-CPU VM whose CPUs run the
// kernel team, a kernel thread waking up made 12 % of the samples oversubscribed, and four
// in a row happen a few times a second.
TEST(ContentionFilter, TheSlowFilterIgnoresShortBurstsThatSwitchTheDefaultOn) {
  ContentionFilter fast, slow = ContentionFilter::slow();
  bool fast_on = false;
  for (int i = 0; i < 160; ++i) {
    const bool busy = i % 16 < 4;  // bursts of four busy samples, a quarter of them all
    fast_on = fast.add(busy) || fast_on;
    EXPECT_FALSE(slow.add(busy)) << "sample " << i;
  }
  EXPECT_TRUE(fast_on);
}

TEST(ContentionFilter, TheSlowFilterSwitchesOnWithinTwelveLastingSamplesAndOffAfterALongerQuietSpell) {
  ContentionFilter f = ContentionFilter::slow();
  int samples = 0;
  while (!f.add(true)) ASSERT_LT(++samples, 12);
  EXPECT_GE(samples, 8);
  for (int i = 0; i < 20; ++i) f.add(true);
  int quiet = 0;
  while (f.add(false)) ASSERT_LT(++quiet, 20);
  EXPECT_GE(quiet, 10);
}

TEST(SpinGovernor, RunnableThreadsCountsAtLeastTheCallingThread) {
  EXPECT_GE(svp::kernels::onednn::runnable_threads(), 1);
}

TEST(SpinGovernor, SpinPolicyNeverHoldsATeam) {
  svp::kernels::onednn::spin_governor_reset();
  for (int i = 0; i < 3; ++i) {
    svp::kernels::onednn::spin_governor_tick(KernelSpin::kSpin, 2);
    std::this_thread::sleep_for(std::chrono::milliseconds(11));
  }
  EXPECT_FALSE(svp::kernels::onednn::spin_throttle_engaged());
}

TEST(SpinGovernor, ThrottleHoldsOneDockedTeamOfCpusPlusOneAndResetLetsItGo) {
  svp::kernels::onednn::spin_governor_reset();
  // A sanitizer starts a background thread of its own with the process's second thread:
  // let that happen before counting.
  std::thread([] {}).join();
  const int before = thread_count();
  svp::kernels::onednn::spin_governor_tick(KernelSpin::kThrottle, 2);
  ASSERT_TRUE(svp::kernels::onednn::spin_throttle_engaged());
  // The holder thread and the CPUs workers of its team.
  EXPECT_TRUE(threads_become(before + 1 + omp_get_num_procs())) << thread_count() << " threads";
  svp::kernels::onednn::spin_governor_tick(KernelSpin::kThrottle, 2);  // held, not a second team
  EXPECT_TRUE(threads_become(before + 1 + omp_get_num_procs())) << thread_count() << " threads";
  svp::kernels::onednn::spin_governor_reset();
  EXPECT_FALSE(svp::kernels::onednn::spin_throttle_engaged());
  EXPECT_TRUE(threads_become(before)) << thread_count() << " threads";
}

// The sample's rule: our spinning waiters are not contention; while reduced to one thread
// the workers a full team would add count, so the team comes back only when there is room.
TEST(SpinGovernor, OversubscribedDiscountsSpinningWaitersAndCountsTheTeamWhileReduced) {
  using svp::kernels::onednn::oversubscribed;
  EXPECT_FALSE(oversubscribed(2, 0, 2, false, 2));  // master + spinning worker, quiet
  EXPECT_TRUE(oversubscribed(3, 0, 2, false, 2));   // and a CPU-bound process
  EXPECT_FALSE(oversubscribed(3, 1, 2, false, 2));  // and one of our waiters spinning
  EXPECT_TRUE(oversubscribed(2, 0, 2, true, 2));    // reduced beside one process: no room yet
  EXPECT_FALSE(oversubscribed(1, 0, 2, true, 2));   // reduced, the process gone
  EXPECT_FALSE(oversubscribed(5, 0, 4, false, 8));
  using svp::kernels::onednn::excess_threads;
  EXPECT_EQ(excess_threads(3, 0, 2, false, 2), 1);  // the team and a kernel thread waking up
  EXPECT_EQ(excess_threads(4, 0, 2, false, 2), 2);  // the team and a CPU-bound process per CPU
  EXPECT_EQ(excess_threads(3, 0, 2, true, 2), 2);   // reduced beside them: no room yet
  EXPECT_EQ(excess_threads(2, 1, 2, false, 2), -1);
}

// With CPU-bound threads on every CPU and then some, "auto" runs kernel work on one thread
// within a few samples; "spin" and "throttle" keep the threads asked for.
TEST(SpinGovernor, AutoRunsKernelsOnOneThreadWhileTheMachineIsOversubscribed) {
  if (std::getenv("GOMP_SPINCOUNT") != nullptr || std::getenv("OMP_WAIT_POLICY") != nullptr) {
    GTEST_SKIP() << "the environment sets libgomp's policy: auto leaves it alone";
  }
  svp::kernels::onednn::spin_governor_reset();
  EXPECT_EQ(svp::kernels::onednn::spin_governor_threads(KernelSpin::kAuto, 2), 2);
  std::list<svp::test::CpuHog> hogs(static_cast<std::size_t>(omp_get_num_procs() + 1));  // CPU-bound until cleared
  int threads = 2;
  for (int i = 0; i < 200 && threads != 1; ++i) {  // a sample per 10 ms, on within ~4
    svp::kernels::onednn::spin_governor_tick(KernelSpin::kAuto, 2);
    threads = svp::kernels::onednn::spin_governor_threads(KernelSpin::kAuto, 2);
    std::this_thread::sleep_for(std::chrono::milliseconds(11));
  }
  const bool reduced = svp::kernels::onednn::spin_governor_reduced();
  const int spin = svp::kernels::onednn::spin_governor_threads(KernelSpin::kSpin, 2);
  const int throttle = svp::kernels::onednn::spin_governor_threads(KernelSpin::kThrottle, 2);
  hogs.clear();
  svp::kernels::onednn::spin_governor_reset();
  EXPECT_EQ(threads, 1);
  EXPECT_TRUE(reduced);
  EXPECT_EQ(spin, 2);
  EXPECT_EQ(throttle, 2);
  EXPECT_EQ(svp::kernels::onednn::spin_governor_threads(KernelSpin::kAuto, 2), 2);  // reset lets go
}

// The reason for all of it: with the team held, a worker that finished a parallel region
// sleeps instead of spinning (libgomp: 100 spins when the process has more OpenMP threads
// than CPUs), so an idle process burns no CPU a busy machine needs.
TEST(SpinGovernor, WhileHeldIdleOpenMpWorkersStopSpinningAtOnce) {
  if (omp_get_num_procs() < 2) GTEST_SKIP() << "one CPU: libgomp already shortens the spin";
  svp::kernels::onednn::spin_governor_reset();
  svp::kernels::onednn::spin_governor_tick(KernelSpin::kThrottle, 2);
  ASSERT_TRUE(svp::kernels::onednn::spin_throttle_engaged());
  double idle_cpu_ms = 1e9;
  for (int attempt = 0; attempt < 3; ++attempt) {  // the least of three: a stray wake-up is not the policy
    std::atomic<int> members{0};  // a region GCC cannot remove as empty
#pragma omp parallel num_threads(2)
    members.fetch_add(1, std::memory_order_relaxed);
    ASSERT_EQ(members.load(), 2);
    const double start = process_cpu_ms();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    idle_cpu_ms = std::min(idle_cpu_ms, process_cpu_ms() - start);
  }
  svp::kernels::onednn::spin_governor_reset();
  EXPECT_LT(idle_cpu_ms, 2.0) << "an idle OpenMP worker kept spinning while the throttle was held";
}

}  // namespace
