// Device memory: allocation rules, alignment, the free-function pairing, cache
// maintenance arguments, and what the NPU sees of cached vs uncached memory.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "test_support.h"

namespace {

using svp::test::TaskOwner;
using svp::test::eventually;

std::string recent() { return svp_acl_get_recent_err_msg(); }

bool aligned64(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 64 == 0; }

enum class Api { kMalloc, kCached, kHost, kSec };
const char* name(Api a) {
  switch (a) {
    case Api::kMalloc: return "malloc";
    case Api::kCached: return "malloc_cached";
    case Api::kHost: return "malloc_host";
    case Api::kSec: return "malloc_sec";
  }
  return "?";
}
constexpr Api kAllApis[] = {Api::kMalloc, Api::kCached, Api::kHost, Api::kSec};

svp_acl_error alloc(Api api, void** p, size_t size) {
  switch (api) {
    case Api::kMalloc: return svp_acl_rt_malloc(p, size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY);
    case Api::kCached: return svp_acl_rt_malloc_cached(p, size, SVP_ACL_MEM_MALLOC_HUGE_FIRST);
    case Api::kHost: return svp_acl_rt_malloc_host(p, size);
    case Api::kSec: return svp_acl_rt_malloc_sec(p, size, 1);
  }
  return SVP_ACL_ERROR_INVALID_PARAM;
}

svp_acl_error release(Api api, void* p) {
  switch (api) {
    case Api::kMalloc:
    case Api::kCached: return svp_acl_rt_free(p);
    case Api::kHost: return svp_acl_rt_free_host(p);
    case Api::kSec: return svp_acl_rt_free_sec(p);
  }
  return SVP_ACL_ERROR_INVALID_PARAM;
}

class MemoryApiTest : public svp::test::RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    if (HasFatalFailure()) return;
    ASSERT_ACL_OK(svp_acl_rt_set_op_wait_timeout(30));
    ASSERT_ACL_OK(svp_acl_rt_set_device(0));
    baseline_ = live();
  }
  size_t live() { return runtime().backend().memory().live_allocations(); }

  // Runs `fn` as a one-segment NPU task on the default stream and returns the
  // stream's synchronize result. The task sees memory through the device view.
  svp_acl_error on_npu(std::function<svp::Status(svp::hal::SegmentContext&)> fn) {
    auto task = std::make_shared<svp::test::LambdaTask>(
        1, [fn = std::move(fn)](std::size_t, svp::hal::SegmentContext& ctx) { return fn(ctx); });
    const svp::Status st = runtime().submit_task(nullptr, task, svp::hal::TaskSettings{});
    if (!st.ok()) return st.code();
    return svp_acl_rt_synchronize_stream(nullptr);
  }
  // Copies [p, p+n) as the NPU sees it.
  std::vector<uint8_t> npu_read(const void* p, size_t n, svp_acl_error* rc = nullptr) {
    std::vector<uint8_t> out(n, 0xEE);
    const svp_acl_error r = on_npu([&](svp::hal::SegmentContext& ctx) -> svp::Status {
      auto view = ctx.memory->device_read(p, n);
      if (!view.ok()) return view.status();
      std::memcpy(out.data(), *view, n);
      return svp::Status::Ok();
    });
    if (rc != nullptr) *rc = r;
    return out;
  }
  svp_acl_error npu_fill(void* p, size_t n, uint8_t value) {
    return on_npu([&](svp::hal::SegmentContext& ctx) -> svp::Status {
      auto view = ctx.memory->device_write(p, n);
      if (!view.ok()) return view.status();
      std::memset(*view, value, n);
      return svp::Status::Ok();
    });
  }

  size_t baseline_ = 0;
};

class StrictCacheMemoryTest : public MemoryApiTest {
 protected:
  std::string config_json() const override { return R"({"softnpu": {"strict": true}})"; }
};

class CoherentCacheMemoryTest : public MemoryApiTest {
 protected:
  std::string config_json() const override { return R"({"softnpu": {"cache_mode": "coherent"}})"; }
};

