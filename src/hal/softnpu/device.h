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
//
// Task submission without the device lock. An application thread that streams NPU
// tasks while the core thread runs them on another CPU used to collide with the core on
// `mu_` at every task and sleep on it (2.6x lower throughput, docs/performance.md). So an
// NPU task (the common entry; untraced, or no observer installed) is not put in its SQ by
// submit() but in the SQ's Inbox: a vector under the inbox's own small mutex that only
// submitters of that stream and the drain touch. The first entry that makes an inbox
// non-empty pushes it on `pending_`, a lock-free list of inboxes with work (LIFO; the
// order between streams does not matter, the order inside one inbox is submission order).
// Whoever holds `mu_` for a scheduler step first drains `pending_` (schedule() ->
// drain_pending()), moving every inbox's entries to the end of its SQ; the entry keeps its
// submission time, so arbitration (wait ticks, promotion) sees exactly the instant it would
// have become the queue head had it been added under the lock. Every other entry kind
// (events, reports, barriers, traced tasks; and every task of a thread whose affinity
// mask has one CPU, where nothing can contend for `mu_` while it runs and the inbox would
// be pure overhead) still takes `mu_`, after draining, so FIFO
// order per stream holds across both paths, and an entry still in an inbox counts as not
// finished for synchronize (the barrier drains it first).
//
// No lost wake-up. Someone must drain an inbox soon after it is published:
//   * a core that is running a task drains at its next segment boundary (before the
//     preemption check, so a waiting higher-priority task is seen exactly as before) and
//     when the task ends: it holds `mu_` then anyway;
//   * when a core is idle, the submitter itself runs the scheduler step (kick()).
// "Idle" is `idle_cores_`: a core raises it before it tests its wait condition, which
// includes "`pending_` is not empty". The submitter that made `pending_` non-empty then
// reads `idle_cores_`. Both pairs (raise idle, read pending) and (publish pending, read
// idle) are seq_cst, so at least one side sees the other: either the core does not sleep
// and drains, or the submitter sees an idle core and kicks. A core stops counting as idle
// when the scheduler hands it a task (under `mu_`, in dispatch): from then on it drains
// when that task ends, and a submitter that keeps the CPU does not kick again in vain. A submitter that pushes onto a
// non-empty list leaves it to the one that made it non-empty. With every core busy the
// submitter never touches `mu_`; tasks it adds wait at most until the next segment
// boundary, which is when they could have started or preempted anyway. destroy_sq closes
// the inbox (under `mu_` and the inbox mutex) and cancels what it still holds; a drain
// that later meets the emptied inbox on `pending_` skips it.
#pragma once

