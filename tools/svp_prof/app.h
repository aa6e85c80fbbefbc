// svp_prof as a function: read a JOB directory, write every output, report on streams.
// main() only parses the command line, so tests run the whole tool in-process.
#pragma once

#include <cstdint>
#include <filesystem>
#include <ostream>

#include "svp_prof/html_report.h"

namespace svp::prof {

struct AppOptions {
  std::filesystem::path job_dir;
  std::filesystem::path out_dir;  // empty: <job_dir>/report
  bool quiet = false;             // no progress lines (warnings and errors still go out)
  std::uint64_t progress_min_bytes = 16u << 20;
  HtmlOptions html;
};

inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;     // not a JOB directory, malformed or truncated data
inline constexpr int kExitUsage = 2;        // bad command line (main)
inline constexpr int kExitCannotWrite = 3;  // an output could not be written

// Progress, warnings and errors go to `err`, the final one-line summary to `out`.
int run(const AppOptions& options, std::ostream& out, std::ostream& err);

}  // namespace svp::prof
