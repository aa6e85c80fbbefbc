// Host wait policy (acl.json softnpu.wait_policy / spin_us, common/waiter.h): parsing,
// the Waiter's no-lost-wake-up contract under every policy, every runtime wait site
// completing under a multi-thread stress with each policy, and `auto` never spinning
// when the process may use only one CPU.
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <list>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "acl/svp_acl.h"
#include "acl/svp_acl_ext.h"
#include "common/waiter.h"
#include "runtime/config.h"
#include "cpu_hog.h"
#include "test_support.h"

namespace {

using svp::WaitMode;
using svp::WaitPolicy;

const WaitMode kAllModes[] = {WaitMode::kAuto, WaitMode::kSpin, WaitMode::kYield, WaitMode::kBlock};

// ---------------------------------------------------------------------------------------
// acl.json

TEST(WaitPolicyConfig, DefaultsToAutoWithTheDocumentedSpinBudget) {
  auto cfg = svp::runtime::parse_config("{}", "test");
  ASSERT_TRUE(cfg.ok());
  EXPECT_EQ(cfg->backend.wait.mode, WaitMode::kAuto);
  EXPECT_EQ(cfg->backend.wait.spin_us, WaitPolicy::kDefaultSpinUs);
}

TEST(WaitPolicyConfig, EveryPolicyNameAndSpinBudgetIsRead) {
  for (WaitMode m : kAllModes) {
    const std::string json = std::string(R"({"softnpu": {"wait_policy": ")") + svp::wait_mode_name(m) + "\"}}";
    auto cfg = svp::runtime::parse_config(json, "test");
    ASSERT_TRUE(cfg.ok()) << cfg.status().message();
    EXPECT_EQ(cfg->backend.wait.mode, m) << json;
  }
  for (std::uint32_t us : {0u, 1u, 250u, 1000000u}) {
    auto cfg = svp::runtime::parse_config(R"({"softnpu": {"spin_us": )" + std::to_string(us) + "}}", "test");
    ASSERT_TRUE(cfg.ok()) << cfg.status().message();
    EXPECT_EQ(cfg->backend.wait.spin_us, us);
  }
}

TEST(WaitPolicyConfig, BadValuesFailWithFileAttrInvalidNamingTheKeyAndTheAllowedValues) {
  struct Case {
    const char* json;
    const char* expect;
  };
  const Case cases[] = {
      {R"({"softnpu": {"wait_policy": "fast"}})", R"(softnpu.wait_policy must be "auto", "spin", "yield" or "block")"},
      {R"({"softnpu": {"wait_policy": "AUTO"}})", "softnpu.wait_policy"},
      {R"({"softnpu": {"wait_policy": ""}})", "softnpu.wait_policy"},
      {R"({"softnpu": {"wait_policy": 1}})", "softnpu.wait_policy"},
      {R"({"softnpu": {"wait_policy": null}})", "softnpu.wait_policy"},
      {R"({"softnpu": {"spin_us": -1}})", "softnpu.spin_us must be an integer in [0, 1000000]"},
      {R"({"softnpu": {"spin_us": 1000001}})", "softnpu.spin_us"},
      {R"({"softnpu": {"spin_us": 2.5}})", "softnpu.spin_us"},
      {R"({"softnpu": {"spin_us": "30"}})", "softnpu.spin_us"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.json);
    auto cfg = svp::runtime::parse_config(c.json, "acl.json");
    ASSERT_FALSE(cfg.ok());
    EXPECT_EQ(cfg.status().code(), svp::err::kFileAttrInvalid);
    EXPECT_NE(cfg.status().message().find(c.expect), std::string::npos) << cfg.status().message();
  }
  // Through svp_acl_init, the vendor code the application sees.
  svp::test::TempConfig file(R"({"softnpu": {"wait_policy": "busy"}})");
  EXPECT_EQ(svp_acl_init(file.path()), SVP_ACL_ERROR_FILE_ATTR_INVALID);
}

// ---------------------------------------------------------------------------------------
// The primitive

TEST(WaitMode, AutoBlocksWhenOnlyOneCpuIsAllowedAndExplicitChoicesAreKept) {
  EXPECT_EQ(svp::resolve_wait_mode(WaitMode::kAuto, 1), WaitMode::kBlock);
  EXPECT_EQ(svp::resolve_wait_mode(WaitMode::kAuto, 2), WaitMode::kAuto);
  EXPECT_EQ(svp::resolve_wait_mode(WaitMode::kSpin, 1), WaitMode::kSpin);
  EXPECT_EQ(svp::resolve_wait_mode(WaitMode::kYield, 1), WaitMode::kYield);
  EXPECT_EQ(svp::resolve_wait_mode(WaitMode::kBlock, 8), WaitMode::kBlock);
}

// Two threads hand a token back and forth through one mutex and two Waiters: a lost
// wake-up would hang the test (ctest timeout). Short spin budgets make both the spin and
// the sleep paths race with the notifier.
TEST(Waiter, PingPongLosesNoWakeUpUnderAnyPolicy) {
  for (WaitMode m : kAllModes) {
    for (std::uint32_t spin_us : {0u, 2u, 50u}) {
      SCOPED_TRACE(std::string(svp::wait_mode_name(m)) + " spin_us=" + std::to_string(spin_us));
      const WaitPolicy policy{m, spin_us};
      std::mutex mu;
      svp::Waiter to_a, to_b;
      int turn = 0;
      constexpr int kRounds = 3000;
      std::thread b([&] {
        for (int i = 0; i < kRounds; ++i) {
          std::unique_lock<std::mutex> lock(mu);
          ASSERT_TRUE(to_b.wait(lock, -1, policy, [&] { return turn == 1; }));
          turn = 0;
          lock.unlock();
          to_a.notify();
        }
      });
      for (int i = 0; i < kRounds; ++i) {
        {
          std::lock_guard<std::mutex> lock(mu);
          turn = 1;
        }
        to_b.notify();
        std::unique_lock<std::mutex> lock(mu);
        ASSERT_TRUE(to_a.wait(lock, -1, policy, [&] { return turn == 0; }));
      }
      b.join();
    }
  }
}

TEST(Waiter, TimedWaitReturnsFalseWithoutANotifyAndTrueWhenTheConditionHolds) {
  for (WaitMode m : kAllModes) {
    const WaitPolicy policy{m, 20};
    std::mutex mu;
    svp::Waiter w;
    std::unique_lock<std::mutex> lock(mu);
    EXPECT_FALSE(w.wait(lock, 0, policy, [] { return false; }));
    EXPECT_FALSE(w.wait(lock, 2, policy, [] { return false; }));
    EXPECT_TRUE(w.wait(lock, 0, policy, [] { return true; }));
    EXPECT_TRUE(lock.owns_lock());
  }
}

// The kernel threads' spin governor discounts our own spinning waiters (they give way):
// a waiter counts while it spins, never while it sleeps, and not once it has returned.
TEST(Waiter, SpinningWaitersCountsAWaiterOnlyWhileItSpins) {
  ASSERT_EQ(svp::spinning_waiters(), 0);
  for (WaitMode m : {WaitMode::kSpin, WaitMode::kBlock}) {
    std::mutex mu;
    svp::Waiter w;
    bool ready = false;
    std::thread waiter([&] {
      std::unique_lock<std::mutex> lock(mu);
      // Spins for up to 2 s before it would sleep.
      w.wait(lock, -1, WaitPolicy{m, 2'000'000}, [&] { return ready; });
    });
    int seen = 0;
    for (int i = 0; i < 100 && seen == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      seen = svp::spinning_waiters();
    }
    EXPECT_EQ(seen, m == WaitMode::kSpin ? 1 : 0) << svp::wait_mode_name(m);
    {
      std::lock_guard<std::mutex> lock(mu);
      ready = true;
    }
    w.notify();
    waiter.join();
    EXPECT_EQ(svp::spinning_waiters(), 0) << svp::wait_mode_name(m);
  }
}

// ---------------------------------------------------------------------------------------
// Every wait site of the runtime under each policy

svp_acl_error count_segment(void* user_data, uint32_t) {
  static_cast<std::atomic<std::uint64_t>*>(user_data)->fetch_add(1);
  return SVP_ACL_SUCCESS;
}

void count_callback(void* user_data) { static_cast<std::atomic<std::uint64_t>*>(user_data)->fetch_add(1); }

std::string policy_json(WaitMode m, std::uint32_t spin_us) {
  return std::string(R"({"softnpu": {"cores": 2, "wait_policy": ")") + svp::wait_mode_name(m) +
         R"(", "spin_us": )" + std::to_string(spin_us) + "}}";
}