#include <atomic>
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
  Result<std::uint64_t> begin_host_record(EventId e) override;
  Status complete_host_record(EventId e, std::uint64_t record, Status error) override;
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
  struct Inbox;

  Sq* find_sq(SqId id);
  std::shared_ptr<Event> find_event(EventId id);
  // submit() of an NPU task through the SQ's inbox, without mu_.
  Status submit_unlocked(SqId sq, Entry entry);
  // submit() of any entry under mu_.
  Status submit_locked(SqId sq, Entry entry);
  // Pushes `box` (its mutex held, not yet listed) on pending_; true if the list was empty.
  bool publish(Inbox& box);
  // Runs a scheduler step for a submitter that found a core idle.
  void kick();

  // Scheduler step; requires mu_. Collects host wake-ups into `actions`.
  void schedule(Actions& actions);
  // Moves the entries of every listed inbox to their SQs; requires mu_.
  void drain_pending(Actions& actions);
  // Puts `item` at the end of `sq`, marking the queue for the scheduler; requires mu_.
  void append(Sq& sq, Item item);
  void advance(Sq& sq, Actions& actions);
  void dispatch(Actions& actions);
  void retire_head(Sq& sq);
  // `when`: the record's timestamp (host clock: now; board clock: its queue's board time).
  void complete_record(Event& ev, std::uint64_t target, const Status& error, Nanos when, Actions& actions);
  // The time an entry at the head of `sq` takes effect: the board time its queue reached, or
  // the host's now.
  Nanos now_of(const Sq& sq) const;
  void finish_run(Run& run, Status status, Actions& actions);
  // Posts segment `run.next` to the AI-CPU sink; requires mu_.
  void post_aicpu(Run& run, Core* holder);
  void cancel_item(Sq& sq, Item& item, Actions& actions);
  void run_actions(Actions& actions);
  // Profiling (require mu_): whether `run` reports to the observer, and an event about it.
  bool traced(const Run& run) const;
  TaskEvent event_of(const Run& run, TaskEventKind kind, Nanos now) const;

  void core_main(Core& core);

  // Core masks (TaskSettings::core_mask / core_split); all require mu_.
  // The task's mask limited to this device's cores (0: any core).
  std::uint32_t mask_of(const Contender& c) const;
  // Neither running a task nor held by a split task led by another core.
  bool is_free(const Core& core) const;
  // Whether `core` (free) may take `c` now, and the same as an arbiter filter.
  bool fits(const Contender& c, const Core& core) const;
  Arbiter::Fits fits_on(const Core& core) const;
  // The waiting tasks whose mask includes `core` or a core its task holds (preemption of
  // the task running on it).
  Arbiter::Fits may_use(const Core& core) const;
  // `run` takes `lead`; a split task also holds the other cores of its mask.
  void occupy(Run& run, Core& lead);
  // `run` leaves the arbiter and starts (or resumes) on `core` at time `t` (host or board
  // clock): occupy, the trace event, the idle count; the core is woken through `a`.
  void start_on_core(Core& core, Run& run, Nanos t, Actions& a);
  // The cores `run` held besides its lead become free (board clock: at run.at).
  void release_held(Run& run);
  // Board time of `run`'s segment on the cores it occupies.
  Nanos board_ns(const Run& run, std::size_t segment) const;
  // Usage of the lead core and of the cores it holds, at device time `now`: the host's now,
  // or on the board clock the segment's board start / end (usage is then board time).
  void usage_begin(const Run& run, Core& lead, Nanos now);
  void usage_end(const Run& run, Core& lead, std::uint64_t macs, Nanos now);

  // Board clock (docs/scheduling.md "Board clock"); all require mu_.
  void dispatch_board(Actions& actions);
  // Runs `run` on `core` until it finishes, fails or is preempted, deciding at each segment
  // end in board-time order.
  void run_board(Core& core, Run& run, std::unique_lock<std::mutex>& lock, bool* finished, bool* released,
                 Status* status);
  // Whether `core`'s segment end is the next decision in board-time order.
  bool my_turn(const Core& core) const;
  // Wakes the other cores waiting for their turn (the order of segment ends changed).
  void wake_turns(const Core& core, Actions& actions);
  void raise_board_now(Nanos t);

  const std::uint32_t index_;
  const std::uint32_t max_sqs_;
  std::shared_ptr<Clock> clock_;
  Memory* memory_;
  const WaitPolicy wait_;
  const bool board_;  // BackendConfig::board_clock
  // Board clock: the latest board time a decision was taken at. Written under mu_; read
  // without it by submitters (a host entry arrives no earlier than this).
  std::atomic<Nanos> board_now_{0};

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
  std::atomic<bool> observed_{false};  // observer_ != nullptr, readable without mu_
  std::atomic<std::uint64_t> next_task_id_{0};
  std::uint64_t next_token_ = 0;
  std::uint64_t preemptions_ = 0;
  std::condition_variable released_cv_;  // a core or AI-CPU thread let go of a task (destroy_sq waits)
  std::vector<std::unique_ptr<Core>> cores_;
  // One per possible SqId (ids stay below max_sqs_), created with the device and kept
  // until it is destroyed, so a submitter holding a stale id never sees freed memory.
  std::vector<std::unique_ptr<Inbox>> inboxes_;
  std::atomic<Inbox*> pending_{nullptr};         // inboxes with entries (Treiber stack)
  std::atomic<std::uint32_t> idle_cores_{0};     // cores about to wait for, or waiting for, work
  std::vector<Item> drain_buf_;                  // reused by drain_pending (under mu_)
};

}  // namespace svp::hal::softnpu
