// Host callbacks: subscribe / launch / process / unsubscribe rules, where and when
// callbacks run (BLOCK vs NO_BLOCK), and the seed's asynchronous inference flow with a
// memory pool recycled by callbacks.
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
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

// Host callbacks as closures: launch_callback with a trampoline, the closure owned here.
class CallbackOwner {
 public:
  using Fn = std::function<void()>;
  svp_acl_error launch(svp_acl_rt_stream stream, svp_acl_rt_callback_block_type type, Fn fn) {
    Fn* f = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      fns_.push_back(std::make_unique<Fn>(std::move(fn)));
      f = fns_.back().get();
    }
    return svp_acl_rt_launch_callback(&CallbackOwner::run, f, type, stream);
  }

 private:
  static void run(void* d) { (*static_cast<Fn*>(d))(); }
  std::mutex mu_;
  std::deque<std::unique_ptr<Fn>> fns_;
};

// A report thread: calls svp_acl_rt_process_report in a loop until stopped (idling
// politely while it is not subscribed to anything).
class ServeThread {
 public:
  ServeThread() : thread_([this] { loop(); }) { native_ = thread_.native_handle(); }
  ~ServeThread() { stop(); }
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  uint64_t id() const { return static_cast<uint64_t>(native_); }
  pthread_t native() const { return native_; }
  int served() const { return served_.load(); }
  int unexpected() const { return unexpected_.load(); }

 private:
  void loop() {
    while (!stop_.load()) {
      const svp_acl_error rc = svp_acl_rt_process_report(5);
      if (rc == SVP_ACL_SUCCESS) {
        ++served_;
      } else if (rc == SVP_ACL_ERROR_THREAD_NOT_SUBSCRIBE) {
        std::this_thread::sleep_for(500us);
      } else if (rc != SVP_ACL_ERROR_RT_REPORT_TIMEOUT) {
        ++unexpected_;
      }
    }
  }
  std::atomic<bool> stop_{false};
  std::atomic<int> served_{0};
  std::atomic<int> unexpected_{0};
  std::thread thread_;
  pthread_t native_{};
};

class CallbackTest : public svp::test::RuntimeTest, protected svp::test::TaskHelpers {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    if (HasFatalFailure()) return;
    ASSERT_ACL_OK(svp_acl_rt_set_op_wait_timeout(30));  // fail, don't hang
    ASSERT_ACL_OK(svp_acl_rt_set_device(0));
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
  static uint64_t self() { return static_cast<uint64_t>(pthread_self()); }

  CallbackOwner callbacks_;
};

class TwoDeviceCallbackTest : public CallbackTest {
 protected:
  std::string config_json() const override { return R"({"softnpu": {"devices": 2}})"; }
};

// ---------------------------------------------------------------------------------------
// subscription rules
// ---------------------------------------------------------------------------------------

TEST_F(CallbackTest, LaunchOnAnUnsubscribedStreamFailsWithStreamNotSubscribe) {
  svp_acl_rt_stream s = new_stream();
  std::atomic<int> ran{0};
  auto cb = [](void* d) { static_cast<std::atomic<int>*>(d)->fetch_add(1); };
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_STREAM_NOT_SUBSCRIBE, svp_acl_rt_launch_callback(cb, &ran, SVP_ACL_CALLBACK_BLOCK, s));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_STREAM_NOT_SUBSCRIBE,
                   svp_acl_rt_launch_callback(cb, &ran, SVP_ACL_CALLBACK_NO_BLOCK, nullptr));
  // Subscribing another stream does not help this one.
  svp_acl_rt_stream other = new_stream();
  ASSERT_ACL_OK(svp_acl_rt_subscribe_report(self(), other));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_STREAM_NOT_SUBSCRIBE, svp_acl_rt_launch_callback(cb, &ran, SVP_ACL_CALLBACK_BLOCK, s));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_device());
  EXPECT_EQ(ran.load(), 0);
  EXPECT_ACL_OK(svp_acl_rt_unsubscribe_report(self(), other));
}

