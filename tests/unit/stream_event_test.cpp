// Streams and events: creation limits, ordering, cancellation on destroy, record /
// query / wait / synchronize / reset, elapsed time, and handle validation.
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
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
using namespace std::chrono_literals;

// Two emulated cores, so that a stream held back by a wait (rather than by a busy core)
// is really what a test observes.
class StreamEventTest : public svp::test::RuntimeTest, protected svp::test::TaskHelpers {
 protected:
  std::string config_json() const override { return R"({"softnpu": {"cores": 2}})"; }
  void SetUp() override {
    RuntimeTest::SetUp();
    if (HasFatalFailure()) return;
    ASSERT_ACL_OK(svp_acl_rt_set_op_wait_timeout(30));  // fail, don't hang
    ASSERT_ACL_OK(svp_acl_rt_set_device(0));
    ASSERT_ACL_OK(svp_acl_rt_get_current_context(&ctx_));
  }
  void TearDown() override {
    open_gates();
    RuntimeTest::TearDown();
  }
  svp_acl_rt_stream new_stream() {
    svp_acl_rt_stream s = nullptr;
    EXPECT_ACL_OK(svp_acl_rt_create_stream(&s));
    return s;
  }
  svp_acl_rt_event new_event() {
    svp_acl_rt_event e = nullptr;
    EXPECT_ACL_OK(svp_acl_rt_create_event(&e));
    return e;
  }
  svp_acl_rt_event_status status_of(svp_acl_rt_event e) {
    svp_acl_rt_event_status st = SVP_ACL_EVENT_STATUS_RESERVED;
    EXPECT_ACL_OK(svp_acl_rt_query_event(e, &st));
    return st;
  }
  svp_acl_rt_event_wait_status wait_status_of(svp_acl_rt_event e) {
    svp_acl_rt_event_wait_status st = SVP_ACL_EVENT_WAIT_STATUS_RESERVED;
    EXPECT_ACL_OK(svp_acl_rt_query_event_wait_status(e, &st));
    return st;
  }

  svp_acl_rt_context ctx_ = nullptr;
};

class TwoDeviceStreamEventTest : public StreamEventTest {
 protected:
  std::string config_json() const override { return R"({"softnpu": {"devices": 2}})"; }
};

// ---------------------------------------------------------------------------------------
// streams
// ---------------------------------------------------------------------------------------

TEST_F(StreamEventTest, TheDefaultStreamIsNullAndCannotBeDestroyed) {
  std::atomic<int> ran{0};
  ASSERT_ACL_OK(launch_counter(nullptr, ran));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(nullptr));
  EXPECT_EQ(ran.load(), 1);
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_destroy_stream(nullptr));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_create_stream(nullptr));
  // Still usable.
  ASSERT_ACL_OK(launch_counter(nullptr, ran));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(nullptr));
  EXPECT_EQ(ran.load(), 2);
}

TEST_F(StreamEventTest, BadStreamHandlesAreRejectedWithInvalidResourceHandle) {
  svp_acl_rt_stream gone = new_stream();
  ASSERT_ACL_OK(svp_acl_rt_destroy_stream(gone));
  svp_acl_rt_event ev = new_event();
  ASSERT_ACL_OK(svp_acl_rt_record_event(ev, nullptr));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_event(ev));
  int local = 0;
  std::atomic<int> ran{0};
  const uint64_t self = static_cast<uint64_t>(pthread_self());
  for (void* bad : {reinterpret_cast<void*>(0x1234), static_cast<void*>(&local), static_cast<void*>(gone),
                    static_cast<void*>(ev), static_cast<void*>(ctx_)}) {
    SCOPED_TRACE(bad);
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_destroy_stream(bad));
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_synchronize_stream(bad));
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_record_event(ev, bad));
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_stream_wait_event(bad, ev));
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_reset_event(ev, bad));
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_subscribe_report(self, bad));
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_unsubscribe_report(self, bad));
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE,
                     svp_acl_rt_launch_callback([](void*) {}, nullptr, SVP_ACL_CALLBACK_BLOCK, bad));
    EXPECT_EQ(launch_counter(bad, ran), SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE);
  }
  ASSERT_ACL_OK(svp_acl_rt_synchronize_device());
  EXPECT_EQ(ran.load(), 0);
}

