// svp_prof <JOB dir> [-o <out dir>] [--quiet]: turns a profiling JOB directory into CSV
// summaries, a Chrome trace and an HTML report (docs/profiling.md).
#include <CLI/CLI.hpp>
#include <iostream>

#include "svp_prof/app.h"

int main(int argc, char** argv) {
  svp::prof::AppOptions options;
  CLI::App app{
      "svp_prof: reads a profiling JOB directory written by svp-acl and writes op_summary.csv, "
      "op_statistics.csv, task_summary.csv, api_statistics.csv, trace.json (Chrome trace, for "
      "ui.perfetto.dev) and report.html",
      "svp_prof"};
  std::string job_dir;
  std::string out_dir;
  app.add_option("job", job_dir,
                 "JOB directory (JOB<YYYYMMDDhhmmss>_<pid>_<n>), or the profiler output folder holding JOB "
                 "directories (the newest is read)")
      ->required();
  app.add_option("-o,--out", out_dir, "output directory (default: <JOB dir>/report)");
  app.add_flag("-q,--quiet", options.quiet, "no progress lines on stderr");
  app.add_option("--html-max-ops", options.html.max_ops,
                 "operators drawn in report.html at most (the earliest; the CSVs and trace.json have all)")
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help is a ParseError too (exit 0); other codes are CLI11's own, so map them.
    return app.exit(e) == 0 ? svp::prof::kExitOk : svp::prof::kExitUsage;
  }
  options.job_dir = job_dir;
  options.out_dir = out_dir;
  return svp::prof::run(options, std::cout, std::cerr);
}
