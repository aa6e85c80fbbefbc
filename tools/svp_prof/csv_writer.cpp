#include "svp_prof/csv_writer.h"

#include <algorithm>
#include <fstream>
#include <numeric>
#include <optional>

#include "svp_prof/units.h"

namespace svp::prof {
namespace {

// Rows are assembled as strings and written through one buffered stream; the only
// failure worth a message is the file itself.
class CsvFile {
 public:
  explicit CsvFile(const std::filesystem::path& path) : path_(path), out_(path, std::ios::binary | std::ios::trunc) {}

  template <class... Fields>
  void row(const Fields&... fields) {
    bool first = true;
    ((out_ << (first ? "" : ",") << fields, first = false), ...);
    out_ << '\n';
  }

  Status close() {
    out_.close();
    if (!out_) return Status::Error(path_.string() + ": cannot write");
    return Status::Ok();
  }
  bool opened() const { return out_.is_open(); }

 private:
  std::filesystem::path path_;
  std::ofstream out_;
};

std::string opt(const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : std::string(); }

std::string rel_us(const std::optional<std::int64_t>& t, std::int64_t origin_ns) {
  return t ? format_us(*t - origin_ns) : std::string();
}

std::string status_text(const Task& t) {
  if (t.state == TaskState::kFailed) return "error " + std::to_string(t.status);
  return to_string(t.state);
}

}  // namespace

std::string csv_field(const std::string& value) {
  if (value.find_first_of(",\"\r\n") == std::string::npos) return value;
  std::string quoted = "\"";
  for (char c : value) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  quoted += '"';
  return quoted;
}

Status write_op_summary(const std::filesystem::path& path, const Job& job) {
  CsvFile csv(path);
  if (!csv.opened()) return Status::Error(path.string() + ": cannot create");
  // Rows in time order; the files are only roughly ordered.
  std::vector<std::size_t> order(job.ops.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return job.ops[a].start_ns < job.ops[b].start_ns; });
  csv.row("model", "name", "type", "unit", "device", "stream", "task", "core", "prio", "layer", "seg", "batch",
          "start_us", "end_us", "duration_us");
  const std::int64_t origin = job.info.start_ns;
  for (std::size_t i : order) {
    const OpRecord& o = job.ops[i];
    csv.row(opt(o.model), csv_field(o.name), csv_field(o.type), csv_field(o.unit), o.device, o.stream, o.task, o.core,
            o.prio, o.layer, o.seg, o.batch, format_us(o.start_ns - origin), format_us(o.end_ns - origin),
            format_us(o.end_ns - o.start_ns));
  }
  return csv.close();
}

Status write_op_statistics(const std::filesystem::path& path, const std::vector<OpStat>& stats) {
  CsvFile csv(path);
  if (!csv.opened()) return Status::Error(path.string() + ": cannot create");
  csv.row("type", "unit", "count", "total_us", "avg_us", "min_us", "max_us", "share_pct");
  for (const OpStat& s : stats) {
    csv.row(csv_field(s.type), csv_field(s.unit), s.count, format_us(s.total_ns), format_us(s.avg_ns()),
            format_us(s.min_ns), format_us(s.max_ns), format_percent(s.share_pct));
  }
  return csv.close();
}

Status write_task_summary(const std::filesystem::path& path, const Job& job, const Timeline& timeline) {
  CsvFile csv(path);
  if (!csv.opened()) return Status::Error(path.string() + ": cannot create");
  csv.row("device", "stream", "task", "model", "prio", "max_prio", "submit_us", "start_us", "end_us", "queue_wait_us",
          "run_us", "preemptions", "preempted_us", "aicpu_wait_us", "ops", "status");
  const std::int64_t origin = job.info.start_ns;
  for (const Task& t : timeline.tasks) {
    const std::optional<std::int64_t> wait = t.queue_wait_ns();
    const bool started = t.start_ns.has_value();
    csv.row(t.device, t.stream, t.task, opt(t.model), opt(t.prio), opt(t.max_prio), rel_us(t.submit_ns, origin),
            rel_us(t.start_ns, origin), rel_us(t.end_ns, origin), wait ? format_us(*wait) : std::string(),
            started ? format_us(t.run_ns) : std::string(), t.preemptions, format_us(t.preempted_ns),
            format_us(t.aicpu_wait_ns), t.ops, status_text(t));
  }
  return csv.close();
}

Status write_api_statistics(const std::filesystem::path& path, const std::vector<ApiStat>& stats) {
  CsvFile csv(path);
  if (!csv.opened()) return Status::Error(path.string() + ": cannot create");
  csv.row("name", "count", "errors", "total_us", "avg_us", "min_us", "max_us");
  for (const ApiStat& s : stats) {
    csv.row(csv_field(s.name), s.count, s.errors, format_us(s.total_ns), format_us(s.avg_ns()), format_us(s.min_ns),
            format_us(s.max_ns));
  }
  return csv.close();
}

}  // namespace svp::prof