TEST_F(StreamEventTest, AStreamOfAnotherContextIsRejectedWithResourceNotMatch) {
  svp_acl_rt_stream mine = new_stream();
  svp_acl_rt_event ev = new_event();
  ASSERT_ACL_OK(svp_acl_rt_record_event(ev, mine));
  svp_acl_rt_context other = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_context(&other, 0));  // now current
  std::atomic<int> ran{0};
  const uint64_t self = static_cast<uint64_t>(pthread_self());
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RESOURCE_NOT_MATCH, svp_acl_rt_destroy_stream(mine));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RESOURCE_NOT_MATCH, svp_acl_rt_synchronize_stream(mine));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RESOURCE_NOT_MATCH, svp_acl_rt_record_event(ev, mine));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RESOURCE_NOT_MATCH, svp_acl_rt_stream_wait_event(mine, ev));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RESOURCE_NOT_MATCH, svp_acl_rt_reset_event(ev, mine));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RESOURCE_NOT_MATCH, svp_acl_rt_subscribe_report(self, mine));
  EXPECT_EQ(launch_counter(mine, ran), SVP_ACL_ERROR_RESOURCE_NOT_MATCH);
  // Back in the owning context it all works.
  ASSERT_ACL_OK(svp_acl_rt_set_current_context(ctx_));
  ASSERT_ACL_OK(launch_counter(mine, ran));
  EXPECT_ACL_OK(svp_acl_rt_synchronize_stream(mine));
  EXPECT_EQ(ran.load(), 1);
  EXPECT_ACL_OK(svp_acl_rt_destroy_stream(mine));
  EXPECT_ACL_OK(svp_acl_rt_destroy_context(other));
}

TEST_F(StreamEventTest, AtMost128StreamsPerDeviceIncludingDefaultStreams) {
  // The default context's default stream is the first of 128.
  std::vector<svp_acl_rt_stream> streams;
  for (int i = 0; i < 127; ++i) {
    svp_acl_rt_stream s = nullptr;
    ASSERT_ACL_OK(svp_acl_rt_create_stream(&s)) << i;
    streams.push_back(s);
  }
  svp_acl_rt_stream extra = nullptr;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_STORAGE_OVER_LIMIT, svp_acl_rt_create_stream(&extra));
  svp_acl_rt_context ctx = nullptr;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_STORAGE_OVER_LIMIT, svp_acl_rt_create_context(&ctx, 0));
  // Two freed streams: one for a context's default stream, one for a stream in it.
  ASSERT_ACL_OK(svp_acl_rt_destroy_stream(streams.back()));
  streams.pop_back();
  ASSERT_ACL_OK(svp_acl_rt_destroy_stream(streams.back()));
  streams.pop_back();
  ASSERT_ACL_OK(svp_acl_rt_create_context(&ctx, 0));
  ASSERT_ACL_OK(svp_acl_rt_create_stream(&extra));
  svp_acl_rt_stream extra2 = nullptr;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_STORAGE_OVER_LIMIT, svp_acl_rt_create_stream(&extra2));
  // All of them work.
  std::atomic<int> ran{0};
  ASSERT_ACL_OK(launch_counter(extra, ran));
  ASSERT_ACL_OK(svp_acl_rt_set_current_context(ctx_));
  for (auto s : streams) ASSERT_ACL_OK(launch_counter(s, ran));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_device());
  EXPECT_EQ(ran.load(), 126);
  // Destroying the explicit context releases its two streams.
  ASSERT_ACL_OK(svp_acl_rt_destroy_context(ctx));
  ASSERT_ACL_OK(svp_acl_rt_create_stream(&extra));
  ASSERT_ACL_OK(svp_acl_rt_create_stream(&extra2));
}

TEST_F(StreamEventTest, StreamsOfOneDeviceRunConcurrently) {
  svp_acl_rt_stream a = new_stream();
  svp_acl_rt_stream b = new_stream();
  std::atomic<bool> b_ran{false};
  std::atomic<bool> a_saw_b{false};
  // `a` waits (bounded) for a task of `b` that is enqueued after it: only possible if
  // the two streams are not serialised.
  ASSERT_ACL_OK(tasks_.launch(a, [&](uint32_t) {
    a_saw_b = eventually([&] { return b_ran.load(); }, 2000ms);
    return SVP_ACL_SUCCESS;
  }));
  ASSERT_ACL_OK(tasks_.launch(b, [&](uint32_t) {
    b_ran = true;
    return SVP_ACL_SUCCESS;
  }));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(a));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(b));
  EXPECT_TRUE(a_saw_b.load());
}

