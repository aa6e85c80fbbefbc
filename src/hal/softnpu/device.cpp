#include "hal/softnpu/device.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <functional>
#include <limits>
#include <string>
#include <system_error>
#include <utility>

#include "common/log.h"
#include "common/waiter.h"
#include "hal/fence.h"

namespace svp::hal::softnpu {
namespace {

constexpr std::uint32_t kMaxEvents = 1u << 16;
constexpr std::uint32_t kAiCpuCore = kHostCore;  // SegmentContext::core of host-run segments

std::uint32_t event_slot(EventId id) { return static_cast<std::uint32_t>(id & 0xffffffffu) - 1; }
std::uint32_t event_gen(EventId id) { return static_cast<std::uint32_t>(id >> 32); }

}  // namespace

// An issued NPU task: the head of its queue, waiting in the arbiter or on a core.
struct SoftNpuDevice::Run : Contender {
  std::shared_ptr<SegmentedTask> task;
  std::uint64_t id = 0;   // the device's task number (profiling)
  bool started = false;   // has had a core once (kStart vs kResume)
  std::uint32_t core = kAiCpuCore;  // core it last ran on (kAiCpuCore while released to the host)
  std::size_t segments = 0;
  std::size_t next = 0;   // next segment to run; preemption resumes here
  int run_level = 3;      // effective priority when it last got a core
  bool on_core = false;
  bool cancel = false;    // its queue is being destroyed
  // AI-CPU segment in flight: posted (waiting for a host thread), then running on one.
  std::uint64_t token = 0;
  bool aicpu_waiting = false;
  bool aicpu_running = false;
  bool aicpu_done = false;  // busy-wait: result ready for the holding core
  Status aicpu_status;
  Core* holder = nullptr;   // busy-wait: the core held meanwhile
  Nanos at = 0;             // board clock: the board time the task has reached
  // The emulated cores it occupies while on a core: 1, or every core of its mask when it is
  // split (TaskSettings::core_split; the others are held, Core::held).
  std::uint32_t cores = 1;
};

struct SoftNpuDevice::Item {
  Entry entry;
  std::uint64_t target = 0;  // record/wait/reset: the event's record count it refers to
  std::uint64_t task_id = 0;  // kTask: the device's task number
  // kTask through an inbox: when submit() accepted it, and whether `ready_at` (the
  // instant it would have become the queue head under the old, locked submit) is known.
  Nanos submitted = 0;
  Nanos ready_at = 0;
  bool has_ready_at = false;
};

// The lock-free side of one SQ (see device.h): entries accepted by submit() that the
// scheduler has not moved to the SQ yet.
struct SoftNpuDevice::Inbox {
  enum class State : std::uint8_t { kClosed, kOpen, kStopping };
  SqId id = 0;
  std::mutex mu;
  State state = State::kClosed;  // guarded by mu; kOpen while the SQ exists
  std::vector<Item> items;       // guarded by mu
  bool listed = false;           // on pending_ (or taken from it, not yet drained); guarded by mu
  // pending_ link: written by the pusher before its release CAS, read by the drainer
  // after its acquire exchange; a box is pushed again only after the drain cleared `listed`.
  Inbox* next = nullptr;
};

struct SoftNpuDevice::Sq {
  SqId id = 0;
  std::deque<Item> q;
  bool head_started = false;      // the head is in progress or blocked
  std::unique_ptr<Run> run;       // the head task once issued
  std::uint32_t nonblock_inflight = 0;  // NO_BLOCK reports delivered, not yet completed
  Status error;                   // first failure since the last synchronize
  bool dying = false;
  bool in_dirty = false;
  Nanos empty_since = 0;          // when `q` last became empty (inbox entries' ready_at)
  Nanos cursor = 0;               // board clock: when the head became (or will become) eligible
};

struct SoftNpuDevice::Event {
  EventId id = 0;
  bool timeline = true;
  std::uint64_t records = 0;     // records submitted
  std::uint64_t done = 0;        // highest record completed
  std::uint64_t reset_mark = 0;  // `records` when last reset; equal = "not recorded"
  Nanos timestamp = 0;
  Status error;
  std::uint32_t pending_waits = 0;
  std::vector<SqId> waiters;     // queues stalled on this event
  bool destroyed = false;
  Waiter waiter;                 // synchronize_event waiters (condition under mu_)
};

struct SoftNpuDevice::Core {
  std::uint32_t index = 0;
  CoreUsage usage;  // guarded by mu_
  Waiter waiter;  // the core thread waits for `run` (and busy-wait AI-CPU results); condition under mu_
  Run* run = nullptr;
  // A split task led by another core occupies this one too (guarded by mu_): the core takes
  // no task meanwhile, and its usage counts the lead's segments.
  Run* held = nullptr;
  bool counted_idle = false;  // counted in idle_cores_; guarded by mu_
  std::thread thread;
  // Board clock (guarded by mu_): the segment in flight ends at board time `seg_end`; an
  // idle core became free at `free_at`; `at_boundary` while it takes its boundary decision.
  bool in_flight = false;
  bool at_boundary = false;
  Nanos seg_end = 0;
  Nanos free_at = 0;
};

// Work that must happen after mu_ is released: waking host waiters and cores, logging,
// and destroying task objects (whose destructors may be arbitrarily heavy).
struct SoftNpuDevice::Actions {
  std::vector<Core*> cores;
  std::vector<std::pair<std::shared_ptr<Fence>, Status>> fences;
  std::vector<std::shared_ptr<Event>> events;
  std::vector<std::string> warnings;
  std::vector<std::shared_ptr<SegmentedTask>> garbage;
  bool released = false;  // a core let go of a task of a dying queue

  bool empty() const {
    return cores.empty() && fences.empty() && events.empty() && warnings.empty() && garbage.empty() && !released;
  }
};

SoftNpuDevice::SoftNpuDevice(std::uint32_t index, const BackendConfig& config, Memory* memory)
    : index_(index),
      max_sqs_(config.max_sqs),
      clock_(config.clock ? config.clock : steady_clock()),
      memory_(memory),
      wait_(config.wait),
      board_(config.board_clock),
      arbiter_(ArbiterConfig{config.wait_tick, config.wait_cap_ticks}) {
  inboxes_.reserve(max_sqs_);
  for (std::uint32_t i = 0; i < max_sqs_; ++i) {
    inboxes_.push_back(std::make_unique<Inbox>());
    inboxes_.back()->id = i;
  }
  const std::uint32_t n = std::max<std::uint32_t>(1, config.cores);
  cores_.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    auto core = std::make_unique<Core>();
    core->index = i;
    core->usage = CoreUsage(board_ ? 0 : clock_->now());  // the board clock starts at 0
    cores_.push_back(std::move(core));
  }
  try {
    for (auto& core : cores_) {
      Core* c = core.get();
      std::function<void()> body = [this, c] { core_main(*c); };
      c->thread = config.start_thread ? config.start_thread(std::move(body)) : std::thread(std::move(body));
    }
  } catch (const std::system_error&) {
    // The cores already running stop before the exception leaves: destroying a joinable
    // std::thread is std::terminate (what svp_acl_init did on a host out of threads).
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    for (auto& core : cores_) core->waiter.notify();
    for (auto& core : cores_) {
      if (core->thread.joinable()) core->thread.join();
    }
    throw;
  }
}

