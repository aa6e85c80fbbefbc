// RKNN_FLAG_FENCE_IN_OUTSIDE (docs/rknn.md "Fences"): a run waiting for its input fence
// holds no emulated NPU core (the process's fence watcher waits, not the core), so other
// contexts run on that core meanwhile; the fence's signal lets the run go on with the right
// outputs; a fence never signalled fails the run after the limit; destroying the context
// while its run waits returns at once.
#include <gtest/gtest.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "rknn/rknn_api.h"
#include "rknn_lenet.h"
#include "rknn_test_support.h"
#include "runtime/rknn_context.h"
#include "target/device_profile.h"

namespace svp {
namespace {

using runtime::rknn::last_error;
using test::contains;
using Clock = std::chrono::steady_clock;

// LeNet compiled for RK3588 (three NPU cores), once for the file.
const std::vector<std::uint8_t>& lenet() {
  static const std::vector<std::uint8_t> image = test::compile_lenet("RK3588");
  return image;
}

// A context of LeNet that runs on NPU core 0 only.
rknn_context init_on_core0(std::uint32_t flags) {
  rknn_context ctx = test::init_image(lenet(), flags);
  EXPECT_EQ(rknn_set_core_mask(ctx, RKNN_NPU_CORE_0), RKNN_SUCC) << last_error();
  return ctx;
}

void set_input(rknn_context ctx, const std::vector<float>& x) { test::set_lenet_input(ctx, x); }
std::vector<float> get_output(rknn_context ctx) { return test::lenet_output(ctx); }

void signal(int fence) {
  const std::uint64_t one = 1;
  ASSERT_EQ(::write(fence, &one, sizeof one), static_cast<ssize_t>(sizeof one));
}

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Starts a non-blocking run of `ctx` that waits for `fence`.
void run_behind(rknn_context ctx, int fence) {
  rknn_run_extend ext{};
  ext.fence_fd = fence;
  ext.non_block = 1;
  ASSERT_EQ(rknn_run(ctx, &ext), RKNN_SUCC) << last_error();
}

TEST(RknnInputFence, AnotherContextRunsOnTheSameCoreWhileARunWaitsForItsFence) {
  rknn_context waiting = init_on_core0(RKNN_FLAG_FENCE_IN_OUTSIDE);
  rknn_context other = init_on_core0(0);
  ASSERT_NE(waiting, 0u);
  ASSERT_NE(other, 0u);
  std::vector<float> x = test::uniform(784, 21);
  set_input(other, x);
  ASSERT_EQ(rknn_run(other, nullptr), RKNN_SUCC) << last_error();
  const std::vector<float> y = get_output(other);
  ASSERT_FALSE(y.empty());

  const int fence = ::eventfd(0, EFD_CLOEXEC);
  ASSERT_GE(fence, 0);
  set_input(waiting, x);
  run_behind(waiting, fence);
  // Core 0 is free for the other context: its run does not wait for the fence (10 s).
  const Clock::time_point start = Clock::now();
  ASSERT_EQ(rknn_run(other, nullptr), RKNN_SUCC) << last_error();
  EXPECT_LT(seconds_since(start), 3.0) << "the other context's run waited for a fence that is not its own";
  EXPECT_EQ(get_output(other), y);
  rknn_run_extend poll_wait{};
  poll_wait.timeout_ms = 50;
  EXPECT_EQ(rknn_wait(waiting, &poll_wait), RKNN_ERR_TIMEOUT) << "the run must still wait for its fence";

  signal(fence);
  EXPECT_EQ(::close(fence), 0);
  rknn_run_extend done{};
  ASSERT_EQ(rknn_wait(waiting, &done), RKNN_SUCC) << last_error();
  EXPECT_EQ(done.frame_id, 1u);
  EXPECT_EQ(get_output(waiting), y);
  EXPECT_EQ(rknn_destroy(waiting), RKNN_SUCC);
  EXPECT_EQ(rknn_destroy(other), RKNN_SUCC);
}

TEST(RknnInputFence, FencesOfTwoContextsReleaseTheirRunsInTheOrderTheyAreSignalled) {
  rknn_context a = init_on_core0(RKNN_FLAG_FENCE_IN_OUTSIDE);
  rknn_context b = init_on_core0(RKNN_FLAG_FENCE_IN_OUTSIDE);
  ASSERT_NE(a, 0u);
  ASSERT_NE(b, 0u);
  std::vector<float> xa = test::uniform(784, 22), xb = test::uniform(784, 23);
  const int fa = ::eventfd(0, EFD_CLOEXEC), fb = ::eventfd(0, EFD_CLOEXEC);
  ASSERT_GE(fa, 0);
  ASSERT_GE(fb, 0);
  set_input(a, xa);
  run_behind(a, fa);
  set_input(b, xb);
  run_behind(b, fb);
  signal(fb);
  rknn_run_extend done{};
  ASSERT_EQ(rknn_wait(b, &done), RKNN_SUCC) << last_error();
  rknn_run_extend poll_wait{};
  poll_wait.timeout_ms = 50;
  EXPECT_EQ(rknn_wait(a, &poll_wait), RKNN_ERR_TIMEOUT) << "a's fence was not signalled yet";
  signal(fa);
  ASSERT_EQ(rknn_wait(a, &done), RKNN_SUCC) << last_error();
  const std::vector<float> ya = get_output(a), yb = get_output(b);
  EXPECT_NE(ya, yb) << "each run computed its own inputs";
  // The same inputs again, without fences (-1), give the same outputs.
  rknn_run_extend none{};
  none.fence_fd = -1;
  ASSERT_EQ(rknn_run(a, &none), RKNN_SUCC) << last_error();
  EXPECT_EQ(get_output(a), ya);
  EXPECT_EQ(::close(fa), 0);
  EXPECT_EQ(::close(fb), 0);
  EXPECT_EQ(rknn_destroy(a), RKNN_SUCC);
  EXPECT_EQ(rknn_destroy(b), RKNN_SUCC);
}

TEST(RknnInputFence, AFenceNeverSignalledFailsTheRunAfterTheLimit) {
  const int previous = runtime::rknn::set_input_fence_limit_ms(200);
  rknn_context ctx = init_on_core0(RKNN_FLAG_FENCE_IN_OUTSIDE);
  ASSERT_NE(ctx, 0u);
  std::vector<float> x = test::uniform(784, 24);
  set_input(ctx, x);
  const int fence = ::eventfd(0, EFD_CLOEXEC);
  ASSERT_GE(fence, 0);
  rknn_run_extend ext{};
  ext.fence_fd = fence;
  const Clock::time_point start = Clock::now();
  EXPECT_EQ(rknn_run(ctx, &ext), RKNN_ERR_FAIL);
  const double waited = seconds_since(start);
  EXPECT_TRUE(contains(last_error(), "was not signalled within 200 ms")) << last_error();
  EXPECT_GE(waited, 0.19);
  EXPECT_LT(waited, 5.0);
  // The context goes on: a fence signalled before the run lets it start at once.
  signal(fence);
  ext = rknn_run_extend{};
  ext.fence_fd = fence;
  EXPECT_EQ(rknn_run(ctx, &ext), RKNN_SUCC) << last_error();
  EXPECT_EQ(get_output(ctx).size(), 10u);
  EXPECT_EQ(::close(fence), 0);
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
  runtime::rknn::set_input_fence_limit_ms(previous);
}

TEST(RknnInputFence, DestroyingTheContextWhileItsRunWaitsReturnsPromptly) {
  rknn_context ctx = init_on_core0(RKNN_FLAG_FENCE_IN_OUTSIDE);
  ASSERT_NE(ctx, 0u);
  std::vector<float> x = test::uniform(784, 25);
  set_input(ctx, x);
  const int fence = ::eventfd(0, EFD_CLOEXEC);
  ASSERT_GE(fence, 0);
  run_behind(ctx, fence);
  const Clock::time_point start = Clock::now();
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
  EXPECT_LT(seconds_since(start), 2.0) << "rknn_destroy waited for the fence";
  signal(fence);  // too late: nothing waits for it any more
  EXPECT_EQ(::close(fence), 0);
  EXPECT_EQ(runtime::rknn::live_contexts(), 0u);
  // A new context waits for a fence again (the watcher restarts).
  rknn_context next = init_on_core0(RKNN_FLAG_FENCE_IN_OUTSIDE);
  ASSERT_NE(next, 0u);
  set_input(next, x);
  const int ready = ::eventfd(1, EFD_CLOEXEC);  // already signalled
  ASSERT_GE(ready, 0);
  rknn_run_extend ext{};
  ext.fence_fd = ready;
  EXPECT_EQ(rknn_run(next, &ext), RKNN_SUCC) << last_error();
  EXPECT_EQ(get_output(next).size(), 10u);
  EXPECT_EQ(::close(ready), 0);
  EXPECT_EQ(rknn_destroy(next), RKNN_SUCC);
}

}  // namespace
}  // namespace svp
