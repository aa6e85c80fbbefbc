// Core masks on the software NPU's device (hal::TaskSettings::core_mask / core_split, what
// rknn_set_core_mask sets; docs/rknn.md "Multi-core"), on the board clock so that who ran
// when is decided in board-time order, not by the host: tasks bound to different cores
// overlap, tasks bound to one core take turns, a split task holds every core of its mask and
// takes 1/n of its board time, and each core's usage counts the segments it ran or was held for.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <vector>

#include "hal/softnpu/device.h"
#include "hal/softnpu/memory.h"
#include "test_support.h"

namespace svp::hal::softnpu {
namespace {

using svp::test::VirtualClock;

constexpr TimeoutMs kWait = 10'000;
constexpr Nanos kMs = 1'000'000;

// A task of `segments` segments, each predicted to take `board_ms` on the board and advancing
// the (virtual) host clock by 1 ms; it notes the emulated cores its segments ran on.
class CoreTask final : public SegmentedTask {
 public:
  CoreTask(std::size_t segments, Nanos board, VirtualClock* clock) : n_(segments), board_(board), clock_(clock) {}
  std::size_t segment_count() const override { return n_; }
  Nanos board_ns(std::size_t) const override { return board_; }
  Status run_segment(std::size_t, SegmentContext& ctx) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      cores_.push_back(ctx.core);
    }
    clock_->advance_ms(1);
    return Status::Ok();
  }
  std::vector<std::uint32_t> cores() {
    std::lock_guard<std::mutex> lock(mu_);
    return cores_;
  }

 private:
  std::size_t n_;
  Nanos board_;
  VirtualClock* clock_;
  std::mutex mu_;
  std::vector<std::uint32_t> cores_;
};

// Holds the start queue's blocking report until the test opens it.
class HoldingSink final : public ReportSink {
 public:
  bool deliver(SqId, ReportId) override { return true; }
  void discard(SqId, ReportId) override {}
};

class SoftNpuCoreMask : public ::testing::Test {
 protected:
  SoftNpuCoreMask() : memory_(CacheMode::kEmulated) {
    BackendConfig cfg;
    cfg.clock = clock_;
    cfg.cores = 3;  // RK3588's NPU
    cfg.board_clock = true;
    device_ = std::make_unique<SoftNpuDevice>(0, cfg, &memory_);
    device_->set_report_sink(&sink_);
    start_q_ = sq();
    start_ = event();
    // Everything queued behind `start_` arrives at the same board time, whatever the host.
    EXPECT_TRUE(device_->submit(start_q_, Entry::Report(1, true)).ok());
    EXPECT_TRUE(device_->submit(start_q_, Entry::Record(start_)).ok());
  }
  ~SoftNpuCoreMask() override { device_.reset(); }

  SqId sq() {
    auto id = device_->create_sq();
    EXPECT_TRUE(id.ok());
    return *id;
  }
  EventId event() {
    auto e = device_->create_event(true);
    EXPECT_TRUE(e.ok());
    return *e;
  }

  // Queues `task` on a queue of its own behind the start, bound to `mask`; returns the event
  // recorded when it ends.
  // `release`: the task arrives at that board time (0: with the start).
  // `priority` and `preemptible` as TaskSettings'.
  EventId queue(std::shared_ptr<CoreTask> task, std::uint32_t mask, bool split = false, Nanos release = 0,
                int priority = 3, bool preemptible = false) {
    const SqId q = sq();
    TaskSettings s;
    s.core_mask = mask;
    s.core_split = split;
    s.priority = priority;
    s.preemptible = preemptible;
    EXPECT_TRUE(device_->submit(q, Entry::Wait(start_)).ok());
    if (release != 0) {
      EXPECT_TRUE(device_->submit(q, Entry::Release(release)).ok());
    }
    EXPECT_TRUE(device_->submit(q, Entry::Task(std::move(task), s)).ok());
    const EventId done = event();
    EXPECT_TRUE(device_->submit(q, Entry::Record(done)).ok());
    return done;
  }

  std::shared_ptr<CoreTask> task(std::size_t segments, Nanos board) {
    return std::make_shared<CoreTask>(segments, board, clock_.get());
  }