SoftNpuDevice::~SoftNpuDevice() {
  Actions a;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    for (auto& box : inboxes_) {
      std::lock_guard<std::mutex> box_lock(box->mu);
      box->state = Inbox::State::kStopping;
      // Inbox entries are NPU tasks, which need no cancellation beyond being dropped.
      for (Item& item : box->items) a.garbage.push_back(std::move(item.entry.task));
      box->items.clear();
    }
    for (auto& sq : sqs_) {
      if (!sq) continue;
      sq->dying = true;
      for (std::size_t i = 0; i < sq->q.size(); ++i) {
        Item& item = sq->q[i];
        const bool delivered_report = i == 0 && sq->head_started && item.entry.kind == EntryKind::kReport;
        if (item.entry.kind != EntryKind::kTask && !delivered_report) cancel_item(*sq, item, a);
      }
      if (sq->run && sq->run->on_core) sq->run->cancel = true;
    }
    for (auto& ev : events_) {
      if (ev) a.events.push_back(ev);
    }
  }
  run_actions(a);
  for (auto& core : cores_) core->waiter.notify();
  for (auto& core : cores_) core->thread.join();
}

SoftNpuDevice::Sq* SoftNpuDevice::find_sq(SqId id) {
  return id < sqs_.size() ? sqs_[id].get() : nullptr;
}

std::shared_ptr<SoftNpuDevice::Event> SoftNpuDevice::find_event(EventId id) {
  const std::uint32_t slot = event_slot(id);
  if (id == 0 || slot >= events_.size() || !events_[slot] || event_gens_[slot] != event_gen(id)) return nullptr;
  return events_[slot];
}

Result<SqId> SoftNpuDevice::create_sq() {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return Error(err::kRtFailure, "device {} is shutting down", index_);
  std::size_t live = 0;
  SqId free_id = static_cast<SqId>(sqs_.size());
  for (SqId i = 0; i < sqs_.size(); ++i) {
    if (sqs_[i]) {
      ++live;
    } else if (free_id == sqs_.size()) {
      free_id = i;
    }
  }
  if (live >= max_sqs_) {
    return Error(err::kStorageOverLimit, "device {} already has {} streams (the hardware limit, default streams included)",
                 index_, max_sqs_);
  }
  if (free_id == sqs_.size()) sqs_.emplace_back();
  sqs_[free_id] = std::make_unique<Sq>();
  sqs_[free_id]->id = free_id;
  Inbox& box = *inboxes_[free_id];
  std::lock_guard<std::mutex> box_lock(box.mu);
  box.state = Inbox::State::kOpen;
  return free_id;
}

void SoftNpuDevice::cancel_item(Sq& sq, Item& item, Actions& a) {
  switch (item.entry.kind) {
    case EntryKind::kTask:
    case EntryKind::kEventReset:
    case EntryKind::kRelease:
      break;
    case EntryKind::kEventRecord:
      if (auto ev = find_event(item.entry.event)) {
        complete_record(*ev, item.target,
                        Error(err::kRtFailure, "the stream holding this event record was destroyed before it ran"),
                        now_of(sq), a);
      }
      break;
    case EntryKind::kEventWait:
      if (auto ev = find_event(item.entry.event)) {
        if (ev->pending_waits > 0) --ev->pending_waits;
        ev->waiters.erase(std::remove(ev->waiters.begin(), ev->waiters.end(), sq.id), ev->waiters.end());
      }
      break;
    case EntryKind::kReport:
      if (sink_ != nullptr) sink_->discard(sq.id, item.entry.report);
      break;
    case EntryKind::kBarrier:
      a.fences.emplace_back(std::move(item.entry.fence),
                            Error(err::kRtFailure, "the stream was destroyed while a synchronize was waiting on it"));
      break;
  }
}

std::size_t SoftNpuDevice::destroy_sq(SqId id) {
  Actions a;
  std::unique_ptr<Sq> doomed;
  std::size_t cancelled = 0;
  {
    std::unique_lock<std::mutex> lock(mu_);
    Sq* sq = find_sq(id);
    if (sq == nullptr) return 0;
    sq->dying = true;
    {
      // Closed first: no submit can add to the queue from here on. What the inbox still
      // holds was submitted after everything in `q`, so it goes last.
      Inbox& box = *inboxes_[id];
      std::lock_guard<std::mutex> box_lock(box.mu);
      box.state = Inbox::State::kClosed;
      for (Item& item : box.items) sq->q.push_back(std::move(item));
      box.items.clear();
    }
    cancelled = sq->q.size();
    for (std::size_t i = 0; i < sq->q.size(); ++i) {
      Item& item = sq->q[i];
      // A BLOCK report already handed to the runtime stays the runtime's to finish; its
      // completion is ignored once the queue is gone.
      if (i == 0 && sq->head_started && item.entry.kind == EntryKind::kReport) continue;
      cancel_item(*sq, item, a);
    }
    if (sq->run) {
      Run& run = *sq->run;
      run.cancel = true;
      arbiter_.remove(&run);
      if (run.holder != nullptr) run.holder->waiter.notify();  // a core busy-waiting on AI-CPU
      if (board_ && run.on_core && run.core < cores_.size()) cores_[run.core]->waiter.notify();  // waiting for its turn
      // A segment running on a core or on an AI-CPU thread finishes first.
      released_cv_.wait(lock, [&] { return !run.on_core && !run.aicpu_running; });
      if (sq->run) a.garbage.push_back(std::move(sq->run->task));
    }
    for (Item& item : sq->q) {
      if (item.entry.task) a.garbage.push_back(std::move(item.entry.task));
    }
    dirty_.erase(std::remove(dirty_.begin(), dirty_.end(), id), dirty_.end());
    doomed = std::move(sqs_[id]);
    schedule(a);
  }
  run_actions(a);
  return cancelled;
}

namespace {

Status check_task(const Entry& entry) {
  if (!entry.task) return Error(err::kInvalidParam, "NPU task without a body");
  if (entry.settings.priority < 0 || entry.settings.priority > 7) {
    return Error(err::kInvalidParam, "task priority {} is outside 0..7", entry.settings.priority);
  }
  return Status::Ok();
}

}  // namespace

