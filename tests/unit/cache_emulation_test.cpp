// Cache emulation: cached memory has a CPU view and a device view, and only
// flush/invalidate move data between them, so the bugs a board shows as occasional
// corruption show up here every time.
#include <spdlog/sinks/ringbuffer_sink.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/log.h"
#include "test_support.h"

namespace {

using svp::Status;
using svp::hal::SegmentContext;
using svp::test::LambdaTask;

constexpr std::size_t kSize = 256;

class CacheTest : public svp::test::RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    ASSERT_EQ(svp_acl_rt_set_device(0), SVP_ACL_SUCCESS);
    sink_ = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(64);
    svp::log::get().sinks().push_back(sink_);
    svp::log::get().set_level(spdlog::level::warn);
  }
  void TearDown() override {
    auto& sinks = svp::log::get().sinks();
    sinks.erase(std::remove(sinks.begin(), sinks.end(), sink_), sinks.end());
    svp_acl_rt_reset_device(0);
    RuntimeTest::TearDown();
  }

  // Runs an NPU task that copies `n` bytes from `src` to `dst` through the device view
  // and returns the status its stream reports.
  svp_acl_error device_copy(const void* src, void* dst, std::size_t n) {
    auto task = std::make_shared<LambdaTask>(1, [=](std::size_t, SegmentContext& ctx) -> Status {
      auto in = ctx.memory->device_read(src, n);
      if (!in.ok()) return in.status();
      auto out = ctx.memory->device_write(dst, n);
      if (!out.ok()) return out.status();
      std::memcpy(*out, *in, n);
      return Status::Ok();
    });
    const Status st = runtime().submit_task(nullptr, task, {});
    if (!st.ok()) return st.code();
    return svp_acl_rt_synchronize_stream(nullptr);
  }

  // Runs an NPU task that fills `n` bytes at `dst` with `value` through the device view.
  svp_acl_error device_fill(void* dst, std::size_t n, std::uint8_t value) {
    auto task = std::make_shared<LambdaTask>(1, [=](std::size_t, SegmentContext& ctx) -> Status {
      auto out = ctx.memory->device_write(dst, n);
      if (!out.ok()) return out.status();
      std::memset(*out, value, n);
      return Status::Ok();
    });
    const Status st = runtime().submit_task(nullptr, task, {});
    if (!st.ok()) return st.code();
    return svp_acl_rt_synchronize_stream(nullptr);
  }

  std::string warnings() const {
    std::string all;
    for (const auto& m : sink_->last_formatted()) all += m;
    return all;
  }

  static void* alloc(bool cached) {
    void* p = nullptr;
    const auto rc = cached ? svp_acl_rt_malloc_cached(&p, kSize, SVP_ACL_MEM_MALLOC_NORMAL_ONLY)
                           : svp_acl_rt_malloc(&p, kSize, SVP_ACL_MEM_MALLOC_NORMAL_ONLY);
    EXPECT_EQ(rc, SVP_ACL_SUCCESS);
    return p;
  }

  static bool all_equal(const void* p, std::size_t n, std::uint8_t v) {
    const auto* b = static_cast<const std::uint8_t*>(p);
    for (std::size_t i = 0; i < n; ++i) {
      if (b[i] != v) return false;
    }
    return true;
  }

  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink_;
};

TEST_F(CacheTest, WithoutFlushTheDeviceReadsStaleDataAndAWarningNamesTheAllocation) {
  auto* in = static_cast<std::uint8_t*>(alloc(true));
  void* out = alloc(false);
  std::memset(in, 0xAB, kSize);  // CPU writes, never flushed
  ASSERT_EQ(device_copy(in, out, kSize), SVP_ACL_SUCCESS);
  EXPECT_TRUE(all_equal(out, kSize, 0x00)) << "the device must see DDR, which never got the CPU's bytes";
  const std::string w = warnings();
  EXPECT_NE(w.find("cached allocation #"), std::string::npos) << w;
  EXPECT_NE(w.find("offset 0"), std::string::npos) << w;
  EXPECT_NE(w.find("svp_acl_rt_mem_flush"), std::string::npos) << w;
  svp_acl_rt_free(in);
  svp_acl_rt_free(out);
}

TEST_F(CacheTest, FlushPublishesCpuWritesToTheDeviceWithoutWarnings) {
  auto* in = static_cast<std::uint8_t*>(alloc(true));
  void* out = alloc(false);
  std::memset(in, 0xAB, kSize);
  ASSERT_EQ(svp_acl_rt_mem_flush(in, kSize), SVP_ACL_SUCCESS);
  ASSERT_EQ(device_copy(in, out, kSize), SVP_ACL_SUCCESS);
  EXPECT_TRUE(all_equal(out, kSize, 0xAB));
  EXPECT_EQ(warnings().find("cached allocation"), std::string::npos) << warnings();
  svp_acl_rt_free(in);
  svp_acl_rt_free(out);
}

TEST_F(CacheTest, AWarningPointsAtTheFirstUnflushedLine) {
  auto* in = static_cast<std::uint8_t*>(alloc(true));
  void* out = alloc(false);
  ASSERT_EQ(svp_acl_rt_mem_flush(in, kSize), SVP_ACL_SUCCESS);
  in[130] = 7;  // line 2 (offset 128) is dirty again
  ASSERT_EQ(device_copy(in, out, kSize), SVP_ACL_SUCCESS);
  EXPECT_NE(warnings().find("offset 128"), std::string::npos) << warnings();
  EXPECT_EQ(static_cast<std::uint8_t*>(out)[130], 0);
  svp_acl_rt_free(in);
  svp_acl_rt_free(out);
}