TEST_F(StreamEventTest, DestroyingAStreamWithPendingWorkCancelsEntriesThatHaveNotStarted) {
  svp_acl_rt_stream s = new_stream();
  Gate& head_gate = new_gate();
  Gate& other_gate = new_gate();
  std::atomic<int> head_segments{0};
  std::atomic<int> later{0};
  std::atomic<int> other{0};
  // The other core is kept busy so that an event the doomed stream waits on stays pending.
  svp_acl_rt_event upstream = new_event();
  ASSERT_ACL_OK(launch_gated(nullptr, other_gate));
  ASSERT_ACL_OK(svp_acl_rt_record_event(upstream, nullptr));
  other_gate.entered_wait();

  ASSERT_ACL_OK(tasks_.launch(
      s,
      [&](uint32_t seg) {
        if (seg == 0) {
          head_gate.mark_entered();
          head_gate.wait();
        }
        head_segments.fetch_add(1);
        return SVP_ACL_SUCCESS;
      },
      3));
  for (int i = 0; i < 4; ++i) ASSERT_ACL_OK(launch_counter(s, later));
  svp_acl_rt_event marker = new_event();
  ASSERT_ACL_OK(svp_acl_rt_record_event(marker, s));
  ASSERT_ACL_OK(svp_acl_rt_stream_wait_event(s, upstream));
  for (int i = 0; i < 4; ++i) ASSERT_ACL_OK(launch_counter(s, later));
  head_gate.entered_wait();
  EXPECT_EQ(wait_status_of(upstream), SVP_ACL_EVENT_WAIT_STATUS_NOT_READY);

  std::atomic<int> rc{-1};
  std::atomic<bool> destroyed{false};
  std::thread destroyer([&] {
    svp_acl_rt_set_current_context(ctx_);
    rc = svp_acl_rt_destroy_stream(s);
    destroyed = true;
  });
  // Queued entries are cancelled at once: the record completes (with an error) ...
  EXPECT_TRUE(eventually([&] { return status_of(marker) == SVP_ACL_EVENT_STATUS_COMPLETE; }));
  // ... while destroy waits for the running task to reach a segment boundary.
  EXPECT_FALSE(destroyed.load());
  head_gate.open();
  destroyer.join();
  EXPECT_EQ(rc.load(), SVP_ACL_SUCCESS);
  EXPECT_EQ(head_segments.load(), 1) << "the running task must stop at its next segment boundary";
  EXPECT_EQ(later.load(), 0) << "entries behind the running task must be cancelled, not run";
  EXPECT_NE(svp_acl_rt_synchronize_event(marker), SVP_ACL_SUCCESS) << "a cancelled record reports an error";
  EXPECT_FALSE(std::string(svp_acl_get_recent_err_msg()).empty());

  // The cancelled wait no longer counts as pending once its event completes.
  other_gate.open();
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(nullptr));
  EXPECT_EQ(wait_status_of(upstream), SVP_ACL_EVENT_WAIT_STATUS_COMPLETE);
  // The device is unharmed.
  ASSERT_ACL_OK(launch_counter(nullptr, other));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_device());
  EXPECT_EQ(other.load(), 1);
  EXPECT_EQ(later.load(), 0);
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_synchronize_stream(s));
}

TEST_F(StreamEventTest, DestroyingABusyStreamRightAfterItsGateOpensNeitherCrashesNorHangs) {
  for (int round = 0; round < 5; ++round) {
    SCOPED_TRACE(round);
    svp_acl_rt_stream s = new_stream();
    Gate& gate = new_gate();
    std::atomic<int> later{0};
    ASSERT_ACL_OK(launch_gated(s, gate));
    for (int i = 0; i < 20; ++i) ASSERT_ACL_OK(launch_counter(s, later));
    gate.entered_wait();
    gate.open();
    std::atomic<int> rc{-1};
    std::thread destroyer([&] {
      svp_acl_rt_set_current_context(ctx_);
      rc = svp_acl_rt_destroy_stream(s);
    });
    destroyer.join();
    ASSERT_EQ(rc.load(), SVP_ACL_SUCCESS);
    // Whatever had not started is gone for good.
    const int at_destroy = later.load();
    EXPECT_LE(at_destroy, 20);
    ASSERT_ACL_OK(svp_acl_rt_synchronize_device());
    std::this_thread::sleep_for(2ms);
    EXPECT_EQ(later.load(), at_destroy);
  }
}

