// The board clock (acl.json softnpu.clock "board", docs/scheduling.md "Board clock"): device
// time advances by each segment's predicted board time, decisions are taken in board-time
// order, so the device's event order and board-time latencies do not depend on the host.
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include <sched.h>

#include <chrono>
#include <thread>

#include "board_corun.h"
#include "runtime/config.h"

using namespace svp::test::board;  // NOLINT: the co-run workload's vocabulary

namespace {

// Runs `f` with the process (and the threads it starts) allowed on one CPU only.
template <typename F>
auto pinned_to_one_cpu(F f) {
  cpu_set_t before;
  CPU_ZERO(&before);
  EXPECT_EQ(sched_getaffinity(0, sizeof before, &before), 0);
  int first = 0;
  while (first < CPU_SETSIZE && !CPU_ISSET(first, &before)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  EXPECT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  auto result = f();
  EXPECT_EQ(sched_setaffinity(0, sizeof before, &before), 0);
  return result;
}

TEST(BoardClock, CoRunGivesTheSameDeviceOrderAndLatenciesWithOneAndTwoKernelThreadsPinnedAndUnderACpuHog) {
  const BuiltModel fg = fg_model();
  const BuiltModel bg = bg_model();
  const Predicted pf = predicted(fg);
  const Predicted pb = predicted(bg);
  constexpr int kFrames = 3;
  const int bg_runs = saturating_bg_runs(pb, kFrames);
  const CoRun one = co_run(fg, bg, 1, 1, kFrames, bg_runs);
  const CoRun two = co_run(fg, bg, 2, 1, kFrames, bg_runs);
  CoRun hog;
  {
    CpuHog h;
    hog = co_run(fg, bg, 2, 1, kFrames, bg_runs);
  }
  const CoRun pinned = pinned_to_one_cpu([&] { return co_run(fg, bg, 1, 1, kFrames, bg_runs); });
  ASSERT_EQ(one.order.size(), static_cast<std::size_t>(2 * kFrames + bg_runs));
  EXPECT_EQ(one.order, two.order);
  EXPECT_EQ(one.order, hog.order);
  EXPECT_EQ(one.fg_latency_ns, two.fg_latency_ns);
  EXPECT_EQ(one.fg_latency_ns, hog.fg_latency_ns);
  EXPECT_EQ(one.order, pinned.order);
  EXPECT_EQ(one.fg_latency_ns, pinned.fg_latency_ns);
  // Values from the timing model: a foreground frame takes its predicted time, plus at most
  // the rest of the background segment in flight when it was released (preemption waits for
  // the segment boundary). Elapsed times come as float milliseconds: 1 us of slack.
  bool waited = false;
  for (std::size_t k = 0; k < one.fg_latency_ns.size(); ++k) {
    const std::int64_t lat = one.fg_latency_ns[k];
    EXPECT_GE(lat, pf.total_ns() - 1000) << "frame " << k;
    EXPECT_LE(lat, pf.total_ns() + pb.max_segment_ns() + pb.task_ns + 1000) << "frame " << k;
    if (lat > pf.total_ns() + 1000) waited = true;
  }
  EXPECT_TRUE(waited) << "no frame waited for a background segment: the workload did not co-run";
  // Frame k is released at k x 5 ms of board time: its release mark says so.
  for (const Mark& m : one.order) {
    if (m.what == "fg2-release") {
      EXPECT_NEAR(static_cast<double>(m.ns), 10e6, 1000);
    }
  }
  // The background ran back to back, each execution its predicted time apart, except where
  // a foreground frame ran in between.
  std::vector<std::int64_t> bg_end;
  for (const Mark& m : one.order) {
    if (m.what.rfind("bg", 0) == 0) bg_end.push_back(m.ns);
  }
  ASSERT_GE(bg_end.size(), 2u);
  // Both arrive at 0: the foreground's first frame goes first (priority 0).
  EXPECT_NEAR(static_cast<double>(bg_end[0]), static_cast<double>(pf.total_ns() + pb.total_ns()), 1000);
  int plain = 0;
  for (std::size_t j = 1; j < bg_end.size(); ++j) {
    const std::int64_t gap = bg_end[j] - bg_end[j - 1];
    if (std::llabs(gap - pb.total_ns()) <= 1000) ++plain;
    EXPECT_GE(gap, pb.total_ns() - 1000);
  }
  EXPECT_GE(plain, static_cast<int>(bg_end.size()) - 1 - kFrames);
}

TEST(BoardClock, TwoCoresGiveTheSameDeviceOrderWithOneAndTwoKernelThreads) {
  const BuiltModel fg = fg_model();
  const BuiltModel bg = bg_model();
  constexpr int kFrames = 3;
  const int bg_runs = 2 * saturating_bg_runs(predicted(bg), kFrames);
  const CoRun one = co_run(fg, bg, 1, 2, kFrames, bg_runs);
  const CoRun two = co_run(fg, bg, 2, 2, kFrames, bg_runs);
  EXPECT_EQ(one.order, two.order);
  EXPECT_EQ(one.fg_latency_ns, two.fg_latency_ns);
}

class BoardClockTest : public svp::test::RuntimeTest {
 protected:
  std::string config_json() const override { return board_config(1); }
};

TEST_F(BoardClockTest, ElapsedTimeAroundOneExecutionIsThePredictedBoardTime) {
  const BuiltModel m = bg_model();
  const Predicted p = predicted(m);
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  {
    ModelRun run(m.image);
    svp_acl_rt_stream s = nullptr;
    ASSERT_ACL_OK(svp_acl_rt_create_stream(&s));
    svp_acl_rt_event a = nullptr, b = nullptr;
    ASSERT_ACL_OK(svp_acl_rt_create_event(&a));
    ASSERT_ACL_OK(svp_acl_rt_create_event(&b));
    for (int rep = 0; rep < 2; ++rep) {  // the second starts where the first ended
      ASSERT_ACL_OK(svp_acl_rt_record_event(a, s));
      ASSERT_ACL_OK(run.execute_async(s));
      ASSERT_ACL_OK(svp_acl_rt_record_event(b, s));
      ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(s));
      float ms = 0;
      ASSERT_ACL_OK(svp_acl_rt_event_elapsed_time(&ms, a, b));
      // float milliseconds: relative precision 6e-8, far below a nanosecond here.
      EXPECT_NEAR(static_cast<double>(ms) * 1e6, static_cast<double>(p.total_ns()), 2.0) << "rep " << rep;
    }
    ASSERT_ACL_OK(svp_acl_rt_destroy_event(a));
    ASSERT_ACL_OK(svp_acl_rt_destroy_event(b));
    ASSERT_ACL_OK(svp_acl_rt_destroy_stream(s));
  }
  ASSERT_ACL_OK(svp_acl_rt_reset_device(0));
}

TEST_F(BoardClockTest, AReleaseHoldsTheStreamUntilThatBoardTime) {
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  svp_acl_rt_stream s = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_stream(&s));
  svp_acl_rt_event a = nullptr, b = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_event(&a));
  ASSERT_ACL_OK(svp_acl_rt_create_event(&b));
  ASSERT_ACL_OK(svp_acl_rt_record_event(a, s));
  ASSERT_ACL_OK(svp_acl_ext_stream_release_at(s, 2500));
  ASSERT_ACL_OK(svp_acl_rt_record_event(b, s));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(s));
  float ms = 0;
  ASSERT_ACL_OK(svp_acl_rt_event_elapsed_time(&ms, a, b));
  EXPECT_FLOAT_EQ(ms, 2.5f);
  // A release in the past does not hold the stream.
  ASSERT_ACL_OK(svp_acl_rt_record_event(a, s));
  ASSERT_ACL_OK(svp_acl_ext_stream_release_at(s, 1000));
  ASSERT_ACL_OK(svp_acl_rt_record_event(b, s));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(s));
  ASSERT_ACL_OK(svp_acl_rt_event_elapsed_time(&ms, a, b));
  EXPECT_FLOAT_EQ(ms, 0.0f);
  ASSERT_ACL_OK(svp_acl_rt_destroy_event(a));
  ASSERT_ACL_OK(svp_acl_rt_destroy_event(b));
  ASSERT_ACL_OK(svp_acl_rt_destroy_stream(s));
  ASSERT_ACL_OK(svp_acl_rt_reset_device(0));
}

