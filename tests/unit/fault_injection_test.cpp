// Error propagation with the "fault" backend: a failing NPU task surfaces at the
// synchronize of its stream (once), at events recorded after it and at the device-wide
// synchronize, while other streams keep working.
//
// The backend counts NPU tasks in submission order across all queues, so every test
// submits its tasks in a deliberate order (task #2, #4, ... fail).
#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "hal/fault/fault_backend.h"
#include "test_support.h"

namespace {

using svp::test::TaskOwner;
using svp::test::eventually;

std::string recent() { return svp_acl_get_recent_err_msg(); }

class FaultInjectionTest : public svp::test::RuntimeTest {
 protected:
  std::string config_json() const override {
    return R"({"softnpu": {"backend": "fault", "backend_options": {"fail_every_nth_task": "2"}}})";
  }
  void SetUp() override {
    RuntimeTest::SetUp();
    if (HasFatalFailure()) return;
    ASSERT_ACL_OK(svp_acl_rt_set_op_wait_timeout(30));
    ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  }
  // A task that counts how many of its segments ran.
  svp_acl_error launch(svp_acl_rt_stream s, std::atomic<int>& segments_ran, uint32_t segments = 1) {
    return tasks_.launch(
        s,
        [&segments_ran](uint32_t) {
          segments_ran.fetch_add(1);
          return SVP_ACL_SUCCESS;
        },
        segments);
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
  svp::hal::fault::FaultBackend* fault_backend() {
    return dynamic_cast<svp::hal::fault::FaultBackend*>(&runtime().backend());
  }

  TaskOwner tasks_;
};

class EveryThirdTaskFaultTest : public FaultInjectionTest {
 protected:
  // A number instead of a string works too.
  std::string config_json() const override {
    return R"({"softnpu": {"backend": "fault", "backend_options": {"fail_every_nth_task": 3}}})";
  }
};

TEST_F(FaultInjectionTest, TheSecondTaskFailsAndSynchronizeStreamReportsRtFailure) {
  EXPECT_EQ(SVP_ACL_ERROR_RT_FAILURE, 500003);
  svp_acl_rt_stream s = new_stream();
  std::atomic<int> first{0}, second{0}, third{0};
  ASSERT_ACL_OK(launch(s, first, 3));   // #1
  ASSERT_ACL_OK(launch(s, second, 3));  // #2 fails
  ASSERT_ACL_OK(launch(s, third, 3));   // #3
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RT_FAILURE, svp_acl_rt_synchronize_stream(s));
  EXPECT_NE(recent().find("injected fault"), std::string::npos) << recent();
  EXPECT_EQ(first.load(), 3);
  EXPECT_EQ(second.load(), 0) << "the failing task stops at its failing segment";
  EXPECT_EQ(third.load(), 3) << "the stream carries on after a failed task";
  ASSERT_NE(fault_backend(), nullptr);
  EXPECT_EQ(fault_backend()->injected(), 1u);
}

TEST_F(FaultInjectionTest, AStreamErrorIsReportedOnceThenCleared) {
  svp_acl_rt_stream s = new_stream();
  std::atomic<int> ran{0};
  ASSERT_ACL_OK(launch(s, ran));  // #1
  ASSERT_ACL_OK(launch(s, ran));  // #2 fails
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RT_FAILURE, svp_acl_rt_synchronize_stream(s));
  EXPECT_ACL_OK(svp_acl_rt_synchronize_stream(s));  // reported already
  ASSERT_ACL_OK(launch(s, ran));                    // #3
  EXPECT_ACL_OK(svp_acl_rt_synchronize_stream(s));
  ASSERT_ACL_OK(launch(s, ran));  // #4 fails
  ASSERT_ACL_OK(launch(s, ran));  // #5
  ASSERT_ACL_OK(launch(s, ran));  // #6 fails: still one report for the window
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RT_FAILURE, svp_acl_rt_synchronize_stream(s));
  EXPECT_ACL_OK(svp_acl_rt_synchronize_stream(s));
  EXPECT_EQ(ran.load(), 3);
}