// Per policy: four application threads, each with its own stream, issue thousands of
// task + synchronize_stream pairs, interleaved with event record + synchronize_event,
// host callbacks served by a report thread, AI-CPU segments served by an AI-CPU thread
// (busy-wait and released-core variants) and synchronize_device. Every synchronize must
// return only after the work before it ran; a lost wake-up hangs (ctest timeout).
class WaitPolicyStress : public ::testing::TestWithParam<WaitMode> {};

TEST_P(WaitPolicyStress, EverySynchronizeCompletesAfterItsWork) {
  svp::test::TempConfig file(policy_json(GetParam(), 20));
  ASSERT_EQ(svp_acl_init(file.path()), SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
  ASSERT_EQ(svp_acl_rt_set_op_wait_timeout(60), SVP_ACL_SUCCESS);  // fail, don't hang
  ASSERT_EQ(svp_acl_rt_set_device(0), SVP_ACL_SUCCESS);
  svp_acl_rt_context ctx = nullptr;
  ASSERT_EQ(svp_acl_rt_get_current_context(&ctx), SVP_ACL_SUCCESS);

  std::atomic<bool> stop{false};
  std::atomic<int> service_errors{0};
  std::atomic<std::uint64_t> reporter_id{0};
  std::thread reporter([&] {
    reporter_id.store(static_cast<std::uint64_t>(pthread_self()));
    if (svp_acl_rt_set_current_context(ctx) != SVP_ACL_SUCCESS) service_errors.fetch_add(1);
    while (!stop.load()) {
      const svp_acl_error rc = svp_acl_rt_process_report(5);
      if (rc == SVP_ACL_ERROR_THREAD_NOT_SUBSCRIBE) {  // no stream subscribed at the moment
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      } else if (rc != SVP_ACL_SUCCESS && rc != SVP_ACL_ERROR_RT_REPORT_TIMEOUT && !stop.load()) {
        service_errors.fetch_add(1);
      }
    }
  });
  std::thread aicpu([&] {
    while (!stop.load()) {
      const svp_acl_error rc = svp_acl_ext_process_aicpu_task(5);
      if (rc != SVP_ACL_SUCCESS && rc != SVP_ACL_ERROR_RT_REPORT_TIMEOUT && !stop.load()) service_errors.fetch_add(1);
    }
  });
  while (reporter_id.load() == 0) std::this_thread::yield();

  constexpr int kThreads = 4;
  constexpr int kPairs = 4000;
  std::vector<std::thread> apps;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    apps.emplace_back([&, t] {
      auto fail = [&](const char* what, svp_acl_error rc) {
        ADD_FAILURE() << "thread " << t << ": " << what << " -> " << rc << " " << svp_acl_get_recent_err_msg();
        failures.fetch_add(1);
      };
      if (svp_acl_rt_set_current_context(ctx) != SVP_ACL_SUCCESS) return fail("set_context", 1);
      svp_acl_rt_stream s = nullptr;
      svp_acl_rt_event ev = nullptr;
      if (svp_acl_rt_create_stream(&s) != SVP_ACL_SUCCESS) return fail("create_stream", 1);
      if (svp_acl_rt_create_event(&ev) != SVP_ACL_SUCCESS) return fail("create_event", 1);
      const bool with_callbacks = t % 2 == 0;
      if (with_callbacks && svp_acl_rt_subscribe_report(reporter_id.load(), s) != SVP_ACL_SUCCESS) {
        return fail("subscribe_report", 1);
      }
      std::atomic<std::uint64_t> segments{0};
      std::atomic<std::uint64_t> callbacks{0};
      std::uint64_t want_segments = 0;
      std::uint64_t want_callbacks = 0;
      for (int i = 0; i < kPairs && failures.load() == 0; ++i) {
        svp_acl_ext_task_attr attr{};
        attr.priority = 3;
        std::uint32_t n = 1;
        if (i % 50 == 7) {  // an AI-CPU segment between two NPU ones
          n = 3;
          attr.aicpu_segment_mask = 0x2;
          attr.aicpu_busy_wait = (i / 50) % 2;
        }
        svp_acl_error rc = svp_acl_ext_launch_segmented_task(count_segment, &segments, n, &attr, s);
        if (rc != SVP_ACL_SUCCESS) return fail("launch_segmented_task", rc);
        want_segments += n;
        if (with_callbacks && i % 3 == 0) {
          rc = svp_acl_rt_launch_callback(count_callback, &callbacks,
                                          i % 2 ? SVP_ACL_CALLBACK_BLOCK : SVP_ACL_CALLBACK_NO_BLOCK, s);
          if (rc != SVP_ACL_SUCCESS) return fail("launch_callback", rc);
          ++want_callbacks;
        }
        if (i % 4 == 1) {
          if ((rc = svp_acl_rt_record_event(ev, s)) != SVP_ACL_SUCCESS) return fail("record_event", rc);
          if ((rc = svp_acl_rt_synchronize_event(ev)) != SVP_ACL_SUCCESS) return fail("synchronize_event", rc);
        } else if (i % 97 == 5) {
          if ((rc = svp_acl_rt_synchronize_device()) != SVP_ACL_SUCCESS) return fail("synchronize_device", rc);
        } else if ((rc = svp_acl_rt_synchronize_stream(s)) != SVP_ACL_SUCCESS) {
          return fail("synchronize_stream", rc);
        }
        // Work queued before a synchronize has run when it returns (NO_BLOCK callbacks
        // included: a barrier waits for them).
        if (segments.load() != want_segments || callbacks.load() != want_callbacks) {
          ADD_FAILURE() << "thread " << t << " pair " << i << ": " << segments.load() << "/" << want_segments
                        << " segments, " << callbacks.load() << "/" << want_callbacks << " callbacks";
          failures.fetch_add(1);
          return;
        }
      }
      if (with_callbacks) (void)svp_acl_rt_unsubscribe_report(reporter_id.load(), s);
      (void)svp_acl_rt_destroy_event(ev);
      (void)svp_acl_rt_destroy_stream(s);
    });
  }
  for (auto& a : apps) a.join();
  stop.store(true);
  reporter.join();
  aicpu.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(service_errors.load(), 0);
  EXPECT_EQ(svp_acl_finalize(), SVP_ACL_SUCCESS);
}

