// The priority arbiter alone, on virtual time: exact choices for every rule of
// SCHEDULING.md (priority, 10.6 ms wait ticks with the 32-tick cap, SQ-id tie-break,
// preemption eligibility, STEP/TOP promotion and its wait reset).
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "hal/softnpu/arbiter.h"

namespace svp::hal::softnpu {
namespace {

constexpr Nanos kMs = 1'000'000;
constexpr Nanos kTick = 10'600'000;
// An instant exactly on the tick grid, so tests can place tasks inside tick windows.
constexpr Nanos kT0 = 100 * kTick;

class ArbiterTest : public ::testing::Test {
 protected:
  Contender* add(SqId sq, int priority, Nanos at, TaskSettings s = {}) {
    auto c = std::make_unique<Contender>();
    c->sq = sq;
    s.priority = priority;
    c->settings = s;
    arbiter_.add(c.get(), priority, at);
    owned_.push_back(std::move(c));
    return owned_.back().get();
  }
  // Drains the arbiter at `now`, returning SQ ids in the order they would get a core.
  std::vector<SqId> order(Nanos now) {
    std::vector<SqId> out;
    while (Contender* c = arbiter_.best(now)) {
      out.push_back(c->sq);
      arbiter_.remove(c);
    }
    return out;
  }