Status SoftNpuDevice::submit(SqId id, Entry entry) {
  // Traced tasks take the lock: their kSubmit event must reach the observer in the same
  // order as every other event of the device. An observer installed concurrently may miss
  // the kSubmit of a task submitted at the same moment, as it could before.
  // A thread that may run on one CPU only takes the lock too: the inbox exists to keep a
  // submitter from sleeping on mu_ while a core on another CPU holds it, and with the
  // whole process on one CPU (the usual reason for such a mask) the lock is free whenever
  // this thread runs, so the inbox would be pure overhead (docs/performance.md, "Task
  // submission without the device lock"). allowed_cpu_count() is cached per thread.
  if (entry.kind == EntryKind::kTask && !(entry.settings.traced && observed_.load(std::memory_order_acquire)) &&
      allowed_cpu_count() > 1) {
    return submit_unlocked(id, std::move(entry));
  }
  return submit_locked(id, std::move(entry));
}

bool SoftNpuDevice::publish(Inbox& box) {
  Inbox* head = pending_.load(std::memory_order_relaxed);
  do {
    box.next = head;
    // seq_cst: pairs with the core's seq_cst idle_cores_ raise and pending_ test (device.h).
  } while (!pending_.compare_exchange_weak(head, &box, std::memory_order_seq_cst, std::memory_order_relaxed));
  return head == nullptr;
}

Status SoftNpuDevice::submit_unlocked(SqId id, Entry entry) {
  if (id >= inboxes_.size()) return Error(err::kInvalidResourceHandle, "queue {} does not exist", id);
  Inbox& box = *inboxes_[id];
  bool first = false;
  {
    std::lock_guard<std::mutex> lock(box.mu);
    if (box.state == Inbox::State::kStopping) return Error(err::kRtFailure, "device {} is shutting down", index_);
    if (box.state != Inbox::State::kOpen) return Error(err::kInvalidResourceHandle, "queue {} does not exist", id);
    SVP_RETURN_IF_ERROR(check_task(entry));
    Item item{std::move(entry), 0};
    // Numbered under the inbox lock so that one queue's task numbers rise in queue order.
    item.task_id = next_task_id_.fetch_add(1, std::memory_order_relaxed) + 1;
    item.submitted = board_ ? board_now_.load(std::memory_order_relaxed) : clock_->now();
    box.items.push_back(std::move(item));
    if (!box.listed) {
      box.listed = true;
      first = publish(box);
    }
  }
  if (first && idle_cores_.load(std::memory_order_seq_cst) > 0) kick();
  return Status::Ok();
}

void SoftNpuDevice::kick() {
  Actions a;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    schedule(a);
  }
  run_actions(a);
}

void SoftNpuDevice::drain_pending(Actions& a) {
  Inbox* list = pending_.exchange(nullptr, std::memory_order_acquire);
  while (list != nullptr) {
    Inbox& box = *list;
    list = box.next;  // read before `listed` is cleared: the box may be pushed again after
    {
      std::lock_guard<std::mutex> lock(box.mu);
      drain_buf_.swap(box.items);  // the inbox keeps the spare capacity: no allocation per drain
      box.listed = false;
    }
    Sq* sq = find_sq(box.id);
    for (Item& item : drain_buf_) {
      // destroy_sq empties the inbox under mu_, so entries here belong to a live queue.
      if (sq != nullptr && !sq->dying) {
        append(*sq, std::move(item));
      } else {
        a.garbage.push_back(std::move(item.entry.task));
      }
    }
    drain_buf_.clear();
  }
}

void SoftNpuDevice::append(Sq& sq, Item item) {
  if (!board_ && sq.q.empty() && item.entry.kind == EntryKind::kTask && item.submitted != 0) {
    item.ready_at = std::max(item.submitted, sq.empty_since);
    item.has_ready_at = true;
  }
  sq.q.push_back(std::move(item));
  if (sq.q.size() == 1 && !sq.in_dirty) {
    sq.in_dirty = true;
    dirty_.push_back(sq.id);
  }
}

Status SoftNpuDevice::submit_locked(SqId id, Entry entry) {
  Actions a;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return Error(err::kRtFailure, "device {} is shutting down", index_);
    Sq* sq = find_sq(id);
    if (sq == nullptr || sq->dying) return Error(err::kInvalidResourceHandle, "queue {} does not exist", id);
    // Entries still in inboxes were submitted earlier: they go first.
    drain_pending(a);
    Item item{std::move(entry), 0};
    // Board clock: a host entry arrives no earlier than the board time the device has reached.
    if (board_) item.submitted = board_now_.load(std::memory_order_relaxed);
    switch (item.entry.kind) {
      case EntryKind::kTask:
        SVP_RETURN_IF_ERROR(check_task(item.entry));
        item.task_id = next_task_id_.fetch_add(1, std::memory_order_relaxed) + 1;
        if (item.entry.settings.traced && observer_ != nullptr) {
          TaskEvent ev;
          ev.kind = TaskEventKind::kSubmit;
          ev.device = index_;
          ev.sq = id;
          ev.task = item.task_id;
          ev.tag = item.entry.settings.trace_tag;
          ev.priority = item.entry.settings.priority;
          ev.segments = static_cast<std::uint32_t>(item.entry.task->segment_count());
          ev.time = board_ ? item.submitted : clock_->now();
          observer_->on_task_event(ev);
        }
        break;
      case EntryKind::kEventRecord:
      case EntryKind::kEventWait:
      case EntryKind::kEventReset: {
        auto ev = find_event(item.entry.event);
        if (!ev) return Error(err::kInvalidResourceHandle, "event does not exist on device {}", index_);
        if (item.entry.kind == EntryKind::kEventRecord) {
          item.target = ++ev->records;
        } else if (item.entry.kind == EntryKind::kEventWait) {
          if (ev->records == ev->reset_mark) {
            return Error(err::kInvalidParam,
                         "stream_wait_event on an event that has not been recorded (or was reset): the wait could "
                         "never be satisfied");
          }
          item.target = ev->records;
          ++ev->pending_waits;
        } else {
          item.target = ev->records;
        }
        break;
      }
      case EntryKind::kReport:
        break;
      case EntryKind::kRelease:
        if (!board_) {
          return Error(err::kInvalidParam,
                       "a release at a board time needs the board clock (acl.json softnpu.clock \"board\")");
        }
        break;
      case EntryKind::kBarrier:
        if (!item.entry.fence) return Error(err::kInvalidParam, "barrier without a fence");
        break;
    }
    append(*sq, std::move(item));
    schedule(a);
  }
  run_actions(a);
  return Status::Ok();
}

