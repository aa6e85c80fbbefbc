#include "svp_prof/html_report.h"

#include <algorithm>
#include <fstream>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <utility>

#include "svp_prof/json_text.h"
#include "svp_prof/units.h"

namespace svp::prof {
namespace {

constexpr const char* kPlaceholder = "@SVP_PROF_DATA@";

// The data's arrays are rows of values (objects would triple the size of a page with a
// million operators); "columns" names each position, and the page's script looks the
// positions up by name, so the two sides cannot drift apart silently.
const char* const kTaskColumns[] = {"track",    "begin_us", "end_us",       "prio",          "max_prio", "device",
                                    "stream",   "task",     "model",        "state",         "status",   "preemptions",
                                    "queue_us", "run_us",   "preempted_us", "aicpu_wait_us", "ops"};
const char* const kGapColumns[] = {"task_row", "begin_us", "end_us", "kind", "core", "by_stream", "by_task", "open"};
const char* const kOpColumns[] = {"track", "begin_us", "end_us", "name",  "type", "unit", "prio",
                                  "model", "stream",   "task",   "layer", "seg",  "batch"};
const char* const kHeldColumns[] = {"track", "begin_us", "end_us", "task_row"};
const char* const kApiColumns[] = {"track", "begin_us", "end_us", "name", "ret", "failed"};
const char* const kTaskTableColumns[] = {
    "device", "stream",        "task",   "model",       "prio",         "max_prio",      "submit_us", "start_us",
    "end_us", "queue_wait_us", "run_us", "preemptions", "preempted_us", "aicpu_wait_us", "ops",       "status"};
const char* const kOpStatColumns[] = {"type", "unit", "count", "total_us", "avg_us", "min_us", "max_us", "share_pct"};
const char* const kApiStatColumns[] = {"name", "count", "errors", "total_us", "avg_us", "min_us", "max_us"};

template <std::size_t N>
std::string names(const char* const (&cols)[N]) {
  JsonArray a;
  for (const char* c : cols) a.add(c);
  return a.str();
}

// Operator names and types repeat a lot: the data refers to them by index.
class StringTable {
 public:
  std::int64_t id(const std::string& s) {
    auto [it, inserted] = ids_.emplace(s, static_cast<std::int64_t>(list_.size()));
    if (inserted) list_.push_back(s);
    return it->second;
  }
  std::string json() const {
    JsonArray a;
    for (const std::string& s : list_) a.add(s);
    return a.str();
  }

 private:
  std::unordered_map<std::string, std::int64_t> ids_;
  std::vector<std::string> list_;
};

std::string us(std::int64_t ns) { return format_us(ns); }
std::string opt_us(const std::optional<std::int64_t>& ns) { return ns ? format_us(*ns) : "null"; }

std::string task_status(const Task& t) {
  return t.state == TaskState::kFailed ? "error " + std::to_string(t.status) : to_string(t.state);
}

const char* kind_name(TrackKind k) {
  switch (k) {
    case TrackKind::kStream:
      return "stream";
    case TrackKind::kCore:
      return "core";
    case TrackKind::kAicpuHost:
      return "aicpu";
    case TrackKind::kApiThread:
      return "api";
  }
  return "?";
}

std::string meta_json(const Job& job, const Timeline& tl, std::size_t ops_embedded) {
  JsonObject m;
  m.add("job_dir", job.dir.string()).add("pid", job.info.pid).add("library", job.info.library);
  m.add("source", job.info.source).add("wall_clock_start", job.info.wall_clock_start);
  m.add("interval", job.info.interval).add("start_ns", job.info.start_ns);
  m.add_raw("duration_us", us(tl.end_ns - tl.begin_ns));
  JsonArray devices;
  for (const DeviceInfo& d : job.info.devices)
    devices.add_raw(JsonObject().add("id", d.id).add("cores", d.cores).str());
  m.add_raw("devices", devices.str());
  JsonObject models;
  for (const auto& [id, name] : job.info.models) models.add(std::to_string(id).c_str(), name);
  m.add_raw("models", models.str());
  JsonArray types;
  for (const std::string& t : job.info.data_types) types.add(t);
  m.add_raw("data_types", types.str());
  JsonObject records;
  JsonObject dropped;
  for (DataFile f : kDataFiles) {
    if (job.has(f)) records.add(data_file_key(f), static_cast<std::int64_t>(job.file_lines[static_cast<int>(f)]));
    if (job.end.present) dropped.add(data_file_key(f), job.dropped(f));
  }
  m.add_raw("records", records.str()).add_raw("dropped", dropped.str()).add("dropped_total", job.dropped_total());
  m.add_raw("end_info", job.end.present ? "true" : "false");
  m.add_raw("complete", job.end.present && job.end.complete ? "true" : "false");
  m.add_raw("cut_short", job.cut_short() ? "true" : "false");
  m.add("tasks", static_cast<std::int64_t>(tl.tasks.size()));
  m.add("incomplete", static_cast<std::int64_t>(tl.incomplete));
  m.add("not_started", static_cast<std::int64_t>(tl.not_started));
  m.add("failed", static_cast<std::int64_t>(tl.failed));
  m.add("ops_total", static_cast<std::int64_t>(job.ops.size()));
  m.add("ops_embedded", static_cast<std::int64_t>(ops_embedded));
  m.add("api_total", static_cast<std::int64_t>(job.api.size()));
  m.add_raw("has_api", job.has(DataFile::kAclApi) ? "true" : "false");
  return m.str();
}

// Marks the operators the page embeds: all of them, or the earliest max_ops.
std::vector<bool> embedded_ops(const Job& job, std::size_t max_ops) {
  std::vector<bool> keep(job.ops.size(), true);
  if (job.ops.size() <= max_ops) return keep;
  std::vector<std::size_t> order(job.ops.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return job.ops[a].start_ns < job.ops[b].start_ns; });
  for (std::size_t i = max_ops; i < order.size(); ++i) keep[order[i]] = false;
  return keep;
}

}  // namespace