// svp_acl_query_status on the board clock: busy board time over elapsed board time, per core
// (docs/scheduling.md "What reports board time"). The device's board clock starts at 0; a
// release holds the stream for R us of board time during which the core is idle.
TEST_F(BoardClockTest, QueryStatusGivesTheBusyFractionOfBoardTime) {
  const BuiltModel m = bg_model();
  const Predicted p = predicted(m);
  ASSERT_LT(3 * p.total_ns(), 1'000'000'000) << "the workload must fit in query_status's 1 s window";
  const std::int64_t idle_us = p.total_ns() / 1000;  // idle for about one execution's time
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  {
    ModelRun run(m.image);
    svp_acl_rt_stream s = nullptr;
    ASSERT_ACL_OK(svp_acl_rt_create_stream(&s));
    ASSERT_ACL_OK(svp_acl_ext_stream_release_at(s, static_cast<std::uint64_t>(idle_us)));
    ASSERT_ACL_OK(run.execute_async(s));
    ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(s));
    svp_acl_status st{};
    ASSERT_ACL_OK(svp_acl_query_status(&st));
    const double busy = static_cast<double>(p.total_ns());
    const double idle = static_cast<double>(idle_us) * 1000.0;
    EXPECT_EQ(st.hw_utilization[0], static_cast<std::uint32_t>(std::lround(100.0 * busy / (idle + busy))));
    EXPECT_NEAR(st.hw_utilization[0], 50.0, 1.0);
    {
      // A second execution starts where the device's clock stands: host time between the
      // submissions (stretched here by a CPU hog) is not board time.
      CpuHog hog;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      ASSERT_ACL_OK(run.execute_async(s));
      ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(s));
    }
    ASSERT_ACL_OK(svp_acl_query_status(&st));
    EXPECT_EQ(st.hw_utilization[0], static_cast<std::uint32_t>(std::lround(100.0 * 2 * busy / (idle + 2 * busy))));
    ASSERT_ACL_OK(svp_acl_rt_destroy_stream(s));
  }
  ASSERT_ACL_OK(svp_acl_rt_reset_device(0));
}

