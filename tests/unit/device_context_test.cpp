// Devices, contexts and the thread-current context, plus the seed's threading patterns
// (single thread / single stream, single thread / multi stream, multi thread / multi
// stream) and device-wide synchronisation.
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "test_support.h"

namespace {

using svp::test::Gate;
using svp::test::TaskOwner;
using svp::test::eventually;

class DeviceContextTest : public svp::test::RuntimeTest, protected svp::test::TaskHelpers {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    if (HasFatalFailure()) return;
    // A broken implementation should fail a test, not hang it.
    ASSERT_ACL_OK(svp_acl_rt_set_op_wait_timeout(30));
  }
  void TearDown() override {
    open_gates();
    RuntimeTest::TearDown();
  }
  svp_acl_rt_context current() {
    svp_acl_rt_context c = nullptr;
    EXPECT_ACL_OK(svp_acl_rt_get_current_context(&c));
    return c;
  }

};

class TwoCoreDeviceContextTest : public DeviceContextTest {
 protected:
  std::string config_json() const override { return R"({"softnpu": {"cores": 2}})"; }
};

// ---------------------------------------------------------------------------------------
// devices
// ---------------------------------------------------------------------------------------

TEST_F(DeviceContextTest, ThereIsOneDeviceRunningInDeviceMode) {
  uint32_t n = 0;
  EXPECT_ACL_OK(svp_acl_rt_get_device_count(&n));
  EXPECT_EQ(n, 1u);
  svp_acl_rt_run_mode mode = SVP_ACL_HOST;
  EXPECT_ACL_OK(svp_acl_rt_get_run_mode(&mode));
  EXPECT_EQ(mode, SVP_ACL_DEVICE);
}

TEST_F(DeviceContextTest, NullOutputPointersFailWithInvalidParam) {
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_get_device_count(nullptr));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_get_run_mode(nullptr));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_get_device(nullptr));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_get_current_context(nullptr));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_create_context(nullptr, 0));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_create_stream(nullptr));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_create_event(nullptr));
}

TEST_F(DeviceContextTest, InvalidDeviceIdsAreRejected) {
  for (int32_t id : {-1, 1, 2, 64, INT32_MAX, INT32_MIN}) {
    SCOPED_TRACE(id);
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_DEVICE, svp_acl_rt_set_device(id));
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_DEVICE, svp_acl_rt_reset_device(id));
    svp_acl_rt_context ctx = nullptr;
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_DEVICE, svp_acl_rt_create_context(&ctx, id));
    EXPECT_EQ(ctx, nullptr);
  }
}

TEST_F(DeviceContextTest, WithoutACurrentContextContextBoundCallsFailWithInvalidResourceHandle) {
  svp_acl_rt_context ctx = nullptr;
  int32_t dev = -1;
  svp_acl_rt_stream s = nullptr;
  svp_acl_rt_event ev = nullptr;
  std::atomic<int> ran{0};
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_get_current_context(&ctx));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_get_device(&dev));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_create_stream(&s));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_create_event(&ev));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_synchronize_device());
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_synchronize_stream(nullptr));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE,
                   svp_acl_rt_subscribe_report(static_cast<uint64_t>(pthread_self()), nullptr));
  EXPECT_EQ(launch_counter(nullptr, ran), SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_EQ(ctx, nullptr);
  EXPECT_EQ(s, nullptr);
  EXPECT_EQ(ev, nullptr);
  EXPECT_EQ(dev, -1);
}

TEST_F(DeviceContextTest, SetDeviceMakesTheDevicesDefaultContextCurrent) {
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  svp_acl_rt_context def = current();
  ASSERT_NE(def, nullptr);
  int32_t dev = -1;
  EXPECT_ACL_OK(svp_acl_rt_get_device(&dev));
  EXPECT_EQ(dev, 0);
  // The default stream (NULL) of that context works.
  std::atomic<int> ran{0};
  ASSERT_ACL_OK(launch_counter(nullptr, ran));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(nullptr));
  EXPECT_EQ(ran.load(), 1);
  // A second set_device returns to the same default context.
  svp_acl_rt_context other = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_context(&other, 0));
  EXPECT_NE(current(), def);
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  EXPECT_EQ(current(), def);
  EXPECT_ACL_OK(svp_acl_rt_destroy_context(other));
}