// ---------------------------------------------------------------------------------------
// allocation
// ---------------------------------------------------------------------------------------

TEST_F(MemoryApiTest, EveryAllocatorReturnsDistinct64ByteAlignedUsableMemory) {
  for (Api api : kAllApis) {
    SCOPED_TRACE(name(api));
    std::vector<void*> ptrs;
    for (size_t size : {size_t{1}, size_t{3}, size_t{15}, size_t{63}, size_t{64}, size_t{65}, size_t{1000},
                        size_t{4097}, size_t{1} << 20}) {
      void* p = nullptr;
      ASSERT_ACL_OK(alloc(api, &p, size)) << size;
      ASSERT_NE(p, nullptr);
      EXPECT_TRUE(aligned64(p)) << p << " size " << size;
      std::memset(p, 0xA5, size);  // the whole range is CPU-writable
      EXPECT_EQ(static_cast<uint8_t*>(p)[size - 1], 0xA5);
      ptrs.push_back(p);
    }
    EXPECT_EQ(std::set<void*>(ptrs.begin(), ptrs.end()).size(), ptrs.size());
    for (void* p : ptrs) EXPECT_ACL_OK(release(api, p));
  }
  EXPECT_EQ(live(), baseline_);
}

TEST_F(MemoryApiTest, FreshAllocationsAreZeroed) {
  for (Api api : kAllApis) {
    SCOPED_TRACE(name(api));
    void* p = nullptr;
    ASSERT_ACL_OK(alloc(api, &p, 256));
    std::vector<uint8_t> zeros(256, 0);
    EXPECT_EQ(std::memcmp(p, zeros.data(), zeros.size()), 0);
    EXPECT_ACL_OK(release(api, p));
  }
}

TEST_F(MemoryApiTest, ZeroSizeFailsWithInvalidParam) {
  void* p = nullptr;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_malloc(&p, 0, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_malloc_cached(&p, 0, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_malloc_host(&p, 0));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_malloc_sec(&p, 0, 1));
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(live(), baseline_);
}

TEST_F(MemoryApiTest, NullOutputPointerFailsWithInvalidParam) {
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_malloc(nullptr, 64, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_malloc_cached(nullptr, 64, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_malloc_host(nullptr, 64));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_malloc_sec(nullptr, 64, 1));
  EXPECT_EQ(live(), baseline_);
}

TEST_F(MemoryApiTest, AllPoliciesAreAcceptedAndUnknownPoliciesFailWithInvalidParam) {
  for (auto policy : {SVP_ACL_MEM_MALLOC_HUGE_FIRST, SVP_ACL_MEM_MALLOC_HUGE_ONLY, SVP_ACL_MEM_MALLOC_NORMAL_ONLY}) {
    void* p = nullptr;
    EXPECT_ACL_OK(svp_acl_rt_malloc(&p, 128, policy));
    EXPECT_ACL_OK(svp_acl_rt_free(p));
    EXPECT_ACL_OK(svp_acl_rt_malloc_cached(&p, 128, policy));
    EXPECT_ACL_OK(svp_acl_rt_free(p));
  }
  // Values a C caller may pass (a C enum holds any int).
  for (int bad : {3, 4, 100, -1}) {
    SCOPED_TRACE(bad);
    void* p = nullptr;
    const auto policy = static_cast<svp_acl_rt_mem_malloc_policy>(bad);
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_malloc(&p, 128, policy));
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_malloc_cached(&p, 128, policy));
    EXPECT_NE(recent().find("polic"), std::string::npos) << recent();
    EXPECT_EQ(p, nullptr);
  }
  EXPECT_EQ(live(), baseline_);
}

// The host's own allocator refusing (no device memory limit in the way).
class UnlimitedMemoryApiTest : public MemoryApiTest {
 protected:
  std::string config_json() const override { return R"({"softnpu": {"device_memory_mb": 0}})"; }
};