TEST(BoardClockConfig, AnUnknownClockIsRefusedNamingTheAllowedValues) {
  auto bad = svp::runtime::parse_config(R"({"softnpu": {"clock": "wall"}})", "acl.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), SVP_ACL_ERROR_FILE_ATTR_INVALID);
  EXPECT_NE(bad.status().message().find("\"host\""), std::string::npos) << bad.status().message();
  EXPECT_NE(bad.status().message().find("\"board\""), std::string::npos) << bad.status().message();
  EXPECT_NE(bad.status().message().find("\"wall\""), std::string::npos) << bad.status().message();
  EXPECT_FALSE(svp::runtime::parse_config(R"({"softnpu": {"clock": 1}})", "acl.json").ok());
  svp::test::TempConfig cfg(R"({"softnpu": {"clock": "Board"}})");
  EXPECT_EQ(svp_acl_init(cfg.path()), SVP_ACL_ERROR_FILE_ATTR_INVALID);
}

TEST(BoardClockConfig, HostIsTheDefaultAndBoardIsAccepted) {
  auto def = svp::runtime::parse_config("{}", "acl.json");
  ASSERT_TRUE(def.ok());
  EXPECT_FALSE(def->backend.board_clock);
  auto host = svp::runtime::parse_config(R"({"softnpu": {"clock": "host"}})", "acl.json");
  ASSERT_TRUE(host.ok());
  EXPECT_FALSE(host->backend.board_clock);
  auto board = svp::runtime::parse_config(R"({"softnpu": {"clock": "board", "soc_version": "Hi3516CV610"}})", "a");
  ASSERT_TRUE(board.ok());
  EXPECT_TRUE(board->backend.board_clock);
  EXPECT_EQ(board->backend.board_target, "Hi3516CV610");
}

class HostClockTest : public svp::test::RuntimeTest {};

TEST_F(HostClockTest, AReleaseAtABoardTimeIsRefusedOnTheHostClock) {
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  svp_acl_rt_stream s = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_stream(&s));
  EXPECT_EQ(svp_acl_ext_stream_release_at(s, 1000), SVP_ACL_ERROR_FEATURE_UNSUPPORTED);
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("clock"), std::string::npos);
  ASSERT_ACL_OK(svp_acl_rt_destroy_stream(s));
  ASSERT_ACL_OK(svp_acl_rt_reset_device(0));
}

}  // namespace