TEST_F(CallbackTest, LaunchRejectsANullFunction) {
  ASSERT_ACL_OK(svp_acl_rt_subscribe_report(self(), nullptr));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM,
                   svp_acl_rt_launch_callback(nullptr, nullptr, SVP_ACL_CALLBACK_BLOCK, nullptr));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM,
                   svp_acl_rt_launch_callback(nullptr, nullptr, SVP_ACL_CALLBACK_NO_BLOCK, nullptr));
  EXPECT_ACL_OK(svp_acl_rt_synchronize_stream(nullptr));
  EXPECT_ACL_OK(svp_acl_rt_unsubscribe_report(self(), nullptr));
}

// A C caller may pass any int as the block type; it must be refused, not acted upon (and
// checked without undefined behaviour on the C++ side: the ASan build runs UBSan).
TEST_F(CallbackTest, LaunchRejectsAnUnknownBlockType) {
  ASSERT_ACL_OK(svp_acl_rt_subscribe_report(self(), nullptr));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM,
                   svp_acl_rt_launch_callback([](void*) {}, nullptr, static_cast<svp_acl_rt_callback_block_type>(2),
                                              nullptr));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM,
                   svp_acl_rt_launch_callback([](void*) {}, nullptr, static_cast<svp_acl_rt_callback_block_type>(-1),
                                              nullptr));
  // Nothing was queued: the stream synchronizes without anyone processing reports.
  EXPECT_ACL_OK(svp_acl_rt_synchronize_stream(nullptr));
  EXPECT_ACL_OK(svp_acl_rt_unsubscribe_report(self(), nullptr));
}

TEST_F(CallbackTest, SubscribingAStreamTwiceFailsWithRepeatSubscribe) {
  svp_acl_rt_stream s = new_stream();
  ServeThread other;
  ASSERT_ACL_OK(svp_acl_rt_subscribe_report(self(), s));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_REPEAT_SUBSCRIBE, svp_acl_rt_subscribe_report(self(), s));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_REPEAT_SUBSCRIBE, svp_acl_rt_subscribe_report(other.id(), s));
  // After an unsubscribe the stream may get a (new) thread again.
  ASSERT_ACL_OK(svp_acl_rt_unsubscribe_report(self(), s));
  EXPECT_ACL_OK(svp_acl_rt_subscribe_report(other.id(), s));
  EXPECT_ACL_OK(svp_acl_rt_unsubscribe_report(other.id(), s));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_subscribe_report(0, s));
}

TEST_F(CallbackTest, ProcessReportOnAnUnsubscribedThreadFailsWithThreadNotSubscribe) {
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_THREAD_NOT_SUBSCRIBE, svp_acl_rt_process_report(0));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_THREAD_NOT_SUBSCRIBE, svp_acl_rt_process_report(-1));  // must not block
  // Another thread's subscription does not make this one subscribed.
  ServeThread other;
  ASSERT_ACL_OK(svp_acl_rt_subscribe_report(other.id(), nullptr));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_THREAD_NOT_SUBSCRIBE, svp_acl_rt_process_report(0));
  EXPECT_ACL_OK(svp_acl_rt_unsubscribe_report(other.id(), nullptr));
}

TEST_F(CallbackTest, ProcessReportRejectsTimeoutsBelowMinusOne) {
  ASSERT_ACL_OK(svp_acl_rt_subscribe_report(self(), nullptr));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_process_report(-2));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_process_report(INT32_MIN));
  EXPECT_ACL_OK(svp_acl_rt_unsubscribe_report(self(), nullptr));
}

TEST_F(CallbackTest, ProcessReportTimesOutWithRtReportTimeoutWhenNothingIsDue) {
  ASSERT_ACL_OK(svp_acl_rt_subscribe_report(self(), nullptr));
  EXPECT_EQ(SVP_ACL_ERROR_RT_REPORT_TIMEOUT, 507012);
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RT_REPORT_TIMEOUT, svp_acl_rt_process_report(0));
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RT_REPORT_TIMEOUT, svp_acl_rt_process_report(20));
  const auto waited = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(waited, 19ms);
  EXPECT_LT(waited, 2000ms);
  EXPECT_ACL_OK(svp_acl_rt_unsubscribe_report(self(), nullptr));
}

