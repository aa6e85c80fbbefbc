// The hardware abstraction layer: the only door between the runtime and an NPU.
//
// The runtime (contexts, handles, the C API) talks to "hardware" exclusively through the
// interfaces in this file; a backend (the software NPU, a fault-injecting wrapper, one
// day a real driver) implements them without knowing about contexts, handles or C.
//
// Model of the hardware:
//   * A Backend owns one or more Devices and one Memory (the SoC's shared DDR).
//   * A Device has submission queues (SQs, one per stream). Entries of one SQ are
//     retired strictly in order; different SQs run concurrently, arbitrated by priority.
//   * Entry kinds: an NPU task (a list of segments = fused-layer groups, the unit of
//     preemption), an event record, an event wait, a host-callback report, an event
//     reset, and a barrier that wakes a host waiter (synchronize).
//   * Reports (host callbacks) are not run by the device: when one reaches the head of
//     its SQ the device hands it to the ReportSink, and for BLOCK reports keeps the SQ
//     stalled until complete_report() is called.
//
// Threading: every method may be called from any thread. No method calls back into the
// runtime while holding a device lock, except ReportSink (see there), which only
// enqueues. Waiting methods take a timeout and never block forever unless asked to.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"
#include "common/waiter.h"

namespace svp::hal {

using Nanos = std::uint64_t;

// Monotonic time source; the scheduler never reads the system clock directly so that
// tests can drive it with a virtual clock and assert exact orders.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual Nanos now() const = 0;
};

// The process's steady clock.
std::shared_ptr<Clock> steady_clock();

// Timeout for host waits, in milliseconds; negative = wait forever.
using TimeoutMs = std::int64_t;
inline constexpr TimeoutMs kWaitForever = -1;

// Scheduling attributes of one NPU task (SCHEDULING.md).
struct TaskSettings {
  int priority = 3;                 // 0 (highest) .. 7
  bool preempt_enable = true;       // this task may interrupt lower-priority tasks
  bool preemptible = false;         // this task may be interrupted (compiled flag)
  std::uint32_t step_timeout_ms = 0;  // STEP promotion period, 0 = off
  std::uint32_t top_timeout_ms = 0;   // TOP promotion timeout, 0 = off
  // AI-CPU segments (SegmentedTask::on_aicpu): with `aicpu_inline` the core runs them
  // itself (synchronous execution); otherwise they go to the AI-CPU sink and are run by
  // an application thread, while the core either waits (`aicpu_busy_wait`, a compiled
  // model flag) or serves other queues meanwhile.
  bool aicpu_inline = false;
  bool aicpu_busy_wait = false;
  // Profiling: report this task's lifecycle to the device's TaskObserver. `trace_tag` is
  // opaque to the HAL and handed back in every TaskEvent (profiling::ExecTrace::tag).
  bool traced = false;
  std::uint64_t trace_tag = 0;
  // Which emulated cores may run the task (bit k = core k; bits beyond the device's cores
  // are ignored; 0 or none left = any one idle core), and whether it is split across every
  // core of the mask: it then starts only when all of them are free and occupies them all
  // until it leaves the core, each segment taking 1/n of its board time (RKNN's multi-core
  // masks, docs/rknn.md "Multi-core").
  std::uint32_t core_mask = 0;
  bool core_split = false;
};

// Handed to a segment while it runs on a core.
struct SegmentContext {
  std::uint32_t core = 0;      // emulated core executing the segment; kHostCore = a host thread
  std::uint32_t sq_id = 0;     // queue the task came from
  class Memory* memory = nullptr;  // device-view access to application memory
  std::uint32_t device = 0;
  std::uint64_t task = 0;      // the device's number for this task (TaskEvent::task)
  int priority = 3;            // effective priority the task runs at (after promotion)
  // Board clock: the segment's board time on the cores it occupies (its end minus its start
  // on the board clock; 0 on the host clock), and how many cores that is (a split task's).
  Nanos board_ns = 0;
  std::uint32_t cores = 1;
};

// SegmentContext::core of an AI-CPU segment run by an application thread.
inline constexpr std::uint32_t kHostCore = 0xffffffffu;

