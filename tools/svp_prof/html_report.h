// report.html: one self-contained page (inline CSS and JavaScript, no network) with the
// header information, a zoomable canvas timeline of every stream, core and API thread,
// and the summary tables.
//
// The page is report_template.html (embedded at build time) with the data inserted as
// JSON into its <script type="application/json" id="svp-prof-data"> element; the
// template's script draws everything from that data. After drawing it sets
// document.body.dataset.taskBars / opSlices / rendered = "1" for headless checks.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "svp_prof/job.h"
#include "svp_prof/statistics.h"
#include "svp_prof/status.h"
#include "svp_prof/timeline.h"
#include "svp_prof/tracks.h"

namespace svp::prof {

struct HtmlOptions {
  // A browser copes with a few hundred thousand slices; beyond that the page embeds the
  // earliest `max_ops` operators and says so (trace.json and op_summary.csv have all).
  std::size_t max_ops = 500000;
  // Rows of the task table in the page (task_summary.csv has all).
  std::size_t max_task_rows = 2000;
};

struct HtmlCounts {
  std::size_t task_bars = 0;  // started tasks, one bar each
  std::size_t op_slices = 0;  // operators embedded
};

// The template with its data placeholder, as built into the program.
const std::string& report_template();

Status write_html_report(const std::filesystem::path& path, const Job& job, const Timeline& timeline,
                         const Layout& layout, const std::vector<OpStat>& op_stats,
                         const std::vector<ApiStat>& api_stats, const HtmlOptions& options, HtmlCounts* counts);

}  // namespace svp::prof