// A callback that synchronizes its own stream waits for itself: it blocked until the op
// wait timeout (120 s by default) and then failed. It fails at once with the error that
// wait ends with (RT_FAILURE), for BLOCK and NO_BLOCK callbacks and for the device.
TEST_F(CallbackTest, SynchronizingItsOwnStreamInsideACallbackFailsAtOnceWithRtFailure) {
  svp_acl_rt_stream s = new_stream();
  ASSERT_ACL_OK(svp_acl_rt_subscribe_report(self(), s));
  for (auto type : {SVP_ACL_CALLBACK_BLOCK, SVP_ACL_CALLBACK_NO_BLOCK}) {
    svp_acl_error own = SVP_ACL_SUCCESS, device = SVP_ACL_SUCCESS;
    std::string message;
    ASSERT_ACL_OK(callbacks_.launch(s, type, [&] {
      own = svp_acl_rt_synchronize_stream(s);
      message = svp_acl_get_recent_err_msg();
      device = svp_acl_rt_synchronize_device();
    }));
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_ACL_OK(svp_acl_rt_process_report(10000));
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
    EXPECT_EQ(own, SVP_ACL_ERROR_RT_FAILURE);
    EXPECT_EQ(device, SVP_ACL_ERROR_RT_FAILURE);
    EXPECT_NE(message.find("inside a callback of that same stream"), std::string::npos) << message;
    EXPECT_ACL_OK(svp_acl_rt_synchronize_stream(s));  // outside the callback: fine
  }
  EXPECT_ACL_OK(svp_acl_rt_unsubscribe_report(self(), s));
}

TEST_F(CallbackTest, ProcessReportRunsADueCallbackOnTheCallingThread) {
  svp_acl_rt_stream s = new_stream();
  ASSERT_ACL_OK(svp_acl_rt_subscribe_report(self(), s));
  std::atomic<int> ran{0};
  ASSERT_ACL_OK(callbacks_.launch(s, SVP_ACL_CALLBACK_NO_BLOCK, [&] { ran.fetch_add(1); }));
  // Wait for the callback to become due (bounded), then run it here.
  svp_acl_error rc = SVP_ACL_ERROR_RT_REPORT_TIMEOUT;
  for (int i = 0; i < 200 && rc == SVP_ACL_ERROR_RT_REPORT_TIMEOUT; ++i) rc = svp_acl_rt_process_report(10);
  EXPECT_EQ(rc, SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
  EXPECT_EQ(ran.load(), 1);
  EXPECT_ACL_OK(svp_acl_rt_synchronize_stream(s));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RT_REPORT_TIMEOUT, svp_acl_rt_process_report(0));
  EXPECT_ACL_OK(svp_acl_rt_unsubscribe_report(self(), s));
}

TEST_F(CallbackTest, UnsubscribeChecksTheThreadAndTheSubscription) {
  svp_acl_rt_stream s = new_stream();
  ServeThread server;
  ASSERT_ACL_OK(svp_acl_rt_subscribe_report(server.id(), s));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_THREAD_NOT_SUBSCRIBE, svp_acl_rt_unsubscribe_report(self(), s));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_STREAM_NOT_SUBSCRIBE, svp_acl_rt_unsubscribe_report(server.id(), nullptr));
  // Still subscribed to the right thread after the failed attempts.
  std::atomic<int> ran{0};
  ASSERT_ACL_OK(callbacks_.launch(s, SVP_ACL_CALLBACK_BLOCK, [&] { ran.fetch_add(1); }));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(s));
  EXPECT_EQ(ran.load(), 1);
  ASSERT_ACL_OK(svp_acl_rt_unsubscribe_report(server.id(), s));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_STREAM_NOT_SUBSCRIBE, svp_acl_rt_unsubscribe_report(server.id(), s));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_STREAM_NOT_SUBSCRIBE,
                   svp_acl_rt_launch_callback([](void*) {}, nullptr, SVP_ACL_CALLBACK_BLOCK, s));
  server.stop();
  EXPECT_EQ(server.unexpected(), 0);
}

