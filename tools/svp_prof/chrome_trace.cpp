#include "svp_prof/chrome_trace.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <string>

#include "svp_prof/json_text.h"
#include "svp_prof/units.h"

namespace svp::prof {
namespace {

class EventStream {
 public:
  EventStream(std::ostream& out, std::int64_t origin_ns, TraceCounts* counts)
      : out_(out), origin_ns_(origin_ns), counts_(counts) {}

  void metadata(int pid, int tid, const char* name, const JsonObject& args) {
    begin();
    out_ << R"({"ph":"M","pid":)" << pid << R"(,"tid":)" << tid << R"(,"name":")" << name << R"(","args":)"
         << args.str() << '}';
  }
  void complete(int pid, int tid, const std::string& name, const char* cat, std::int64_t begin_ns, std::int64_t end_ns,
                const JsonObject& args) {
    begin();
    out_ << R"({"ph":"X","pid":)" << pid << R"(,"tid":)" << tid << R"(,"name":)" << json_string(name) << R"(,"cat":")"
         << cat << R"(","ts":)" << format_us(begin_ns - origin_ns_) << R"(,"dur":)" << format_us(end_ns - begin_ns)
         << R"(,"args":)" << args.str() << '}';
  }
  void instant(int pid, int tid, const std::string& name, const char* cat, std::int64_t t_ns, const JsonObject& args) {
    begin();
    out_ << R"({"ph":"i","s":"t","pid":)" << pid << R"(,"tid":)" << tid << R"(,"name":)" << json_string(name)
         << R"(,"cat":")" << cat << R"(","ts":)" << format_us(t_ns - origin_ns_) << R"(,"args":)" << args.str() << '}';
  }

 private:
  void begin() {
    out_ << (counts_->events == 0 ? "\n" : ",\n");
    ++counts_->events;
  }

  std::ostream& out_;
  std::int64_t origin_ns_;
  TraceCounts* counts_;
};

std::string task_label(const Task& t, const JobInfo& info) {
  std::string label = "task " + std::to_string(t.task);
  if (t.model) label += " (model " + info.model_label(*t.model) + ")";
  return label;
}

JsonObject task_args(const Task& t) {
  JsonObject a;
  a.add("device", t.device).add("stream", t.stream).add("task", t.task).add("model", t.model);
  a.add("prio", t.prio).add("max_prio", t.max_prio);
  const auto wait = t.queue_wait_ns();
  if (wait) a.add_raw("queue_wait_us", format_us(*wait));
  a.add_raw("run_us", format_us(t.run_ns)).add("preemptions", t.preemptions);
  a.add_raw("aicpu_wait_us", format_us(t.aicpu_wait_ns));
  a.add("status", t.state == TaskState::kFailed ? "error " + std::to_string(t.status) : to_string(t.state));
  return a;
}

void write_task(EventStream& ev, int pid, int tid, const Task& t, const JobInfo& info, TraceCounts* counts) {
  const std::string label = task_label(t, info) + (t.state == TaskState::kIncomplete ? " (incomplete)" : "");
  const JsonObject args = task_args(t);
  for (const RunSlice& r : t.runs) {
    JsonObject a = args;
    a.add("core", r.core);
    ev.complete(pid, tid, label, "task", r.begin_ns, r.end_ns, a);
    ++counts->task_slices;
  }
  for (const TaskGap& g : t.gaps) {
    JsonObject a;
    a.add("task", t.task).add("core", g.core).add("seg", g.seg);
    if (g.kind == GapKind::kPreempted) {
      a.add("by_stream", g.by_stream).add("by_task", g.by_task);
      JsonObject ia;
      ia.add("task", t.task).add("by_stream", g.by_stream).add("by_task", g.by_task).add("core", g.core);
      ev.instant(pid, tid,
                 "preempted by stream " + (g.by_stream ? std::to_string(*g.by_stream) : "?") + " task " +
                     (g.by_task ? std::to_string(*g.by_task) : "?"),
                 "preempt", g.begin_ns, ia);
    } else {
      a.add("aicpu_tid", g.aicpu_tid);
    }
    if (g.open) a.add("open", "no closing event before the end of the collection");
    ev.complete(pid, tid, to_string(g.kind), g.kind == GapKind::kPreempted ? "preempt" : "aicpu", g.begin_ns, g.end_ns,
                a);
    ++counts->gap_slices;
  }
}