INSTANTIATE_TEST_SUITE_P(Policies, WaitPolicyStress, ::testing::ValuesIn(kAllModes),
                         [](const ::testing::TestParamInfo<WaitMode>& info) {
                           return std::string(svp::wait_mode_name(info.param));
                         });

// Runs `pairs` launch + synchronize_stream pairs on a fresh runtime configured with `json`
// and returns the process's wait statistics accumulated meanwhile.
svp::WaitStats run_pairs(const std::string& json, int pairs) {
  svp::test::TempConfig file(json);
  const svp::WaitStats before = svp::wait_stats();
  EXPECT_EQ(svp_acl_init(file.path()), SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
  EXPECT_EQ(svp_acl_rt_set_device(0), SVP_ACL_SUCCESS);
  svp_acl_rt_stream s = nullptr;
  EXPECT_EQ(svp_acl_rt_create_stream(&s), SVP_ACL_SUCCESS);
  std::atomic<std::uint64_t> segments{0};
  for (int i = 0; i < pairs; ++i) {
    EXPECT_EQ(svp_acl_ext_launch_segmented_task(count_segment, &segments, 1, nullptr, s), SVP_ACL_SUCCESS);
    EXPECT_EQ(svp_acl_rt_synchronize_stream(s), SVP_ACL_SUCCESS);
  }
  EXPECT_EQ(segments.load(), static_cast<std::uint64_t>(pairs));
  EXPECT_EQ(svp_acl_rt_destroy_stream(s), SVP_ACL_SUCCESS);
  EXPECT_EQ(svp_acl_finalize(), SVP_ACL_SUCCESS);
  const svp::WaitStats after = svp::wait_stats();
  return svp::WaitStats{after.waits - before.waits, after.spun - before.spun, after.sleeps - before.sleeps,
                        after.spin_ns - before.spin_ns};
}

// The one-CPU guarantee: with the process confined to one CPU (as `taskset -c 0` does),
// `auto` must sleep at once, because a spinner there only delays the thread it waits for.
TEST(WaitPolicyPlacement, AutoNeverSpinsWhenTheProcessMayUseOneCpu) {
  cpu_set_t saved;
  CPU_ZERO(&saved);
  ASSERT_EQ(sched_getaffinity(0, sizeof saved, &saved), 0);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(sched_getcpu(), &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  // The runtime's threads inherit the mask when created; this thread's cached CPU count
  // (common/waiter.h) is refreshed after 100 ms.
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  EXPECT_EQ(svp::allowed_cpu_count(), 1u);
  const svp::WaitStats st = run_pairs(R"({"softnpu": {"wait_policy": "auto", "spin_us": 1000}})", 300);
  ASSERT_EQ(sched_setaffinity(0, sizeof saved, &saved), 0);
  EXPECT_GT(st.waits, 0u);
  EXPECT_EQ(st.spun, 0u);
  EXPECT_EQ(st.spin_ns, 0u);
  EXPECT_EQ(st.sleeps, st.waits);
}

// With a CPU-bound thread on every CPU, a yield hands the CPU to one of them for a time
// slice; auto then stops yielding (for a second) rather than pay that on every wait.
TEST(WaitPolicyPlacement, AutoStopsYieldingOnceAYieldGaveTheCpuAwayForATimeSlice) {
  const unsigned cpus = svp::allowed_cpu_count();
  if (cpus < 2) GTEST_SKIP() << "auto sleeps at once on one CPU";
  ASSERT_FALSE(svp::waiter_yields_suspended());
  std::list<svp::test::CpuHog> hogs(cpus);  // CPU-bound until cleared
  std::mutex mu;
  svp::Waiter w;
  bool ready = false;
  std::thread waiter([&] {
    std::unique_lock<std::mutex> lock(mu);
    w.wait(lock, -1, WaitPolicy{WaitMode::kAuto, 1'000'000}, [&] { return ready; });  // yields for up to 1 s
  });
  for (int i = 0; i < 250 && !svp::waiter_yields_suspended(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  const bool suspended = svp::waiter_yields_suspended();
  {
    std::lock_guard<std::mutex> lock(mu);
    ready = true;
  }
  w.notify();
  waiter.join();
  hogs.clear();
  EXPECT_TRUE(suspended);
}

TEST(WaitPolicyPlacement, BlockNeverSpinsOnAnyPlacement) {
  const svp::WaitStats st = run_pairs(R"({"softnpu": {"wait_policy": "block"}})", 300);
  EXPECT_GT(st.waits, 0u);
  EXPECT_EQ(st.spun, 0u);
  EXPECT_EQ(st.spin_ns, 0u);
}

}  // namespace
