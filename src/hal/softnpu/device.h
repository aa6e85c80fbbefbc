// One emulated NPU device: the task scheduler (per-SQ in-order issue, event table,
// priority arbitration, preemption at segment boundaries) and its NPU core threads.
//
// Concurrency design: all scheduler state lives under one mutex, `mu_`. Whoever changes
// that state (a submitting application thread, a core finishing a segment, a report
// completing) runs the scheduler step inline while holding the lock: queue heads that
// need no core (event records and waits, resets, reports, barriers) retire right there,
// and NPU tasks go to the arbiter, which hands them to idle cores. Cores run segments
// without the lock and take it only between segments. Host waiters (fences, event
// synchronisation) are woken after the lock is released. Every thread that waits here
// (cores for work, hosts in synchronize) waits through a Waiter under the configured
// WaitPolicy (common/waiter.h).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "hal/hal.h"
#include "hal/softnpu/arbiter.h"
#include "hal/softnpu/core_usage.h"

namespace svp::hal::softnpu {

class SoftNpuDevice final : public Device {
 public:
  SoftNpuDevice(std::uint32_t index, const BackendConfig& config, Memory* memory);
  ~SoftNpuDevice() override;
  SoftNpuDevice(const SoftNpuDevice&) = delete;
  SoftNpuDevice& operator=(const SoftNpuDevice&) = delete;

  Result<SqId> create_sq() override;
  std::size_t destroy_sq(SqId sq) override;
  Status submit(SqId sq, Entry entry) override;
  Status synchronize_sq(SqId sq, TimeoutMs timeout) override;
  Status synchronize_all(TimeoutMs timeout) override;
  void complete_report(SqId sq, ReportId id) override;
  Result<EventId> create_event(bool timeline) override;
  Status destroy_event(EventId e) override;
  Result<EventInfo> query_event(EventId e) override;
  Status synchronize_event(EventId e, TimeoutMs timeout) override;
  Result<float> elapsed_ms(EventId start, EventId end) override;
  Status run_aicpu(const AiCpuJob& job) override;
  void set_report_sink(ReportSink* sink) override;
  void set_aicpu_sink(AiCpuSink* sink) override;
  void set_task_observer(TaskObserver* observer) override;
  std::uint32_t core_count() const override { return static_cast<std::uint32_t>(cores_.size()); }
  std::vector<CoreSample> core_usage(Nanos window) override;

  // Diagnostics for tests and profiling.
  std::uint64_t preemptions() const;

 private:
  struct Run;
  struct Item;
  struct Sq;
  struct Event;
  struct Core;
  struct Actions;

  Sq* find_sq(SqId id);
  std::shared_ptr<Event> find_event(EventId id);
  Status submit_barrier(SqId sq, std::shared_ptr<Fence>* fence);

  // Scheduler step; requires mu_. Collects host wake-ups into `actions`.
  void schedule(Actions& actions);
  void advance(Sq& sq, Actions& actions);
  void dispatch(Actions& actions);
  void retire_head(Sq& sq);
  void complete_record(Event& ev, std::uint64_t target, const Status& error, Actions& actions);
  void finish_run(Run& run, Status status, Actions& actions);
  // Posts segment `run.next` to the AI-CPU sink; requires mu_.
  void post_aicpu(Run& run, Core* holder);
  void cancel_item(Sq& sq, Item& item, Actions& actions);
  void run_actions(Actions& actions);
  // Profiling (require mu_): whether `run` reports to the observer, and an event about it.
  bool traced(const Run& run) const;
  TaskEvent event_of(const Run& run, TaskEventKind kind, Nanos now) const;

  void core_main(Core& core);

  const std::uint32_t index_;
  const std::uint32_t max_sqs_;
  std::shared_ptr<Clock> clock_;
  Memory* memory_;
  const WaitPolicy wait_;

  mutable std::mutex mu_;
  bool stopping_ = false;
  Arbiter arbiter_;
  std::vector<std::unique_ptr<Sq>> sqs_;  // index = SqId; null = free
  std::vector<SqId> dirty_;               // queues whose head may make progress
  std::vector<std::shared_ptr<Event>> events_;  // index = slot; null = free
  std::vector<std::uint32_t> event_gens_;
  ReportSink* sink_ = nullptr;
  AiCpuSink* aicpu_sink_ = nullptr;
  TaskObserver* observer_ = nullptr;
  std::uint64_t next_task_id_ = 0;
  std::uint64_t next_token_ = 0;
  std::uint64_t preemptions_ = 0;
  std::condition_variable released_cv_;  // a core or AI-CPU thread let go of a task (destroy_sq waits)
  std::vector<std::unique_ptr<Core>> cores_;
};

}  // namespace svp::hal::softnpu