TEST_F(DeviceContextTest, TheDefaultContextCannotBeDestroyed) {
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  svp_acl_rt_context def = current();
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_destroy_context(def));
  // ... and it is still alive and current.
  EXPECT_EQ(current(), def);
  svp_acl_rt_stream s = nullptr;
  EXPECT_ACL_OK(svp_acl_rt_create_stream(&s));
  EXPECT_ACL_OK(svp_acl_rt_destroy_stream(s));
}

TEST_F(DeviceContextTest, SetDeviceIsReferenceCountedPerDevice) {
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  svp_acl_rt_context def = current();
  svp_acl_rt_stream s = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_stream(&s));

  // First reset: one reference left, everything still works.
  ASSERT_ACL_OK(svp_acl_rt_reset_device(0));
  EXPECT_EQ(current(), def);
  std::atomic<int> ran{0};
  ASSERT_ACL_OK(launch_counter(s, ran));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(s));
  EXPECT_EQ(ran.load(), 1);

  // Last reset: the default context and every stream created in it are gone.
  ASSERT_ACL_OK(svp_acl_rt_reset_device(0));
  svp_acl_rt_context none = nullptr;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_get_current_context(&none));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_set_current_context(def));

  // A new set_device builds a new default context; the old handles stay invalid.
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  svp_acl_rt_context def2 = current();
  EXPECT_NE(def2, def);
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_synchronize_stream(s));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_destroy_stream(s));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_set_current_context(def));
}

TEST_F(DeviceContextTest, ResetOfADeviceThatWasNeverSetSucceeds) {
  EXPECT_ACL_OK(svp_acl_rt_reset_device(0));
  // An explicit context does not take a device reference, and survives such a reset.
  svp_acl_rt_context ctx = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_context(&ctx, 0));
  EXPECT_ACL_OK(svp_acl_rt_reset_device(0));
  EXPECT_EQ(current(), ctx);
  svp_acl_rt_stream s = nullptr;
  EXPECT_ACL_OK(svp_acl_rt_create_stream(&s));
  // The device can still be set normally afterwards.
  EXPECT_ACL_OK(svp_acl_rt_set_device(0));
  EXPECT_ACL_OK(svp_acl_rt_reset_device(0));
  EXPECT_ACL_OK(svp_acl_rt_destroy_context(ctx));
}

TEST_F(DeviceContextTest, ThreadsThatSetTheSameDeviceShareItsDefaultContextUntilTheLastReset) {
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  svp_acl_rt_context def = current();
  std::atomic<svp_acl_rt_context> seen{nullptr};
  std::atomic<int> rc_set{-1}, rc_reset{-1};
  std::thread t([&] {
    rc_set = svp_acl_rt_set_device(0);
    svp_acl_rt_context c = nullptr;
    svp_acl_rt_get_current_context(&c);
    seen = c;
    rc_reset = svp_acl_rt_reset_device(0);
  });
  t.join();
  EXPECT_EQ(rc_set.load(), SVP_ACL_SUCCESS);
  EXPECT_EQ(rc_reset.load(), SVP_ACL_SUCCESS);
  EXPECT_EQ(seen.load(), def);
  // The other thread's reset dropped only its own reference.
  EXPECT_EQ(current(), def);
  std::atomic<int> ran{0};
  ASSERT_ACL_OK(launch_counter(nullptr, ran));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(nullptr));
  EXPECT_EQ(ran.load(), 1);
  ASSERT_ACL_OK(svp_acl_rt_reset_device(0));
  svp_acl_rt_context none = nullptr;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_get_current_context(&none));
}

// ---------------------------------------------------------------------------------------
// contexts
// ---------------------------------------------------------------------------------------

TEST_F(DeviceContextTest, CreateContextMakesTheNewContextCurrent) {
  svp_acl_rt_context a = nullptr, b = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_context(&a, 0));
  EXPECT_NE(a, nullptr);
  EXPECT_EQ(current(), a);
  ASSERT_ACL_OK(svp_acl_rt_create_context(&b, 0));
  EXPECT_NE(b, a);
  EXPECT_EQ(current(), b);
  int32_t dev = -1;
  EXPECT_ACL_OK(svp_acl_rt_get_device(&dev));
  EXPECT_EQ(dev, 0);
  EXPECT_ACL_OK(svp_acl_rt_destroy_context(b));
  EXPECT_ACL_OK(svp_acl_rt_destroy_context(a));
}