Status SoftNpuDevice::synchronize_sq(SqId sq, TimeoutMs timeout) {
  Entry barrier;
  barrier.kind = EntryKind::kBarrier;
  barrier.fence = std::make_shared<Fence>();
  auto fence = barrier.fence;
  SVP_RETURN_IF_ERROR(submit(sq, std::move(barrier)));
  return fence->wait(timeout, wait_);
}

Status SoftNpuDevice::synchronize_all(TimeoutMs timeout) {
  std::vector<SqId> ids;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& sq : sqs_) {
      if (sq && !sq->dying) ids.push_back(sq->id);
    }
  }
  std::vector<std::shared_ptr<Fence>> fences;
  for (SqId id : ids) {
    Entry barrier;
    barrier.kind = EntryKind::kBarrier;
    barrier.fence = std::make_shared<Fence>();
    auto fence = barrier.fence;
    // A queue destroyed meanwhile has nothing left to wait for.
    if (submit(id, std::move(barrier)).ok()) fences.push_back(std::move(fence));
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout < 0 ? 0 : timeout);
  Status first;
  for (auto& fence : fences) {
    TimeoutMs left = kWaitForever;
    if (timeout >= 0) {
      left = std::max<TimeoutMs>(0, std::chrono::duration_cast<std::chrono::milliseconds>(
                                        deadline - std::chrono::steady_clock::now())
                                        .count());
    }
    Status st = fence->wait(left, wait_);
    if (first.ok() && !st.ok()) first = std::move(st);
  }
  return first;
}

void SoftNpuDevice::complete_report(SqId id, ReportId report) {
  Actions a;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Sq* sq = find_sq(id);
    if (sq == nullptr || sq->dying) return;
    const bool head_is_block = !sq->q.empty() && sq->head_started && sq->q.front().entry.kind == EntryKind::kReport &&
                               sq->q.front().entry.block && sq->q.front().entry.report == report;
    if (head_is_block) {
      retire_head(*sq);
    } else if (sq->nonblock_inflight > 0) {
      --sq->nonblock_inflight;
      if (sq->nonblock_inflight == 0 && !sq->q.empty() && sq->head_started &&
          sq->q.front().entry.kind == EntryKind::kBarrier) {
        sq->head_started = false;
      }
    }
    if (!sq->head_started && !sq->q.empty() && !sq->in_dirty) {
      sq->in_dirty = true;
      dirty_.push_back(id);
    }
    schedule(a);
  }
  run_actions(a);
}

void SoftNpuDevice::retire_head(Sq& sq) {
  sq.q.pop_front();
  sq.head_started = false;
  if (sq.q.empty() && !board_) sq.empty_since = clock_->now();
}

Nanos SoftNpuDevice::now_of(const Sq& sq) const { return board_ ? sq.cursor : clock_->now(); }

void SoftNpuDevice::complete_record(Event& ev, std::uint64_t target, const Status& error, Nanos when, Actions& a) {
  if (target <= ev.done) return;
  ev.done = target;
  ev.timestamp = when;
  ev.error = error;
  for (SqId w : ev.waiters) {
    Sq* sq = find_sq(w);
    if (sq == nullptr) continue;
    sq->head_started = false;  // re-evaluate its wait
    if (!sq->in_dirty) {
      sq->in_dirty = true;
      dirty_.push_back(w);
    }
  }
  ev.waiters.clear();
  a.events.push_back(find_event(ev.id));
}

void SoftNpuDevice::schedule(Actions& a) {
  drain_pending(a);
  while (!dirty_.empty()) {
    const SqId id = dirty_.back();
    dirty_.pop_back();
    Sq* sq = find_sq(id);
    if (sq == nullptr) continue;
    sq->in_dirty = false;
    advance(*sq, a);
  }
  dispatch(a);
}

void SoftNpuDevice::advance(Sq& sq, Actions& a) {
  while (!sq.dying && !sq.head_started && !sq.q.empty()) {
    Item& item = sq.q.front();
    // Board clock: the head is eligible once the entry before it is done (`cursor`) and the
    // host had submitted it (the board time the device had reached then).
    if (board_) sq.cursor = std::max(sq.cursor, item.submitted);
    switch (item.entry.kind) {
      case EntryKind::kTask: {
        auto run = std::make_unique<Run>();
        run->sq = sq.id;
        run->settings = item.entry.settings;
        run->task = std::move(item.entry.task);
        run->id = item.task_id;
        run->segments = run->task->segment_count();
        // An inbox entry waits from when it would have reached the head, not from the drain.
        const Nanos ready = board_ ? sq.cursor : item.has_ready_at ? item.ready_at : clock_->now();
        run->at = ready;
        arbiter_.add(run.get(), run->settings.priority, ready);
        sq.run = std::move(run);
        sq.head_started = true;
        return;
      }
      case EntryKind::kEventRecord: {
        if (auto ev = find_event(item.entry.event)) complete_record(*ev, item.target, sq.error, now_of(sq), a);
        retire_head(sq);
        break;
      }
      case EntryKind::kEventWait: {
        auto ev = find_event(item.entry.event);
        if (ev && ev->done < item.target) {
          ev->waiters.push_back(sq.id);
          sq.head_started = true;
          return;
        }
        if (ev) {
          if (board_) sq.cursor = std::max(sq.cursor, ev->timestamp);
          if (ev->pending_waits > 0) --ev->pending_waits;
          // The waiting stream inherits a failure of the work it waited for.
          if (sq.error.ok() && !ev->error.ok()) sq.error = ev->error;
        }
        retire_head(sq);
        break;
      }
      case EntryKind::kEventReset: {
        auto ev = find_event(item.entry.event);
        if (ev && ev->records == item.target) ev->reset_mark = item.target;
        retire_head(sq);
        break;
      }
      case EntryKind::kRelease:
        sq.cursor = std::max(sq.cursor, item.entry.release_at);
        retire_head(sq);
        break;
      case EntryKind::kReport: {
        // Delivered under the device lock so that reports of one queue reach the
        // runtime in queue order; the sink only enqueues.
        const bool queued = sink_ != nullptr && sink_->deliver(sq.id, item.entry.report);
        if (!queued) {
          if (sink_ != nullptr) sink_->discard(sq.id, item.entry.report);
          a.warnings.push_back(fmt::format(
              "device {} queue {}: a host callback reached the head of its stream but no thread is subscribed to the "
              "stream any more; it was skipped",
              index_, sq.id));
        } else if (item.entry.block) {
          sq.head_started = true;
          return;
        } else {
          ++sq.nonblock_inflight;
        }
        retire_head(sq);
        break;
      }
      case EntryKind::kBarrier: {
        if (sq.nonblock_inflight > 0) {
          sq.head_started = true;  // NO_BLOCK callbacks before it are still running
          return;
        }
        a.fences.emplace_back(std::move(item.entry.fence), std::exchange(sq.error, Status()));
        retire_head(sq);
        break;
      }
    }
  }
}

