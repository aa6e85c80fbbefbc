// svp_acl_query_status and what it is made of: the per-core usage ring (CoreUsage), the
// device's accounting of busy time and cube MACs (on virtual time, so figures are exact),
// the MAC cost of layers, and the C API under a known real-time load.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>

#include "hal/softnpu/core_usage.h"
#include "hal/softnpu/device.h"
#include "hal/softnpu/memory.h"
#include "kernels/cost.h"
#include "test_support.h"

namespace svp {
namespace {

using hal::Nanos;
using hal::softnpu::CoreUsage;

constexpr Nanos kMs = 1'000'000;

TEST(CoreUsage, BusyTimeAndMacsOfFinishedSegmentsInsideTheWindow) {
  CoreUsage u(0);
  u.begin(100 * kMs);
  u.end(130 * kMs, 3000);
  u.begin(200 * kMs);
  u.end(220 * kMs, 2000);
  const auto s = u.sample(400 * kMs, 1000 * kMs);
  EXPECT_EQ(s.window, 400 * kMs);  // younger than the window: since creation
  EXPECT_EQ(s.busy, 50 * kMs);
  EXPECT_EQ(s.macs, 5000u);
}

TEST(CoreUsage, ARunningSegmentCountsUpToNow) {
  CoreUsage u(0);
  u.begin(900 * kMs);
  const auto s = u.sample(1000 * kMs, 1000 * kMs);
  EXPECT_EQ(s.busy, 100 * kMs);
  EXPECT_EQ(s.macs, 0u);  // MACs count when the segment completes
}

TEST(CoreUsage, WorkOlderThanTheWindowIsForgotten) {
  CoreUsage u(0);
  u.begin(0);
  u.end(500 * kMs, 1000);
  u.begin(3000 * kMs);
  u.end(3010 * kMs, 10);
  const auto s = u.sample(3100 * kMs, 1000 * kMs);
  EXPECT_EQ(s.window, 1000 * kMs);
  EXPECT_EQ(s.busy, 10 * kMs);
  EXPECT_EQ(s.macs, 10u);
}

TEST(CoreUsage, ALongSegmentIsSpreadOverItsBuckets) {
  CoreUsage u(0);
  u.begin(1000 * kMs);
  u.end(1500 * kMs, 500'000);
  // The last 200 ms hold 2/5 of the segment and of its MACs.
  const auto s = u.sample(1500 * kMs, 200 * kMs);
  EXPECT_EQ(s.busy, 200 * kMs);
  EXPECT_NEAR(static_cast<double>(s.macs), 200'000.0, 1.0);
}

TEST(LayerCost, CubeOpsCountTheirMultiplyAccumulates) {
  model::Layer conv{"c", "Conv", {}, {}, {}};
  // out [1, 8, 10, 10], W [8, 4, 3, 3]: 800 outputs × 36 MACs.
  EXPECT_EQ(kernels::layer_macs(conv, {{1, 4, 12, 12}, {8, 4, 3, 3}}, {{1, 8, 10, 10}}), 800u * 36u);
  model::Layer gemm{"g", "Gemm", {}, {}, {}};
  EXPECT_EQ(kernels::layer_macs(gemm, {{2, 16}, {16, 5}}, {{2, 5}}), 2u * 5u * 16u);
  gemm.attrs.set("transA", std::int64_t{1});
  EXPECT_EQ(kernels::layer_macs(gemm, {{16, 2}, {16, 5}}, {{2, 5}}), 2u * 5u * 16u);
  model::Layer mm{"m", "MatMul", {}, {}, {}};
  EXPECT_EQ(kernels::layer_macs(mm, {{3, 4, 6}, {6, 7}}, {{3, 4, 7}}), 3u * 4u * 7u * 6u);
  model::Layer deconv{"d", "ConvTranspose", {}, {}, {}};
  // X [1, 4, 5, 5], W [4, 2, 3, 3]: 100 inputs × 18 MACs.
  EXPECT_EQ(kernels::layer_macs(deconv, {{1, 4, 5, 5}, {4, 2, 3, 3}}, {{1, 2, 7, 7}}), 100u * 18u);
  model::Layer lstm{"l", "LSTM", {}, {}, {}};
  lstm.attrs.set("hidden_size", std::int64_t{8});
  // X [T=5, N=2, I=3], W [1, 32, 3]: 10 steps × 32 × (3 + 8).
  EXPECT_EQ(kernels::layer_macs(lstm, {{5, 2, 3}, {1, 32, 3}, {1, 32, 8}}, {{5, 1, 2, 8}}), 10u * 32u * 11u);
  model::Layer relu{"r", "Relu", {}, {}, {}};
  EXPECT_EQ(kernels::layer_macs(relu, {{1, 8, 10, 10}}, {{1, 8, 10, 10}}), 0u);
}

// A synthetic task whose segments take virtual time and report cube MACs.
class MacTask final : public hal::SegmentedTask {
 public:
  MacTask(std::size_t segments, double ms, std::uint64_t macs, test::VirtualClock* clock)
      : segments_(segments), ms_(ms), macs_(macs), clock_(clock) {}
  std::size_t segment_count() const override { return segments_; }
  Status run_segment(std::size_t, hal::SegmentContext&) override {
    clock_->advance_ms(ms_);
    return Status::Ok();
  }
  std::uint64_t segment_macs(std::size_t) const override { return macs_; }

 private:
  std::size_t segments_;
  double ms_;
  std::uint64_t macs_;
  test::VirtualClock* clock_;
};

TEST(DeviceUsage, ReportsEachCoresBusyTimeAndCompletedMacs) {
  auto clock = std::make_shared<test::VirtualClock>();
  hal::softnpu::SoftMemory memory(hal::CacheMode::kCoherent);
  hal::BackendConfig cfg;
  cfg.clock = clock;
  cfg.cores = 2;
  hal::softnpu::SoftNpuDevice device(0, cfg, &memory);
  auto sq = device.create_sq();
  ASSERT_TRUE(sq.ok());
  hal::TaskSettings settings;
  ASSERT_TRUE(device.submit(*sq, hal::Entry::Task(std::make_shared<MacTask>(5, 10.0, 1000, clock.get()), settings)).ok());
  ASSERT_TRUE(device.synchronize_sq(*sq, 10'000).ok());
  clock->advance_ms(50);
  const auto usage = device.core_usage(1000 * kMs);
  ASSERT_EQ(usage.size(), 2u);
  // One queue: one core did all the work; the device is 100 ms old.
  const auto& busy = usage[0].busy > 0 ? usage[0] : usage[1];
  const auto& idle = usage[0].busy > 0 ? usage[1] : usage[0];
  EXPECT_EQ(busy.window, 100 * kMs);
  EXPECT_EQ(busy.busy, 50 * kMs);
  EXPECT_EQ(busy.macs, 5000u);
  EXPECT_EQ(idle.busy, 0u);
  EXPECT_EQ(idle.macs, 0u);
  device.destroy_sq(*sq);
}

class QueryStatusTest : public test::RuntimeTest {
 protected:
  std::string config_json() const override { return R"({"softnpu": {"cores": 2}})"; }
};

TEST_F(QueryStatusTest, RejectsNullAndNeedsACurrentContext) {
  EXPECT_EQ(svp_acl_query_status(nullptr), SVP_ACL_ERROR_INVALID_PARAM);
  svp_acl_status st{};
  EXPECT_NE(svp_acl_query_status(&st), SVP_ACL_SUCCESS);  // no device set yet
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()), "");
}

TEST_F(QueryStatusTest, AnIdleDeviceReportsItsCoresAtZero) {
  ASSERT_EQ(svp_acl_rt_set_device(0), SVP_ACL_SUCCESS);
  svp_acl_status st{};
  ASSERT_EQ(svp_acl_query_status(&st), SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
  EXPECT_EQ(st.ip_num, 2u);
  EXPECT_EQ(st.hw_utilization[0] + st.hw_utilization[1], 0u);
  EXPECT_EQ(st.tflops_100x[0] + st.tflops_100x[1], 0u);
  ASSERT_EQ(svp_acl_rt_reset_device(0), SVP_ACL_SUCCESS);
}

// Real time: one stream keeps a core busy about half of the time (10 ms of segments, then
// 10 ms idle, for about a second); the figure must say so.
TEST_F(QueryStatusTest, OneCoreBusyHalfTheTimeReadsAboutFiftyPercent) {
  ASSERT_EQ(svp_acl_rt_set_device(0), SVP_ACL_SUCCESS);
  svp_acl_rt_stream stream = nullptr;
  ASSERT_EQ(svp_acl_rt_create_stream(&stream), SVP_ACL_SUCCESS);
  auto sleep_segment = [](void*, uint32_t) -> svp_acl_error {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return SVP_ACL_SUCCESS;
  };
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < std::chrono::milliseconds(1100)) {
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_EQ(svp_acl_ext_launch_segmented_task(sleep_segment, nullptr, 2, nullptr, stream), SVP_ACL_SUCCESS);
    ASSERT_EQ(svp_acl_rt_synchronize_stream(stream), SVP_ACL_SUCCESS);
    // Idle as long as the task was busy (including this host's wake-up delays).
    std::this_thread::sleep_for(std::chrono::steady_clock::now() - t0);
  }
  svp_acl_status st{};
  ASSERT_EQ(svp_acl_query_status(&st), SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
  ASSERT_EQ(st.ip_num, 2u);
  const std::uint32_t busiest = std::max(st.hw_utilization[0], st.hw_utilization[1]);
  EXPECT_GE(busiest, 40u);
  EXPECT_LE(busiest, 60u);
  EXPECT_LE(std::min(st.hw_utilization[0], st.hw_utilization[1]) + busiest, 62u);
  ASSERT_EQ(svp_acl_rt_destroy_stream(stream), SVP_ACL_SUCCESS);
  ASSERT_EQ(svp_acl_rt_reset_device(0), SVP_ACL_SUCCESS);
}

}  // namespace
}  // namespace svp