TEST_F(TwoCoreDeviceContextTest, EveryContextHasItsOwnDefaultStream) {
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  Gate& gate = new_gate();
  ASSERT_ACL_OK(launch_gated(nullptr, gate));  // default stream of the default context
  gate.entered_wait();
  svp_acl_rt_context ctx = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_context(&ctx, 0));
  std::atomic<int> ran{0};
  ASSERT_ACL_OK(launch_counter(nullptr, ran));  // default stream of the new context
  // Not queued behind the blocked task: it completes while the gate is still closed.
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(nullptr));
  EXPECT_EQ(ran.load(), 1);
  gate.open();
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  EXPECT_ACL_OK(svp_acl_rt_synchronize_stream(nullptr));
  EXPECT_ACL_OK(svp_acl_rt_destroy_context(ctx));
}

TEST_F(DeviceContextTest, BadContextHandlesAreRejected) {
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  svp_acl_rt_stream s = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_stream(&s));
  svp_acl_rt_event ev = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_event(&ev));
  svp_acl_rt_context gone = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_context(&gone, 0));
  ASSERT_ACL_OK(svp_acl_rt_destroy_context(gone));
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));

  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_destroy_context(nullptr));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_set_current_context(nullptr));
  int local = 0;
  for (void* bad : {reinterpret_cast<void*>(0x1234), static_cast<void*>(&local), static_cast<void*>(s),
                    static_cast<void*>(ev), static_cast<void*>(gone)}) {
    SCOPED_TRACE(bad);
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_destroy_context(bad));
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_set_current_context(bad));
  }
  // None of that changed the thread's current context.
  int32_t dev = -1;
  EXPECT_ACL_OK(svp_acl_rt_get_device(&dev));
  EXPECT_ACL_OK(svp_acl_rt_destroy_stream(s));
  EXPECT_ACL_OK(svp_acl_rt_destroy_event(ev));
}

TEST_F(DeviceContextTest, DestroyingTheCurrentContextLeavesTheThreadWithoutOne) {
  svp_acl_rt_context ctx = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_context(&ctx, 0));
  svp_acl_rt_stream s = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_stream(&s));
  ASSERT_ACL_OK(svp_acl_rt_destroy_context(ctx));
  svp_acl_rt_context none = nullptr;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_get_current_context(&none));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_destroy_context(ctx));
  // Its streams went with it.
  svp_acl_rt_context other = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_context(&other, 0));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_synchronize_stream(s));
  EXPECT_ACL_OK(svp_acl_rt_destroy_context(other));
}

TEST_F(DeviceContextTest, TheLastSetCurrentContextWins) {
  svp_acl_rt_context a = nullptr, b = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_context(&a, 0));
  ASSERT_ACL_OK(svp_acl_rt_create_context(&b, 0));
  EXPECT_EQ(current(), b);
  ASSERT_ACL_OK(svp_acl_rt_set_current_context(a));
  EXPECT_EQ(current(), a);
  ASSERT_ACL_OK(svp_acl_rt_set_current_context(b));
  ASSERT_ACL_OK(svp_acl_rt_set_current_context(a));
  EXPECT_EQ(current(), a);
  // Streams follow the current context: one made now belongs to `a`.
  svp_acl_rt_stream s = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_stream(&s));
  ASSERT_ACL_OK(svp_acl_rt_set_current_context(b));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RESOURCE_NOT_MATCH, svp_acl_rt_synchronize_stream(s));
  ASSERT_ACL_OK(svp_acl_rt_set_current_context(a));
  EXPECT_ACL_OK(svp_acl_rt_synchronize_stream(s));
  EXPECT_ACL_OK(svp_acl_rt_destroy_stream(s));
  EXPECT_ACL_OK(svp_acl_rt_destroy_context(a));
  EXPECT_ACL_OK(svp_acl_rt_destroy_context(b));
}

TEST_F(DeviceContextTest, TheCurrentContextIsPerThread) {
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  svp_acl_rt_context main_ctx = current();
  constexpr int kThreads = 4;
  std::vector<svp_acl_rt_context> contexts(kThreads);
  for (auto& c : contexts) {
    ASSERT_ACL_OK(svp_acl_rt_create_context(&c, 0));
  }
  ASSERT_ACL_OK(svp_acl_rt_set_current_context(main_ctx));

  std::atomic<int> failures{0};
  std::atomic<int> set_count{0};
  Gate all_set;
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      svp_acl_rt_context c = nullptr;
      // A new thread starts without a current context, whatever other threads did.
      if (svp_acl_rt_get_current_context(&c) != SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE) ++failures;
      if (svp_acl_rt_set_current_context(contexts[i]) != SVP_ACL_SUCCESS) ++failures;
      if (set_count.fetch_add(1) + 1 == kThreads) all_set.open();
      all_set.wait();  // every thread has now set its own context
      if (svp_acl_rt_get_current_context(&c) != SVP_ACL_SUCCESS || c != contexts[i]) ++failures;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(current(), main_ctx);
  for (auto& c : contexts) EXPECT_ACL_OK(svp_acl_rt_destroy_context(c));
}