std::uint32_t SoftNpuDevice::mask_of(const Contender& c) const {
  const std::size_t n = cores_.size();
  const std::uint32_t all = n >= 32 ? ~std::uint32_t{0} : (std::uint32_t{1} << n) - 1;
  return c.settings.core_mask & all;
}

bool SoftNpuDevice::is_free(const Core& core) const { return core.run == nullptr && core.held == nullptr; }

bool SoftNpuDevice::fits(const Contender& c, const Core& core) const {
  const std::uint32_t m = mask_of(c);
  if (m == 0) return true;  // any one idle core (RKNN_NPU_CORE_AUTO)
  if (core.index >= 32 || (m >> core.index & 1u) == 0) return false;
  if (!c.settings.core_split) return true;
  // A split task is led by the lowest core of its mask and needs every one of them free.
  if (core.index != static_cast<std::uint32_t>(__builtin_ctz(m))) return false;
  for (std::uint32_t j = 0; j < cores_.size() && j < 32; ++j) {
    if ((m >> j & 1u) != 0 && !is_free(*cores_[j])) return false;
  }
  return true;
}

Arbiter::Fits SoftNpuDevice::fits_on(const Core& core) const {
  return [this, &core](const Contender& c) { return fits(c, core); };
}

Arbiter::Fits SoftNpuDevice::may_use(const Core& core) const {
  // The cores the running task occupies: its lead and, split, the ones it holds.
  std::uint32_t occupied = 0;
  for (const auto& o : cores_) {
    if (o->index < 32 && (o.get() == &core || (core.run != nullptr && o->held == core.run))) {
      occupied |= std::uint32_t{1} << o->index;
    }
  }
  return [this, occupied](const Contender& c) {
    const std::uint32_t m = mask_of(c);
    return m == 0 || (m & occupied) != 0;
  };
}

void SoftNpuDevice::occupy(Run& run, Core& lead) {
  run.cores = 1;
  const std::uint32_t m = mask_of(run);
  if (!run.settings.core_split) return;
  for (std::uint32_t j = 0; j < cores_.size() && j < 32; ++j) {
    if ((m >> j & 1u) == 0 || j == lead.index) continue;
    cores_[j]->held = &run;
    ++run.cores;
  }
}

void SoftNpuDevice::release_held(Run& run) {
  for (auto& core : cores_) {
    if (core->held != &run) continue;
    core->held = nullptr;
    if (board_) core->free_at = run.at;
  }
}

Nanos SoftNpuDevice::board_ns(const Run& run, std::size_t segment) const {
  // The vendor splits a layer's work (output channels, or the batch) across the cores;
  // modelled as an ideal split of each segment (docs/rknn.md "Multi-core").
  return run.task->board_ns(segment) / run.cores;
}

void SoftNpuDevice::usage_begin(const Run& run, Core& lead, Nanos now) {
  lead.usage.begin(now);
  if (run.cores == 1) return;
  for (auto& core : cores_) {
    if (core->held == &run) core->usage.begin(now);
  }
}

void SoftNpuDevice::usage_end(const Run& run, Core& lead, std::uint64_t macs, Nanos now) {
  lead.usage.end(now, macs / run.cores + macs % run.cores);
  if (run.cores == 1) return;
  for (auto& core : cores_) {
    if (core->held == &run) core->usage.end(now, macs / run.cores);
  }
}

void SoftNpuDevice::dispatch(Actions& a) {
  if (arbiter_.empty()) return;
  if (board_) {
    dispatch_board(a);
    return;
  }
  const Nanos now = clock_->now();
  for (;;) {
    // The best waiting task some free core may take goes first, to the lowest such core
    // (with core masks, the first free core's best may not be the best of all: a split
    // task must not take cores a better task bound to one of them is waiting for).
    Contender* c = arbiter_.best(now, [this](const Contender& x) {
      for (const auto& core : cores_) {
        if (is_free(*core) && fits(x, *core)) return true;
      }
      return false;
    });
    if (c == nullptr) return;
    Core* core = nullptr;
    for (const auto& k : cores_) {
      if (is_free(*k) && fits(*c, *k)) {
        core = k.get();
        break;
      }
    }
    start_on_core(*core, *static_cast<Run*>(c), now, a);
  }
}

void SoftNpuDevice::start_on_core(Core& core, Run& run, Nanos t, Actions& a) {
  arbiter_.remove(&run);
  run.run_level = run.level_at(t);
  run.on_core = true;
  run.core = core.index;
  core.run = &run;
  occupy(run, core);
  if (traced(run)) {
    TaskEvent ev = event_of(run, run.started ? TaskEventKind::kResume : TaskEventKind::kStart, t);
    ev.core = core.index;
    ev.priority = run.run_level;
    observer_->on_task_event(ev);
  }
  run.started = true;
  // Busy from now on (it drains when the task ends): submitters stop kicking for it,
  // even before its thread gets a CPU to notice.
  if (core.counted_idle) {
    core.counted_idle = false;
    idle_cores_.fetch_sub(1, std::memory_order_relaxed);
  }
  a.cores.push_back(&core);
}

void SoftNpuDevice::raise_board_now(Nanos t) {
  if (t > board_now_.load(std::memory_order_relaxed)) board_now_.store(t, std::memory_order_relaxed);
}

void SoftNpuDevice::dispatch_board(Actions& a) {
  // Decisions are taken in board-time order: an idle core takes a task at board time t =
  // max(when it became free, the earliest arrival) only once every in-flight segment on
  // another core ends after t (a boundary at or before t may still add arrivals or free a
  // core). A core taking its own boundary decision (`at_boundary`) has reached its time.
  for (;;) {
    if (arbiter_.empty()) return;
    Core* pick = nullptr;
    Run* run = nullptr;
    Nanos t = 0;
    Nanos horizon = std::numeric_limits<Nanos>::max();
    for (auto& core : cores_) {
      if (is_free(*core)) {
        // The earliest arrival among the tasks this core may take (core masks), and the
        // best of them then; a split task starts when the last of its cores became free.
        const std::optional<Nanos> first = arbiter_.earliest(fits_on(*core));
        if (!first) continue;
        Nanos ct = std::max(core->free_at, *first);
        Run* r = static_cast<Run*>(arbiter_.best(ct, fits_on(*core)));  // not null: a wait starts by ct
        if (r->settings.core_split) {
          const std::uint32_t m = mask_of(*r);
          for (std::uint32_t j = 0; j < cores_.size() && j < 32; ++j) {
            if ((m >> j & 1u) != 0) ct = std::max(ct, cores_[j]->free_at);
          }
        }
        // At the same time the better task goes first (it may need a core the other would take).
        const bool better =
            run != nullptr && ct == t && r != run &&
            arbiter_.best(ct, [r, run](const Contender& x) { return &x == r || &x == run; }) == r;
        if (pick == nullptr || ct < t || better) {
          pick = core.get();
          run = r;
          t = ct;
        }
      } else if (core->in_flight && !core->at_boundary) {
        horizon = std::min(horizon, core->seg_end);
      }
    }
    if (pick == nullptr || t >= horizon) return;
    run->at = t;
    start_on_core(*pick, *run, t, a);
    pick->in_flight = true;
    pick->seg_end = t + (run->next < run->segments ? board_ns(*run, run->next) : 0);  // after occupy: 1/n
    raise_board_now(t);
  }
}