TEST_F(StreamEventTest, HostWaitsGiveUpAfterTheOpWaitTimeout) {
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_set_op_wait_timeout(4000001));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_set_op_wait_timeout(UINT32_MAX));
  EXPECT_ACL_OK(svp_acl_rt_set_op_wait_timeout(4000000));
  EXPECT_ACL_OK(svp_acl_rt_set_op_wait_timeout(0));
  svp_acl_rt_stream s = new_stream();
  svp_acl_rt_event ev = new_event();
  Gate& gate = new_gate();
  ASSERT_ACL_OK(launch_gated(s, gate));
  ASSERT_ACL_OK(svp_acl_rt_record_event(ev, s));
  gate.entered_wait();
  ASSERT_ACL_OK(svp_acl_rt_set_op_wait_timeout(1));  // seconds; the smallest bound

  // Stream, event and device waits, concurrently (about 1 s in total).
  struct Outcome {
    std::atomic<int> rc{-1};
    std::atomic<long> ms{-1};
    std::atomic<bool> has_message{false};
  } outcome[3];
  std::vector<std::thread> waiters;
  for (int i = 0; i < 3; ++i) {
    waiters.emplace_back([&, i] {
      svp_acl_rt_set_current_context(ctx_);
      const auto t0 = std::chrono::steady_clock::now();
      const svp_acl_error rc = i == 0   ? svp_acl_rt_synchronize_stream(s)
                               : i == 1 ? svp_acl_rt_synchronize_event(ev)
                                        : svp_acl_rt_synchronize_device();
      outcome[i].ms = static_cast<long>(
          std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count());
      outcome[i].rc = rc;
      outcome[i].has_message = std::string(svp_acl_get_recent_err_msg()).find("timed out") != std::string::npos;
    });
  }
  for (auto& w : waiters) w.join();
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(i == 0 ? "synchronize_stream" : i == 1 ? "synchronize_event" : "synchronize_device");
    EXPECT_NE(outcome[i].rc.load(), SVP_ACL_SUCCESS);
    EXPECT_TRUE(outcome[i].has_message.load());
    EXPECT_GE(outcome[i].ms.load(), 950);
    EXPECT_LT(outcome[i].ms.load(), 10000);
  }
  // A timed-out wait leaves no error behind: once the work finishes, all is well.
  ASSERT_ACL_OK(svp_acl_rt_set_op_wait_timeout(30));
  gate.open();
  EXPECT_ACL_OK(svp_acl_rt_synchronize_stream(s));
  EXPECT_ACL_OK(svp_acl_rt_synchronize_event(ev));
  EXPECT_ACL_OK(svp_acl_rt_synchronize_device());
}

// ---------------------------------------------------------------------------------------
// events
// ---------------------------------------------------------------------------------------

TEST_F(StreamEventTest, EventCreationRejectsNullOutputsAndUnknownFlags) {
  svp_acl_rt_event ev = nullptr;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_create_event(nullptr));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_create_event_with_flag(nullptr, SVP_ACL_EVENT_TIME_LINE));
  for (uint32_t flag : {0x1u, 0x4u, 0x10u, 0x80000000u, SVP_ACL_EVENT_TIME_LINE | 0x2u}) {
    SCOPED_TRACE(flag);
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_create_event_with_flag(&ev, flag));
    EXPECT_EQ(ev, nullptr);
  }
  EXPECT_ACL_OK(svp_acl_rt_create_event_with_flag(&ev, 0));
  EXPECT_ACL_OK(svp_acl_rt_destroy_event(ev));
  EXPECT_ACL_OK(svp_acl_rt_create_event_with_flag(&ev, SVP_ACL_EVENT_TIME_LINE));
  EXPECT_ACL_OK(svp_acl_rt_destroy_event(ev));
}