const std::string& report_template() {
  static const std::string kTemplate =
#include "report_template.inc"
      ;
  return kTemplate;
}

Status write_html_report(const std::filesystem::path& path, const Job& job, const Timeline& timeline,
                         const Layout& layout, const std::vector<OpStat>& op_stats,
                         const std::vector<ApiStat>& api_stats, const HtmlOptions& options, HtmlCounts* counts) {
  *counts = HtmlCounts{};
  const std::string& page = report_template();
  const std::size_t at = page.find(kPlaceholder);
  if (at == std::string::npos) return Status::Error("internal: the report template has no data placeholder");

  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Status::Error(path.string() + ": cannot create");
  out.write(page.data(), static_cast<std::streamsize>(at));

  const std::int64_t origin = job.info.start_ns;
  auto rel = [&](std::int64_t ns) { return format_us(ns - origin); };
  const std::vector<bool> keep_op = embedded_ops(job, options.max_ops);
  std::size_t ops_embedded = 0;
  for (bool k : keep_op) ops_embedded += k ? 1 : 0;

  // Task rows in drawing order (the layout's), so each track's bars are in time order.
  std::vector<std::pair<std::size_t, std::size_t>> task_refs;  // (track, task index)
  std::vector<std::int64_t> task_row(timeline.tasks.size(), -1);
  for (std::size_t tr = 0; tr < layout.tracks.size(); ++tr) {
    for (const TrackItem& item : layout.items[tr]) {
      if (item.kind != ItemKind::kTask) continue;
      task_row[item.index] = static_cast<std::int64_t>(task_refs.size());
      task_refs.emplace_back(tr, item.index);
    }
  }

  out << "{\"meta\":" << meta_json(job, timeline, ops_embedded);
  out << ",\"columns\":"
      << JsonObject()
             .add_raw("tasks", names(kTaskColumns))
             .add_raw("gaps", names(kGapColumns))
             .add_raw("ops", names(kOpColumns))
             .add_raw("held", names(kHeldColumns))
             .add_raw("api", names(kApiColumns))
             .add_raw("task_table", names(kTaskTableColumns))
             .add_raw("op_stats", names(kOpStatColumns))
             .add_raw("api_stats", names(kApiStatColumns))
             .str();
  JsonArray warnings;
  for (const std::string& w : job.warnings) warnings.add(w);
  out << ",\"warnings\":" << warnings.str();

  out << ",\"tracks\":[";
  for (std::size_t i = 0; i < layout.tracks.size(); ++i) {
    const Track& t = layout.tracks[i];
    const std::string group = t.kind == TrackKind::kApiThread ? "host API" : "device " + std::to_string(t.device);
    out << (i ? "," : "") << JsonObject().add("name", t.name).add("group", group).add("kind", kind_name(t.kind)).str();
  }
  out << "]";

  out << ",\"tasks\":[";
  for (std::size_t r = 0; r < task_refs.size(); ++r) {
    const Task& t = timeline.tasks[task_refs[r].second];
    JsonArray a;
    a.add(static_cast<std::int64_t>(task_refs[r].first)).add_raw(rel(*t.start_ns));
    a.add_raw(rel(std::max(*t.start_ns, t.bar_end_ns(timeline.end_ns))));
    a.add(t.prio).add(t.max_prio).add(t.device).add(t.stream).add(t.task).add(t.model);
    a.add(to_string(t.state)).add(task_status(t)).add(t.preemptions).add_raw(opt_us(t.queue_wait_ns()));
    a.add_raw(us(t.run_ns)).add_raw(us(t.preempted_ns)).add_raw(us(t.aicpu_wait_ns)).add(t.ops);
    out << (r ? ",\n" : "\n") << a.str();
  }
  counts->task_bars = task_refs.size();
  out << "]";

  out << ",\"gaps\":[";
  bool first = true;
  for (std::size_t r = 0; r < task_refs.size(); ++r) {
    for (const TaskGap& g : timeline.tasks[task_refs[r].second].gaps) {
      JsonArray a;
      a.add(static_cast<std::int64_t>(r)).add_raw(rel(g.begin_ns)).add_raw(rel(g.end_ns)).add(to_string(g.kind));
      a.add(g.core).add(g.by_stream).add(g.by_task).add_raw(g.open ? "true" : "false");
      out << (first ? "\n" : ",\n") << a.str();
      first = false;
    }
  }
  out << "]";

  StringTable strings;
  std::string held = "[";
  std::string api = "[";
  out << ",\"ops\":[";
  first = true;
  for (std::size_t tr = 0; tr < layout.tracks.size(); ++tr) {
    const auto track = static_cast<std::int64_t>(tr);
    for (const TrackItem& item : layout.items[tr]) {
      if (item.kind == ItemKind::kOp && keep_op[item.index]) {
        const OpRecord& o = job.ops[item.index];
        JsonArray a;
        a.add(track).add_raw(rel(o.start_ns)).add_raw(rel(o.end_ns)).add(strings.id(o.name)).add(strings.id(o.type));
        a.add(strings.id(o.unit)).add(o.prio).add(o.model).add(o.stream).add(o.task).add(o.layer).add(o.seg);
        a.add(o.batch);
        out << (first ? "\n" : ",\n") << a.str();
        first = false;
        ++counts->op_slices;
      } else if (item.kind == ItemKind::kCoreHeld) {
        const TaskGap& g = timeline.tasks[item.index].gaps[item.gap];
        JsonArray a;
        a.add(track).add_raw(rel(g.begin_ns)).add_raw(rel(g.end_ns)).add(task_row[item.index]);
        held += (held.size() > 1 ? "," : "") + a.str();
      } else if (item.kind == ItemKind::kApi) {
        const ApiRecord& c = job.api[item.index];
        JsonArray a;
        a.add(track).add_raw(rel(c.start_ns)).add_raw(rel(c.end_ns)).add(strings.id(c.name)).add(c.ret).add(c.failed() ? 1 : 0);
        api += (api.size() > 1 ? ",\n" : "\n") + a.str();
      }
    }
  }
  out << "],\"held\":" << held << "],\"api\":" << api << "]";

  out << ",\"task_table\":[";
  const std::size_t rows = std::min(options.max_task_rows, timeline.tasks.size());
  for (std::size_t i = 0; i < rows; ++i) {
    const Task& t = timeline.tasks[i];
    JsonArray a;
    a.add(t.device).add(t.stream).add(t.task).add(t.model).add(t.prio).add(t.max_prio);
    a.add_raw(t.submit_ns ? rel(*t.submit_ns) : "null").add_raw(t.start_ns ? rel(*t.start_ns) : "null");
    a.add_raw(t.end_ns ? rel(*t.end_ns) : "null").add_raw(opt_us(t.queue_wait_ns()));
    a.add_raw(t.start_ns ? us(t.run_ns) : "null").add(t.preemptions).add_raw(us(t.preempted_ns));
    a.add_raw(us(t.aicpu_wait_ns)).add(t.ops).add(task_status(t));
    out << (i ? ",\n" : "\n") << a.str();
  }
  out << "],\"task_table_total\":" << timeline.tasks.size();

  out << ",\"op_stats\":[";
  for (std::size_t i = 0; i < op_stats.size(); ++i) {
    const OpStat& s = op_stats[i];
    JsonArray a;
    a.add(s.type).add(s.unit).add(s.count).add_raw(us(s.total_ns)).add_raw(us(s.avg_ns())).add_raw(us(s.min_ns));
    a.add_raw(us(s.max_ns)).add_raw(format_percent(s.share_pct));
    out << (i ? ",\n" : "\n") << a.str();
  }
  out << "],\"api_stats\":[";
  for (std::size_t i = 0; i < api_stats.size(); ++i) {
    const ApiStat& s = api_stats[i];
    JsonArray a;
    a.add(s.name).add(s.count).add(s.errors).add_raw(us(s.total_ns)).add_raw(us(s.avg_ns())).add_raw(us(s.min_ns));
    a.add_raw(us(s.max_ns));
    out << (i ? ",\n" : "\n") << a.str();
  }
  out << "],\"strings\":" << strings.json() << "}";

  const std::size_t rest = at + std::char_traits<char>::length(kPlaceholder);
  out.write(page.data() + rest, static_cast<std::streamsize>(page.size() - rest));
  out.close();
  if (!out) return Status::Error(path.string() + ": cannot write");
  return Status::Ok();
}

}  // namespace svp::prof
