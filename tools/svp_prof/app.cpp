#include "svp_prof/app.h"

#include <algorithm>
#include <string>
#include <system_error>
#include <vector>

#include "svp_prof/chrome_trace.h"
#include "svp_prof/csv_writer.h"
#include "svp_prof/job_reader.h"
#include "svp_prof/progress.h"
#include "svp_prof/statistics.h"
#include "svp_prof/timeline.h"
#include "svp_prof/tracks.h"

namespace svp::prof {
namespace {

namespace fs = std::filesystem;

std::string summary_line(const Job& job, const Timeline& tl, const fs::path& out_dir,
                         const std::vector<std::string>& written) {
  std::uint64_t records = 0;
  std::string per_file;
  for (DataFile f : kDataFiles) {
    if (!job.has(f)) continue;
    const std::uint64_t n = job.file_lines[static_cast<int>(f)];
    records += n;
    per_file += std::string(per_file.empty() ? "" : ", ") + data_file_key(f) + " " + std::to_string(n);
  }
  std::string line = "svp_prof: ";
  if (job.cut_short()) line += "collection cut short (no end_info.json); ";
  line += std::to_string(records) + " records (" + (per_file.empty() ? "no data files" : per_file) + "), ";
  line += std::to_string(tl.tasks.size()) + " tasks (" + std::to_string(tl.incomplete) + " incomplete, " +
          std::to_string(tl.failed) + " failed), ";
  if (job.cut_short()) {
    line += "dropped unknown";
  } else {
    line += "dropped " + std::to_string(job.dropped_total());
    if (job.dropped_total() > 0) {
      std::string list;
      for (DataFile f : kDataFiles) {
        if (job.dropped(f) > 0) {
          list += std::string(list.empty() ? "" : ", ") + data_file_key(f) + " " + std::to_string(job.dropped(f));
        }
      }
      line += " (" + list + ")";
    }
  }
  line += "; wrote";
  for (const std::string& w : written) line += " " + w;
  line += " to " + out_dir.string();
  return line;
}

// The folder acl.json's profiler.output names holds one JOB directory per session; users
// pass that folder as often as the JOB directory itself. A directory without info.json
// that holds JOB directories stands for the newest of them (the one just written).
fs::path resolve_job_dir(const fs::path& given, std::ostream& err) {
  std::error_code ec;
  if (fs::exists(given / "info.json", ec) || !fs::is_directory(given, ec)) return given;
  std::vector<fs::path> jobs;
  for (const auto& e : fs::directory_iterator(given, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("JOB", 0) == 0 && fs::exists(e.path() / "info.json", ec)) jobs.push_back(e.path());
  }
  if (jobs.empty()) return given;
  const auto newest = std::max_element(jobs.begin(), jobs.end(), [](const fs::path& a, const fs::path& b) {
    std::error_code e1, e2;
    return fs::last_write_time(a / "info.json", e1) < fs::last_write_time(b / "info.json", e2);
  });
  err << "svp_prof: reading " << newest->filename().string() << ", the newest of " << jobs.size()
      << " JOB director" << (jobs.size() == 1 ? "y" : "ies") << " in " << given.string()
      << (jobs.size() > 1 ? " (name one to read another)" : "") << "\n";
  return *newest;
}

}  // namespace

int run(const AppOptions& options_in, std::ostream& out, std::ostream& err) {
  AppOptions options = options_in;
  options.job_dir = resolve_job_dir(options.job_dir, err);
  ProgressPrinter progress(err, options.progress_min_bytes);
  ReadOptions read_options;
  if (!options.quiet) {
    read_options.on_progress = [&progress](const std::string& file, std::uint64_t done, std::uint64_t total) {
      progress.update(file, done, total);
    };
  }
  Job job;
  if (Status s = read_job(options.job_dir, read_options, &job); !s.ok()) {
    err << "svp_prof: error: " << s.message() << "\n";
    return kExitBadInput;
  }
  Timeline timeline = build_timeline(job, &job.warnings);
  for (const std::string& w : job.warnings) err << "svp_prof: warning: " << w << "\n";

  const fs::path out_dir = options.out_dir.empty() ? options.job_dir / "report" : options.out_dir;
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec || !fs::is_directory(out_dir)) {
    err << "svp_prof: error: " << out_dir.string() << ": cannot create the output directory"
        << (ec ? ": " + ec.message() : std::string()) << "\n";
    return kExitCannotWrite;
  }

  const std::vector<OpStat> op_stats = op_statistics(job.ops);
  const std::vector<ApiStat> api_stats = api_statistics(job.api);
  const Layout layout = build_layout(job, timeline);
  std::vector<std::string> written;
  auto step = [&](const char* name, const Status& s) {
    if (!s.ok()) {
      err << "svp_prof: error: " << s.message() << "\n";
      return false;
    }
    written.emplace_back(name);
    return true;
  };
  bool ok = step("op_summary.csv", write_op_summary(out_dir / "op_summary.csv", job)) &&
            step("op_statistics.csv", write_op_statistics(out_dir / "op_statistics.csv", op_stats)) &&
            step("task_summary.csv", write_task_summary(out_dir / "task_summary.csv", job, timeline));
  if (ok && job.has(DataFile::kAclApi)) {
    ok = step("api_statistics.csv", write_api_statistics(out_dir / "api_statistics.csv", api_stats));
  } else if (ok) {
    // A table from an earlier run of another JOB into the same directory would mislead.
    fs::remove(out_dir / "api_statistics.csv", ec);
  }
  TraceCounts trace_counts;
  ok = ok && step("trace.json", write_chrome_trace(out_dir / "trace.json", job, timeline, layout, &trace_counts));
  HtmlCounts html_counts;
  ok = ok && step("report.html", write_html_report(out_dir / "report.html", job, timeline, layout, op_stats, api_stats,
                                                   options.html, &html_counts));
  if (!ok) return kExitCannotWrite;
  out << summary_line(job, timeline, out_dir, written) << "\n";
  return kExitOk;
}

}  // namespace svp::prof