TEST_F(TwoDeviceCallbackTest, AThreadServesStreamsOfOneDeviceOnly) {
  svp_acl_rt_stream a = new_stream();
  svp_acl_rt_stream b = new_stream();
  ServeThread server;
  ASSERT_ACL_OK(svp_acl_rt_subscribe_report(server.id(), a));
  EXPECT_ACL_OK(svp_acl_rt_subscribe_report(server.id(), b));  // same device: fine
  svp_acl_rt_context ctx1 = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_context(&ctx1, 1));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_subscribe_report(server.id(), nullptr));
  EXPECT_ACL_OK(svp_acl_rt_subscribe_report(self(), nullptr));  // another thread may
  EXPECT_ACL_OK(svp_acl_rt_unsubscribe_report(self(), nullptr));
  EXPECT_ACL_OK(svp_acl_rt_destroy_context(ctx1));
}

class ManyStreamsCallbackTest : public CallbackTest {
 protected:
  std::string config_json() const override { return R"({"softnpu": {"max_streams": 200}})"; }
};

TEST_F(ManyStreamsCallbackTest, AtMost128ThreadsMayBeSubscribed) {
  // Thread ids are only keys here: no callback is launched, so they need not be real.
  constexpr uint64_t kFirstId = 1000;
  std::vector<svp_acl_rt_stream> streams(130);
  for (auto& s : streams) s = new_stream();
  for (uint64_t i = 0; i < 128; ++i) ASSERT_ACL_OK(svp_acl_rt_subscribe_report(kFirstId + i, streams[i]));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_STORAGE_OVER_LIMIT, svp_acl_rt_subscribe_report(5000, streams[128]));
  // A thread that is already subscribed may serve more streams.
  EXPECT_ACL_OK(svp_acl_rt_subscribe_report(kFirstId, streams[128]));
  // Once a thread serves nothing any more, its place is free again.
  ASSERT_ACL_OK(svp_acl_rt_unsubscribe_report(kFirstId + 1, streams[1]));
  EXPECT_ACL_OK(svp_acl_rt_subscribe_report(5000, streams[129]));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_STORAGE_OVER_LIMIT, svp_acl_rt_subscribe_report(5001, streams[1]));
}

// ---------------------------------------------------------------------------------------
// where and when callbacks run
// ---------------------------------------------------------------------------------------

TEST_F(CallbackTest, CallbacksRunOnlyOnTheSubscribedThread) {
  svp_acl_rt_stream s1 = new_stream();
  svp_acl_rt_stream s2 = new_stream();
  ServeThread server;    // serves s1, s2 and the default stream
  ServeThread bystander; // subscribed to nothing, but polling process_report too
  ASSERT_ACL_OK(svp_acl_rt_subscribe_report(server.id(), s1));
  ASSERT_ACL_OK(svp_acl_rt_subscribe_report(server.id(), s2));
  ASSERT_ACL_OK(svp_acl_rt_subscribe_report(server.id(), nullptr));
  const pthread_t expected = server.native();
  std::atomic<int> ran{0};
  std::atomic<int> wrong_thread{0};
  auto check = [&] {
    if (!pthread_equal(pthread_self(), expected)) wrong_thread.fetch_add(1);
    ran.fetch_add(1);
  };
  constexpr int kPerStream = 10;
  for (int i = 0; i < kPerStream; ++i) {
    const auto type = i % 2 ? SVP_ACL_CALLBACK_BLOCK : SVP_ACL_CALLBACK_NO_BLOCK;
    ASSERT_ACL_OK(callbacks_.launch(s1, type, check));
    ASSERT_ACL_OK(callbacks_.launch(s2, type, check));
    ASSERT_ACL_OK(callbacks_.launch(nullptr, type, check));
  }
  // The launching thread cannot run them either.
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_THREAD_NOT_SUBSCRIBE, svp_acl_rt_process_report(0));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(s1));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(s2));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(nullptr));
  EXPECT_EQ(ran.load(), 3 * kPerStream);
  EXPECT_EQ(wrong_thread.load(), 0);
  server.stop();  // its counters are final once it has left process_report
  bystander.stop();
  EXPECT_EQ(server.served(), 3 * kPerStream);
  EXPECT_EQ(bystander.served(), 0);
  EXPECT_EQ(server.unexpected(), 0);
  EXPECT_EQ(bystander.unexpected(), 0);
}