bool SoftNpuDevice::my_turn(const Core& core) const {
  for (const auto& o : cores_) {
    if (o.get() == &core || !o->in_flight) continue;
    if (o->seg_end < core.seg_end || (o->seg_end == core.seg_end && o->index < core.index)) return false;
  }
  return true;
}

void SoftNpuDevice::wake_turns(const Core& core, Actions& a) {
  if (cores_.size() < 2) return;
  for (auto& o : cores_) {
    if (o.get() != &core && o->in_flight) a.cores.push_back(o.get());
  }
}

void SoftNpuDevice::run_board(Core& core, Run& run, std::unique_lock<std::mutex>& lock, bool* finished,
                              bool* released, Status* status) {
  // The segment on this core ends at core.seg_end (set when the core took the task, and at
  // each boundary). Its host execution may finish before or after other cores' segments;
  // what happens at its end — the task retiring, arrivals, preemption — is decided only
  // when no other core's in-flight segment ends earlier (my_turn), so every decision is
  // taken in board-time order whatever the host's speed.
  for (;;) {
    if (run.cancel || stopping_) {
      usage_end(run, core, 0, run.at);  // a cancelled segment has no board end: it counts nothing
      *status = Error(err::kRtFailure, "task cancelled");
      *finished = true;
      break;
    }
    if (run.next >= run.segments) {
      *finished = true;
      break;
    }
    const std::size_t index = run.next;
    SegmentContext ctx{core.index, run.sq, memory_, index_, run.id, run.run_level};
    ctx.board_ns = core.seg_end - run.at;
    ctx.cores = run.cores;
    // Usage on the board clock is board time: the segment is busy from its board start (run.at)
    // to its board end (core.seg_end), counted once that end is decided (below).
    usage_begin(run, core, run.at);
    lock.unlock();
    // Deviation: AI-CPU segments run on the core (as with aicpu_inline), their predicted
    // time on the board's CPU counted on the core (docs/scheduling.md "Board clock").
    Status st;
    try {
      st = run.task->run_segment(index, ctx);
    } catch (const std::exception& e) {
      st = Error(err::kInternalError, "segment {} threw: {}", index, e.what());
    }
    const std::uint64_t macs = run.task->segment_macs(index);
    lock.lock();
    ++run.next;
    core.waiter.wait(lock, kWaitForever, wait_, [&] { return run.cancel || stopping_ || my_turn(core); });
    if (run.cancel || stopping_) continue;  // handled at the loop top
    run.at = core.seg_end;
    raise_board_now(run.at);
    usage_end(run, core, macs, run.at);
    if (!st.ok() || run.next >= run.segments) {
      if (!st.ok()) *status = std::move(st);
      *finished = true;
      break;
    }
    core.at_boundary = true;
    Actions boundary;
    schedule(boundary);  // arrivals up to now enter arbitration; idle cores take what they can
    if (Contender* by = arbiter_.preemptor(run, run.run_level, run.at, may_use(core)); by != nullptr) {
      run.on_core = false;
      ++preemptions_;
      if (traced(run)) {
        TaskEvent ev = event_of(run, TaskEventKind::kPreempt, run.at);
        ev.core = core.index;
        ev.by_sq = static_cast<Run*>(by)->sq;
        ev.by_task = static_cast<Run*>(by)->id;
        observer_->on_task_event(ev);
      }
      arbiter_.add(&run, run.run_level, run.at);
      *released = true;
      core.at_boundary = false;
      if (!boundary.empty()) {
        lock.unlock();
        run_actions(boundary);
        lock.lock();
      }
      break;
    }
    core.seg_end = run.at + board_ns(run, run.next);
    core.at_boundary = false;
    dispatch(boundary);  // the horizon moved: an idle core may take a task before seg_end
    wake_turns(core, boundary);
    lock.unlock();
    run_actions(boundary);
    lock.lock();
  }
  core.in_flight = false;
  core.free_at = run.at;
}

void SoftNpuDevice::post_aicpu(Run& run, Core* holder) {
  run.token = ++next_token_;
  run.aicpu_waiting = true;
  run.holder = holder;
  if (holder == nullptr) run.core = kAiCpuCore;
  if (traced(run)) {
    TaskEvent ev = event_of(run, TaskEventKind::kAiCpuPost, clock_->now());
    ev.core = holder != nullptr ? holder->index : kAiCpuCore;
    observer_->on_task_event(ev);
  }
  aicpu_sink_->post(AiCpuJob{index_, run.sq, run.token});
}

void SoftNpuDevice::finish_run(Run& run, Status status, Actions& a) {
  run.on_core = false;
  if (traced(run)) {
    TaskEvent ev = event_of(run, TaskEventKind::kEnd, board_ ? run.at : clock_->now());
    ev.core = run.core;
    ev.status = run.cancel ? err::kRtFailure : status.code();
    observer_->on_task_event(ev);
  }
  Sq* sq = find_sq(run.sq);
  if (run.cancel || sq == nullptr) {
    a.released = true;  // destroy_sq owns the rest
    return;
  }
  if (!status.ok()) {
    a.warnings.push_back(fmt::format("device {} queue {}: NPU task failed: {}", index_, sq->id, status.message()));
    if (sq->error.ok()) sq->error = std::move(status);
  }
  a.garbage.push_back(std::move(run.task));
  if (board_) sq->cursor = std::max(sq->cursor, run.at);
  sq->run.reset();  // destroys `run`
  retire_head(*sq);
  if (!sq->in_dirty) {
    sq->in_dirty = true;
    dirty_.push_back(sq->id);
  }
}

