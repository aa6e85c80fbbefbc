// AI-CPU operators of asynchronous work: posted by the core, run by application threads in
// svp_acl_ext_process_aicpu_task. A busy-wait task keeps the core meanwhile; any other
// task releases it so another stream's task runs, and re-enters arbitration afterwards.
#include <pthread.h>

#include <mutex>
#include <string>
#include <vector>

#include "test_support.h"

namespace {

using svp::test::TaskOwner;

class AiCpuTest : public svp::test::RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    ASSERT_ACL_OK(svp_acl_rt_set_device(0));
    ASSERT_ACL_OK(svp_acl_rt_create_stream(&a_));
    ASSERT_ACL_OK(svp_acl_rt_create_stream(&b_));
  }
  void TearDown() override {
    svp_acl_rt_destroy_stream(a_);
    svp_acl_rt_destroy_stream(b_);
    svp_acl_rt_reset_device(0);
    RuntimeTest::TearDown();
  }

  void trace(const std::string& s) {
    std::lock_guard<std::mutex> lock(mu_);
    trace_.push_back(s);
  }
  std::vector<std::string> trace_copy() {
    std::lock_guard<std::mutex> lock(mu_);
    return trace_;
  }

  struct Task {
    AiCpuTest* test;
    std::string name;
    pthread_t aicpu_thread{};
    bool aicpu_ran = false;
  };
  static svp_acl_error segment(void* d, uint32_t i) {
    auto* t = static_cast<Task*>(d);
    t->test->trace(t->name + std::to_string(i));
    if (i == 1) {
      t->aicpu_thread = pthread_self();
      t->aicpu_ran = true;
    }
    return SVP_ACL_SUCCESS;
  }

  // Three segments; the middle one is an AI-CPU operator.
  svp_acl_error launch_with_aicpu(Task* t, svp_acl_rt_stream s, bool busy_wait) {
    svp_acl_ext_task_attr attr{3, 1, 0, 0, 0, /*aicpu_segment_mask=*/0x2, busy_wait ? 1 : 0};
    return svp_acl_ext_launch_segmented_task(segment, t, 3, &attr, s);
  }
  svp_acl_error launch_plain(Task* t, svp_acl_rt_stream s) {
    return svp_acl_ext_launch_segmented_task(segment, t, 1, nullptr, s);
  }

  bool done(svp_acl_rt_stream s) {
    svp_acl_rt_event ev = nullptr;
    svp_acl_rt_event_status st = SVP_ACL_EVENT_STATUS_NOT_READY;
    if (svp_acl_rt_create_event(&ev) != SVP_ACL_SUCCESS) return false;
    svp_acl_rt_record_event(ev, s);
    svp_acl_rt_query_event(ev, &st);
    svp_acl_rt_destroy_event(ev);
    return st == SVP_ACL_EVENT_STATUS_COMPLETE;
  }

  svp_acl_rt_stream a_ = nullptr;
  svp_acl_rt_stream b_ = nullptr;
  std::mutex mu_;
  std::vector<std::string> trace_;
};

using Trace = std::vector<std::string>;

TEST_F(AiCpuTest, ProcessAicpuTaskTimesOutWhenNothingIsPending) {
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_RT_REPORT_TIMEOUT, svp_acl_ext_process_aicpu_task(5));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_ext_process_aicpu_task(-2));
}

TEST_F(AiCpuTest, ANonBusyWaitTaskReleasesTheCoreToAnotherStreamWhileItsOperatorWaits) {
  Task ta{this, "A"};
  Task tb{this, "B"};
  ASSERT_ACL_OK(launch_with_aicpu(&ta, a_, /*busy_wait=*/false));
  ASSERT_ACL_OK(launch_plain(&tb, b_));
  // B finishes although nobody has served A's AI-CPU operator yet.
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(b_));
  EXPECT_FALSE(done(a_));
  ASSERT_ACL_OK(svp_acl_ext_process_aicpu_task(1000));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(a_));
  EXPECT_EQ(trace_copy(), (Trace{"A0", "B0", "A1", "A2"}));
  EXPECT_TRUE(ta.aicpu_ran);
  EXPECT_TRUE(pthread_equal(ta.aicpu_thread, pthread_self())) << "AI-CPU operators run on the serving thread";
}