TEST_F(CallbackTest, CallbacksAndTasksOfAStreamRunInLaunchOrder) {
  svp_acl_rt_stream s = new_stream();
  ServeThread server;
  ASSERT_ACL_OK(svp_acl_rt_subscribe_report(server.id(), s));
  std::mutex mu;
  std::vector<int> order;
  auto note = [&](int v) {
    std::lock_guard<std::mutex> l(mu);
    order.push_back(v);
  };
  constexpr int kItems = 60;
  for (int i = 0; i < kItems; ++i) {
    switch (i % 3) {
      case 0:
        ASSERT_ACL_OK(tasks_.launch(s, [&, i](uint32_t) {
          note(i);
          return SVP_ACL_SUCCESS;
        }));
        break;
      case 1:
        ASSERT_ACL_OK(callbacks_.launch(s, SVP_ACL_CALLBACK_BLOCK, [&, i] { note(i); }));
        break;
      default:
        // A NO_BLOCK callback does not hold the task launched after it.
        ASSERT_ACL_OK(callbacks_.launch(s, SVP_ACL_CALLBACK_NO_BLOCK, [&, i] { note(i); }));
        break;
    }
  }
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(s));
  std::lock_guard<std::mutex> l(mu);
  ASSERT_EQ(order.size(), static_cast<size_t>(kItems));
  // Callbacks among themselves run strictly in launch order.
  std::vector<int> callbacks_seen;
  for (int v : order) {
    if (v % 3 != 0) callbacks_seen.push_back(v);
  }
  EXPECT_TRUE(std::is_sorted(callbacks_seen.begin(), callbacks_seen.end()));
  // Every item runs after every BLOCK callback and task launched before it (a NO_BLOCK
  // callback may be overtaken only by later tasks).
  for (size_t pos = 0; pos < order.size(); ++pos) {
    for (size_t later = pos + 1; later < order.size(); ++later) {
      const int a = order[pos], b = order[later];
      if (b < a) {
        EXPECT_TRUE(a % 3 == 0 && b % 3 == 2) << "item " << b << " ran after item " << a;
      }
    }
  }
}

TEST_F(CallbackTest, ABlockCallbackHoldsLaterTasksOfItsStreamUntilItReturns) {
  svp_acl_rt_stream s = new_stream();
  svp_acl_rt_stream other = new_stream();
  ServeThread server;
  ASSERT_ACL_OK(svp_acl_rt_subscribe_report(server.id(), s));
  svp_acl_rt_event after_cb = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_event(&after_cb));

  std::atomic<bool> in_callback{false};
  std::atomic<bool> callback_returning{false};
  std::atomic<bool> later_task_started{false};
  std::atomic<int> started_too_early{0};
  std::atomic<int> event_done_too_early{0};
  std::atomic<bool> other_stream_progressed{false};
  std::atomic<bool> other_done{false};

  ASSERT_ACL_OK(callbacks_.launch(s, SVP_ACL_CALLBACK_BLOCK, [&] {
    in_callback = true;
    // Give a wrongly released task every chance to start: it must not.
    if (eventually([&] { return later_task_started.load(); }, 50ms)) started_too_early.fetch_add(1);
    svp_acl_rt_event_status st = SVP_ACL_EVENT_STATUS_RESERVED;
    if (svp_acl_rt_query_event(after_cb, &st) != SVP_ACL_SUCCESS || st != SVP_ACL_EVENT_STATUS_NOT_READY) {
      event_done_too_early.fetch_add(1);
    }
    // Other streams are not held: their work completes while this callback runs.
    other_stream_progressed = eventually([&] { return other_done.load(); }, 2000ms);
    callback_returning = true;  // last action before returning
  }));
  ASSERT_ACL_OK(tasks_.launch(s, [&](uint32_t) {
    if (!callback_returning.load()) started_too_early.fetch_add(1);
    later_task_started = true;
    return SVP_ACL_SUCCESS;
  }));
  ASSERT_ACL_OK(svp_acl_rt_record_event(after_cb, s));
  ASSERT_TRUE(eventually([&] { return in_callback.load(); }, 5000ms));
  ASSERT_ACL_OK(tasks_.launch(other, [&](uint32_t) {
    other_done = true;
    return SVP_ACL_SUCCESS;
  }));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(s));
  EXPECT_TRUE(later_task_started.load());
  EXPECT_EQ(started_too_early.load(), 0);
  EXPECT_EQ(event_done_too_early.load(), 0);
  EXPECT_TRUE(other_stream_progressed.load());
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(other));
  EXPECT_ACL_OK(svp_acl_rt_destroy_event(after_cb));
}

