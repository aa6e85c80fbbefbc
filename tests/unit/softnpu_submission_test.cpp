// Task submission without the device lock (src/hal/softnpu/device.h): NPU tasks go to a
// per-queue inbox that the scheduler drains; these tests pin what must not change —
// per-queue order, exactly-once execution, synchronize never returning while an entry
// is still in an inbox, destroy_sq and device teardown with entries in the inboxes.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "hal/softnpu/device.h"
#include "hal/softnpu/memory.h"
#include "submission_workload.h"
#include "test_support.h"

namespace svp::hal::softnpu {
namespace {

using svp::test::Gate;
using svp::test::LambdaTask;

constexpr TimeoutMs kSubmitWait = 10'000;

// Counts its runs and its destruction (a task dropped by destroy_sq or teardown must be
// released, not leaked).
class CountedTask final : public SegmentedTask {
 public:
  CountedTask(std::atomic<int>* runs, std::atomic<int>* destroyed) : runs_(runs), destroyed_(destroyed) {}
  ~CountedTask() override { destroyed_->fetch_add(1); }
  std::size_t segment_count() const override { return 1; }
  Status run_segment(std::size_t, SegmentContext&) override {
    runs_->fetch_add(1);
    return Status::Ok();
  }

 private:
  std::atomic<int>* runs_;
  std::atomic<int>* destroyed_;
};

Entry counted(std::atomic<int>* runs, std::atomic<int>* destroyed) {
  return Entry::Task(std::make_shared<CountedTask>(runs, destroyed), TaskSettings{});
}

Entry blocker(Gate& gate) {
  return Entry::Task(std::make_shared<LambdaTask>(1,
                                                  [&gate](std::size_t, SegmentContext&) {
                                                    gate.mark_entered();
                                                    gate.wait();
                                                    return Status::Ok();
                                                  }),
                     TaskSettings{});
}

class SubmissionTest : public ::testing::Test {
 protected:
  SoftMemory memory_{CacheMode::kEmulated};
};

TEST_F(SubmissionTest, ManyProducersOnOwnAndSharedQueuesRunEveryTaskOnceInOrder) {
  svp::test::SubmissionWorkload w;
  w.producers = 4;
  w.tasks_per_producer = 300;
  svp::test::run_submission_workload(w);
}

TEST_F(SubmissionTest, ManyProducersOnOneCoreRunEveryTaskOnceInOrder) {
  svp::test::SubmissionWorkload w;
  w.producers = 3;
  w.tasks_per_producer = 200;
  w.cores = 1;
  w.shared_queues = 1;
  svp::test::run_submission_workload(w);
}

TEST_F(SubmissionTest, SynchronizeCountsATaskStillInTheInboxAsNotFinished) {
  SoftNpuDevice device(0, BackendConfig{}, &memory_);
  const SqId busy = *device.create_sq(), q = *device.create_sq();
  Gate gate;
  ASSERT_TRUE(device.submit(busy, blocker(gate)).ok());
  gate.entered_wait();  // the only core is taken: the next task stays in q's inbox
  std::atomic<int> runs{0}, destroyed{0};
  ASSERT_TRUE(device.submit(q, counted(&runs, &destroyed)).ok());
  const Status early = device.synchronize_sq(q, 50);
  EXPECT_EQ(early.code(), err::kRtFailure) << "synchronize returned while the task had not run";
  EXPECT_EQ(runs.load(), 0);
  gate.open();
  EXPECT_TRUE(device.synchronize_sq(q, kSubmitWait).ok());
  EXPECT_EQ(runs.load(), 1);
  EXPECT_TRUE(device.synchronize_sq(busy, kSubmitWait).ok());
}

TEST_F(SubmissionTest, SynchronizeRightAfterSubmitNeverReturnsEarly) {
  BackendConfig cfg;
  cfg.cores = 2;
  SoftNpuDevice device(0, cfg, &memory_);
  const SqId q = *device.create_sq();
  std::atomic<int> done{0};
  for (int i = 0; i < 2000; ++i) {
    auto task = std::make_shared<LambdaTask>(1, [&done](std::size_t, SegmentContext&) {
      done.fetch_add(1);
      return Status::Ok();
    });
    ASSERT_TRUE(device.submit(q, Entry::Task(std::move(task), TaskSettings{})).ok());
    ASSERT_TRUE(device.synchronize_sq(q, kSubmitWait).ok());
    ASSERT_EQ(done.load(), i + 1) << "synchronize_sq returned before the task submitted just before it ran";
  }
}

TEST_F(SubmissionTest, DestroyWhileSubmittingReleasesEveryTaskAndRejectsLaterSubmits) {
  BackendConfig cfg;
  cfg.cores = 2;
  SoftNpuDevice device(0, cfg, &memory_);
  std::atomic<int> created{0}, runs{0}, destroyed{0};
  auto make = [&] {
    created.fetch_add(1);
    return counted(&runs, &destroyed);
  };
  for (int round = 0; round < 20; ++round) {
    const SqId q = *device.create_sq();
    std::atomic<bool> stop{false};
    std::vector<std::thread> producers;
    for (int t = 0; t < 2; ++t) {
      producers.emplace_back([&] {
        while (!stop.load()) {
          const Status st = device.submit(q, make());
          if (!st.ok()) {
            EXPECT_EQ(st.code(), err::kInvalidResourceHandle) << st.message();
            return;  // the id may be reused by the next round's queue
          }
        }
      });
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200 + 100 * round));
    device.destroy_sq(q);
    stop.store(true);
    for (auto& t : producers) t.join();
    // Nothing was created since: the id is stale.
    EXPECT_EQ(device.submit(q, make()).code(), err::kInvalidResourceHandle);
    EXPECT_TRUE(device.synchronize_all(kSubmitWait).ok());
  }
  // Every task object was released: run, dropped with its queue, or rejected.
  EXPECT_EQ(destroyed.load(), created.load());
  EXPECT_LE(runs.load(), created.load());
}

TEST_F(SubmissionTest, TeardownWithTasksInTheInboxesReleasesThem) {
  std::atomic<int> runs{0}, destroyed{0};
  int submitted = 0;
  Gate gate;
  {
    SoftNpuDevice device(0, BackendConfig{}, &memory_);
    const SqId busy = *device.create_sq(), q = *device.create_sq();
    ASSERT_TRUE(device.submit(busy, blocker(gate)).ok());
    gate.entered_wait();
    for (int i = 0; i < 100; ++i) {
      ASSERT_TRUE(device.submit(q, counted(&runs, &destroyed)).ok());
      ++submitted;
    }
    gate.open();  // the device's destructor waits for the running segment
  }
  EXPECT_EQ(destroyed.load(), submitted) << "a task in an inbox leaked at device teardown";
  EXPECT_LE(runs.load(), submitted);
}

TEST_F(SubmissionTest, ATaskSubmittedDuringASegmentPreemptsAtTheNextBoundary) {
  SoftNpuDevice device(0, BackendConfig{}, &memory_);
  const SqId low = *device.create_sq(), high = *device.create_sq();
  Gate in_first, release_first, low_done, high_done;
  std::atomic<int> low_segments{0};
  std::atomic<int> low_at_high{-1};
  TaskSettings low_settings;
  low_settings.priority = 7;
  low_settings.preemptible = true;
  auto low_task = std::make_shared<LambdaTask>(4, [&](std::size_t i, SegmentContext&) {
    if (i == 0) {
      in_first.open();
      release_first.wait();
    }
    if (low_segments.fetch_add(1) + 1 == 4) low_done.open();
    return Status::Ok();
  });
  ASSERT_TRUE(device.submit(low, Entry::Task(std::move(low_task), low_settings)).ok());
  in_first.wait();
  TaskSettings high_settings;
  high_settings.priority = 0;
  auto high_task = std::make_shared<LambdaTask>(1, [&](std::size_t, SegmentContext&) {
    low_at_high.store(low_segments.load());
    high_done.open();
    return Status::Ok();
  });
  // The core is busy: this task waits in the inbox until segment 0 of `low` ends.
  ASSERT_TRUE(device.submit(high, Entry::Task(std::move(high_task), high_settings)).ok());
  release_first.open();
  // No other call into the device until both ran: only the core's boundary drain can
  // bring the task into arbitration in time.
  high_done.wait();
  low_done.wait();
  EXPECT_TRUE(device.synchronize_all(kSubmitWait).ok());
  EXPECT_EQ(low_at_high.load(), 1) << "the high-priority task did not take the core at the first boundary";
  EXPECT_EQ(device.preemptions(), 1u);
}

}  // namespace
}  // namespace svp::hal::softnpu
