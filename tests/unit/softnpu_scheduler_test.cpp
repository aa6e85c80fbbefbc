// The software NPU device on virtual time: a single emulated core, segments that advance
// the clock, and a trace of which segment ran when. Asserts exact execution orders for
// priority arbitration, preemption at segment boundaries, resumption and promotion.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hal/fence.h"
#include "hal/softnpu/device.h"
#include "hal/softnpu/memory.h"
#include "test_support.h"

namespace svp::hal::softnpu {
namespace {

using svp::test::Gate;
using svp::test::LambdaTask;
using svp::test::VirtualClock;

constexpr TimeoutMs kWait = 10'000;

class SchedulerTest : public ::testing::Test {
 protected:
  SchedulerTest() : memory_(CacheMode::kEmulated) {
    BackendConfig cfg;
    cfg.clock = clock_;
    device_ = std::make_unique<SoftNpuDevice>(0, cfg, &memory_);
  }

  SqId sq() {
    auto id = device_->create_sq();
    EXPECT_TRUE(id.ok());
    return *id;
  }

  // A task named `name` of `segments` segments, each advancing virtual time by `ms`.
  std::shared_ptr<SegmentedTask> task(const std::string& name, std::size_t segments, double ms) {
    return std::make_shared<LambdaTask>(segments, [this, name, ms](std::size_t i, SegmentContext&) {
      trace(name + std::to_string(i));
      clock_->advance_ms(ms);
      return Status::Ok();
    });
  }

  // A task named `name` whose segment 0 holds the core until `gate` opens; every segment
  // advances virtual time by `ms`.
  std::shared_ptr<SegmentedTask> gated(const std::string& name, std::size_t segments, Gate& gate, double ms = 0) {
    return std::make_shared<LambdaTask>(segments, [this, name, &gate, ms](std::size_t i, SegmentContext&) {
      trace(name + std::to_string(i));
      if (i == 0) {
        gate.mark_entered();
        gate.wait();
      }
      clock_->advance_ms(ms);
      return Status::Ok();
    });
  }

  // A one-segment task that holds the core until `gate` opens.
  std::shared_ptr<SegmentedTask> blocker(Gate& gate, const std::string& name = "G") {
    return std::make_shared<LambdaTask>(1, [this, &gate, name](std::size_t, SegmentContext&) {
      trace(name);
      gate.mark_entered();
      gate.wait();
      return Status::Ok();
    });
  }

  void submit(SqId q, std::shared_ptr<SegmentedTask> t, TaskSettings s) {
    ASSERT_TRUE(device_->submit(q, Entry::Task(std::move(t), s)).ok());
  }

  void trace(const std::string& what) {
    std::lock_guard<std::mutex> lock(mu_);
    trace_.push_back(what);
  }
  std::vector<std::string> trace_copy() {
    std::lock_guard<std::mutex> lock(mu_);
    return trace_;
  }
  void drain() { ASSERT_TRUE(device_->synchronize_all(kWait).ok()); }

  static TaskSettings prio(int p, bool preemptible = false, bool preempt_enable = true) {
    TaskSettings s;
    s.priority = p;
    s.preemptible = preemptible;
    s.preempt_enable = preempt_enable;
    return s;
  }

