// Task assembly: the task.jsonl events of each (device, task) put in time order and
// turned into the intervals a task spent running on a core, preempted, or waiting for
// an AI-CPU segment.
//
// Accounting (docs/profiling.md, data/task.jsonl): between start and end a task holds a
// core except from a preempt to the next resume, and from an aicpu_post with core -1
// (core released) to the next resume. With core >= 0 the core is held, busy-waiting,
// until aicpu_end; that wait is AI-CPU wait time *and* run time on the core, since the
// core can do nothing else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "svp_prof/job.h"

namespace svp::prof {

// An interval during which the task occupied `core`, doing NPU work.
struct RunSlice {
  std::int64_t begin_ns = 0;
  std::int64_t end_ns = 0;
  std::int64_t core = 0;
};

enum class GapKind {
  kPreempted,      // off its core after a preempt, until resume
  kAicpuReleased,  // off its core after aicpu_post with core -1, until resume
  kAicpuHeld,      // holding `core` while the AI-CPU segment runs, until aicpu_end
};
const char* to_string(GapKind kind);  // "preempted", "AI-CPU wait (core released)", ...

// An interval between run slices of one task.
struct TaskGap {
  GapKind kind = GapKind::kPreempted;
  std::int64_t begin_ns = 0;
  std::int64_t end_ns = 0;
  std::int64_t core = -1;                 // the core left (preempted, released) or held
  std::int64_t seg = -1;                  // the segment the task continues with / the AI-CPU segment
  std::optional<std::int64_t> by_stream;  // preempted: the preempting task
  std::optional<std::int64_t> by_task;
  std::optional<std::int64_t> aicpu_tid;  // AI-CPU waits: the host thread that ran it
  bool open = false;                      // no closing event before the task's end or the collection's end
};

enum class TaskState {
  kOk,          // ended with status 0
  kFailed,      // ended with an error status
  kIncomplete,  // started, no end event (still running when collection stopped)
  kNotStarted,  // submitted (or seen) but never started
};
const char* to_string(TaskState state);

struct Task {
  std::int64_t device = 0;
  std::int64_t stream = 0;
  std::int64_t task = 0;
  std::optional<std::int64_t> model;
  std::optional<std::int64_t> prio;      // requested at submit
  std::optional<std::int64_t> max_prio;  // highest effective priority seen (promotion)
  std::optional<std::int64_t> segments;
  std::optional<std::int64_t> submit_ns;
  std::optional<std::int64_t> start_ns;
  std::optional<std::int64_t> end_ns;
  std::int64_t status = 0;
  TaskState state = TaskState::kNotStarted;
  std::vector<RunSlice> runs;
  std::vector<TaskGap> gaps;  // in time order
  std::int64_t preemptions = 0;
  // Incomplete tasks are measured up to the end of the collection.
  std::int64_t run_ns = 0;  // run slices plus held AI-CPU waits
  std::int64_t preempted_ns = 0;
  std::int64_t aicpu_wait_ns = 0;      // held and released AI-CPU waits
  std::int64_t ops = 0;                // operator records of this task
  std::vector<std::string> anomalies;  // events that contradict the sequence rules

  // Where the task's bar ends: its end, or the collection's end when it has none.
  std::int64_t bar_end_ns(std::int64_t horizon_ns) const { return end_ns ? *end_ns : horizon_ns; }
  std::optional<std::int64_t> queue_wait_ns() const {
    if (!submit_ns || !start_ns) return std::nullopt;
    return *start_ns - *submit_ns;
  }
};

struct Timeline {
  // Started tasks by start time, then not-started tasks by submit time.
  std::vector<Task> tasks;
  // The collection's extent: info start_ns, and end_info end_ns or the latest time in
  // any record when end_info.json is missing.
  std::int64_t begin_ns = 0;
  std::int64_t end_ns = 0;
  std::size_t incomplete = 0;
  std::size_t not_started = 0;
  std::size_t failed = 0;
  std::size_t with_anomalies = 0;
};

// Assembles the tasks of `job`. Contradictory sequences (a resume without preempt, events
// after end, ...) are recorded in Task::anomalies and summarised in `warnings`.
Timeline build_timeline(const Job& job, std::vector<std::string>* warnings);

}  // namespace svp::prof