TEST_F(StreamEventTest, BadEventHandlesAreRejected) {
  svp_acl_rt_event gone = new_event();
  ASSERT_ACL_OK(svp_acl_rt_destroy_event(gone));
  svp_acl_rt_event good = new_event();
  ASSERT_ACL_OK(svp_acl_rt_record_event(good, nullptr));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_event(good));
  svp_acl_rt_stream s = new_stream();
  int local = 0;
  svp_acl_rt_event_status st;
  svp_acl_rt_event_wait_status wst;
  float ms = 0;
  for (void* bad : {reinterpret_cast<void*>(0x1234), static_cast<void*>(&local), static_cast<void*>(gone),
                    static_cast<void*>(s), static_cast<void*>(ctx_)}) {
    SCOPED_TRACE(bad);
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_destroy_event(bad));
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_record_event(bad, s));
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_stream_wait_event(s, bad));
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_reset_event(bad, s));
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_query_event(bad, &st));
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_query_event_wait_status(bad, &wst));
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_synchronize_event(bad));
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_event_elapsed_time(&ms, bad, good));
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_event_elapsed_time(&ms, good, bad));
  }
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_destroy_event(nullptr));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_synchronize_event(nullptr));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_query_event(good, nullptr));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_query_event_wait_status(good, nullptr));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_event_elapsed_time(nullptr, good, good));
  // The stream is untouched by all that.
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(s));
  EXPECT_ACL_OK(svp_acl_rt_destroy_event(good));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_destroy_event(good));
}

TEST_F(StreamEventTest, ANeverRecordedEventIsNotReadyAndCannotBeWaitedOn) {
  svp_acl_rt_event ev = new_event();
  svp_acl_rt_stream s = new_stream();
  EXPECT_EQ(status_of(ev), SVP_ACL_EVENT_STATUS_NOT_READY);
  EXPECT_EQ(wait_status_of(ev), SVP_ACL_EVENT_WAIT_STATUS_NOT_READY);
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_synchronize_event(ev));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_stream_wait_event(s, ev));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_stream_wait_event(nullptr, ev));
  // The refused wait left nothing behind in the stream.
  std::atomic<int> ran{0};
  ASSERT_ACL_OK(launch_counter(s, ran));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(s));
  EXPECT_EQ(ran.load(), 1);
}

TEST_F(StreamEventTest, ARecordedEventCompletesOnceEarlierWorkOfItsStreamHasFinished) {
  svp_acl_rt_stream s = new_stream();
  svp_acl_rt_event ev = new_event();
  Gate& gate = new_gate();
  std::atomic<bool> task_done{false};
  ASSERT_ACL_OK(tasks_.launch(s, [&](uint32_t) {
    gate.mark_entered();
    gate.wait();
    task_done = true;
    return SVP_ACL_SUCCESS;
  }));
  ASSERT_ACL_OK(svp_acl_rt_record_event(ev, s));
  gate.entered_wait();
  EXPECT_EQ(status_of(ev), SVP_ACL_EVENT_STATUS_NOT_READY);

  std::atomic<bool> returned{false};
  std::atomic<bool> done_at_return{false};
  std::atomic<int> rc{-1};
  std::thread waiter([&] {
    rc = svp_acl_rt_synchronize_event(ev);  // no context needed
    done_at_return = task_done.load();
    returned = true;
  });
  std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(returned.load());
  EXPECT_EQ(status_of(ev), SVP_ACL_EVENT_STATUS_NOT_READY);
  gate.open();
  waiter.join();
  EXPECT_EQ(rc.load(), SVP_ACL_SUCCESS);
  EXPECT_TRUE(done_at_return.load());
  EXPECT_EQ(status_of(ev), SVP_ACL_EVENT_STATUS_COMPLETE);
  EXPECT_EQ(wait_status_of(ev), SVP_ACL_EVENT_WAIT_STATUS_COMPLETE);
}

TEST_F(StreamEventTest, ReRecordingAnEventMovesItToTheNewPosition) {
  svp_acl_rt_stream s = new_stream();
  svp_acl_rt_event ev = new_event();
  ASSERT_ACL_OK(svp_acl_rt_record_event(ev, s));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_event(ev));
  EXPECT_EQ(status_of(ev), SVP_ACL_EVENT_STATUS_COMPLETE);
  Gate& gate = new_gate();
  ASSERT_ACL_OK(launch_gated(s, gate));
  ASSERT_ACL_OK(svp_acl_rt_record_event(ev, s));
  gate.entered_wait();
  EXPECT_EQ(status_of(ev), SVP_ACL_EVENT_STATUS_NOT_READY);
  gate.open();
  ASSERT_ACL_OK(svp_acl_rt_synchronize_event(ev));
  EXPECT_EQ(status_of(ev), SVP_ACL_EVENT_STATUS_COMPLETE);
}

