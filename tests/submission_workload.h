// A multi-producer workload for the software NPU device's lock-free task submission
// (src/hal/softnpu/device.h): several application threads submit NPU tasks to a queue
// of their own and to shared queues, with event records/waits and host reports
// (BLOCK and NO_BLOCK) between them, while the device's cores drain the inboxes.
// Checks that every task ran exactly once, that each producer's tasks ran in its
// submission order on every queue, that an event wait orders the waiting queue after the
// recorded work, and that a report runs after the task submitted before it.
// Used by the unit test (small) and the stress test (large).
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "hal/softnpu/device.h"
#include "hal/softnpu/memory.h"
#include "test_support.h"

namespace svp::test {

struct SubmissionWorkload {
  int producers = 4;
  int tasks_per_producer = 400;  // to its own queue; a third as many again to a shared queue
  std::uint32_t cores = 2;
  int shared_queues = 2;
};

namespace detail {

// Serves reports on a host thread: runs the check, then completes the report.
class WorkloadReports final : public hal::ReportSink {
 public:
  using Fn = std::function<void(hal::SqId, hal::ReportId)>;
  WorkloadReports(hal::Device* device, Fn fn) : device_(device), fn_(std::move(fn)) {
    thread_ = std::thread([this] { serve(); });
  }
  ~WorkloadReports() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  bool deliver(hal::SqId sq, hal::ReportId id) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.emplace_back(sq, id);
    }
    cv_.notify_all();
    return true;
  }
  void discard(hal::SqId, hal::ReportId) override { discarded_.fetch_add(1); }
  int discarded() const { return discarded_.load(); }

 private:
  void serve() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;
      const auto [sq, id] = queue_.front();
      queue_.pop_front();
      lock.unlock();
      fn_(sq, id);
      device_->complete_report(sq, id);
      lock.lock();
    }
  }

  hal::Device* device_;
  Fn fn_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<hal::SqId, hal::ReportId>> queue_;
  bool stop_ = false;
  std::atomic<int> discarded_{0};
  std::thread thread_;
};

}  // namespace detail

inline void run_submission_workload(const SubmissionWorkload& w) {
  hal::softnpu::SoftMemory memory(hal::CacheMode::kEmulated);
  hal::BackendConfig cfg;
  cfg.cores = w.cores;
  hal::softnpu::SoftNpuDevice device(0, cfg, &memory);

  const int P = w.producers;
  std::vector<hal::SqId> own(P), shared(w.shared_queues);
  for (auto& q : own) q = *device.create_sq();
  for (auto& q : shared) q = *device.create_sq();
  std::vector<hal::EventId> events(P);
  for (auto& e : events) e = *device.create_event(false);

  // progress[p]: tasks of producer p that ran on its own queue (they run in order, so
  // this is also the sequence number of the last one). shared_progress[p][s]: the same on
  // shared queue s. runs[p][k]: how often own task k of p ran.
  std::vector<std::atomic<int>> progress(P);
  std::vector<std::vector<std::atomic<int>>> shared_progress(P);
  for (auto& v : shared_progress) v = std::vector<std::atomic<int>>(w.shared_queues);
  std::vector<std::vector<std::atomic<int>>> runs(P);
  for (auto& v : runs) v = std::vector<std::atomic<int>>(w.tasks_per_producer);
  std::atomic<int> order_errors{0}, report_errors{0}, event_errors{0}, reports_run{0};

  // Report ids encode (producer, own-task count expected to have run by then).
  auto report_id = [](int p, int seen) { return (static_cast<hal::ReportId>(p) << 32) | static_cast<unsigned>(seen); };
  detail::WorkloadReports reports(&device, [&](hal::SqId, hal::ReportId id) {
    const int p = static_cast<int>(id >> 32);
    const int seen = static_cast<int>(id & 0xffffffffu);
    if (progress[p].load() < seen) report_errors.fetch_add(1);
    reports_run.fetch_add(1);
  });
  device.set_report_sink(&reports);

  std::atomic<int> submit_errors{0};
  std::vector<std::thread> threads;
  for (int p = 0; p < P; ++p) {
    threads.emplace_back([&, p] {
      hal::TaskSettings settings;
      settings.priority = p % 8;
      int shared_seq = 0;
      for (int k = 0; k < w.tasks_per_producer; ++k) {
        auto own_task = std::make_shared<LambdaTask>(1, [&, p, k](std::size_t, hal::SegmentContext&) {
          runs[p][k].fetch_add(1);
          if (progress[p].load() != k) order_errors.fetch_add(1);
          progress[p].store(k + 1);
          return Status::Ok();
        });
        if (!device.submit(own[p], hal::Entry::Task(std::move(own_task), settings)).ok()) submit_errors.fetch_add(1);
        if (k % 3 == 2) {
          const int s = (p + k) % w.shared_queues;
          const int seq = shared_seq++;
          auto shared_task = std::make_shared<LambdaTask>(1, [&, p, s, seq](std::size_t, hal::SegmentContext&) {
            if (shared_progress[p][s].load() > seq) order_errors.fetch_add(1);
            shared_progress[p][s].store(seq + 1);
            return Status::Ok();
          });
          if (!device.submit(shared[s], hal::Entry::Task(std::move(shared_task), settings)).ok()) {
            submit_errors.fetch_add(1);
          }
        }
        if (k % 16 == 15) {
          // The shared queue waits for everything this producer put on its own queue so far.
          const int s = k % w.shared_queues;
          const int upto = k + 1;
          if (!device.submit(own[p], hal::Entry::Record(events[p])).ok()) submit_errors.fetch_add(1);
          if (!device.submit(shared[s], hal::Entry::Wait(events[p])).ok()) submit_errors.fetch_add(1);
          auto check = std::make_shared<LambdaTask>(1, [&, p, upto](std::size_t, hal::SegmentContext&) {
            if (progress[p].load() < upto) event_errors.fetch_add(1);
            return Status::Ok();
          });
          if (!device.submit(shared[s], hal::Entry::Task(std::move(check), settings)).ok()) submit_errors.fetch_add(1);
        }
        if (k % 10 == 4) {
          const bool block = (k / 10) % 2 == 0;
          if (!device.submit(own[p], hal::Entry::Report(report_id(p, k + 1), block)).ok()) submit_errors.fetch_add(1);
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_TRUE(device.synchronize_all(60'000).ok());

  EXPECT_EQ(submit_errors.load(), 0);
  EXPECT_EQ(order_errors.load(), 0) << "tasks of one producer ran out of submission order on some queue";
  EXPECT_EQ(event_errors.load(), 0) << "an event wait let a queue run before the recorded work";
  EXPECT_EQ(report_errors.load(), 0) << "a report ran before the task submitted ahead of it";
  EXPECT_EQ(reports.discarded(), 0);
  int expected_reports = 0;
  for (int k = 0; k < w.tasks_per_producer; ++k) expected_reports += k % 10 == 4 ? 1 : 0;
  EXPECT_EQ(reports_run.load(), expected_reports * P);
  int wrong_counts = 0;
  for (int p = 0; p < P; ++p) {
    EXPECT_EQ(progress[p].load(), w.tasks_per_producer);
    for (int k = 0; k < w.tasks_per_producer; ++k) wrong_counts += runs[p][k].load() != 1 ? 1 : 0;
  }
  EXPECT_EQ(wrong_counts, 0) << "some task did not run exactly once";
  for (auto e : events) EXPECT_TRUE(device.destroy_event(e).ok());
  for (auto q : own) device.destroy_sq(q);
  for (auto q : shared) device.destroy_sq(q);
  device.set_report_sink(nullptr);
}

}  // namespace svp::test