TEST_F(FaultInjectionTest, TheDefaultStreamReportsFailuresToo) {
  std::atomic<int> ran{0};
  ASSERT_ACL_OK(launch(nullptr, ran));  // #1
  ASSERT_ACL_OK(launch(nullptr, ran));  // #2 fails
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RT_FAILURE, svp_acl_rt_synchronize_stream(nullptr));
  EXPECT_ACL_OK(svp_acl_rt_synchronize_stream(nullptr));
  EXPECT_EQ(ran.load(), 1);
}

TEST_F(FaultInjectionTest, AnEventRecordedAfterTheFailingTaskReportsTheError) {
  svp_acl_rt_stream s = new_stream();
  svp_acl_rt_event before = new_event();
  svp_acl_rt_event after = new_event();
  std::atomic<int> ran{0};
  ASSERT_ACL_OK(launch(s, ran));  // #1
  ASSERT_ACL_OK(svp_acl_rt_record_event(before, s));
  ASSERT_ACL_OK(launch(s, ran));  // #2 fails
  ASSERT_ACL_OK(svp_acl_rt_record_event(after, s));
  EXPECT_ACL_OK(svp_acl_rt_synchronize_event(before));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RT_FAILURE, svp_acl_rt_synchronize_event(after));
  EXPECT_NE(recent().find("injected fault"), std::string::npos) << recent();
  // The event did complete (the work is over), it just carries the failure.
  svp_acl_rt_event_status st = SVP_ACL_EVENT_STATUS_RESERVED;
  EXPECT_ACL_OK(svp_acl_rt_query_event(after, &st));
  EXPECT_EQ(st, SVP_ACL_EVENT_STATUS_COMPLETE);
  // The stream still reports it once; an event recorded after that is clean.
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RT_FAILURE, svp_acl_rt_synchronize_stream(s));
  svp_acl_rt_event later = new_event();
  ASSERT_ACL_OK(svp_acl_rt_record_event(later, s));
  EXPECT_ACL_OK(svp_acl_rt_synchronize_event(later));
}

TEST_F(FaultInjectionTest, SynchronizeDeviceReportsAFailureOnAnyStreamOnce) {
  svp_acl_rt_stream good = new_stream();
  svp_acl_rt_stream bad = new_stream();
  std::atomic<int> good_ran{0}, bad_ran{0};
  ASSERT_ACL_OK(launch(good, good_ran));  // #1
  ASSERT_ACL_OK(launch(bad, bad_ran));    // #2 fails
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RT_FAILURE, svp_acl_rt_synchronize_device());
  EXPECT_NE(recent().find("injected fault"), std::string::npos) << recent();
  EXPECT_EQ(good_ran.load(), 1);
  EXPECT_EQ(bad_ran.load(), 0);
  // Reported once: neither the device nor the stream reports it again.
  EXPECT_ACL_OK(svp_acl_rt_synchronize_device());
  EXPECT_ACL_OK(svp_acl_rt_synchronize_stream(bad));
}

TEST_F(FaultInjectionTest, SynchronizeDeviceSeesFailuresInStreamsOfOtherContexts) {
  svp_acl_rt_context def = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_get_current_context(&def));
  std::atomic<int> ran{0};
  ASSERT_ACL_OK(launch(nullptr, ran));  // #1, default context
  svp_acl_rt_context other = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_context(&other, 0));
  ASSERT_ACL_OK(launch(nullptr, ran));  // #2 fails, in the other context
  ASSERT_ACL_OK(svp_acl_rt_set_current_context(def));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RT_FAILURE, svp_acl_rt_synchronize_device());
  EXPECT_ACL_OK(svp_acl_rt_synchronize_stream(nullptr));
  EXPECT_ACL_OK(svp_acl_rt_destroy_context(other));
}