TEST_F(StreamEventTest, AResetEventCountsAsNeverRecordedUntilRecordedAgain) {
  svp_acl_rt_stream s = new_stream();
  svp_acl_rt_event ev = new_event();
  ASSERT_ACL_OK(svp_acl_rt_record_event(ev, s));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_event(ev));
  ASSERT_ACL_OK(svp_acl_rt_reset_event(ev, s));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(s));  // the reset is ordered on the stream
  EXPECT_EQ(status_of(ev), SVP_ACL_EVENT_STATUS_NOT_READY);
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_synchronize_event(ev));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_stream_wait_event(nullptr, ev));
  float ms = 0;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_event_elapsed_time(&ms, ev, ev));
  ASSERT_ACL_OK(svp_acl_rt_record_event(ev, s));
  EXPECT_ACL_OK(svp_acl_rt_synchronize_event(ev));
  EXPECT_EQ(status_of(ev), SVP_ACL_EVENT_STATUS_COMPLETE);
}

TEST_F(StreamEventTest, StreamWaitEventHoldsLaterWorkOfTheWaitingStream) {
  svp_acl_rt_stream producer = new_stream();
  svp_acl_rt_stream consumer = new_stream();
  svp_acl_rt_event ev = new_event();
  Gate& gate = new_gate();
  std::atomic<bool> produced{false};
  std::atomic<int> consumed{0};
  std::atomic<int> too_early{0};
  ASSERT_ACL_OK(tasks_.launch(producer, [&](uint32_t) {
    gate.mark_entered();
    gate.wait();
    produced = true;
    return SVP_ACL_SUCCESS;
  }));
  ASSERT_ACL_OK(svp_acl_rt_record_event(ev, producer));
  ASSERT_ACL_OK(svp_acl_rt_stream_wait_event(consumer, ev));
  ASSERT_ACL_OK(tasks_.launch(consumer, [&](uint32_t) {
    if (!produced.load()) too_early.fetch_add(1);
    consumed.fetch_add(1);
    return SVP_ACL_SUCCESS;
  }));
  gate.entered_wait();
  std::this_thread::sleep_for(20ms);  // the second core is free: only the wait holds it
  EXPECT_EQ(consumed.load(), 0);
  EXPECT_EQ(wait_status_of(ev), SVP_ACL_EVENT_WAIT_STATUS_NOT_READY);
  gate.open();
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(consumer));
  EXPECT_EQ(consumed.load(), 1);
  EXPECT_EQ(too_early.load(), 0);
  EXPECT_EQ(wait_status_of(ev), SVP_ACL_EVENT_WAIT_STATUS_COMPLETE);
}

TEST_F(StreamEventTest, ManyStreamsCanWaitOnOneEvent) {
  constexpr int kWaiters = 16;
  svp_acl_rt_stream producer = new_stream();
  std::vector<svp_acl_rt_stream> waiters(kWaiters);
  for (auto& w : waiters) w = new_stream();
  svp_acl_rt_event ev = new_event();
  Gate& gate = new_gate();
  std::atomic<bool> produced{false};
  std::atomic<int> consumed{0};
  std::atomic<int> too_early{0};
  ASSERT_ACL_OK(tasks_.launch(producer, [&](uint32_t) {
    gate.mark_entered();
    gate.wait();
    produced = true;
    return SVP_ACL_SUCCESS;
  }));
  ASSERT_ACL_OK(svp_acl_rt_record_event(ev, producer));
  for (auto w : waiters) {
    ASSERT_ACL_OK(svp_acl_rt_stream_wait_event(w, ev));
    ASSERT_ACL_OK(tasks_.launch(w, [&](uint32_t) {
      if (!produced.load()) too_early.fetch_add(1);
      consumed.fetch_add(1);
      return SVP_ACL_SUCCESS;
    }));
  }
  // The default stream waits too.
  ASSERT_ACL_OK(svp_acl_rt_stream_wait_event(nullptr, ev));
  ASSERT_ACL_OK(tasks_.launch(nullptr, [&](uint32_t) {
    if (!produced.load()) too_early.fetch_add(1);
    consumed.fetch_add(1);
    return SVP_ACL_SUCCESS;
  }));
  gate.entered_wait();
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(consumed.load(), 0);
  EXPECT_EQ(wait_status_of(ev), SVP_ACL_EVENT_WAIT_STATUS_NOT_READY);
  gate.open();
  for (auto w : waiters) ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(w));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(nullptr));
  EXPECT_EQ(consumed.load(), kWaiters + 1);
  EXPECT_EQ(too_early.load(), 0);
  EXPECT_EQ(wait_status_of(ev), SVP_ACL_EVENT_WAIT_STATUS_COMPLETE);
}

