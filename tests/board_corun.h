// The priority co-run workload on the board clock (docs/scheduling.md "Board clock"), shared
// by tests/unit/board_clock_test.cpp and its stress variant: models, the timing model's
// prediction for them, and one co-run returning the device's event order.
#pragma once

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "compiler/board_time.h"
#include "cpu_hog.h"
#include "compiler/builder.h"
#include "model_io.h"
#include "target/device_profile.h"
#include "test_support.h"

namespace svp::test::board {

using svp::compiler::BuiltModel;
using svp::compiler::LayerOptions;
using svp::compiler::ModelBuilder;
using svp::compiler::TensorId;
using svp::model::DType;
using svp::test::ModelRun;
using svp::test::random_floats;

inline constexpr const char* kSoc = "SS928V100";

// `layers` × (conv3x3 c→c + relu), `per_segment` layers per segment; `depthwise`: each
// convolution per channel (the SVP timing model predicts those slow on the board and they
// are cheap on the host: a background that fills board time quickly).
inline BuiltModel conv_model(const std::string& name, int layers, std::int64_t c, std::int64_t hw, std::size_t per_segment,
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

inline Predicted predicted(const BuiltModel& m) {
  const auto t = svp::compiler::predict_board_time(m.program, *svp::target::find_profile(kSoc));
  Predicted p;
  for (double us : t.segment_us) p.segment_ns.push_back(std::llround(us * 1000.0));
  p.task_ns = std::llround(t.task_us * 1000.0);
  return p;
}

inline void set_priority(uint32_t id, int32_t priority) {
  svp_acl_mdl_config_handle* h = svp_acl_mdl_create_config_handle();
  ASSERT_ACL_OK(svp_acl_mdl_set_config_opt(h, SVP_ACL_MDL_PRIORITY_INT32, &priority, sizeof priority));
  ASSERT_ACL_OK(svp_acl_mdl_set_model_config(id, h));
  ASSERT_ACL_OK(svp_acl_mdl_destroy_config_handle(h));
}

inline std::string board_config(int kernel_threads, int cores = 1) {
  return "{\"softnpu\": {\"clock\": \"board\", \"soc_version\": \"" + std::string(kSoc) +
         "\", \"kernel_threads\": " + std::to_string(kernel_threads) + ", \"cores\": " + std::to_string(cores) + "}}";
}

// One device event: what it marks and its board time in ns after the start event.
struct Mark {
  std::string what;
  std::int64_t ns = 0;
  bool operator==(const Mark& o) const { return what == o.what && ns == o.ns; }
};

inline std::int64_t elapsed_ns(svp_acl_rt_event from, svp_acl_rt_event to) {
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

inline void noop_callback(void*) {}

inline CoRun co_run(const BuiltModel& fg, const BuiltModel& bg, int kernel_threads, int cores, int fg_frames,
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

using test::CpuHog;

// The workload's two models: a short foreground and a preemptible background of depthwise
// convolutions (predicted slow on SVP targets, cheap on the host: board time fills quickly).
inline BuiltModel fg_model() { return conv_model("fg", 2, 16, 16, 1, false); }
inline BuiltModel bg_model() { return conv_model("bg", 8, 16, 32, 1, true, true); }

// Background executions that keep the core busy past the last foreground release.
inline int saturating_bg_runs(const Predicted& bg, int fg_frames) {
  return static_cast<int>(static_cast<std::int64_t>(fg_frames) * 5'000'000 / bg.total_ns()) + 2;
}

}  // namespace svp::test::board