TEST_F(UnlimitedMemoryApiTest, AnImpossiblyLargeAllocationFailsWithBadAlloc) {
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "sanitizer allocators abort on such requests instead of returning NULL";
#endif
  void* p = nullptr;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_BAD_ALLOC, svp_acl_rt_malloc(&p, size_t{1} << 62, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_BAD_ALLOC, svp_acl_rt_malloc_cached(&p, size_t{1} << 62, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(live(), baseline_);
}

TEST_F(UnlimitedMemoryApiTest, ASizeNearSizeMaxFailsWithBadAllocInsteadOfWrappingAround) {
  // Regression: rounding the size up to the 64-byte alignment used to wrap around to 0,
  // so these "succeeded" with a zero-byte buffer registered as SIZE_MAX bytes.
  for (Api api : kAllApis) {
    SCOPED_TRACE(name(api));
    for (size_t size : {SIZE_MAX, SIZE_MAX - 62}) {
      void* p = nullptr;
      const svp_acl_error rc = alloc(api, &p, size);
      EXPECT_EQ(rc, SVP_ACL_ERROR_BAD_ALLOC) << size;
      EXPECT_EQ(p, nullptr);
      if (rc == SVP_ACL_SUCCESS) {
        EXPECT_ACL_OK(release(api, p));
      }
    }
  }
}

// ---------------------------------------------------------------------------------------
// free
// ---------------------------------------------------------------------------------------

TEST_F(MemoryApiTest, FreeRejectsNullUnknownInteriorAndDoubleFreedPointersWithAClearMessage) {
  void* p = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_malloc(&p, 256, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
  int on_stack = 0;

  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_free(nullptr));
  EXPECT_NE(recent().find("NULL"), std::string::npos) << recent();
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_free_host(nullptr));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_free_sec(nullptr));

  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_free(&on_stack));
  EXPECT_NE(recent().find("not a live allocation"), std::string::npos) << recent();

  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_free(static_cast<uint8_t*>(p) + 16));
  EXPECT_NE(recent().find("16 bytes into"), std::string::npos) << recent();
  EXPECT_NE(recent().find("start address"), std::string::npos) << recent();
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_free(static_cast<uint8_t*>(p) + 255));
  // One past the end is not part of the allocation.
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_free(static_cast<uint8_t*>(p) + 256));
  EXPECT_NE(recent().find("not a live allocation"), std::string::npos) << recent();

  // None of the failed calls freed anything.
  EXPECT_EQ(live(), baseline_ + 1);
  ASSERT_ACL_OK(svp_acl_rt_free(p));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_free(p));
  EXPECT_NE(recent().find("already freed"), std::string::npos) << recent();
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_free_host(p));
  EXPECT_EQ(live(), baseline_);
}

TEST_F(MemoryApiTest, EachKindOfMemoryMustBeFreedByAMatchingFunction) {
  void* normal = nullptr;
  void* cached = nullptr;
  void* host = nullptr;
  void* sec = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_malloc(&normal, 64, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
  ASSERT_ACL_OK(svp_acl_rt_malloc_cached(&cached, 64, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
  ASSERT_ACL_OK(svp_acl_rt_malloc_host(&host, 64));
  ASSERT_ACL_OK(svp_acl_rt_malloc_sec(&sec, 64, 7));

  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_free_sec(normal));
  EXPECT_NE(recent().find("svp_acl_rt_malloc"), std::string::npos) << recent();
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_free_sec(cached));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_free_sec(host));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_free(sec));
  EXPECT_NE(recent().find("svp_acl_rt_malloc_sec"), std::string::npos) << recent();
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_free_host(sec));
  EXPECT_EQ(live(), baseline_ + 4);

  // The permitted pairings (free_host also takes malloc memory, free takes host memory).
  EXPECT_ACL_OK(svp_acl_rt_free_sec(sec));
  EXPECT_ACL_OK(svp_acl_rt_free_host(normal));
  EXPECT_ACL_OK(svp_acl_rt_free(host));
  EXPECT_ACL_OK(svp_acl_rt_free(cached));
  EXPECT_EQ(live(), baseline_);
}