TEST_F(StreamEventTest, WaitStatusStaysNotReadyUntilTheWaitingStreamHasReachedItsWait) {
  svp_acl_rt_stream consumer = new_stream();
  svp_acl_rt_event ev = new_event();
  Gate& gate = new_gate();
  ASSERT_ACL_OK(svp_acl_rt_record_event(ev, nullptr));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_event(ev));
  ASSERT_ACL_OK(launch_gated(consumer, gate));
  ASSERT_ACL_OK(svp_acl_rt_stream_wait_event(consumer, ev));
  gate.entered_wait();
  EXPECT_EQ(status_of(ev), SVP_ACL_EVENT_STATUS_COMPLETE);
  EXPECT_EQ(wait_status_of(ev), SVP_ACL_EVENT_WAIT_STATUS_NOT_READY);
  gate.open();
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(consumer));
  EXPECT_EQ(wait_status_of(ev), SVP_ACL_EVENT_WAIT_STATUS_COMPLETE);
}

// The loop of the spec (§1.3, reset_event): record(s0) -> wait(s1) -> exec(s1) ->
// synchronize_event -> reset(event, s0), repeated with one event.
TEST_F(StreamEventTest, RecordWaitExecSynchronizeResetLoopReusesOneEvent) {
  constexpr int kIterations = 20;
  svp_acl_rt_stream s0 = new_stream();
  svp_acl_rt_stream s1 = new_stream();
  svp_acl_rt_event ev = new_event();
  void* mem = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_malloc(&mem, kIterations * sizeof(uint32_t), SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
  auto* produced = static_cast<uint32_t*>(mem);
  std::vector<uint32_t> consumed(kIterations, 0);
  for (int i = 0; i < kIterations; ++i) {
    // s0 produces value i (slowly, so an ignored wait would let s1 read too early).
    ASSERT_ACL_OK(tasks_.launch(s0, [&, i](uint32_t) {
      std::this_thread::sleep_for(1ms);
      produced[i] = 0xC0DE0000u + i;
      return SVP_ACL_SUCCESS;
    }));
    ASSERT_ACL_OK(svp_acl_rt_record_event(ev, s0));
    ASSERT_ACL_OK(svp_acl_rt_stream_wait_event(s1, ev));
    ASSERT_ACL_OK(tasks_.launch(s1, [&, i](uint32_t) {
      consumed[i] = produced[i];
      return SVP_ACL_SUCCESS;
    }));
    ASSERT_ACL_OK(svp_acl_rt_synchronize_event(ev));
    EXPECT_EQ(produced[i], 0xC0DE0000u + i);
    ASSERT_ACL_OK(svp_acl_rt_reset_event(ev, s0));
  }
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(s1));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(s0));
  for (int i = 0; i < kIterations; ++i) EXPECT_EQ(consumed[i], 0xC0DE0000u + i) << "iteration " << i;
  // After the final reset the event is "not recorded" again.
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_synchronize_event(ev));
  EXPECT_ACL_OK(svp_acl_rt_free(mem));
}

TEST_F(StreamEventTest, ElapsedTimeIsInMillisecondsBetweenTwoCompletedEvents) {
  svp_acl_rt_stream s = new_stream();
  svp_acl_rt_event start = new_event();  // create_event has timestamps
  svp_acl_rt_event end = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_event_with_flag(&end, SVP_ACL_EVENT_TIME_LINE));
  ASSERT_ACL_OK(svp_acl_rt_record_event(start, s));
  ASSERT_ACL_OK(tasks_.launch(
      s,
      [](uint32_t) {
        std::this_thread::sleep_for(10ms);
        return SVP_ACL_SUCCESS;
      },
      2));  // ~20 ms in two segments
  ASSERT_ACL_OK(svp_acl_rt_record_event(end, s));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_event(end));
  float ms = -1;
  ASSERT_ACL_OK(svp_acl_rt_event_elapsed_time(&ms, start, end));
  EXPECT_GE(ms, 19.5f);
  EXPECT_LT(ms, 1000.0f);
  // Same event twice: zero.
  float zero = -1;
  ASSERT_ACL_OK(svp_acl_rt_event_elapsed_time(&zero, start, start));
  EXPECT_EQ(zero, 0.0f);
}