TEST_F(AiCpuTest, ABusyWaitTaskKeepsTheCoreUntilItsOperatorReturns) {
  Task ta{this, "A"};
  Task tb{this, "B"};
  ASSERT_ACL_OK(launch_with_aicpu(&ta, a_, /*busy_wait=*/true));
  ASSERT_ACL_OK(launch_plain(&tb, b_));
  // Give the core every chance to (wrongly) run B.
  ASSERT_TRUE(svp::test::eventually([&] { return trace_copy().size() >= 1; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_FALSE(done(b_)) << "the core must stay with A while its AI-CPU operator is pending";
  ASSERT_ACL_OK(svp_acl_ext_process_aicpu_task(1000));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(a_));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(b_));
  EXPECT_EQ(trace_copy(), (Trace{"A0", "A1", "A2", "B0"}));
}

TEST_F(AiCpuTest, WorkerThreadsInTheVendorLoopServeEveryOperator) {
  // The seed's pattern: worker threads loop on process_aicpu_task(1000) until told to stop.
  std::atomic<bool> exit{false};
  std::vector<std::thread> workers;
  for (int i = 0; i < 2; ++i) {
    workers.emplace_back([&] {
      while (!exit.load()) svp_acl_ext_process_aicpu_task(20);
    });
  }
  std::vector<std::unique_ptr<Task>> tasks;
  for (int i = 0; i < 50; ++i) {
    tasks.push_back(std::make_unique<Task>(Task{this, "T"}));
    ASSERT_ACL_OK(launch_with_aicpu(tasks.back().get(), i % 2 ? a_ : b_, i % 3 == 0));
  }
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(a_));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(b_));
  exit.store(true);
  for (auto& w : workers) w.join();
  for (auto& t : tasks) EXPECT_TRUE(t->aicpu_ran);
  EXPECT_EQ(trace_copy().size(), 150u);
}

TEST_F(AiCpuTest, AFailingOperatorFailsItsTaskAndStream) {
  TaskOwner owner;
  svp_acl_ext_task_attr attr{3, 1, 0, 0, 0, 0x1, 0};
  ASSERT_ACL_OK(svp_acl_ext_launch_segmented_task(
      [](void*, uint32_t) -> svp_acl_error { return SVP_ACL_ERROR_FAILURE; }, nullptr, 2, &attr, a_));
  ASSERT_ACL_OK(svp_acl_ext_process_aicpu_task(1000));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_FAILURE, svp_acl_rt_synchronize_stream(a_));
}

TEST_F(AiCpuTest, DestroyingAStreamWithAPendingOperatorNeitherHangsNorRunsIt) {
  for (bool busy : {false, true}) {
    Task ta{this, "A"};
    svp_acl_rt_stream s = nullptr;
    ASSERT_ACL_OK(svp_acl_rt_create_stream(&s));
    ASSERT_ACL_OK(launch_with_aicpu(&ta, s, busy));
    ASSERT_TRUE(svp::test::eventually([&] { return !trace_copy().empty(); }));
    ASSERT_ACL_OK(svp_acl_rt_destroy_stream(s));
    // The job left in the queue belongs to a dead task: serving it runs nothing.
    ASSERT_ACL_OK(svp_acl_ext_process_aicpu_task(1000));
    EXPECT_FALSE(ta.aicpu_ran);
    trace_.clear();
  }
}

TEST_F(AiCpuTest, AnAicpuMaskBeyondTheSegmentCountIsRejected) {
  Task ta{this, "A"};
  svp_acl_ext_task_attr attr{3, 1, 0, 0, 0, 0x8, 0};
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_ext_launch_segmented_task(segment, &ta, 3, &attr, a_));
}

TEST(AiCpuNoStreamTest, ProcessAicpuTaskNeedsAStream) {
  ASSERT_ACL_OK(svp_acl_init(nullptr));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_ext_process_aicpu_task(0));
  ASSERT_ACL_OK(svp_acl_finalize());
}

}  // namespace