// An NPU task: segments run in order on one core; between two segments the task may be
// preempted and later resumed (possibly on another core). Implementations keep their
// own per-execution state; run_segment is never called concurrently for one task.
class SegmentedTask {
 public:
  virtual ~SegmentedTask() = default;
  virtual std::size_t segment_count() const = 0;
  virtual Status run_segment(std::size_t index, SegmentContext& ctx) = 0;
  // True for segments made of AI-CPU operators (run on the host CPU, not the NPU core).
  virtual bool on_aicpu(std::size_t /*index*/) const { return false; }
  // Multiply-accumulates of the cube unit a segment performs (kernels/cost.h); 0 when
  // unknown (synthetic tasks). Feeds the device's throughput figure.
  virtual std::uint64_t segment_macs(std::size_t /*index*/) const { return 0; }
  // Predicted board time of a segment (the board timing model, docs/board_time.md): how far
  // the device's board clock advances while it runs (BackendConfig::board_clock). 0 when
  // unknown (synthetic tasks).
  virtual Nanos board_ns(std::size_t /*index*/) const { return 0; }
};

// One AI-CPU segment waiting for a host thread. Opaque to the runtime, which hands it
// back to Device::run_aicpu on the thread that serves it.
struct AiCpuJob {
  std::uint32_t device = 0;
  std::uint32_t sq = 0;
  std::uint64_t token = 0;
};

// Receives AI-CPU jobs; like ReportSink it is called with the device lock held and must
// only enqueue.
class AiCpuSink {
 public:
  virtual ~AiCpuSink() = default;
  virtual void post(const AiCpuJob& job) = 0;
};

// A host-side waitable that a Barrier entry signals when it reaches the queue head.
class Fence;

// kRelease (board clock only): the queue's next entry does not start before board time
// `release_at` (a periodic frame source expressed on the board's clock).
enum class EntryKind : std::uint8_t { kTask, kEventRecord, kEventWait, kEventReset, kReport, kBarrier, kRelease };

using EventId = std::uint64_t;  // 0 is never a valid id
using SqId = std::uint32_t;
using ReportId = std::uint64_t;  // chosen by the runtime; opaque to the HAL

struct Entry {
  EntryKind kind = EntryKind::kBarrier;
  std::shared_ptr<SegmentedTask> task;  // kTask
  TaskSettings settings;                // kTask
  EventId event = 0;                    // kEventRecord / kEventWait / kEventReset
  ReportId report = 0;                  // kReport
  bool block = false;                   // kReport: stall the SQ until complete_report
  std::shared_ptr<Fence> fence;         // kBarrier
  Nanos release_at = 0;                 // kRelease: board time, ns since the device started

  static Entry Task(std::shared_ptr<SegmentedTask> t, TaskSettings s);
  static Entry Record(EventId e);
  static Entry Wait(EventId e);
  static Entry Reset(EventId e);
  static Entry Report(ReportId id, bool block);
  static Entry Release(Nanos board_time);
};

// Receives host-callback reports. Reports of one queue must reach the runtime in queue
// order, so the device calls these with its scheduler lock held, from whichever thread
// made the report reach the head of its queue: implementations must only enqueue (no
// blocking, no calls back into the HAL, no user code).
class ReportSink {
 public:
  virtual ~ReportSink() = default;
  // The report reached the head of `sq`. Return true if it was queued for a host thread
  // (which will run it and then call Device::complete_report), false if nobody can run
  // it (its stream lost its subscriber): the device then retires it unrun and calls
  // discard().
  virtual bool deliver(SqId sq, ReportId id) = 0;
  // The report will never be delivered (its queue was destroyed); release its state.
  virtual void discard(SqId sq, ReportId id) = 0;
};

// Task lifecycle, reported for profiling. Times come from the device's Clock.
enum class TaskEventKind : std::uint8_t {
  kSubmit,      // queued by the application
  kStart,       // first segment got a core
  kPreempt,     // left its core at a segment boundary for `by_sq`/`by_task`
  kResume,      // got a core again (after a preemption or a released AI-CPU segment)
  kAiCpuPost,   // an AI-CPU segment was handed to the AI-CPU sink (core = held core or kHostCore)
  kAiCpuStart,  // a host thread started running it
  kAiCpuEnd,    // ... and finished
  kEnd,         // retired; `status` = 0 or the error code
};

struct TaskEvent {
  TaskEventKind kind = TaskEventKind::kSubmit;
  std::uint32_t device = 0;
  SqId sq = 0;
  std::uint64_t task = 0;
  std::uint64_t tag = 0;          // TaskSettings::trace_tag
  std::uint32_t core = kHostCore;
  std::uint32_t segment = 0;      // the segment concerned (next to run for kPreempt/kResume)
  std::uint32_t segments = 0;     // kSubmit: segment count
  int priority = 0;               // kSubmit: requested; kStart/kResume: effective
  SqId by_sq = 0;                 // kPreempt
  std::uint64_t by_task = 0;      // kPreempt
  std::int32_t status = 0;        // kEnd
  Nanos time = 0;
};