void SoftNpuDevice::core_main(Core& core) {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    // Raised before the pending_ test (both seq_cst): a submitter that publishes after the
    // test sees this core idle and runs the scheduler step itself (device.h).
    if (core.run == nullptr) {
      core.counted_idle = true;
      idle_cores_.fetch_add(1, std::memory_order_seq_cst);
    }
    core.waiter.wait(lock, kWaitForever, wait_, [&] {
      return stopping_ || core.run != nullptr || pending_.load(std::memory_order_seq_cst) != nullptr;
    });
    // Relaxed: a submitter that still sees this core as idle only kicks in vain; this core
    // goes on to schedule() or to its task, whose end drains, either way.
    if (core.counted_idle) {
      core.counted_idle = false;
      idle_cores_.fetch_sub(1, std::memory_order_relaxed);
    }
    if (core.run == nullptr) {
      if (stopping_) return;
      Actions a;
      schedule(a);  // drains the inboxes; may hand this core a task
      lock.unlock();
      run_actions(a);
      lock.lock();
      continue;
    }
    Run& run = *core.run;
    Actions a;
    bool finished = false;
    bool released = false;  // the task left the core without finishing
    Status status;
    if (board_) run_board(core, run, lock, &finished, &released, &status);
    while (!board_) {  // the host clock's segment loop
      if (run.cancel || stopping_) {
        status = Error(err::kRtFailure, "task cancelled");
        finished = true;
        break;
      }
      if (run.next >= run.segments) {
        finished = true;
        break;
      }
      const std::size_t index = run.next;
      Status st;
      if (run.task->on_aicpu(index) && !run.settings.aicpu_inline && aicpu_sink_ != nullptr) {
        if (!run.settings.aicpu_busy_wait) {
          // The core serves other queues while the host runs the operator; the task
          // re-enters arbitration when run_aicpu completes it.
          post_aicpu(run, nullptr);
          run.on_core = false;
          released = true;
          break;
        }
        post_aicpu(run, &core);
        // A busy-waiting core is occupied: it counts as busy for the utilisation figure.
        usage_begin(run, core, clock_->now());
        core.waiter.wait(lock, kWaitForever, wait_,
                         [&] { return run.aicpu_done || ((run.cancel || stopping_) && !run.aicpu_running); });
        run.holder = nullptr;
        usage_end(run, core, run.task->segment_macs(index), clock_->now());
        if (!run.aicpu_done) continue;  // cancelled while waiting: handled at the loop top
        run.aicpu_done = false;
        st = std::move(run.aicpu_status);
      } else {
        SegmentContext ctx{core.index, run.sq, memory_, index_, run.id, run.run_level};
        usage_begin(run, core, clock_->now());
        lock.unlock();
        try {
          st = run.task->run_segment(index, ctx);
        } catch (const std::exception& e) {
          st = Error(err::kInternalError, "segment {} threw: {}", index, e.what());
        }
        const std::uint64_t macs = run.task->segment_macs(index);
        lock.lock();
        usage_end(run, core, macs, clock_->now());
      }
      ++run.next;
      if (!st.ok()) {
        status = std::move(st);
        finished = true;
        break;
      }
      // A hint only: a publish this load misses is drained at the next boundary, when the
      // task ends, or by its submitter if a core is idle (device.h).
      if (run.next < run.segments && pending_.load(std::memory_order_acquire) != nullptr) {
        // Tasks submitted during the segment enter arbitration before the preemption check.
        Actions boundary;
        schedule(boundary);
        if (!boundary.empty()) {
          lock.unlock();
          run_actions(boundary);
          lock.lock();
        }
      }
      if (run.next < run.segments && !run.cancel && !stopping_) {
        const Nanos now = clock_->now();
        if (Contender* by = arbiter_.preemptor(run, run.run_level, now, may_use(core)); by != nullptr) {
          // Interrupted at a segment boundary: context (next segment) is kept, the task
          // starts a new wait at the level it ran at, and the core goes to the best waiter.
          run.on_core = false;
          ++preemptions_;
          if (traced(run)) {
            TaskEvent ev = event_of(run, TaskEventKind::kPreempt, now);
            ev.core = core.index;
            ev.by_sq = static_cast<Run*>(by)->sq;
            ev.by_task = static_cast<Run*>(by)->id;
            observer_->on_task_event(ev);
          }
          arbiter_.add(&run, run.run_level, now);
          released = true;
          break;
        }
      }
    }
    core.run = nullptr;
    release_held(run);
    if (finished) finish_run(run, std::move(status), a);
    if (released && run.cancel) a.released = true;
    schedule(a);
    if (board_) wake_turns(core, a);
    if (a.released) released_cv_.notify_all();
    lock.unlock();
    run_actions(a);
    lock.lock();
  }
}

Status SoftNpuDevice::run_aicpu(const AiCpuJob& job) {
  std::unique_lock<std::mutex> lock(mu_);
  Sq* sq = find_sq(job.sq);
  Run* run = sq != nullptr && sq->run ? sq->run.get() : nullptr;
  if (run == nullptr || run->token != job.token || !run->aicpu_waiting || run->cancel || stopping_) {
    return Error(err::kRtFailure, "the AI-CPU job no longer exists (its stream was destroyed)");
  }
  run->aicpu_waiting = false;
  run->aicpu_running = true;
  const std::size_t index = run->next;
  SegmentContext ctx{kAiCpuCore, run->sq, memory_, index_, run->id, run->run_level};
  if (traced(*run)) observer_->on_task_event(event_of(*run, TaskEventKind::kAiCpuStart, clock_->now()));
  lock.unlock();
  Status st;
  try {
    st = run->task->run_segment(index, ctx);
  } catch (const std::exception& e) {
    st = Error(err::kInternalError, "AI-CPU segment {} threw: {}", index, e.what());
  }
  lock.lock();
  run->aicpu_running = false;
  if (traced(*run)) observer_->on_task_event(event_of(*run, TaskEventKind::kAiCpuEnd, clock_->now()));
  Actions a;
  if (run->cancel || stopping_) {
    a.released = true;  // destroy_sq (or shutdown) owns the task now
    if (run->holder != nullptr) run->holder->waiter.notify();
  } else if (run->holder != nullptr) {
    run->aicpu_status = std::move(st);
    run->aicpu_done = true;
    run->holder->waiter.notify();
  } else {
    ++run->next;
    if (!st.ok() || run->next >= run->segments) {
      finish_run(*run, std::move(st), a);
    } else {
      arbiter_.add(run, run->run_level, clock_->now());
    }
    schedule(a);
  }
  if (a.released) released_cv_.notify_all();
  lock.unlock();
  run_actions(a);
  return Status::Ok();
}

void SoftNpuDevice::run_actions(Actions& a) {
  // Finished tasks go first: what they hold (pinned application buffers) is released
  // before a synchronize they complete returns.
  a.garbage.clear();
  // Warnings before completions: a caller woken by a failed task finds its message already
  // written, and no device thread is still logging after the application has seen the end.
  for (auto& w : a.warnings) SVP_LOG_WARN("{}", w);
  for (Core* c : a.cores) c->waiter.notify();
  for (auto& [fence, status] : a.fences) fence->signal(std::move(status));
  for (auto& ev : a.events) {
    if (ev) ev->waiter.notify();
  }
}

