#include "svp_prof/timeline.h"

#include <algorithm>
#include <map>
#include <utility>

namespace svp::prof {

const char* to_string(GapKind kind) {
  switch (kind) {
    case GapKind::kPreempted:
      return "preempted";
    case GapKind::kAicpuReleased:
      return "AI-CPU wait (core released)";
    case GapKind::kAicpuHeld:
      return "AI-CPU wait (core held)";
  }
  return "?";
}

const char* to_string(TaskState state) {
  switch (state) {
    case TaskState::kOk:
      return "ok";
    case TaskState::kFailed:
      return "failed";
    case TaskState::kIncomplete:
      return "incomplete";
    case TaskState::kNotStarted:
      return "not started";
  }
  return "?";
}

namespace {

// Replays one task's events in time order.
class TaskAssembler {
 public:
  explicit TaskAssembler(Task* task) : t_(task) {}

  void apply(const TaskEvent& e) {
    if (phase_ == Phase::kEnded) return anomaly(e, "after the task's end");
    switch (e.kind) {
      case TaskEventKind::kSubmit:
        if (t_->submit_ns) return anomaly(e, "a second submit");
        t_->submit_ns = e.t;
        t_->model = e.model;
        t_->prio = e.prio;
        t_->segments = e.segments;
        return;
      case TaskEventKind::kStart:
        if (phase_ != Phase::kQueued) return anomaly(e, "a second start");
        t_->start_ns = e.t;
        see_prio(e.prio);
        run_from(e.t, e.core.value_or(-1));
        return;
      case TaskEventKind::kPreempt:
        if (phase_ != Phase::kRunning) return anomaly(e, "while not running");
        close_run(e.t);
        open_gap(GapKind::kPreempted, e.t, e.core.value_or(core_), e.seg);
        t_->gaps.back().by_stream = e.by_stream;
        t_->gaps.back().by_task = e.by_task;
        ++t_->preemptions;
        return;
      case TaskEventKind::kResume:
        if (phase_ != Phase::kOff || gap_kind() == GapKind::kAicpuHeld)
          return anomaly(e, "without a preempt or release");
        close_gap(e.t);
        see_prio(e.prio);
        run_from(e.t, e.core.value_or(-1));
        return;
      case TaskEventKind::kAicpuPost: {
        if (phase_ != Phase::kRunning) return anomaly(e, "while not running");
        const std::int64_t core = e.core.value_or(-1);
        close_run(e.t);
        if (core >= 0) {
          open_gap(GapKind::kAicpuHeld, e.t, core, e.seg);
        } else {
          open_gap(GapKind::kAicpuReleased, e.t, core_, e.seg);
        }
        return;
      }
      case TaskEventKind::kAicpuStart:
        if (phase_ != Phase::kOff || gap_kind() == GapKind::kPreempted) return anomaly(e, "without an aicpu_post");
        t_->gaps.back().aicpu_tid = e.tid;
        return;
      case TaskEventKind::kAicpuEnd:
        if (phase_ != Phase::kOff || gap_kind() == GapKind::kPreempted) return anomaly(e, "without an aicpu_post");
        t_->gaps.back().aicpu_tid = e.tid;
        // A held core goes straight back to work; a released one waits for resume.
        if (gap_kind() == GapKind::kAicpuHeld) {
          const std::int64_t core = t_->gaps.back().core;
          close_gap(e.t);
          run_from(e.t, core);
        }
        return;
      case TaskEventKind::kEnd:
        if (phase_ == Phase::kQueued) {
          // Ended without a start event (for instance a start record that was dropped):
          // the task has an end but no measurable run.
          anomaly(e, "without a start");
        } else if (phase_ == Phase::kRunning) {
          close_run(e.t);
        } else {
          // A task whose last segment is an AI-CPU one may end without getting a core
          // back; ending while preempted cannot happen.
          if (gap_kind() == GapKind::kPreempted) anomaly(e, "while preempted");
          close_gap(e.t);
        }
        t_->end_ns = e.t;
        t_->status = e.status.value_or(0);
        phase_ = Phase::kEnded;
        return;
    }
  }

  // No more events: whatever is open runs to the collection's end.
  void finish(std::int64_t horizon_ns) {
    if (phase_ == Phase::kRunning) {
      close_run(std::max(horizon_ns, run_begin_));
    } else if (phase_ == Phase::kOff) {
      t_->gaps.back().open = true;
      close_gap(std::max(horizon_ns, t_->gaps.back().begin_ns));
    }
    if (t_->end_ns) {
      t_->state = t_->status == 0 ? TaskState::kOk : TaskState::kFailed;
    } else {
      t_->state = t_->start_ns ? TaskState::kIncomplete : TaskState::kNotStarted;
    }
    for (const RunSlice& r : t_->runs) t_->run_ns += r.end_ns - r.begin_ns;
    for (const TaskGap& g : t_->gaps) {
      const std::int64_t d = g.end_ns - g.begin_ns;
      if (g.kind == GapKind::kPreempted) t_->preempted_ns += d;
      if (g.kind == GapKind::kAicpuHeld) t_->run_ns += d;
      if (g.kind != GapKind::kPreempted) t_->aicpu_wait_ns += d;
    }
  }