TEST_F(CacheTest, FlushWorksOnWholeLinesOfTheRangeOnly) {
  auto* in = static_cast<std::uint8_t*>(alloc(true));
  auto* out = static_cast<std::uint8_t*>(alloc(false));
  std::memset(in, 0x11, kSize);
  ASSERT_EQ(svp_acl_rt_mem_flush(in + 70, 10), SVP_ACL_SUCCESS);  // covers line [64, 128)
  ASSERT_EQ(device_copy(in, out, kSize), SVP_ACL_SUCCESS);
  EXPECT_TRUE(all_equal(out, 64, 0x00));
  EXPECT_TRUE(all_equal(out + 64, 64, 0x11));
  EXPECT_TRUE(all_equal(out + 128, 128, 0x00));
  svp_acl_rt_free(in);
  svp_acl_rt_free(out);
}

TEST_F(CacheTest, WithoutInvalidateTheCpuReadsStaleDeviceResults) {
  auto* buf = static_cast<std::uint8_t*>(alloc(true));
  ASSERT_EQ(device_fill(buf, kSize, 0x5A), SVP_ACL_SUCCESS);
  EXPECT_TRUE(all_equal(buf, kSize, 0x00)) << "the CPU still sees its cached lines";
  ASSERT_EQ(svp_acl_rt_mem_invalidate(buf, kSize), SVP_ACL_SUCCESS);
  EXPECT_TRUE(all_equal(buf, kSize, 0x5A));
  svp_acl_rt_free(buf);
}

TEST_F(CacheTest, FlushAfterExecutionAlsoRefreshesTheCpuViewAsTheVendorSampleRelieson) {
  auto* buf = static_cast<std::uint8_t*>(alloc(true));
  ASSERT_EQ(device_fill(buf, kSize, 0x3C), SVP_ACL_SUCCESS);
  ASSERT_EQ(svp_acl_rt_mem_flush(buf, kSize), SVP_ACL_SUCCESS);  // clean+invalidate
  EXPECT_TRUE(all_equal(buf, kSize, 0x3C));
  svp_acl_rt_free(buf);
}

TEST_F(CacheTest, UnflushedCpuWritesToAnOutputClobberTheDeviceResultAndAreReported) {
  auto* buf = static_cast<std::uint8_t*>(alloc(true));
  std::memset(buf, 0xEE, kSize);  // e.g. the app "clears" its output without flushing
  ASSERT_EQ(device_fill(buf, kSize, 0x42), SVP_ACL_SUCCESS);
  EXPECT_NE(warnings().find("device write"), std::string::npos) << warnings();
  ASSERT_EQ(svp_acl_rt_mem_invalidate(buf, kSize), SVP_ACL_SUCCESS);
  EXPECT_TRUE(all_equal(buf, kSize, 0xEE)) << "dirty CPU lines are written back over the NPU result";
  svp_acl_rt_free(buf);
}

TEST_F(CacheTest, UncachedMemoryHasASingleCoherentView) {
  auto* in = static_cast<std::uint8_t*>(alloc(false));
  auto* out = static_cast<std::uint8_t*>(alloc(false));
  std::memset(in, 0x77, kSize);
  ASSERT_EQ(device_copy(in, out, kSize), SVP_ACL_SUCCESS);
  EXPECT_TRUE(all_equal(out, kSize, 0x77));
  EXPECT_EQ(warnings().find("cached allocation"), std::string::npos);
  svp_acl_rt_free(in);
  svp_acl_rt_free(out);
}

TEST_F(CacheTest, DeviceAccessOutsideAnyAllocationFailsTheTask) {
  auto* in = static_cast<std::uint8_t*>(alloc(false));
  std::vector<std::uint8_t> not_device_memory(kSize);
  EXPECT_EQ(device_copy(not_device_memory.data(), in, kSize), SVP_ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(device_copy(in, in + 128, kSize), SVP_ACL_ERROR_INVALID_PARAM) << "runs past the end";
  svp_acl_rt_free(in);
}

class StrictCacheTest : public CacheTest {
  std::string config_json() const override { return R"({"softnpu": {"strict": true}})"; }
};

TEST_F(StrictCacheTest, ReadingUnflushedDataFailsTheTaskInStrictMode) {
  auto* in = static_cast<std::uint8_t*>(alloc(true));
  void* out = alloc(false);
  std::memset(in, 0xAB, kSize);
  EXPECT_EQ(device_copy(in, out, kSize), SVP_ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("svp_acl_rt_mem_flush"), std::string::npos);
  ASSERT_EQ(svp_acl_rt_mem_flush(in, kSize), SVP_ACL_SUCCESS);
  EXPECT_EQ(device_copy(in, out, kSize), SVP_ACL_SUCCESS);
  svp_acl_rt_free(in);
  svp_acl_rt_free(out);
}

class CoherentCacheTest : public CacheTest {
  std::string config_json() const override { return R"({"softnpu": {"cache_mode": "coherent"}})"; }
};

TEST_F(CoherentCacheTest, CoherentModeTurnsEmulationOff) {
  auto* in = static_cast<std::uint8_t*>(alloc(true));
  auto* out = static_cast<std::uint8_t*>(alloc(true));
  std::memset(in, 0x99, kSize);
  ASSERT_EQ(device_copy(in, out, kSize), SVP_ACL_SUCCESS);
  EXPECT_TRUE(all_equal(out, kSize, 0x99));
  EXPECT_EQ(svp_acl_rt_mem_flush(in, kSize), SVP_ACL_SUCCESS);
  svp_acl_rt_free(in);
  svp_acl_rt_free(out);
}

}  // namespace