Result<EventId> SoftNpuDevice::create_event(bool timeline) {
  std::lock_guard<std::mutex> lock(mu_);
  std::uint32_t slot = 0;
  while (slot < events_.size() && events_[slot]) ++slot;
  if (slot == events_.size()) {
    if (slot >= kMaxEvents) return Error(err::kStorageOverLimit, "device {} already has {} events", index_, kMaxEvents);
    events_.emplace_back();
    event_gens_.push_back(0);
  }
  const std::uint32_t gen = ++event_gens_[slot];
  auto ev = std::make_shared<Event>();
  ev->id = (EventId{gen} << 32) | (slot + 1);
  ev->timeline = timeline;
  events_[slot] = ev;
  return ev->id;
}

Status SoftNpuDevice::destroy_event(EventId id) {
  Actions a;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto ev = find_event(id);
    if (!ev) return Error(err::kInvalidResourceHandle, "event does not exist on device {}", index_);
    ev->destroyed = true;
    for (SqId w : ev->waiters) {
      Sq* sq = find_sq(w);
      if (sq == nullptr) continue;
      if (sq->error.ok()) {
        sq->error = Error(err::kRtFailure, "an event this stream was waiting on was destroyed before it completed");
      }
      sq->head_started = false;
      if (!sq->in_dirty) {
        sq->in_dirty = true;
        dirty_.push_back(w);
      }
      a.warnings.push_back(fmt::format("device {}: event destroyed while queue {} was waiting on it", index_, w));
    }
    ev->waiters.clear();
    events_[event_slot(id)].reset();
    a.events.push_back(ev);
    schedule(a);
  }
  run_actions(a);
  return Status::Ok();
}

Result<EventInfo> SoftNpuDevice::query_event(EventId id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto ev = find_event(id);
  if (!ev) return Error(err::kInvalidResourceHandle, "event does not exist on device {}", index_);
  EventInfo info;
  if (ev->records == ev->reset_mark) {
    info.state = EventState::kNeverRecorded;
  } else if (ev->done >= ev->records) {
    info.state = EventState::kComplete;
    info.timestamp = ev->timestamp;
    info.error = ev->error;
  } else {
    info.state = EventState::kPending;
  }
  info.waits_pending = ev->pending_waits > 0;
  return info;
}

Status SoftNpuDevice::synchronize_event(EventId id, TimeoutMs timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  auto ev = find_event(id);
  if (!ev) return Error(err::kInvalidResourceHandle, "event does not exist on device {}", index_);
  if (ev->records == ev->reset_mark) {
    return Error(err::kInvalidParam, "synchronize_event on an event that has not been recorded (or was reset)");
  }
  const std::uint64_t target = ev->records;
  auto done = [&] { return ev->done >= target || ev->destroyed || stopping_; };
  if (!ev->waiter.wait(lock, timeout, wait_, done)) {
    return Error(err::kRtFailure, "timed out after {} ms waiting for the event", timeout);
  }
  if (ev->done < target) return Error(err::kRtFailure, "the event was destroyed (or the device stopped) while waiting");
  return ev->error;
}

Result<std::uint64_t> SoftNpuDevice::begin_host_record(EventId id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto ev = find_event(id);
  if (!ev) return Error(err::kInvalidResourceHandle, "event does not exist on device {}", index_);
  return ++ev->records;
}

Status SoftNpuDevice::complete_host_record(EventId id, std::uint64_t record, Status error) {
  Actions a;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto ev = find_event(id);
    if (!ev) return Error(err::kInvalidResourceHandle, "event does not exist on device {}", index_);
    if (record == 0 || record > ev->records) {
      return Error(err::kInvalidParam, "event record {} was never begun (begin_host_record)", record);
    }
    // Board clock: the host's signal arrives at the board time the device has reached.
    complete_record(*ev, record, error, board_ ? board_now_.load() : clock_->now(), a);
    schedule(a);
  }
  run_actions(a);
  return Status::Ok();
}

Result<float> SoftNpuDevice::elapsed_ms(EventId start, EventId end) {
  std::lock_guard<std::mutex> lock(mu_);
  auto a = find_event(start);
  auto b = find_event(end);
  if (!a || !b) return Error(err::kInvalidResourceHandle, "event does not exist on device {}", index_);
  for (const auto* ev : {a.get(), b.get()}) {
    if (!ev->timeline) {
      return Error(err::kInvalidParam, "event was created without SVP_ACL_EVENT_TIME_LINE and has no timestamp");
    }
    if (ev->records == ev->reset_mark || ev->done < ev->records) {
      return Error(err::kInvalidParam, "event_elapsed_time needs two recorded, completed events");
    }
  }
  const double ns = static_cast<double>(b->timestamp) - static_cast<double>(a->timestamp);
  return static_cast<float>(ns / 1e6);
}

void SoftNpuDevice::set_report_sink(ReportSink* sink) {
  std::lock_guard<std::mutex> lock(mu_);
  sink_ = sink;
}

void SoftNpuDevice::set_aicpu_sink(AiCpuSink* sink) {
  std::lock_guard<std::mutex> lock(mu_);
  aicpu_sink_ = sink;
}

void SoftNpuDevice::set_task_observer(TaskObserver* observer) {
  std::lock_guard<std::mutex> lock(mu_);
  observer_ = observer;
  observed_.store(observer != nullptr, std::memory_order_release);
}

bool SoftNpuDevice::traced(const Run& run) const { return observer_ != nullptr && run.settings.traced; }

TaskEvent SoftNpuDevice::event_of(const Run& run, TaskEventKind kind, Nanos now) const {
  TaskEvent ev;
  ev.kind = kind;
  ev.device = index_;
  ev.sq = run.sq;
  ev.task = run.id;
  ev.tag = run.settings.trace_tag;
  ev.core = run.core;
  ev.segment = static_cast<std::uint32_t>(run.next);
  ev.priority = run.run_level;
  ev.time = now;
  return ev;
}

std::vector<Device::CoreSample> SoftNpuDevice::core_usage(Nanos window) {
  std::lock_guard<std::mutex> lock(mu_);
  // On the board clock usage is kept in board time, up to the latest board-time decision.
  const Nanos now = board_ ? board_now_.load(std::memory_order_relaxed) : clock_->now();
  std::vector<CoreSample> out;
  out.reserve(cores_.size());
  for (const auto& core : cores_) {
    const CoreUsage::Sample s = core->usage.sample(now, window);
    out.push_back(CoreSample{s.window, s.busy, s.macs});
  }
  return out;
}

std::uint64_t SoftNpuDevice::preemptions() const {
  std::lock_guard<std::mutex> lock(mu_);
  return preemptions_;
}

}  // namespace svp::hal::softnpu