 private:
  enum class Phase { kQueued, kRunning, kOff, kEnded };

  void run_from(std::int64_t t, std::int64_t core) {
    phase_ = Phase::kRunning;
    run_begin_ = t;
    core_ = core;
  }
  void close_run(std::int64_t t) { t_->runs.push_back({run_begin_, std::max(t, run_begin_), core_}); }
  void open_gap(GapKind kind, std::int64_t t, std::int64_t core, std::optional<std::int64_t> seg) {
    phase_ = Phase::kOff;
    TaskGap g;
    g.kind = kind;
    g.begin_ns = t;
    g.end_ns = t;
    g.core = core;
    g.seg = seg.value_or(-1);
    t_->gaps.push_back(g);
  }
  void close_gap(std::int64_t t) { t_->gaps.back().end_ns = std::max(t, t_->gaps.back().begin_ns); }
  GapKind gap_kind() const { return t_->gaps.empty() ? GapKind::kPreempted : t_->gaps.back().kind; }
  void see_prio(std::optional<std::int64_t> prio) {
    if (prio && (!t_->max_prio || *prio > *t_->max_prio)) t_->max_prio = prio;
  }
  void anomaly(const TaskEvent& e, const std::string& what) {
    t_->anomalies.push_back(std::string("\"") + to_string(e.kind) + "\" at line " + std::to_string(e.line) + " " +
                            what);
  }

  Task* t_;
  Phase phase_ = Phase::kQueued;
  std::int64_t run_begin_ = 0;
  std::int64_t core_ = -1;
};

std::int64_t latest_time(const Job& job) {
  std::int64_t latest = job.info.start_ns;
  for (const TaskEvent& e : job.task_events) latest = std::max(latest, e.t);
  for (const OpRecord& o : job.ops) latest = std::max(latest, o.end_ns);
  for (const ApiRecord& a : job.api) latest = std::max(latest, a.end_ns);
  return latest;
}

}  // namespace

Timeline build_timeline(const Job& job, std::vector<std::string>* warnings) {
  Timeline tl;
  tl.begin_ns = job.info.start_ns;
  tl.end_ns = job.end.present ? std::max(job.end.end_ns, job.info.start_ns) : latest_time(job);

  // Events grouped per task; stable_sort by time keeps the file's order for equal
  // times, which is the order the writer recorded them in.
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<const TaskEvent*>> by_task;
  for (const TaskEvent& e : job.task_events) by_task[{e.device, e.task}].push_back(&e);

  tl.tasks.reserve(by_task.size());
  for (auto& [key, events] : by_task) {
    std::stable_sort(events.begin(), events.end(), [](const TaskEvent* a, const TaskEvent* b) { return a->t < b->t; });
    Task task;
    task.device = key.first;
    task.task = key.second;
    task.stream = events.front()->stream;
    TaskAssembler assembler(&task);
    for (const TaskEvent* e : events) assembler.apply(*e);
    assembler.finish(tl.end_ns);
    tl.tasks.push_back(std::move(task));
  }

  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> ops_per_task;
  for (const OpRecord& o : job.ops) ++ops_per_task[{o.device, o.task}];
  for (Task& t : tl.tasks) {
    auto it = ops_per_task.find({t.device, t.task});
    if (it != ops_per_task.end()) t.ops = it->second;
  }

  std::stable_sort(tl.tasks.begin(), tl.tasks.end(), [](const Task& a, const Task& b) {
    if (a.start_ns.has_value() != b.start_ns.has_value()) return a.start_ns.has_value();
    const std::int64_t ta = a.start_ns.value_or(a.submit_ns.value_or(0));
    const std::int64_t tb = b.start_ns.value_or(b.submit_ns.value_or(0));
    if (ta != tb) return ta < tb;
    return std::make_pair(a.device, a.task) < std::make_pair(b.device, b.task);
  });

  const Task* first_odd = nullptr;
  for (const Task& t : tl.tasks) {
    if (t.state == TaskState::kIncomplete) ++tl.incomplete;
    if (t.state == TaskState::kNotStarted) ++tl.not_started;
    if (t.state == TaskState::kFailed) ++tl.failed;
    if (!t.anomalies.empty()) {
      ++tl.with_anomalies;
      if (!first_odd) first_odd = &t;
    }
  }
  if (warnings && tl.incomplete + tl.not_started > 0) {
    warnings->push_back(std::to_string(tl.incomplete) + " task(s) without an end event (incomplete), " +
                        std::to_string(tl.not_started) + " never started");
  }
  if (warnings && first_odd) {
    warnings->push_back(std::to_string(tl.with_anomalies) +
                        " task(s) with events that contradict the task sequence (first: device " +
                        std::to_string(first_odd->device) + " task " + std::to_string(first_odd->task) + ": " +
                        first_odd->anomalies.front() + ")");
  }
  return tl;
}

}  // namespace svp::prof