TEST_F(DeviceContextTest, AContextMayBeCurrentInSeveralThreads) {
  svp_acl_rt_context ctx = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_context(&ctx, 0));
  svp_acl_rt_stream s = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_stream(&s));
  std::atomic<int> ran{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i) {
    threads.emplace_back([&] {
      if (svp_acl_rt_set_current_context(ctx) != SVP_ACL_SUCCESS) ++failures;
      for (int k = 0; k < 5; ++k) {
        if (launch_counter(s, ran) != SVP_ACL_SUCCESS) ++failures;
      }
      if (svp_acl_rt_synchronize_stream(s) != SVP_ACL_SUCCESS) ++failures;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(s));
  EXPECT_EQ(ran.load(), 15);
  EXPECT_ACL_OK(svp_acl_rt_destroy_stream(s));
  EXPECT_ACL_OK(svp_acl_rt_destroy_context(ctx));
}

// ---------------------------------------------------------------------------------------
// seed patterns
// ---------------------------------------------------------------------------------------

// One "inference": an NPU task that copies `in` to `out` over several segments.
struct CopyJob {
  const uint8_t* in = nullptr;
  uint8_t* out = nullptr;
  size_t size = 0;
  uint32_t segments = 4;
};

svp_acl_error copy_segment(void* d, uint32_t i) {
  auto* job = static_cast<CopyJob*>(d);
  const size_t chunk = (job->size + job->segments - 1) / job->segments;
  const size_t begin = std::min(job->size, size_t{i} * chunk);
  const size_t end = std::min(job->size, begin + chunk);
  std::memcpy(job->out + begin, job->in + begin, end - begin);
  return SVP_ACL_SUCCESS;
}

// The whole single-stream flow of the seed on the calling thread: context, stream,
// buffers, `jobs` copy tasks, synchronize, verify, release. Returns a failure count.
int run_single_stream_flow(int32_t device, int jobs, int seed) {
  int failures = 0;
  auto check = [&](svp_acl_error rc) {
    if (rc != SVP_ACL_SUCCESS) {
      ADD_FAILURE() << svp_acl_get_recent_err_msg();
      ++failures;
    }
    return rc == SVP_ACL_SUCCESS;
  };
  svp_acl_rt_context ctx = nullptr;
  if (!check(svp_acl_rt_create_context(&ctx, device))) return failures;
  svp_acl_rt_stream stream = nullptr;
  if (!check(svp_acl_rt_create_stream(&stream))) return failures;
  constexpr size_t kSize = 1000;
  std::vector<void*> ins(jobs), outs(jobs);
  std::vector<CopyJob> work(jobs);
  for (int j = 0; j < jobs; ++j) {
    check(svp_acl_rt_malloc(&ins[j], kSize, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
    check(svp_acl_rt_malloc(&outs[j], kSize, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
    if (failures) return failures;
    for (size_t b = 0; b < kSize; ++b) static_cast<uint8_t*>(ins[j])[b] = static_cast<uint8_t>(seed * 31 + j * 7 + b);
    work[j] = CopyJob{static_cast<uint8_t*>(ins[j]), static_cast<uint8_t*>(outs[j]), kSize, 4};
    check(svp_acl_ext_launch_segmented_task(copy_segment, &work[j], work[j].segments, nullptr, stream));
  }
  check(svp_acl_rt_synchronize_stream(stream));
  for (int j = 0; j < jobs; ++j) {
    if (std::memcmp(ins[j], outs[j], kSize) != 0) {
      ADD_FAILURE() << "job " << j << " of flow " << seed << " produced wrong output";
      ++failures;
    }
  }
  svp_acl_rt_context cur = nullptr;
  if (!check(svp_acl_rt_get_current_context(&cur)) || cur != ctx) {
    ADD_FAILURE() << "the thread's current context changed under it";
    ++failures;
  }
  for (int j = 0; j < jobs; ++j) {
    check(svp_acl_rt_free(ins[j]));
    check(svp_acl_rt_free(outs[j]));
  }
  check(svp_acl_rt_destroy_stream(stream));
  check(svp_acl_rt_destroy_context(ctx));
  return failures;
}

TEST_F(DeviceContextTest, SeedSingleThreadSingleStream) {
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  EXPECT_EQ(run_single_stream_flow(0, 10, 1), 0);
  EXPECT_ACL_OK(svp_acl_rt_reset_device(0));
}

TEST_F(DeviceContextTest, SeedSingleThreadMultiStreamKeepsEachStreamInOrder) {
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  constexpr int kStreams = 4;
  constexpr int kTasks = 12;
  std::vector<svp_acl_rt_stream> streams(kStreams);
  for (auto& s : streams) ASSERT_ACL_OK(svp_acl_rt_create_stream(&s));
  std::vector<std::vector<int>> order(kStreams);  // written only by the emulated core(s)
  std::mutex order_mu;
  // Interleave submissions across the streams.
  for (int t = 0; t < kTasks; ++t) {
    for (int s = 0; s < kStreams; ++s) {
      ASSERT_ACL_OK(tasks_.launch(
          streams[s],
          [&, s, t](uint32_t seg) {
            if (seg == 1) {
              std::lock_guard<std::mutex> l(order_mu);
              order[s].push_back(t);
            }
            return SVP_ACL_SUCCESS;
          },
          2));
    }
  }
  for (auto& s : streams) ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(s));
  std::vector<int> expected(kTasks);
  for (int t = 0; t < kTasks; ++t) expected[t] = t;
  std::lock_guard<std::mutex> l(order_mu);
  for (int s = 0; s < kStreams; ++s) EXPECT_EQ(order[s], expected) << "stream " << s;
  for (auto& s : streams) EXPECT_ACL_OK(svp_acl_rt_destroy_stream(s));
  EXPECT_ACL_OK(svp_acl_rt_reset_device(0));
}

TEST_F(DeviceContextTest, SeedMultiThreadMultiStreamEachThreadWithItsOwnContextAndStream) {
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  svp_acl_rt_context main_ctx = current();
  constexpr int kThreads = 4;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] { failures += run_single_stream_flow(0, 8, 100 + i); });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(current(), main_ctx);
  EXPECT_EQ(runtime().live_contexts(), 1u);  // only the default context is left
  EXPECT_ACL_OK(svp_acl_rt_reset_device(0));
  EXPECT_EQ(runtime().live_contexts(), 0u);
  EXPECT_EQ(runtime().live_streams(), 0u);
}

TEST_F(DeviceContextTest, SynchronizeDeviceWaitsForEveryStreamOfTheDevice) {
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  svp_acl_rt_context def = current();
  svp_acl_rt_stream s1 = nullptr, s2 = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_stream(&s1));
  ASSERT_ACL_OK(svp_acl_rt_create_stream(&s2));
  Gate& gate = new_gate();
  std::atomic<int> done{0};
  ASSERT_ACL_OK(launch_gated(s1, gate));
  ASSERT_ACL_OK(launch_counter(s1, done));
  ASSERT_ACL_OK(launch_counter(s2, done));
  ASSERT_ACL_OK(launch_counter(nullptr, done));
  // A stream of another context on the same device counts too.
  svp_acl_rt_context other = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_context(&other, 0));
  svp_acl_rt_stream s3 = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_stream(&s3));
  ASSERT_ACL_OK(launch_counter(s3, done));
  ASSERT_ACL_OK(launch_counter(nullptr, done));
  ASSERT_ACL_OK(svp_acl_rt_set_current_context(def));
  gate.entered_wait();

  std::atomic<bool> returned{false};
  std::atomic<int> done_at_return{-1};
  std::atomic<int> rc{-1};
  std::thread syncer([&] {
    svp_acl_rt_set_current_context(def);
    rc = svp_acl_rt_synchronize_device();
    done_at_return = done.load();
    returned = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_FALSE(returned.load()) << "synchronize_device returned while a task was still blocked";
  gate.open();
  syncer.join();
  EXPECT_EQ(rc.load(), SVP_ACL_SUCCESS);
  EXPECT_EQ(done_at_return.load(), 5);
  EXPECT_ACL_OK(svp_acl_rt_synchronize_device());  // idle device: returns at once
  EXPECT_ACL_OK(svp_acl_rt_destroy_context(other));
}

}  // namespace