  void go() {
    device_->complete_report(start_q_, 1);
    ASSERT_TRUE(device_->synchronize_all(kWait).ok());
  }

  // Board time from the start to `e`'s record.
  Nanos at(EventId e) {
    auto s = device_->query_event(start_);
    auto d = device_->query_event(e);
    EXPECT_TRUE(s.ok() && d.ok());
    EXPECT_EQ(d->state, EventState::kComplete);
    return d->timestamp - s->timestamp;
  }

  std::shared_ptr<VirtualClock> clock_ = std::make_shared<VirtualClock>();
  SoftMemory memory_;
  HoldingSink sink_;
  std::unique_ptr<SoftNpuDevice> device_;
  SqId start_q_ = 0;
  EventId start_ = 0;
};

TEST_F(SoftNpuCoreMask, TasksOnCore0AndCore1RunAtTheSameTime) {
  auto a = task(2, 1 * kMs), b = task(2, 1 * kMs);
  const EventId ea = queue(a, 1u << 0), eb = queue(b, 1u << 1);
  go();
  EXPECT_EQ(at(ea), 2 * kMs);
  EXPECT_EQ(at(eb), 2 * kMs);
  EXPECT_EQ(a->cores(), (std::vector<std::uint32_t>{0, 0}));
  EXPECT_EQ(b->cores(), (std::vector<std::uint32_t>{1, 1}));
}

TEST_F(SoftNpuCoreMask, TwoTasksOnCore0TakeTurnsWhileCores1And2StayIdle) {
  auto a = task(2, 1 * kMs), b = task(2, 1 * kMs);
  const EventId ea = queue(a, 1u << 0), eb = queue(b, 1u << 0);
  go();
  EXPECT_EQ(std::min(at(ea), at(eb)), 2 * kMs);
  EXPECT_EQ(std::max(at(ea), at(eb)), 4 * kMs);
  EXPECT_EQ(a->cores(), (std::vector<std::uint32_t>{0, 0}));
  EXPECT_EQ(b->cores(), (std::vector<std::uint32_t>{0, 0}));
  const auto usage = device_->core_usage(CoreUsage::kMaxWindow);
  ASSERT_EQ(usage.size(), 3u);
  EXPECT_EQ(usage[0].busy, 4 * kMs);  // four segments of 1 ms of (virtual) host time
  EXPECT_EQ(usage[1].busy, 0);
  EXPECT_EQ(usage[2].busy, 0);
}

TEST_F(SoftNpuCoreMask, AnyCoreTasksSpreadOverTheIdleCores) {
  auto a = task(1, 1 * kMs), b = task(1, 1 * kMs), c = task(1, 1 * kMs);
  const EventId ea = queue(a, 0), eb = queue(b, 0), ec = queue(c, 0);
  go();
  EXPECT_EQ(at(ea), 1 * kMs);
  EXPECT_EQ(at(eb), 1 * kMs);
  EXPECT_EQ(at(ec), 1 * kMs);
  std::vector<std::uint32_t> used{a->cores()[0], b->cores()[0], c->cores()[0]};
  std::sort(used.begin(), used.end());
  EXPECT_EQ(used, (std::vector<std::uint32_t>{0, 1, 2}));
}

TEST_F(SoftNpuCoreMask, ASplitTaskOnCores012HoldsAllThreeAndTakesAThirdOfItsBoardTime) {
  auto s = task(3, 3 * kMs);  // 9 ms on one core
  auto x = task(1, 1 * kMs);  // bound to core 1, which the split task holds
  const EventId es = queue(s, 0b111, true), ex = queue(x, 1u << 1);
  go();
  EXPECT_EQ(at(es), 3 * kMs);
  EXPECT_EQ(at(ex), 4 * kMs) << "the core-1 task waited for the split task to let go of core 1";
  EXPECT_EQ(s->cores(), (std::vector<std::uint32_t>{0, 0, 0})) << "the lead core runs the segments";
  const auto usage = device_->core_usage(CoreUsage::kMaxWindow);
  ASSERT_EQ(usage.size(), 3u);
  EXPECT_EQ(usage[0].busy, 3 * kMs);
  EXPECT_EQ(usage[1].busy, 4 * kMs);
  EXPECT_EQ(usage[2].busy, 3 * kMs);
}