TEST_F(FaultInjectionTest, WorkOnAnotherStreamKeepsSucceeding) {
  svp_acl_rt_stream good = new_stream();
  svp_acl_rt_stream bad = new_stream();
  std::atomic<int> good_ran{0}, bad_ran{0};
  for (int i = 0; i < 5; ++i) {
    ASSERT_ACL_OK(launch(good, good_ran, 2));  // odd-numbered: succeed
    ASSERT_ACL_OK(launch(bad, bad_ran, 2));    // even-numbered: fail
  }
  EXPECT_ACL_OK(svp_acl_rt_synchronize_stream(good));
  EXPECT_EQ(good_ran.load(), 10);
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RT_FAILURE, svp_acl_rt_synchronize_stream(bad));
  EXPECT_EQ(bad_ran.load(), 0);
  // The failing stream is still usable.
  ASSERT_ACL_OK(launch(bad, bad_ran));  // #11
  EXPECT_ACL_OK(svp_acl_rt_synchronize_stream(bad));
  EXPECT_EQ(bad_ran.load(), 1);
  EXPECT_ACL_OK(svp_acl_rt_synchronize_stream(good));
}

TEST_F(FaultInjectionTest, AStreamWaitingOnAFailedEventInheritsTheError) {
  svp_acl_rt_stream producer = new_stream();
  svp_acl_rt_stream consumer = new_stream();
  svp_acl_rt_event ev = new_event();
  std::atomic<int> ran{0};
  ASSERT_ACL_OK(launch(producer, ran));  // #1
  ASSERT_ACL_OK(launch(producer, ran));  // #2 fails
  ASSERT_ACL_OK(svp_acl_rt_record_event(ev, producer));
  ASSERT_ACL_OK(svp_acl_rt_stream_wait_event(consumer, ev));
  ASSERT_ACL_OK(launch(consumer, ran));  // #3
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RT_FAILURE, svp_acl_rt_synchronize_stream(consumer));
  EXPECT_EQ(ran.load(), 2);
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RT_FAILURE, svp_acl_rt_synchronize_stream(producer));
}

TEST_F(FaultInjectionTest, CallbacksAfterAFailedTaskStillRun) {
  svp_acl_rt_stream s = new_stream();
  std::atomic<bool> stop{false};
  std::thread server([&] {
    while (!stop.load()) {
      if (svp_acl_rt_process_report(5) == SVP_ACL_ERROR_THREAD_NOT_SUBSCRIBE) std::this_thread::yield();
    }
  });
  ASSERT_ACL_OK(svp_acl_rt_subscribe_report(static_cast<uint64_t>(server.native_handle()), s));
  std::atomic<int> ran{0};
  std::atomic<int> callbacks{0};
  ASSERT_ACL_OK(launch(s, ran));  // #1
  ASSERT_ACL_OK(launch(s, ran));  // #2 fails
  ASSERT_ACL_OK(svp_acl_rt_launch_callback([](void* d) { static_cast<std::atomic<int>*>(d)->fetch_add(1); },
                                           &callbacks, SVP_ACL_CALLBACK_BLOCK, s));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RT_FAILURE, svp_acl_rt_synchronize_stream(s));
  EXPECT_EQ(callbacks.load(), 1);
  EXPECT_ACL_OK(svp_acl_rt_unsubscribe_report(static_cast<uint64_t>(server.native_handle()), s));
  stop = true;
  server.join();
}

TEST_F(FaultInjectionTest, ARuleCanFailALaterSegmentWithAChosenCode) {
  auto* fb = fault_backend();
  ASSERT_NE(fb, nullptr);
  fb->clear_rules();
  svp::hal::fault::FaultRule rule;
  rule.nth = 1;          // the next task
  rule.segment = 2;      // in its third segment
  rule.code = SVP_ACL_ERROR_DRV_FAILURE;
  fb->add_rule(rule);
  std::atomic<int> ran{0}, after{0};
  ASSERT_ACL_OK(launch(nullptr, ran, 5));
  ASSERT_ACL_OK(launch(nullptr, after, 5));  // the rule is spent: runs normally
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_DRV_FAILURE, svp_acl_rt_synchronize_stream(nullptr));
  EXPECT_EQ(ran.load(), 2) << "segments before the failing one ran, later ones did not";
  EXPECT_EQ(after.load(), 5);
}