void write_op(EventStream& ev, int pid, int tid, const OpRecord& o) {
  JsonObject a;
  a.add("type", o.type).add("unit", o.unit).add("model", o.model).add("stream", o.stream).add("task", o.task);
  a.add("core", o.core).add("prio", o.prio).add("layer", o.layer).add("seg", o.seg).add("batch", o.batch);
  ev.complete(pid, tid, o.name, o.unit == "aicpu" ? "aicpu_op" : "npu_op", o.start_ns, o.end_ns, a);
}

}  // namespace

Status write_chrome_trace(const std::filesystem::path& path, const Job& job, const Timeline& timeline,
                          const Layout& layout, TraceCounts* counts) {
  *counts = TraceCounts{};
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Status::Error(path.string() + ": cannot create");

  // Process ids are small numbers of our own: device processes first, host API last.
  std::map<std::int64_t, int> device_pid;
  for (std::int64_t d : layout.devices) device_pid.emplace(d, static_cast<int>(device_pid.size()) + 1);
  const int host_pid = static_cast<int>(device_pid.size()) + 1;

  JsonObject other;
  other.add("format", kFormatName).add("pid", job.info.pid).add("library", job.info.library);
  other.add("start_ns", job.info.start_ns).add("wall_clock_start", job.info.wall_clock_start);
  other.add("complete", job.end.present && job.end.complete ? "yes" : job.cut_short() ? "cut short" : "no");
  other.add("dropped", job.dropped_total());
  out << R"({"displayTimeUnit":"ns","otherData":)" << other.str() << R"(,"traceEvents":[)";

  EventStream ev(out, job.info.start_ns, counts);
  for (const auto& [device, pid] : device_pid) {
    ev.metadata(pid, 0, "process_name", JsonObject().add("name", "device " + std::to_string(device)));
    ev.metadata(pid, 0, "process_sort_index", JsonObject().add("sort_index", static_cast<std::int64_t>(pid)));
  }
  bool any_api = false;
  for (const Track& t : layout.tracks) any_api = any_api || t.kind == TrackKind::kApiThread;
  if (any_api) {
    ev.metadata(host_pid, 0, "process_name", JsonObject().add("name", "host API"));
    ev.metadata(host_pid, 0, "process_labels", JsonObject().add("labels", "pid " + std::to_string(job.info.pid)));
    ev.metadata(host_pid, 0, "process_sort_index", JsonObject().add("sort_index", static_cast<std::int64_t>(host_pid)));
  }

  for (std::size_t i = 0; i < layout.tracks.size(); ++i) {
    const Track& track = layout.tracks[i];
    const int pid = track.kind == TrackKind::kApiThread ? host_pid : device_pid.at(track.device);
    // Thread ids only need to be unique per process; the track index keeps them unique
    // overall and makes the thread sort order the layout's order.
    const int tid = static_cast<int>(i) + 1;
    ev.metadata(pid, tid, "thread_name", JsonObject().add("name", track.name));
    ev.metadata(pid, tid, "thread_sort_index", JsonObject().add("sort_index", static_cast<std::int64_t>(tid)));
    for (const TrackItem& item : layout.items[i]) {
      switch (item.kind) {
        case ItemKind::kTask:
          write_task(ev, pid, tid, timeline.tasks[item.index], job.info, counts);
          break;
        case ItemKind::kOp:
          write_op(ev, pid, tid, job.ops[item.index]);
          ++counts->op_slices;
          break;
        case ItemKind::kCoreHeld: {
          const Task& t = timeline.tasks[item.index];
          const TaskGap& g = t.gaps[item.gap];
          JsonObject a;
          a.add("stream", t.stream).add("task", t.task).add("seg", g.seg).add("aicpu_tid", g.aicpu_tid);
          ev.complete(pid, tid, "held by task " + std::to_string(t.task) + " (AI-CPU wait)", "aicpu", g.begin_ns,
                      g.end_ns, a);
          ++counts->gap_slices;
          break;
        }
        case ItemKind::kApi: {
          const ApiRecord& a = job.api[item.index];
          ev.complete(pid, tid, a.name, "api", a.start_ns, a.end_ns, JsonObject().add("ret", a.ret));
          ++counts->api_slices;
          break;
        }
      }
    }
  }
  out << "\n]}\n";
  out.close();
  if (!out) return Status::Error(path.string() + ": cannot write");
  return Status::Ok();
}

}  // namespace svp::prof