TEST_F(StreamEventTest, ElapsedTimeNeedsTwoCompletedTimelineEvents) {
  svp_acl_rt_stream s = new_stream();
  svp_acl_rt_event a = new_event();
  svp_acl_rt_event b = new_event();
  svp_acl_rt_event plain1 = nullptr, plain2 = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_event_with_flag(&plain1, 0));
  ASSERT_ACL_OK(svp_acl_rt_create_event_with_flag(&plain2, 0));
  float ms = 0;
  // Never recorded.
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_event_elapsed_time(&ms, a, b));
  ASSERT_ACL_OK(svp_acl_rt_record_event(a, s));
  ASSERT_ACL_OK(svp_acl_rt_record_event(plain1, s));
  ASSERT_ACL_OK(svp_acl_rt_record_event(plain2, s));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(s));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_event_elapsed_time(&ms, a, b));
  // Recorded and complete, but without timestamps.
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_event_elapsed_time(&ms, plain1, plain2));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_event_elapsed_time(&ms, a, plain2));
  // Recorded but not complete yet.
  Gate& gate = new_gate();
  ASSERT_ACL_OK(launch_gated(s, gate));
  ASSERT_ACL_OK(svp_acl_rt_record_event(b, s));
  gate.entered_wait();
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_event_elapsed_time(&ms, a, b));
  gate.open();
  ASSERT_ACL_OK(svp_acl_rt_synchronize_event(b));
  EXPECT_ACL_OK(svp_acl_rt_event_elapsed_time(&ms, a, b));
  EXPECT_GE(ms, 0.0f);
}

TEST_F(StreamEventTest, DestroyingAnEventAStreamWaitsOnDoesNotHangThatStream) {
  svp_acl_rt_stream producer = new_stream();
  svp_acl_rt_stream consumer = new_stream();
  svp_acl_rt_event ev = new_event();
  Gate& gate = new_gate();
  ASSERT_ACL_OK(launch_gated(producer, gate));
  ASSERT_ACL_OK(svp_acl_rt_record_event(ev, producer));
  ASSERT_ACL_OK(svp_acl_rt_stream_wait_event(consumer, ev));
  std::atomic<int> after{0};
  ASSERT_ACL_OK(launch_counter(consumer, after));
  gate.entered_wait();
  ASSERT_ACL_OK(svp_acl_rt_destroy_event(ev));  // a usage error, but it must not hang
  EXPECT_NE(svp_acl_rt_synchronize_stream(consumer), SVP_ACL_SUCCESS);
  gate.open();
  EXPECT_ACL_OK(svp_acl_rt_synchronize_stream(producer));
  EXPECT_ACL_OK(svp_acl_rt_synchronize_stream(consumer));  // the error was reported once
}

TEST_F(TwoDeviceStreamEventTest, AnEventAndAStreamOfDifferentDevicesDoNotMatch) {
  svp_acl_rt_event ev0 = new_event();  // device 0
  svp_acl_rt_context ctx1 = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_context(&ctx1, 1));
  svp_acl_rt_event ev1 = new_event();  // device 1
  svp_acl_rt_stream s1 = new_stream();
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RESOURCE_NOT_MATCH, svp_acl_rt_record_event(ev0, s1));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RESOURCE_NOT_MATCH, svp_acl_rt_record_event(ev0, nullptr));
  ASSERT_ACL_OK(svp_acl_rt_record_event(ev1, s1));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_event(ev1));

  ASSERT_ACL_OK(svp_acl_rt_set_current_context(ctx_));  // device 0
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RESOURCE_NOT_MATCH, svp_acl_rt_record_event(ev1, nullptr));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RESOURCE_NOT_MATCH, svp_acl_rt_stream_wait_event(nullptr, ev1));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RESOURCE_NOT_MATCH, svp_acl_rt_reset_event(ev1, nullptr));
  ASSERT_ACL_OK(svp_acl_rt_record_event(ev0, nullptr));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_event(ev0));
  float ms = 0;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RESOURCE_NOT_MATCH, svp_acl_rt_event_elapsed_time(&ms, ev0, ev1));
  // Queries and host synchronisation need no stream and work from any context.
  EXPECT_EQ(status_of(ev1), SVP_ACL_EVENT_STATUS_COMPLETE);
  EXPECT_ACL_OK(svp_acl_rt_synchronize_event(ev1));
  EXPECT_ACL_OK(svp_acl_rt_destroy_event(ev1));
  EXPECT_ACL_OK(svp_acl_rt_destroy_event(ev0));
  EXPECT_ACL_OK(svp_acl_rt_destroy_context(ctx1));
}

}  // namespace