TEST_F(CallbackTest, ANoBlockCallbackLetsLaterTasksRunWhileItIsStillRunning) {
  svp_acl_rt_stream s = new_stream();
  ServeThread server;
  ASSERT_ACL_OK(svp_acl_rt_subscribe_report(server.id(), s));
  std::atomic<bool> later_task_done{false};
  std::atomic<bool> saw_task_complete{false};
  std::atomic<bool> callback_finished{false};
  ASSERT_ACL_OK(callbacks_.launch(s, SVP_ACL_CALLBACK_NO_BLOCK, [&] {
    // Bounded wait: with a (wrongly) blocking callback the task can never run meanwhile.
    saw_task_complete = eventually([&] { return later_task_done.load(); }, 2000ms);
    callback_finished = true;
  }));
  ASSERT_ACL_OK(tasks_.launch(s, [&](uint32_t) {
    later_task_done = true;
    return SVP_ACL_SUCCESS;
  }));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(s));
  EXPECT_TRUE(callback_finished.load()) << "synchronize_stream returned before a NO_BLOCK callback finished";
  EXPECT_TRUE(saw_task_complete.load()) << "the later task did not complete while the NO_BLOCK callback ran";
}

TEST_F(CallbackTest, SynchronizeStreamAndDeviceWaitForNoBlockCallbacksToFinish) {
  svp_acl_rt_stream s = new_stream();
  ServeThread server;
  ASSERT_ACL_OK(svp_acl_rt_subscribe_report(server.id(), s));
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE(round);
    std::atomic<bool> finished{false};
    std::atomic<int> tasks_done{0};
    ASSERT_ACL_OK(callbacks_.launch(s, SVP_ACL_CALLBACK_NO_BLOCK, [&] {
      std::this_thread::sleep_for(30ms);
      finished = true;
    }));
    ASSERT_ACL_OK(tasks_.launch(s, [&](uint32_t) {
      tasks_done.fetch_add(1);
      return SVP_ACL_SUCCESS;
    }));
    if (round == 0) {
      ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(s));
    } else {
      ASSERT_ACL_OK(svp_acl_rt_synchronize_device());
    }
    EXPECT_TRUE(finished.load());
    EXPECT_EQ(tasks_done.load(), 1);
  }
}

TEST_F(CallbackTest, UnsubscribingWithQueuedCallbacksSkipsThemWithoutStallingTheStream) {
  svp_acl_rt_stream s = new_stream();
  ServeThread server;
  ASSERT_ACL_OK(svp_acl_rt_subscribe_report(server.id(), s));
  Gate& gate = new_gate();
  std::atomic<int> callbacks_ran{0};
  std::atomic<int> tasks_ran{0};
  ASSERT_ACL_OK(tasks_.launch(s, [&](uint32_t) {
    gate.mark_entered();
    gate.wait();
    return SVP_ACL_SUCCESS;
  }));
  ASSERT_ACL_OK(callbacks_.launch(s, SVP_ACL_CALLBACK_BLOCK, [&] { callbacks_ran.fetch_add(1); }));
  ASSERT_ACL_OK(callbacks_.launch(s, SVP_ACL_CALLBACK_NO_BLOCK, [&] { callbacks_ran.fetch_add(1); }));
  ASSERT_ACL_OK(tasks_.launch(s, [&](uint32_t) {
    tasks_ran.fetch_add(1);
    return SVP_ACL_SUCCESS;
  }));
  gate.entered_wait();
  ASSERT_ACL_OK(svp_acl_rt_unsubscribe_report(server.id(), s));
  gate.open();
  EXPECT_ACL_OK(svp_acl_rt_synchronize_stream(s));
  EXPECT_EQ(callbacks_ran.load(), 0);
  EXPECT_EQ(tasks_ran.load(), 1);
}