TEST_F(MemoryApiTest, AllocateAndFreeFromManyThreadsAtOnce) {
  constexpr int kThreads = 4;
  constexpr int kRounds = 200;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      std::vector<std::pair<Api, void*>> held;
      for (int r = 0; r < kRounds; ++r) {
        const Api api = kAllApis[rng() % 4];
        void* p = nullptr;
        const size_t size = 1 + rng() % 5000;
        if (alloc(api, &p, size) != SVP_ACL_SUCCESS || !aligned64(p)) {
          ++failures;
          continue;
        }
        std::memset(p, t, size);
        held.emplace_back(api, p);
        if (rng() % 2 && !held.empty()) {
          const size_t i = rng() % held.size();
          if (release(held[i].first, held[i].second) != SVP_ACL_SUCCESS) ++failures;
          held.erase(held.begin() + static_cast<std::ptrdiff_t>(i));
        }
      }
      for (auto& [api, p] : held) {
        if (release(api, p) != SVP_ACL_SUCCESS) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(live(), baseline_);
}

// ---------------------------------------------------------------------------------------
// cache maintenance
// ---------------------------------------------------------------------------------------

TEST_F(MemoryApiTest, FlushAndInvalidateValidateTheirArguments) {
  void* cached = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_malloc_cached(&cached, 256, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
  void* gone = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_malloc_cached(&gone, 256, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
  ASSERT_ACL_OK(svp_acl_rt_free(gone));
  int on_stack = 0;
  auto* base = static_cast<uint8_t*>(cached);

  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_mem_flush(cached, 0));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_mem_invalidate(cached, 0));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_mem_flush(nullptr, 64));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_mem_invalidate(nullptr, 64));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_mem_flush(&on_stack, sizeof on_stack));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_mem_invalidate(&on_stack, sizeof on_stack));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_mem_flush(gone, 64));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_mem_invalidate(gone, 64));
  // Ranges running past the end of the allocation.
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_mem_flush(cached, 257));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_mem_invalidate(base + 200, 57));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_mem_flush(base + 8, SIZE_MAX));
  // Sub-ranges, also unaligned ones, are fine.
  EXPECT_ACL_OK(svp_acl_rt_mem_flush(cached, 256));
  EXPECT_ACL_OK(svp_acl_rt_mem_flush(base + 3, 100));
  EXPECT_ACL_OK(svp_acl_rt_mem_invalidate(base + 200, 56));
  EXPECT_ACL_OK(svp_acl_rt_free(cached));
}

TEST_F(MemoryApiTest, FlushAndInvalidateOfUncachedMemoryAreHarmlessNoOps) {
  for (Api api : {Api::kMalloc, Api::kHost, Api::kSec}) {
    SCOPED_TRACE(name(api));
    void* p = nullptr;
    ASSERT_ACL_OK(alloc(api, &p, 300));
    std::memset(p, 0x5A, 300);
    EXPECT_ACL_OK(svp_acl_rt_mem_flush(p, 300));
    EXPECT_ACL_OK(svp_acl_rt_mem_invalidate(p, 300));
    EXPECT_ACL_OK(svp_acl_rt_mem_invalidate(static_cast<uint8_t*>(p) + 1, 10));
    EXPECT_EQ(static_cast<uint8_t*>(p)[0], 0x5A);
    EXPECT_EQ(static_cast<uint8_t*>(p)[299], 0x5A);
    EXPECT_ACL_OK(release(api, p));
  }
}