TEST_F(SoftNpuCoreMask, ASplitTaskOnCores01LeavesCore2ToOthers) {
  auto s = task(2, 2 * kMs);
  auto y = task(2, 1 * kMs);
  const EventId es = queue(s, 0b011, true), ey = queue(y, 1u << 2);
  go();
  EXPECT_EQ(at(es), 2 * kMs);
  EXPECT_EQ(at(ey), 2 * kMs);
  EXPECT_EQ(y->cores(), (std::vector<std::uint32_t>{2, 2}));
}

TEST_F(SoftNpuCoreMask, ASplitTaskStartsWhenTheLastOfItsCoresIsFree) {
  auto x = task(1, 2 * kMs);  // core 1 until 2 ms
  auto s = task(2, 2 * kMs);  // 4 ms on one core, 2 ms on two
  const EventId ex = queue(x, 1u << 1);
  const EventId es = queue(s, 0b011, true, 1 * kMs);  // arrives at 1 ms: core 0 idle, core 1 busy
  go();
  ASSERT_EQ(at(start_), 0);
  EXPECT_EQ(at(ex), 2 * kMs);
  EXPECT_EQ(at(es), 4 * kMs) << "started at 2 ms, when core 1 became free, not at its 1 ms arrival";
}

TEST_F(SoftNpuCoreMask, AHigherPriorityTaskOnAHeldCorePreemptsTheSplitTask) {
  auto r = task(3, 3 * kMs);  // split over three cores: boundaries at 1, 2 and 3 ms
  auto p = task(1, 1 * kMs);
  const EventId er = queue(r, 0b111, true, 0, 7, true);
  const EventId ep = queue(p, 1u << 2, false, 1'500'000, 0);  // core 2, held by the split task
  go();
  ASSERT_EQ(at(start_), 0);
  EXPECT_EQ(at(ep), 3 * kMs) << "ran from the split task's 2 ms boundary";
  EXPECT_EQ(at(er), 4 * kMs) << "its last segment waited for all three cores";
}

TEST_F(SoftNpuCoreMask, CoreUsageOnTheBoardClockIsBusyBoardTimeOverElapsedBoardTime) {
  // Board time differs from the (virtual) host time here: 3 ms and 2 ms per segment on the
  // board, 1 ms of host time each. svp_acl_query_status divides busy by window.
  auto a = task(2, 3 * kMs), b = task(1, 2 * kMs);
  const EventId ea = queue(a, 1u << 0), eb = queue(b, 1u << 1);
  go();
  ASSERT_EQ(at(ea), 6 * kMs);
  ASSERT_EQ(at(eb), 2 * kMs);
  const auto usage = device_->core_usage(CoreUsage::kMaxWindow);
  ASSERT_EQ(usage.size(), 3u);
  for (const auto& u : usage) EXPECT_EQ(u.window, 6 * kMs) << "the board time the device reached";
  EXPECT_EQ(usage[0].busy, 6 * kMs);
  EXPECT_EQ(usage[1].busy, 2 * kMs);
  EXPECT_EQ(usage[2].busy, 0);
}

TEST_F(SoftNpuCoreMask, MaskBitsBeyondTheDevicesCoresAreIgnored) {
  auto a = task(1, 1 * kMs), b = task(1, 1 * kMs);
  // Core 3 does not exist: the first runs on core 0; the second has no core left in its
  // mask and runs on any idle core.
  const EventId ea = queue(a, 0b1001), eb = queue(b, 1u << 5);
  go();
  EXPECT_EQ(at(ea), 1 * kMs);
  EXPECT_EQ(at(eb), 1 * kMs);
  EXPECT_EQ(a->cores(), (std::vector<std::uint32_t>{0}));
  EXPECT_NE(b->cores(), (std::vector<std::uint32_t>{0}));
}

}  // namespace
}  // namespace svp::hal::softnpu