// Receives the lifecycle of traced tasks (TaskSettings::traced). Called with the device's
// scheduler lock held, like ReportSink: implementations must only enqueue.
class TaskObserver {
 public:
  virtual ~TaskObserver() = default;
  virtual void on_task_event(const TaskEvent& event) = 0;
};

enum class EventState : std::uint8_t { kNeverRecorded, kPending, kComplete };

struct EventInfo {
  EventState state = EventState::kNeverRecorded;
  Nanos timestamp = 0;        // when the latest record completed (if kComplete)
  bool waits_pending = false;  // some stream_wait on this event is not yet satisfied
  Status error;               // first error of the work the record covered
};

class Device {
 public:
  virtual ~Device() = default;

  // Queues. Ids are the smallest free id; the device limits how many exist at once.
  virtual Result<SqId> create_sq() = 0;
  // Destroys a queue: entries not yet started are cancelled (reports discarded, event
  // records completed with an error, fences released with an error), a task on a core
  // stops at its next segment boundary. Returns once no core uses the queue any more.
  // Returns the number of cancelled entries.
  virtual std::size_t destroy_sq(SqId sq) = 0;
  // Appends `entry` to `sq`. Thread-safe: any number of threads may submit to one queue;
  // the queue's order is the order in which the calls took effect. Errors:
  // kInvalidResourceHandle (no such queue, or destroyed), kRtFailure (device shutting
  // down), kInvalidParam (malformed entry, or a wait on a never-recorded event).
  virtual Status submit(SqId sq, Entry entry) = 0;

  // Waits until every entry submitted to `sq` before the call has retired (including
  // NO_BLOCK reports having completed); returns and clears the first error those
  // entries produced.
  virtual Status synchronize_sq(SqId sq, TimeoutMs timeout) = 0;
  // The same for every queue of the device.
  virtual Status synchronize_all(TimeoutMs timeout) = 0;

  // Called by the runtime after it ran a delivered report (BLOCK or not).
  virtual void complete_report(SqId sq, ReportId id) = 0;

  // Events live on a device; `timeline` asks for timestamps.
  virtual Result<EventId> create_event(bool timeline) = 0;
  virtual Status destroy_event(EventId e) = 0;
  virtual Result<EventInfo> query_event(EventId e) = 0;
  // Blocks until the latest record of `e` (at call time) has completed.
  virtual Status synchronize_event(EventId e, TimeoutMs timeout) = 0;
  // Milliseconds between two completed timeline events.
  virtual Result<float> elapsed_ms(EventId start, EventId end) = 0;
  // A record of `e` that the host completes instead of a queue: waits submitted after this
  // call wait for it (an external fence, e.g. RKNN's input fence, which a host thread watches
  // while no core is held). Returns the record's number for complete_host_record.
  virtual Result<std::uint64_t> begin_host_record(EventId e) = 0;
  // Completes host record `record` of `e` (begin_host_record), with `error` inherited by the
  // queues waiting for it. Completing it twice, or after a later record completed, does nothing.
  virtual Status complete_host_record(EventId e, std::uint64_t record, Status error) = 0;

  // Runs a posted AI-CPU segment on the calling thread and lets its task continue.
  // Returns an error only if the job no longer exists (its stream was destroyed); the
  // segment's own failure is reported through the task's stream like any task error.
  virtual Status run_aicpu(const AiCpuJob& job) = 0;

  virtual void set_report_sink(ReportSink* sink) = 0;
  virtual void set_aicpu_sink(AiCpuSink* sink) = 0;
  // Null = no observer. Only tasks submitted with TaskSettings::traced are reported.
  virtual void set_task_observer(TaskObserver* observer) = 0;
  virtual std::uint32_t core_count() const = 0;

  // How busy each core was over the last `window` (at most 1 s) of device time (board time on
  // the board clock, up to the latest board-time decision): the time the figures cover, the
  // time the core held a task (running segments, or busy-waiting for an AI-CPU
  // operator), and the cube MACs it completed. One entry per core.
  struct CoreSample {
    Nanos window = 0;
    Nanos busy = 0;
    std::uint64_t macs = 0;
  };
  virtual std::vector<CoreSample> core_usage(Nanos window) = 0;
};