namespace {

// TOP promotion follows the board clock: a priority-7 execution behind a saturating
// priority-3 load (not preemptible, back to back from board time 0) is promoted to 0 once
// 20 ms of board time have passed, and takes the core at the first load execution's end
// after that: at ceil(20 ms / T) x T, T the load's predicted time.
TEST(BoardClock, TopPromotionHappensAtTheBoardTimeTheTimeoutGives) {
  const BuiltModel load_m = conv_model("load", 8, 16, 32, 1, false, true);
  const BuiltModel low_m = fg_model();
  const std::int64_t t_load = predicted(load_m).total_ns();
  const std::int64_t t_low = predicted(low_m).total_ns();
  constexpr std::int64_t kTimeout = 20'000'000;
  const int runs = static_cast<int>(2 * kTimeout / t_load) + 2;
  svp::test::TempConfig cfg(board_config(1));
  ASSERT_ACL_OK(svp_acl_init(cfg.path()));
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  {
    ModelRun load(load_m.image);
    ModelRun low(low_m.image);
    set_priority(load.id(), 3);
    svp_acl_mdl_config_handle* h = svp_acl_mdl_create_config_handle();
    const int32_t seven = 7;
    const uint32_t top_ms = kTimeout / 1'000'000;
    ASSERT_ACL_OK(svp_acl_mdl_set_config_opt(h, SVP_ACL_MDL_PRIORITY_INT32, &seven, sizeof seven));
    ASSERT_ACL_OK(svp_acl_mdl_set_config_opt(h, SVP_ACL_MDL_PRIORITY_UP_TOP_TIMEOUT_UINT32, &top_ms, sizeof top_ms));
    ASSERT_ACL_OK(svp_acl_mdl_set_model_config(low.id(), h));
    ASSERT_ACL_OK(svp_acl_mdl_destroy_config_handle(h));
    svp_acl_rt_stream ls = nullptr, ws = nullptr, gate = nullptr;
    ASSERT_ACL_OK(svp_acl_rt_create_stream(&ls));
    ASSERT_ACL_OK(svp_acl_rt_create_stream(&ws));
    ASSERT_ACL_OK(svp_acl_rt_create_stream(&gate));
    svp_acl_rt_event start = nullptr, low_end = nullptr;
    ASSERT_ACL_OK(svp_acl_rt_create_event(&start));
    ASSERT_ACL_OK(svp_acl_rt_create_event(&low_end));
    ASSERT_ACL_OK(svp_acl_rt_subscribe_report(static_cast<uint64_t>(pthread_self()), gate));
    ASSERT_ACL_OK(svp_acl_rt_launch_callback(noop_callback, nullptr, SVP_ACL_CALLBACK_BLOCK, gate));
    ASSERT_ACL_OK(svp_acl_rt_record_event(start, gate));
    ASSERT_ACL_OK(svp_acl_rt_stream_wait_event(ls, start));
    ASSERT_ACL_OK(svp_acl_rt_stream_wait_event(ws, start));
    for (int k = 0; k < runs; ++k) ASSERT_ACL_OK(load.execute_async(ls));
    ASSERT_ACL_OK(low.execute_async(ws));
    ASSERT_ACL_OK(svp_acl_rt_record_event(low_end, ws));
    ASSERT_ACL_OK(svp_acl_rt_process_report(10000));
    ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(ws));
    ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(ls));
    const std::int64_t promoted_start = (kTimeout + t_load - 1) / t_load * t_load;
    EXPECT_NEAR(static_cast<double>(elapsed_ns(start, low_end)), static_cast<double>(promoted_start + t_low), 2000);
    ASSERT_ACL_OK(svp_acl_rt_unsubscribe_report(static_cast<uint64_t>(pthread_self()), gate));
    ASSERT_ACL_OK(svp_acl_rt_destroy_event(start));
    ASSERT_ACL_OK(svp_acl_rt_destroy_event(low_end));
    for (auto s : {ls, ws, gate}) ASSERT_ACL_OK(svp_acl_rt_destroy_stream(s));
  }
  ASSERT_ACL_OK(svp_acl_rt_reset_device(0));
  ASSERT_ACL_OK(svp_acl_finalize());
}

}  // namespace