TEST_F(MemoryApiTest, UncachedMemoryIsCoherentBetweenCpuAndNpuWithoutMaintenance) {
  void* p = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_malloc(&p, 128, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
  std::memset(p, 0x11, 128);
  svp_acl_error rc = -1;
  EXPECT_EQ(npu_read(p, 128, &rc), std::vector<uint8_t>(128, 0x11));
  EXPECT_EQ(rc, SVP_ACL_SUCCESS);
  ASSERT_ACL_OK(npu_fill(p, 128, 0x22));
  EXPECT_EQ(static_cast<uint8_t*>(p)[0], 0x22);
  EXPECT_EQ(static_cast<uint8_t*>(p)[127], 0x22);
  EXPECT_ACL_OK(svp_acl_rt_free(p));
}

TEST_F(MemoryApiTest, CachedMemoryNeedsAFlushBeforeTheNpuSeesCpuWrites) {
  void* p = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_malloc_cached(&p, 128, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
  std::memset(p, 0x33, 128);
  svp_acl_error rc = -1;
  // Not flushed: the NPU reads stale DDR (the emulated mode only warns).
  EXPECT_EQ(npu_read(p, 128, &rc), std::vector<uint8_t>(128, 0x00));
  EXPECT_EQ(rc, SVP_ACL_SUCCESS);
  ASSERT_ACL_OK(svp_acl_rt_mem_flush(p, 64));  // first line only
  auto seen = npu_read(p, 128, &rc);
  EXPECT_EQ(std::vector<uint8_t>(seen.begin(), seen.begin() + 64), std::vector<uint8_t>(64, 0x33));
  EXPECT_EQ(std::vector<uint8_t>(seen.begin() + 64, seen.end()), std::vector<uint8_t>(64, 0x00));
  ASSERT_ACL_OK(svp_acl_rt_mem_flush(p, 128));
  EXPECT_EQ(npu_read(p, 128, &rc), std::vector<uint8_t>(128, 0x33));
  EXPECT_ACL_OK(svp_acl_rt_free(p));
}

TEST_F(MemoryApiTest, CachedMemoryNeedsAnInvalidateBeforeTheCpuSeesNpuWrites) {
  void* p = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_malloc_cached(&p, 128, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
  ASSERT_ACL_OK(npu_fill(p, 128, 0x44));
  EXPECT_EQ(static_cast<uint8_t*>(p)[0], 0x00) << "the CPU still has the old (cached) line";
  ASSERT_ACL_OK(svp_acl_rt_mem_invalidate(p, 128));
  EXPECT_EQ(static_cast<uint8_t*>(p)[0], 0x44);
  EXPECT_EQ(static_cast<uint8_t*>(p)[127], 0x44);
  // Flush after an NPU write also refreshes clean lines (it writes back and invalidates).
  ASSERT_ACL_OK(npu_fill(p, 128, 0x55));
  ASSERT_ACL_OK(svp_acl_rt_mem_flush(p, 128));
  EXPECT_EQ(static_cast<uint8_t*>(p)[64], 0x55);
  EXPECT_ACL_OK(svp_acl_rt_free(p));
}

TEST_F(StrictCacheMemoryTest, TheNpuReadingUnflushedCpuWritesFailsTheTask) {
  void* p = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_malloc_cached(&p, 128, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
  std::memset(p, 0x66, 128);
  svp_acl_error rc = SVP_ACL_SUCCESS;
  npu_read(p, 128, &rc);
  EXPECT_NE(rc, SVP_ACL_SUCCESS);
  EXPECT_NE(recent().find("svp_acl_rt_mem_flush"), std::string::npos) << recent();
  ASSERT_ACL_OK(svp_acl_rt_mem_flush(p, 128));
  EXPECT_EQ(npu_read(p, 128, &rc), std::vector<uint8_t>(128, 0x66));
  EXPECT_EQ(rc, SVP_ACL_SUCCESS);
  EXPECT_ACL_OK(svp_acl_rt_free(p));
}

TEST_F(CoherentCacheMemoryTest, CachedMemoryNeedsNoMaintenanceInCoherentMode) {
  void* p = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_malloc_cached(&p, 128, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
  std::memset(p, 0x77, 128);
  svp_acl_error rc = -1;
  EXPECT_EQ(npu_read(p, 128, &rc), std::vector<uint8_t>(128, 0x77));
  ASSERT_ACL_OK(npu_fill(p, 128, 0x88));
  EXPECT_EQ(static_cast<uint8_t*>(p)[5], 0x88);
  EXPECT_ACL_OK(svp_acl_rt_mem_flush(p, 128));  // accepted, does nothing
  EXPECT_ACL_OK(svp_acl_rt_free(p));
}

// ---------------------------------------------------------------------------------------
// device memory limit (the board's, so a leak ends in BAD_ALLOC instead of host RAM)
// ---------------------------------------------------------------------------------------

class MemoryLimitTest : public MemoryApiTest {
 protected:
  std::string config_json() const override { return R"({"softnpu": {"device_memory_mb": 1}})"; }
  static constexpr size_t kMiB = 1024 * 1024;
};

TEST_F(MemoryLimitTest, AllocatingBeyondTheLimitFailsWithBadAllocNamingLimitUseAndHowToRaiseIt) {
  void* a = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_malloc(&a, 600 * 1024, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
  for (Api api : kAllApis) {
    SCOPED_TRACE(name(api));
    void* b = nullptr;
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_BAD_ALLOC, alloc(api, &b, 500 * 1024));
    EXPECT_EQ(b, nullptr);
    const std::string msg = recent();
    EXPECT_NE(msg.find("limit is 1048576 bytes"), std::string::npos) << msg;
    EXPECT_NE(msg.find("614400 bytes are in use"), std::string::npos) << msg;
    EXPECT_NE(msg.find("softnpu.device_memory_mb"), std::string::npos) << msg;
  }
  // Up to the limit exactly is allowed.
  void* rest = nullptr;
  EXPECT_ACL_OK(svp_acl_rt_malloc(&rest, kMiB - 600 * 1024, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
  EXPECT_EQ(runtime().backend().memory().usage().in_use, kMiB);
  EXPECT_ACL_OK(svp_acl_rt_free(rest));
  EXPECT_ACL_OK(svp_acl_rt_free(a));
  EXPECT_EQ(live(), baseline_);
}

TEST_F(MemoryLimitTest, FreeingReturnsTheMemoryToTheBudget) {
  for (int round = 0; round < 8; ++round) {  // 8 x 700 KiB through a 1 MiB budget
    void* p = nullptr;
    ASSERT_ACL_OK(svp_acl_rt_malloc_cached(&p, 700 * 1024, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
    void* q = nullptr;
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_BAD_ALLOC, svp_acl_rt_malloc(&q, 700 * 1024, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
    ASSERT_ACL_OK(svp_acl_rt_free(p));
  }
  EXPECT_EQ(runtime().backend().memory().usage().in_use, 0u);
  EXPECT_EQ(runtime().backend().memory().usage().limit, kMiB);
}

// Threads racing for the last bytes never pass the limit together: of 8 threads each
// asking for 4 blocks of 64 KiB (32 blocks) in a 1 MiB budget, exactly 16 succeed.
TEST_F(MemoryLimitTest, ConcurrentAllocationsNeverPassTheLimitTogether) {
  for (int round = 0; round < 5; ++round) {
    constexpr int kThreads = 8;
    std::vector<std::vector<void*>> got(kThreads);
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        while (!go.load()) std::this_thread::yield();
        for (int i = 0; i < 4; ++i) {
          void* p = nullptr;
          if (svp_acl_rt_malloc(&p, 64 * 1024, SVP_ACL_MEM_MALLOC_NORMAL_ONLY) == SVP_ACL_SUCCESS) {
            got[t].push_back(p);
          }
        }
      });
    }
    go.store(true);
    for (auto& th : threads) th.join();
    size_t granted = 0;
    for (const auto& g : got) granted += g.size();
    EXPECT_EQ(granted, 16u) << "round " << round;
    EXPECT_EQ(runtime().backend().memory().usage().in_use, granted * 64 * 1024);
    for (const auto& g : got) {
      for (void* p : g) EXPECT_ACL_OK(svp_acl_rt_free(p));
    }
    EXPECT_EQ(runtime().backend().memory().usage().in_use, 0u);
  }
}

}  // namespace