// How cached allocations behave (ARCHITECTURE: cache emulation).
enum class CacheMode : std::uint8_t {
  kEmulated,  // CPU and device views differ until flush/invalidate; warn on dirty reads
  kStrict,    // as kEmulated, but a device read of unflushed CPU writes fails the task
  kCoherent,  // one view; flush/invalidate are no-ops
};

enum class MemKind : std::uint8_t { kUncached, kCached, kHost, kSecure };

// Shared device memory with an allocation registry and cache emulation.
class Memory {
 public:
  virtual ~Memory() = default;
  virtual Result<void*> allocate(std::size_t size, MemKind kind, std::size_t class_id) = 0;
  // `expected` lists the kinds this free call may release (free vs free_host vs free_sec).
  virtual Status release(const void* ptr, std::initializer_list<MemKind> expected) = 0;
  virtual Status flush(const void* ptr, std::size_t size) = 0;       // CPU view -> device view
  virtual Status invalidate(const void* ptr, std::size_t size) = 0;  // device view -> CPU view
  // Device access to [ptr, ptr+size): returns the address the NPU must use (the device
  // view). For reads of cached memory whose CPU view changed since the last flush this
  // logs a warning naming the allocation and offset (kStrict: returns an error).
  virtual Result<std::uint8_t*> device_read(const void* ptr, std::size_t size) = 0;
  virtual Result<std::uint8_t*> device_write(const void* ptr, std::size_t size) = 0;
  // Keeps the allocation holding `ptr` from being freed while the returned token lives (an
  // execution queued or running on it): release() refuses it meanwhile. Null when no live
  // allocation holds `ptr` (the execution's own checks report that).
  virtual std::shared_ptr<void> pin(const void* ptr) = 0;
  // True when [ptr, ptr+size) lies inside one live allocation (memory the NPU can reach).
  virtual bool contains(const void* ptr, std::size_t size) const = 0;
  virtual CacheMode cache_mode() const = 0;
  // Number of live allocations (diagnostics and leak tests).
  virtual std::size_t live_allocations() const = 0;
  // Bytes the live allocations hold (as requested) and the limit allocate() keeps them
  // under (BackendConfig::memory_limit; 0 = none).
  struct Usage {
    std::uint64_t in_use = 0;
    std::uint64_t limit = 0;
  };
  virtual Usage usage() const = 0;
};

struct BackendConfig {
  std::string backend = "softnpu";  // registered backend name
  std::uint32_t devices = 1;
  std::uint32_t cores = 1;
  Nanos wait_tick = 10'600'000;     // 10.6 ms
  std::uint32_t wait_cap_ticks = 32;
  std::uint32_t max_sqs = 128;      // per device, default streams included
  CacheMode cache_mode = CacheMode::kEmulated;
  // Device memory the application's allocations may hold at once (the board's, so that a
  // leak ends in kBadAlloc as on the board, not in the host running out of RAM); 0 = no
  // limit. `memory_limit_origin` says where the figure comes from and how to change it,
  // for the refusal's message.
  std::uint64_t memory_limit = 0;
  std::string memory_limit_origin;
  std::shared_ptr<Clock> clock;     // null = steady clock
  // acl.json softnpu.clock "board": device time is a virtual board clock advanced by each
  // segment's predicted board time (SegmentedTask::board_ns), and every scheduling decision
  // is taken in board-time order (docs/scheduling.md "Board clock"). false: host time.
  bool board_clock = false;
  std::string board_target;         // the target SoC the board time is predicted for (its name)
  std::map<std::string, std::string> options;  // backend-specific settings
  WaitPolicy wait;                  // how host threads blocked in the device wait
  // Starts a device thread; null = std::thread. A test seam: the fault backend's
  // fail_thread_start option makes one start throw std::system_error, as a host out of
  // threads does.
  std::function<std::thread(std::function<void()>)> start_thread;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::uint32_t device_count() const = 0;
  virtual Device& device(std::uint32_t index) = 0;
  virtual Memory& memory() = 0;
};

using BackendFactory = std::function<Result<std::unique_ptr<Backend>>(const BackendConfig&)>;

// Backends register by name; the runtime creates the one its configuration names.
void register_backend(const std::string& name, BackendFactory factory);
Result<std::unique_ptr<Backend>> create_backend(const BackendConfig& config);

}  // namespace svp::hal