TEST_F(CallbackTest, UnsubscribingWakesAThreadWaitingForeverInProcessReport) {
  Gate subscribed;
  std::atomic<int> rc{-1};
  std::thread server([&] {
    subscribed.wait();
    rc = svp_acl_rt_process_report(-1);
  });
  const uint64_t id = static_cast<uint64_t>(server.native_handle());
  ASSERT_ACL_OK(svp_acl_rt_subscribe_report(id, nullptr));
  subscribed.open();
  std::this_thread::sleep_for(10ms);  // let it block
  ASSERT_ACL_OK(svp_acl_rt_unsubscribe_report(id, nullptr));
  server.join();
  EXPECT_EQ(rc.load(), SVP_ACL_ERROR_THREAD_NOT_SUBSCRIBE);
}

TEST_F(CallbackTest, DestroyingASubscribedStreamDropsItsUnrunCallbacks) {
  svp_acl_rt_stream s = new_stream();
  Gate start_serving;
  std::atomic<int> rc_after{-1};
  std::thread server([&] {
    start_serving.wait();
    rc_after = svp_acl_rt_process_report(0);
  });
  ASSERT_ACL_OK(svp_acl_rt_subscribe_report(static_cast<uint64_t>(server.native_handle()), s));
  std::atomic<int> ran{0};
  ASSERT_ACL_OK(callbacks_.launch(s, SVP_ACL_CALLBACK_BLOCK, [&] { ran.fetch_add(1); }));
  ASSERT_ACL_OK(tasks_.launch(s, [&](uint32_t) {
    ran.fetch_add(1);
    return SVP_ACL_SUCCESS;
  }));
  std::this_thread::sleep_for(2ms);  // let the callback reach the (idle) report thread
  ASSERT_ACL_OK(svp_acl_rt_destroy_stream(s));
  start_serving.open();
  server.join();
  EXPECT_EQ(rc_after.load(), SVP_ACL_ERROR_THREAD_NOT_SUBSCRIBE);
  EXPECT_EQ(ran.load(), 0);
  ASSERT_ACL_OK(svp_acl_rt_synchronize_device());
}

// ---------------------------------------------------------------------------------------
// the seed's asynchronous flow (§8.3.2)
// ---------------------------------------------------------------------------------------

struct AsyncFlowParam {
  int execute_times;
  int callback_interval;
};

class SeedAsyncFlowTest : public CallbackTest, public ::testing::WithParamInterface<AsyncFlowParam> {};

constexpr size_t kBlockBytes = 4096;
constexpr uint32_t kSegments = 4;

// One (input, output) pair of the pool, and the "inference" that copies one into the
// other on the NPU.
struct MemBlock {
  uint8_t* in = nullptr;
  uint8_t* out = nullptr;
  int execution = -1;  // which execution currently owns the block
};

svp_acl_error copy_segment(void* d, uint32_t i) {
  auto* b = static_cast<MemBlock*>(d);
  const size_t chunk = kBlockBytes / kSegments;
  std::memcpy(b->out + i * chunk, b->in + i * chunk, chunk);
  return SVP_ACL_SUCCESS;
}

uint8_t pattern(int execution, size_t byte) { return static_cast<uint8_t>(execution * 37 + byte * 11 + 1); }

struct Pool {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<MemBlock> blocks;
  std::vector<int> free;            // indexes into blocks
  std::vector<int> processed;       // per execution: times verified by a callback
  int bad_output = 0;
  int wrong_thread = 0;
  int callbacks = 0;
  pthread_t report_thread{};
};

// What one callback receives: the blocks executed since the previous callback.
struct CallbackBatch {
  Pool* pool = nullptr;
  std::vector<int> blocks;
};

void process_batch(void* d) {
  auto* batch = static_cast<CallbackBatch*>(d);
  Pool& pool = *batch->pool;
  std::lock_guard<std::mutex> lock(pool.mu);
  ++pool.callbacks;
  if (!pthread_equal(pthread_self(), pool.report_thread)) ++pool.wrong_thread;
  for (int idx : batch->blocks) {
    MemBlock& b = pool.blocks[idx];
    for (size_t i = 0; i < kBlockBytes; ++i) {
      if (b.out[i] != pattern(b.execution, i)) {
        ++pool.bad_output;
        break;
      }
    }
    ++pool.processed[b.execution];
    b.execution = -1;
    pool.free.push_back(idx);  // back to the pool
  }
  pool.cv.notify_all();
}

