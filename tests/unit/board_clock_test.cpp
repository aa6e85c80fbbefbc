// The board clock (acl.json softnpu.clock "board", docs/scheduling.md "Board clock"): device
// time advances by each segment's predicted board time, decisions are taken in board-time
// order, so the device's event order and board-time latencies do not depend on the host.
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "compiler/board_time.h"
#include "compiler/builder.h"
#include "model_io.h"
#include "runtime/config.h"
#include "target/device_profile.h"
#include "test_support.h"

namespace {

using svp::compiler::BuiltModel;
using svp::compiler::LayerOptions;
using svp::compiler::ModelBuilder;
using svp::compiler::TensorId;
using svp::model::DType;
using svp::test::ModelRun;
using svp::test::random_floats;

constexpr const char* kSoc = "SS928V100";

// `layers` × (conv3x3 c→c + relu), `per_segment` layers per segment; `depthwise`: each
// convolution per channel (the SVP timing model predicts those slow on the board and they
// are cheap on the host: a background that fills board time quickly).
BuiltModel conv_model(const std::string& name, int layers, std::int64_t c, std::int64_t hw, std::size_t per_segment,
                      bool preemptible, bool depthwise = false) {
  ModelBuilder b(name);
  TensorId t = b.add_input("x", DType::kFloat32, {1, c, hw, hw});
  LayerOptions conv;
  conv.attrs.set("kernel_shape", std::vector<std::int64_t>{3, 3});
  conv.attrs.set("pads", std::vector<std::int64_t>{1, 1, 1, 1});
  if (depthwise) conv.attrs.set("group", c);
  const std::int64_t cin = depthwise ? 1 : c;
  for (int i = 0; i < layers; ++i) {
    const TensorId w = b.add_constant("w" + std::to_string(i), {c, cin, 3, 3},
                                      random_floats(static_cast<std::size_t>(c * cin * 9), 7 + i, -0.3f, 0.3f));
    t = b.add_layer("conv" + std::to_string(i), "Conv", {t, w}, conv);
    t = b.add_layer("relu" + std::to_string(i), "Relu", {t});
  }
  b.add_output(t, "y");
  b.segment_every(per_segment);
  b.set_preemptible(preemptible);
  return std::move(*b.build());
}

// The prediction the runtime must follow, from the compiler's entry to the timing model,
// in whole nanoseconds per segment (the board clock's resolution).
struct Predicted {
  std::vector<std::int64_t> segment_ns;
  std::int64_t task_ns = 0;
  std::int64_t total_ns() const {
    std::int64_t t = task_ns;
    for (auto s : segment_ns) t += s;
    return t;
  }
  std::int64_t max_segment_ns() const { return *std::max_element(segment_ns.begin(), segment_ns.end()); }
};

Predicted predicted(const BuiltModel& m) {
  const auto t = svp::compiler::predict_board_time(m.program, *svp::target::find_profile(kSoc));
  Predicted p;
  for (double us : t.segment_us) p.segment_ns.push_back(std::llround(us * 1000.0));
  p.task_ns = std::llround(t.task_us * 1000.0);
  return p;
}

void set_priority(uint32_t id, int32_t priority) {
  svp_acl_mdl_config_handle* h = svp_acl_mdl_create_config_handle();
  ASSERT_ACL_OK(svp_acl_mdl_set_config_opt(h, SVP_ACL_MDL_PRIORITY_INT32, &priority, sizeof priority));
  ASSERT_ACL_OK(svp_acl_mdl_set_model_config(id, h));
  ASSERT_ACL_OK(svp_acl_mdl_destroy_config_handle(h));
}

std::string board_config(int kernel_threads, int cores = 1) {
  return "{\"softnpu\": {\"clock\": \"board\", \"soc_version\": \"" + std::string(kSoc) +
         "\", \"kernel_threads\": " + std::to_string(kernel_threads) + ", \"cores\": " + std::to_string(cores) + "}}";
}

// One device event: what it marks and its board time in ns after the start event.
struct Mark {
  std::string what;
  std::int64_t ns = 0;
  bool operator==(const Mark& o) const { return what == o.what && ns == o.ns; }
};

std::int64_t elapsed_ns(svp_acl_rt_event from, svp_acl_rt_event to) {
  float ms = 0;
  EXPECT_ACL_OK(svp_acl_rt_event_elapsed_time(&ms, from, to));
  return std::llround(static_cast<double>(ms) * 1e6);
}

// The priority co-run workload on the board clock: a foreground model released every 5 ms
// of board time at priority 0, a preemptible background model at priority 7 queued back
// to back (enough executions to keep the core busy past the last release). Everything is
// queued before a start event opens both streams, so the workload is fixed before the
// device runs (the board clock's determinism condition). Returns every event in device
// order, with the foreground's latencies (release to end).
struct CoRun {
  std::vector<Mark> order;
  std::vector<std::int64_t> fg_latency_ns;
  std::int64_t bg_done = 0;
};

void noop_callback(void*) {}

CoRun co_run(const BuiltModel& fg, const BuiltModel& bg, int kernel_threads, int cores, int fg_frames,
             int bg_runs) {
  CoRun out;
  svp::test::TempConfig cfg(board_config(kernel_threads, cores));
  EXPECT_ACL_OK(svp_acl_init(cfg.path()));
  EXPECT_ACL_OK(svp_acl_rt_set_device(0));
  {
    ModelRun f(fg.image);
    set_priority(f.id(), 0);
    // The background executions run one after another on one stream: one dataset serves
    // them all (its task_buf and work_buf are never used by two executions at once).
    ModelRun b(bg.image);
    set_priority(b.id(), 7);
    svp_acl_rt_stream fs = nullptr, bs = nullptr, gate = nullptr;
    EXPECT_ACL_OK(svp_acl_rt_create_stream(&fs));
    EXPECT_ACL_OK(svp_acl_rt_create_stream(&bs));
    EXPECT_ACL_OK(svp_acl_rt_create_stream(&gate));
    std::vector<svp_acl_rt_event> events;
    auto event = [&]() {
      svp_acl_rt_event e = nullptr;
      EXPECT_ACL_OK(svp_acl_rt_create_event(&e));
      events.push_back(e);
      return e;
    };
    // The gate: a blocking host callback this thread runs once everything is queued, then
    // the start event both streams wait for.
    EXPECT_ACL_OK(svp_acl_rt_subscribe_report(static_cast<uint64_t>(pthread_self()), gate));
    EXPECT_ACL_OK(svp_acl_rt_launch_callback(noop_callback, nullptr, SVP_ACL_CALLBACK_BLOCK, gate));
    svp_acl_rt_event start = event();
    EXPECT_ACL_OK(svp_acl_rt_record_event(start, gate));
    EXPECT_ACL_OK(svp_acl_rt_stream_wait_event(fs, start));
    EXPECT_ACL_OK(svp_acl_rt_stream_wait_event(bs, start));
    std::vector<std::pair<std::string, svp_acl_rt_event>> marks;
    std::vector<std::pair<svp_acl_rt_event, svp_acl_rt_event>> fg_spans;
    for (int k = 0; k < fg_frames; ++k) {
      EXPECT_ACL_OK(svp_acl_ext_stream_release_at(fs, static_cast<uint64_t>(k) * 5000));
      svp_acl_rt_event rel = event();
      svp_acl_rt_event end = event();
      EXPECT_ACL_OK(svp_acl_rt_record_event(rel, fs));
      EXPECT_ACL_OK(f.execute_async(fs));
      EXPECT_ACL_OK(svp_acl_rt_record_event(end, fs));
      marks.emplace_back("fg" + std::to_string(k) + "-release", rel);
      marks.emplace_back("fg" + std::to_string(k) + "-end", end);
      fg_spans.emplace_back(rel, end);
    }
    for (int j = 0; j < bg_runs; ++j) {
      svp_acl_rt_event end = event();
      EXPECT_ACL_OK(b.execute_async(bs));
      EXPECT_ACL_OK(svp_acl_rt_record_event(end, bs));
      marks.emplace_back("bg" + std::to_string(j) + "-end", end);
    }
    EXPECT_ACL_OK(svp_acl_rt_process_report(10000));  // opens the gate
    EXPECT_ACL_OK(svp_acl_rt_synchronize_stream(fs));
    EXPECT_ACL_OK(svp_acl_rt_synchronize_stream(bs));
    for (auto& [what, e] : marks) out.order.push_back(Mark{what, elapsed_ns(start, e)});
    std::stable_sort(out.order.begin(), out.order.end(), [](const Mark& x, const Mark& y) { return x.ns < y.ns; });
    for (auto& [rel, end] : fg_spans) out.fg_latency_ns.push_back(elapsed_ns(rel, end));
    EXPECT_ACL_OK(svp_acl_rt_unsubscribe_report(static_cast<uint64_t>(pthread_self()), gate));
    for (auto e : events) EXPECT_ACL_OK(svp_acl_rt_destroy_event(e));
    for (auto s : {fs, bs, gate}) EXPECT_ACL_OK(svp_acl_rt_destroy_stream(s));
  }
  EXPECT_ACL_OK(svp_acl_rt_reset_device(0));
  EXPECT_ACL_OK(svp_acl_finalize());
  return out;
}

// A thread that keeps one CPU busy while it lives (the host slowed down).
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

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace

namespace {

BuiltModel fg_model() { return conv_model("fg", 2, 16, 16, 1, false); }
BuiltModel bg_model() { return conv_model("bg", 8, 16, 32, 1, true, true); }

// Background executions that keep the core busy past the last foreground release.
int saturating_bg_runs(const Predicted& bg, int fg_frames) {
  return static_cast<int>(static_cast<std::int64_t>(fg_frames) * 5'000'000 / bg.total_ns()) + 2;
}

TEST(BoardClock, CoRunGivesTheSameDeviceOrderAndLatenciesWithOneAndTwoKernelThreadsAndUnderACpuHog) {
  const BuiltModel fg = fg_model();
  const BuiltModel bg = bg_model();
  const Predicted pf = predicted(fg);
  const Predicted pb = predicted(bg);
  constexpr int kFrames = 4;
  const int bg_runs = saturating_bg_runs(pb, kFrames);
  const CoRun one = co_run(fg, bg, 1, 1, kFrames, bg_runs);
  const CoRun two = co_run(fg, bg, 2, 1, kFrames, bg_runs);
  CoRun hog;
  {
    CpuHog h;
    hog = co_run(fg, bg, 2, 1, kFrames, bg_runs);
  }
  ASSERT_EQ(one.order.size(), static_cast<std::size_t>(2 * kFrames + bg_runs));
  EXPECT_EQ(one.order, two.order);
  EXPECT_EQ(one.order, hog.order);
  EXPECT_EQ(one.fg_latency_ns, two.fg_latency_ns);
  EXPECT_EQ(one.fg_latency_ns, hog.fg_latency_ns);
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
