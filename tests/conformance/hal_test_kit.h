// Instruments for the HAL conformance suite: a virtual clock, scripted NPU tasks, gates
// that hold a segment on its core, and sinks that record what a device hands them.
//
// Every wait here is bounded (kBound): a backend that loses a wake-up makes a test fail,
// never hang. The sinks are called with the device's scheduler lock held, so they only
// record under their own mutex and notify, as hal.h requires of them.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "hal/hal.h"

namespace svp::hal::conformance {

// Longest any test waits for something that should happen.
inline constexpr std::chrono::milliseconds kBound{5000};
inline constexpr TimeoutMs kBoundMs = 5000;
// Host waits that are expected to time out.
inline constexpr TimeoutMs kShortMs = 30;

// Time moves only when a test (or a segment) advances it, so orders and durations
// measured on the device clock are exact.
class VirtualClock final : public Clock {
 public:
  Nanos now() const override { return now_.load(); }
  void advance_ms(double ms) { now_.fetch_add(static_cast<Nanos>(ms * 1e6)); }

 private:
  std::atomic<Nanos> now_{1'000'000'000};  // away from the origin of any tick grid
};

// Holds a segment on its core until the test opens it (or kBound passes).
class Gate {
 public:
  void open() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      open_ = true;
    }
    cv_.notify_all();
  }
  // Called from the segment: marks it entered, then waits for open().
  bool pass() {
    std::unique_lock<std::mutex> lock(mu_);
    entered_ = true;
    cv_.notify_all();
    return cv_.wait_for(lock, kBound, [&] { return open_; });
  }
  // Called from the test: true once a segment is inside pass().
  bool wait_entered() {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, kBound, [&] { return entered_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
  bool entered_ = false;
};

// An NPU task whose segments run a function; `aicpu` lists the AI-CPU segments.
class ScriptTask final : public SegmentedTask {
 public:
  using Fn = std::function<Status(std::size_t, SegmentContext&)>;
  ScriptTask(std::size_t segments, Fn fn, std::set<std::size_t> aicpu = {}, std::uint64_t macs = 0)
      : segments_(segments), fn_(std::move(fn)), aicpu_(std::move(aicpu)), macs_(macs) {}
  std::size_t segment_count() const override { return segments_; }
  Status run_segment(std::size_t index, SegmentContext& ctx) override { return fn_(index, ctx); }
  bool on_aicpu(std::size_t index) const override { return aicpu_.count(index) != 0; }
  std::uint64_t segment_macs(std::size_t) const override { return macs_; }

 private:
  std::size_t segments_;
  Fn fn_;
  std::set<std::size_t> aicpu_;
  std::uint64_t macs_;
};

// A thread-safe list of what happened, in order.
class Trace {
 public:
  void add(std::string what) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      items_.push_back(std::move(what));
    }
    cv_.notify_all();
  }
  std::vector<std::string> items() const {
    std::lock_guard<std::mutex> lock(mu_);
    return items_;
  }
  bool contains(const std::string& what) const {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& i : items_) {
      if (i == what) return true;
    }
    return false;
  }
  // True once `what` was added (within kBound).
  bool wait_for(const std::string& what) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, kBound, [&] {
      for (const auto& i : items_) {
        if (i == what) return true;
      }
      return false;
    });
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> items_;
};

struct ReportRef {
  SqId sq = 0;
  ReportId id = 0;
  bool operator==(const ReportRef& o) const { return sq == o.sq && id == o.id; }
};

// Records delivered and discarded reports; refuses (deliver() == false, "nobody can run
// it") the ids in `refuse`.
class RecordingReportSink final : public ReportSink {
 public:
  bool deliver(SqId sq, ReportId id) override {
    std::lock_guard<std::mutex> lock(mu_);
    delivered_.push_back({sq, id});
    cv_.notify_all();
    return refuse_.count(id) == 0;
  }
  void discard(SqId sq, ReportId id) override {
    std::lock_guard<std::mutex> lock(mu_);
    discarded_.push_back({sq, id});
    cv_.notify_all();
  }
  void refuse(ReportId id) {
    std::lock_guard<std::mutex> lock(mu_);
    refuse_.insert(id);
  }
  std::vector<ReportRef> delivered() const {
    std::lock_guard<std::mutex> lock(mu_);
    return delivered_;
  }
  std::vector<ReportRef> discarded() const {
    std::lock_guard<std::mutex> lock(mu_);
    return discarded_;
  }
  // True once report `id` was delivered (within kBound).
  bool wait_delivered(ReportId id) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, kBound, [&] {
      for (const auto& r : delivered_) {
        if (r.id == id) return true;
      }
      return false;
    });
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::set<ReportId> refuse_;
  std::vector<ReportRef> delivered_;
  std::vector<ReportRef> discarded_;
};

class RecordingObserver final : public TaskObserver {
 public:
  void on_task_event(const TaskEvent& event) override {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back(event);
  }
  std::vector<TaskEvent> events() const {
    std::lock_guard<std::mutex> lock(mu_);
    return events_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<TaskEvent> events_;
};

class RecordingAiCpuSink final : public AiCpuSink {
 public:
  void post(const AiCpuJob& job) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      jobs_.push_back(job);
    }
    cv_.notify_all();
  }
  // The n-th (0-based) posted job, waiting up to kBound for it; false if none came.
  bool wait_job(std::size_t n, AiCpuJob& out) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!cv_.wait_for(lock, kBound, [&] { return jobs_.size() > n; })) return false;
    out = jobs_[n];
    return true;
  }
  std::size_t posted() const {
    std::lock_guard<std::mutex> lock(mu_);
    return jobs_.size();
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<AiCpuJob> jobs_;
};

}  // namespace svp::hal::conformance