TEST_F(EveryThirdTaskFaultTest, TheThirdTaskFails) {
  svp_acl_rt_stream s = new_stream();
  std::atomic<int> ran{0};
  ASSERT_ACL_OK(launch(s, ran));  // #1
  ASSERT_ACL_OK(launch(s, ran));  // #2
  EXPECT_ACL_OK(svp_acl_rt_synchronize_stream(s));
  ASSERT_ACL_OK(launch(s, ran));  // #3 fails
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RT_FAILURE, svp_acl_rt_synchronize_stream(s));
  EXPECT_EQ(ran.load(), 2);
}

// An armed rule changes where a task fails, nothing else: the wrapped task still tells the
// device which of its segments are AI-CPU operators (and their MACs), so those still go
// to the AI-CPU sink and run on a host thread. (The wrapper used to hide them, and the
// faulty task ran its AI-CPU segment on the NPU core.)
TEST(FaultBackendTaskWrapper, AFaultyTaskKeepsItsAiCpuSegmentsOnTheHost) {
  struct Sink final : svp::hal::AiCpuSink {
    std::mutex mu;
    std::vector<svp::hal::AiCpuJob> jobs;
    void post(const svp::hal::AiCpuJob& job) override {
      std::lock_guard<std::mutex> lock(mu);
      jobs.push_back(job);
    }
  } sink;
  svp::hal::BackendConfig config;
  config.backend = "fault";
  auto made = svp::hal::create_backend(config);
  ASSERT_TRUE(made.ok()) << made.status().message();
  std::unique_ptr<svp::hal::Backend> backend = std::move(*made);
  auto* fb = dynamic_cast<svp::hal::fault::FaultBackend*>(backend.get());
  ASSERT_NE(fb, nullptr);
  svp::hal::fault::FaultRule rule;
  rule.nth = 1;
  rule.segment = 2;
  rule.code = SVP_ACL_ERROR_DRV_FAILURE;
  fb->add_rule(rule);

  svp::hal::Device& dev = backend->device(0);
  dev.set_aicpu_sink(&sink);
  auto sq = dev.create_sq();
  ASSERT_TRUE(sq.ok());
  struct Task final : svp::hal::SegmentedTask {
    std::atomic<std::uint32_t> aicpu_core{0};
    std::size_t segment_count() const override { return 3; }
    svp::Status run_segment(std::size_t i, svp::hal::SegmentContext& ctx) override {
      if (i == 1) aicpu_core = ctx.core;
      // Long enough that the core's usage figure (10 ms buckets) keeps its MACs whole.
      if (i == 0) std::this_thread::sleep_for(std::chrono::milliseconds(25));
      return svp::Status::Ok();
    }
    bool on_aicpu(std::size_t i) const override { return i == 1; }
    std::uint64_t segment_macs(std::size_t) const override { return 1'000'000; }
  };
  auto task = std::make_shared<Task>();
  ASSERT_TRUE(dev.submit(*sq, svp::hal::Entry::Task(task, {})).ok());
  svp::hal::AiCpuJob job;
  ASSERT_TRUE(eventually([&] {
    std::lock_guard<std::mutex> lock(sink.mu);
    if (sink.jobs.empty()) return false;
    job = sink.jobs.front();
    return true;
  })) << "the AI-CPU segment of the faulty task never reached the AI-CPU sink";
  ASSERT_TRUE(dev.run_aicpu(job).ok());
  EXPECT_EQ(task->aicpu_core.load(), svp::hal::kHostCore);
  EXPECT_EQ(dev.synchronize_sq(*sq, 5000).code(), SVP_ACL_ERROR_DRV_FAILURE);
  EXPECT_EQ(fb->injected(), 1u);
  std::uint64_t macs = 0;
  for (const auto& core : dev.core_usage(1'000'000'000)) macs += core.macs;
  EXPECT_GT(macs, 0u) << "the wrapper hid the segments' MACs from the device";
  dev.set_aicpu_sink(nullptr);
}

}  // namespace