  Arbiter arbiter_{ArbiterConfig{kTick, 32}};
  std::vector<std::unique_ptr<Contender>> owned_;
};

TEST_F(ArbiterTest, SmallerPriorityNumberIsScheduledFirst) {
  add(1, 5, kT0);
  add(2, 1, kT0);
  add(3, 3, kT0);
  add(4, 7, kT0);
  add(5, 0, kT0);
  EXPECT_EQ(order(kT0), (std::vector<SqId>{5, 2, 3, 1, 4}));
}

TEST_F(ArbiterTest, AtEqualPriorityTheLongerWaitingTaskWinsOverASmallerSqId) {
  add(7, 3, kT0);              // waits from the start of a tick window
  add(1, 3, kT0 + 25 * kMs);  // smaller SQ id, but 2 ticks later
  EXPECT_EQ(arbiter_.wait_ticks(*owned_[0], kT0 + 30 * kMs), 2u);
  EXPECT_EQ(arbiter_.wait_ticks(*owned_[1], kT0 + 30 * kMs), 0u);
  EXPECT_EQ(order(kT0 + 30 * kMs), (std::vector<SqId>{7, 1}));
}

TEST_F(ArbiterTest, TasksIssuedLessThanOneTickApartInOneTickWindowCountAsEqualAndSqIdDecides) {
  add(5, 3, kT0 + 1 * kMs);  // waited 8 ms longer ...
  add(2, 3, kT0 + 9 * kMs);  // ... but the hardware counter cannot tell
  const Nanos now = kT0 + 50 * kMs;
  EXPECT_EQ(arbiter_.wait_ticks(*owned_[0], now), arbiter_.wait_ticks(*owned_[1], now));
  EXPECT_EQ(order(now), (std::vector<SqId>{2, 5}));
}

TEST_F(ArbiterTest, TasksLessThanOneTickApartAcrossATickBoundaryAreDistinguished) {
  // 3 ms apart, but a tick boundary (at T0 + 10.6 ms) lies between them.
  add(5, 3, kT0 + 9 * kMs);
  add(2, 3, kT0 + 12 * kMs);
  EXPECT_EQ(order(kT0 + 50 * kMs), (std::vector<SqId>{5, 2}));
}

TEST_F(ArbiterTest, WaitsAtOrBeyondTheCapOf339msCountAsEqual) {
  add(7, 3, kT0);               // waited 500 ms
  add(1, 3, kT0 + 100 * kMs);  // waited 400 ms: both saturate at 32 ticks
  const Nanos now = kT0 + 500 * kMs;
  EXPECT_EQ(arbiter_.wait_ticks(*owned_[0], now), 32u);
  EXPECT_EQ(arbiter_.wait_ticks(*owned_[1], now), 32u);
  EXPECT_EQ(order(now), (std::vector<SqId>{1, 7}));
}

TEST_F(ArbiterTest, AWaitJustBelowTheCapStillLosesToASaturatedOne) {
  add(1, 3, kT0 + 60 * kMs);  // 300 ms -> 28 ticks
  add(7, 3, kT0);             // 360 ms -> capped 32
  EXPECT_EQ(order(kT0 + 360 * kMs), (std::vector<SqId>{7, 1}));
}

TEST_F(ArbiterTest, EqualPriorityAndEqualWaitFallBackToTheSmallerSqId) {
  add(9, 4, kT0);
  add(3, 4, kT0);
  add(6, 4, kT0);
  EXPECT_EQ(order(kT0 + 5 * kMs), (std::vector<SqId>{3, 6, 9}));
}

TEST_F(ArbiterTest, PreemptionNeedsAHigherPriorityWaiterThatMayPreemptAndAPreemptibleRunner) {
  Contender running;
  running.sq = 1;
  running.settings.priority = 5;
  running.settings.preemptible = true;

  TaskSettings may;
  may.preempt_enable = true;
  Contender* w = add(2, 2, kT0, may);
  EXPECT_EQ(arbiter_.preemptor(running, 5, kT0), w);

  running.settings.preemptible = false;  // model not compiled preemptible
  EXPECT_EQ(arbiter_.preemptor(running, 5, kT0), nullptr);
  running.settings.preemptible = true;

  w->settings.preempt_enable = false;  // waiting model may not preempt
  EXPECT_EQ(arbiter_.preemptor(running, 5, kT0), nullptr);
  w->settings.preempt_enable = true;

  EXPECT_EQ(arbiter_.preemptor(running, 2, kT0), nullptr);  // equal priority never preempts
  EXPECT_EQ(arbiter_.preemptor(running, 1, kT0), nullptr);  // lower priority never preempts
}

TEST_F(ArbiterTest, StepPromotionRaisesOneLevelPerTimeoutUntilLevelZero) {
  TaskSettings s;
  s.step_timeout_ms = 100;
  Contender* c = add(1, 5, kT0, s);
  EXPECT_EQ(c->level_at(kT0 + 99 * kMs), 5);
  EXPECT_EQ(c->level_at(kT0 + 100 * kMs), 4);
  EXPECT_EQ(c->level_at(kT0 + 250 * kMs), 3);
  EXPECT_EQ(c->level_at(kT0 + 499 * kMs), 1);
  EXPECT_EQ(c->level_at(kT0 + 500 * kMs), 0);
  EXPECT_EQ(c->level_at(kT0 + 5000 * kMs), 0);
}

TEST_F(ArbiterTest, PromotionClearsTheWaitCounter) {
  TaskSettings s;
  s.step_timeout_ms = 100;
  Contender* c = add(1, 5, kT0, s);
  // 250 ms after the start the last promotion was at +200 ms: 50 ms of wait = 4 ticks
  // on the grid (boundaries at 10.6 ms multiples), not the 23 of the whole wait.
  EXPECT_EQ(c->wait_reset_at(kT0 + 250 * kMs), kT0 + 200 * kMs);
  EXPECT_EQ(arbiter_.wait_ticks(*c, kT0 + 250 * kMs),
            static_cast<std::uint32_t>((kT0 + 250 * kMs) / kTick - (kT0 + 200 * kMs) / kTick));
  EXPECT_LT(arbiter_.wait_ticks(*c, kT0 + 250 * kMs), 10u);
}

TEST_F(ArbiterTest, TopPromotionJumpsStraightToLevelZero) {
  TaskSettings s;
  s.top_timeout_ms = 50;
  Contender* c = add(1, 6, kT0, s);
  EXPECT_EQ(c->level_at(kT0 + 49 * kMs), 6);
  EXPECT_EQ(c->level_at(kT0 + 50 * kMs), 0);
}

TEST_F(ArbiterTest, PriorityZeroTasksAreNeverPromotedAndKeepTheirWait) {
  TaskSettings s;
  s.step_timeout_ms = 20;
  Contender* c = add(1, 0, kT0, s);
  EXPECT_EQ(c->level_at(kT0 + 1000 * kMs), 0);
  EXPECT_EQ(c->wait_reset_at(kT0 + 1000 * kMs), kT0);
  EXPECT_EQ(arbiter_.wait_ticks(*c, kT0 + 1000 * kMs), 32u);
}

TEST_F(ArbiterTest, APromotedTaskOvertakesAFresherTaskOfItsNewLevel) {
  TaskSettings s;
  s.step_timeout_ms = 100;
  add(9, 4, kT0, s);             // level 3 from +100 ms, waiting since then
  add(1, 3, kT0 + 150 * kMs);    // fresh level-3 task, smaller SQ id
  EXPECT_EQ(order(kT0 + 180 * kMs), (std::vector<SqId>{9, 1}));
}

TEST_F(ArbiterTest, WithoutPromotionAStarvedTaskStaysBehind) {
  add(9, 6, kT0);
  add(1, 2, kT0 + 900 * kMs);
  EXPECT_EQ(order(kT0 + 901 * kMs), (std::vector<SqId>{1, 9}));
}

}  // namespace
}  // namespace svp::hal::softnpu