TEST_P(SeedAsyncFlowTest, ExecutionsRecycleAMemoryPoolThroughBlockCallbacks) {
  const int execute_times = GetParam().execute_times;
  const int interval = GetParam().callback_interval;
  constexpr int kPoolSize = 10;
  svp_acl_rt_stream stream = new_stream();
  ServeThread server;
  ASSERT_ACL_OK(svp_acl_rt_subscribe_report(server.id(), stream));

  Pool pool;
  pool.report_thread = server.native();
  pool.processed.assign(execute_times, 0);
  pool.blocks.resize(kPoolSize);
  for (int i = 0; i < kPoolSize; ++i) {
    void* in = nullptr;
    void* out = nullptr;
    ASSERT_ACL_OK(svp_acl_rt_malloc(&in, kBlockBytes, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
    ASSERT_ACL_OK(svp_acl_rt_malloc(&out, kBlockBytes, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
    pool.blocks[i].in = static_cast<uint8_t*>(in);
    pool.blocks[i].out = static_cast<uint8_t*>(out);
    pool.free.push_back(i);
  }

  std::vector<std::unique_ptr<CallbackBatch>> batches;
  auto launch_batch_callback = [&](std::vector<int>& pending) {
    batches.push_back(std::make_unique<CallbackBatch>(CallbackBatch{&pool, pending}));
    pending.clear();
    return svp_acl_rt_launch_callback(process_batch, batches.back().get(), SVP_ACL_CALLBACK_BLOCK, stream);
  };
  std::vector<int> pending;
  for (int e = 0; e < execute_times; ++e) {
    int idx = -1;
    {
      std::unique_lock<std::mutex> lock(pool.mu);
      ASSERT_TRUE(pool.cv.wait_for(lock, 5s, [&] { return !pool.free.empty(); })) << "pool never refilled";
      idx = pool.free.back();
      pool.free.pop_back();
      pool.blocks[idx].execution = e;
    }
    MemBlock& b = pool.blocks[idx];
    for (size_t i = 0; i < kBlockBytes; ++i) b.in[i] = pattern(e, i);
    std::memset(b.out, 0, kBlockBytes);
    ASSERT_ACL_OK(svp_acl_ext_launch_segmented_task(copy_segment, &b, kSegments, nullptr, stream));
    pending.push_back(idx);
    if ((e + 1) % interval == 0) {
      ASSERT_ACL_OK(launch_batch_callback(pending));
    }
  }
  if (!pending.empty()) {
    ASSERT_ACL_OK(launch_batch_callback(pending));
  }
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(stream));
  ASSERT_ACL_OK(svp_acl_rt_unsubscribe_report(server.id(), stream));

  std::lock_guard<std::mutex> lock(pool.mu);
  EXPECT_EQ(pool.callbacks, (execute_times + interval - 1) / interval);
  EXPECT_EQ(pool.bad_output, 0);
  EXPECT_EQ(pool.wrong_thread, 0);
  EXPECT_EQ(pool.free.size(), static_cast<size_t>(kPoolSize)) << "every block returned to the pool";
  for (int e = 0; e < execute_times; ++e) EXPECT_EQ(pool.processed[e], 1) << "execution " << e;
  for (auto& b : pool.blocks) {
    EXPECT_ACL_OK(svp_acl_rt_free(b.in));
    EXPECT_ACL_OK(svp_acl_rt_free(b.out));
  }
  EXPECT_ACL_OK(svp_acl_rt_destroy_stream(stream));
}

INSTANTIATE_TEST_SUITE_P(CallbackInterval, SeedAsyncFlowTest,
                         ::testing::Values(AsyncFlowParam{10, 1}, AsyncFlowParam{10, 3}, AsyncFlowParam{40, 3}),
                         [](const ::testing::TestParamInfo<AsyncFlowParam>& info) {
                           return "Execute" + std::to_string(info.param.execute_times) + "Every" +
                                  std::to_string(info.param.callback_interval);
                         });

}  // namespace