  std::shared_ptr<VirtualClock> clock_ = std::make_shared<VirtualClock>();
  SoftMemory memory_;
  std::unique_ptr<SoftNpuDevice> device_;
  std::mutex mu_;
  std::vector<std::string> trace_;
};

using Trace = std::vector<std::string>;

TEST_F(SchedulerTest, WaitingTasksGetTheCoreInPriorityOrder) {
  const SqId q0 = sq(), q1 = sq(), q2 = sq(), q3 = sq();
  Gate gate;
  submit(q0, blocker(gate), prio(3));
  gate.entered_wait();
  submit(q1, task("A", 1, 1), prio(6));
  submit(q2, task("B", 1, 1), prio(1));
  submit(q3, task("C", 1, 1), prio(4));
  gate.open();
  drain();
  EXPECT_EQ(trace_copy(), (Trace{"G", "B0", "C0", "A0"}));
}

TEST_F(SchedulerTest, TasksOfOneStreamRunInSubmissionOrderWhateverTheirPriority) {
  const SqId q0 = sq(), q1 = sq();
  Gate gate;
  submit(q0, blocker(gate), prio(3));
  gate.entered_wait();
  submit(q1, task("A", 1, 1), prio(7));
  submit(q1, task("B", 1, 1), prio(0));  // behind A in its own queue
  gate.open();
  drain();
  EXPECT_EQ(trace_copy(), (Trace{"G", "A0", "B0"}));
}

TEST_F(SchedulerTest, EqualPriorityIsDecidedByWaitTicksThenSqId) {
  const SqId q0 = sq(), q1 = sq(), q2 = sq(), q3 = sq();
  Gate gate;
  submit(q0, blocker(gate), prio(3));
  gate.entered_wait();
  clock_->set_ms(10600.0);  // on the tick grid
  submit(q3, task("early", 1, 1), prio(3));   // waits longest: 2 ticks more
  clock_->advance_ms(25);
  submit(q2, task("late", 1, 1), prio(3));
  submit(q1, task("sametick", 1, 1), prio(3));  // same instant as "late", smaller SQ id
  clock_->advance_ms(40);
  gate.open();
  drain();
  EXPECT_EQ(trace_copy(), (Trace{"G", "early0", "sametick0", "late0"}));
}

TEST_F(SchedulerTest, AHigherPriorityTaskPreemptsAtTheNextSegmentBoundaryNotInside) {
  const SqId low = sq(), high = sq();
  Gate inside;
  bool high_started_inside = false;
  auto l = std::make_shared<LambdaTask>(4, [&](std::size_t i, SegmentContext&) {
    trace("L" + std::to_string(i) + "<");
    if (i == 0) {
      inside.mark_entered();
      inside.wait();  // the high task is submitted while segment 0 runs
      high_started_inside = trace_copy().back() != "L0<";
    }
    clock_->advance_ms(5);
    trace("L" + std::to_string(i) + ">");
    return Status::Ok();
  });
  submit(low, l, prio(5, /*preemptible=*/true));
  inside.entered_wait();
  submit(high, task("H", 2, 1), prio(1));
  inside.open();
  drain();
  EXPECT_FALSE(high_started_inside);
  EXPECT_EQ(trace_copy(), (Trace{"L0<", "L0>", "H0", "H1", "L1<", "L1>", "L2<", "L2>", "L3<", "L3>"}));
  EXPECT_EQ(device_->preemptions(), 1u);
}

TEST_F(SchedulerTest, NoPreemptionWhenTheRunningModelIsNotPreemptible) {
  const SqId low = sq(), high = sq();
  Gate inside;
  auto l = gated("L", 3, inside);
  submit(low, l, prio(5, /*preemptible=*/false));
  inside.entered_wait();
  submit(high, task("H", 1, 1), prio(1));
  inside.open();
  drain();
  EXPECT_EQ(trace_copy(), (Trace{"L0", "L1", "L2", "H0"}));
  EXPECT_EQ(device_->preemptions(), 0u);
}

TEST_F(SchedulerTest, NoPreemptionWhenTheWaitingModelHasPreemptionDisabled) {
  const SqId low = sq(), high = sq();
  Gate inside;
  auto l = gated("L", 3, inside);
  submit(low, l, prio(5, /*preemptible=*/true));
  inside.entered_wait();
  submit(high, task("H", 1, 1), prio(1, false, /*preempt_enable=*/false));
  inside.open();
  drain();
  EXPECT_EQ(trace_copy(), (Trace{"L0", "L1", "L2", "H0"}));
}

TEST_F(SchedulerTest, APreemptedTaskResumesOnlyAfterAllHigherPriorityWork) {
  const SqId low = sq(), h1 = sq(), h2 = sq(), mid = sq();
  Gate inside;
  auto l = gated("L", 3, inside);
  submit(low, l, prio(5, true));
  inside.entered_wait();
  submit(h1, task("A", 1, 1), prio(1));
  submit(h2, task("B", 1, 1), prio(2));
  submit(mid, task("C", 1, 1), prio(6));  // lower than L: must wait for L
  inside.open();
  drain();
  EXPECT_EQ(trace_copy(), (Trace{"L0", "A0", "B0", "L1", "L2", "C0"}));
}

TEST_F(SchedulerTest, APreemptedAndResumedTaskProducesTheSameResultAsAnUninterruptedRun) {
  // The task accumulates into device memory across segments; its context is the
  // segment index plus what it left in memory, exactly as a model's work_buf.
  auto run = [&](bool with_preemption) {
    void* out = *memory_.allocate(64, MemKind::kUncached, 0);
    const SqId low = sq(), high = sq();
    Gate inside;
    auto l = std::make_shared<LambdaTask>(8, [&, out](std::size_t i, SegmentContext& ctx) {
      auto p = ctx.memory->device_write(out, 64);
      if (!p.ok()) return p.status();
      for (int k = 0; k < 64; ++k) (*p)[k] = static_cast<std::uint8_t>((*p)[k] * 31 + i * 7 + k);
      if (i == 2) {
        inside.mark_entered();
        inside.wait();
      }
      return Status::Ok();
    });
    submit(low, l, prio(5, true));
    inside.entered_wait();
    if (with_preemption) submit(high, task("H", 1, 1), prio(0));
    inside.open();
    drain();
    std::vector<std::uint8_t> bytes(static_cast<std::uint8_t*>(out), static_cast<std::uint8_t*>(out) + 64);
    EXPECT_TRUE(memory_.release(out, {MemKind::kUncached}).ok());
    device_->destroy_sq(low);
    device_->destroy_sq(high);
    return bytes;
  };
  const auto plain = run(false);
  const std::uint64_t before = device_->preemptions();
  const auto preempted = run(true);
  EXPECT_EQ(device_->preemptions(), before + 1);
  EXPECT_EQ(plain, preempted);
}

TEST_F(SchedulerTest, StepPromotionLetsAStarvedTaskRunWithinItsBound) {
  // A steady flow of priority-2 tasks (30 ms each) would starve a priority-6 task
  // forever. With STEP = 100 ms it reaches level 2 after 400 ms; from then on it has
  // waited longer (since its last promotion) than each freshly issued flow task, so it
  // takes the core at the first boundary where its wait counter shows a tick more.
  const SqId busy = sq(), starved = sq();
  Gate start;
  submit(busy, blocker(start, "G"), prio(2));
  start.entered_wait();
  const hal::Nanos t0 = clock_->now();
  TaskSettings s = prio(6);
  s.step_timeout_ms = 100;
  hal::Nanos ran_at = 0;
  submit(starved, std::make_shared<LambdaTask>(1, [&](std::size_t, SegmentContext&) {
           ran_at = clock_->now();
           trace("S");
           return Status::Ok();
         }),
         s);
  for (int i = 0; i < 30; ++i) submit(busy, task("H", 1, 30), prio(2));
  start.open();
  drain();
  const double waited_ms = static_cast<double>(ran_at - t0) / 1e6;
  EXPECT_GE(waited_ms, 400.0);
  EXPECT_LE(waited_ms, 400.0 + 30.0 + 10.6);
  const Trace t = trace_copy();
  EXPECT_NE(t.back(), "S");  // it did not have to wait for the flow to end
}

TEST_F(SchedulerTest, TopPromotionLetsAStarvedTaskRunAfterItsTimeout) {
  const SqId busy = sq(), starved = sq();
  Gate start;
  submit(busy, blocker(start, "G"), prio(1));
  start.entered_wait();
  const hal::Nanos t0 = clock_->now();
  TaskSettings s = prio(7);
  s.top_timeout_ms = 200;
  hal::Nanos ran_at = 0;
  submit(starved, std::make_shared<LambdaTask>(1, [&](std::size_t, SegmentContext&) {
           ran_at = clock_->now();
           return Status::Ok();
         }),
         s);
  for (int i = 0; i < 30; ++i) submit(busy, task("H", 1, 30), prio(1));
  start.open();
  drain();
  const double waited_ms = static_cast<double>(ran_at - t0) / 1e6;
  EXPECT_GE(waited_ms, 200.0);
  EXPECT_LE(waited_ms, 230.0);
}

TEST_F(SchedulerTest, WithoutPromotionTheLowPriorityTaskWaitsForTheWholeFlow) {
  const SqId busy = sq(), starved = sq();
  Gate start;
  submit(busy, blocker(start, "G"), prio(2));
  start.entered_wait();
  submit(starved, task("S", 1, 1), prio(6));
  for (int i = 0; i < 10; ++i) submit(busy, task("H", 1, 30), prio(2));
  start.open();
  drain();
  EXPECT_EQ(trace_copy().back(), "S0");
}

TEST_F(SchedulerTest, PromotionCanTriggerPreemptionOfAPreemptibleTask) {
  // The running task is long and preemptible; the waiting one starts lower but is
  // promoted above it while it runs, and takes over at the next boundary.
  const SqId runner = sq(), waiter = sq();
  Gate inside;
  auto r = gated("R", 10, inside, 40);
  submit(runner, r, prio(3, true));
  inside.entered_wait();
  TaskSettings s = prio(5);
  s.top_timeout_ms = 100;
  submit(waiter, task("W", 1, 1), s);
  inside.open();
  drain();
  // Boundaries at +40, +80, +120 ms: at +120 the waiter is at level 0.
  EXPECT_EQ(trace_copy(), (Trace{"R0", "R1", "R2", "W0", "R3", "R4", "R5", "R6", "R7", "R8", "R9"}));
}

TEST_F(SchedulerTest, ErrorsOfATaskReachTheSynchronizeOfItsQueueOnly) {
  const SqId bad = sq(), good = sq();
  submit(bad, std::make_shared<LambdaTask>(2, [](std::size_t i, SegmentContext&) {
           return i == 1 ? Status(err::kRtFailure, "boom") : Status::Ok();
         }),
         prio(3));
  submit(good, task("ok", 1, 1), prio(3));
  const Status bad_status = device_->synchronize_sq(bad, kWait);
  EXPECT_EQ(bad_status.code(), err::kRtFailure);
  EXPECT_NE(bad_status.message().find("boom"), std::string::npos);
  EXPECT_TRUE(device_->synchronize_sq(good, kWait).ok());
  EXPECT_TRUE(device_->synchronize_sq(bad, kWait).ok()) << "the error is reported once";
}

TEST_F(SchedulerTest, TwoCoresRunTwoStreamsConcurrently) {
  BackendConfig cfg;
  cfg.cores = 2;
  SoftNpuDevice dev2(1, cfg, &memory_);
  const SqId a = *dev2.create_sq(), b = *dev2.create_sq();
  // Each task waits for the other to have started: only possible with two cores.
  Gate a_in, b_in;
  ASSERT_TRUE(dev2.submit(a, Entry::Task(std::make_shared<LambdaTask>(1, [&](std::size_t, SegmentContext&) {
                                           a_in.open();
                                           b_in.wait();
                                           return Status::Ok();
                                         }),
                                         prio(3)))
                  .ok());
  ASSERT_TRUE(dev2.submit(b, Entry::Task(std::make_shared<LambdaTask>(1, [&](std::size_t, SegmentContext&) {
                                           b_in.open();
                                           a_in.wait();
                                           return Status::Ok();
                                         }),
                                         prio(3)))
                  .ok());
  EXPECT_TRUE(dev2.synchronize_all(kWait).ok());
}

}  // namespace
}  // namespace svp::hal::softnpu
