// Reading and validating a JOB directory (docs/profiling.md, format version 1).
//
// The reader is strict about what the format promises (so that a writer bug shows up as
// a message naming the file and line, not as a wrong report) and lenient about what a
// later writer may add: unknown fields, unknown data types and unknown task events are
// ignored (events with a warning). A missing end_info.json means collection was cut
// short: the job is still read, with a warning, and a partial last line (the writer was
// stopped mid-line) is dropped rather than refused.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "svp_prof/job.h"
#include "svp_prof/status.h"

namespace svp::prof {

struct ReadOptions {
  // Called while a data file is read, about every MiB and once at its end: the file's
  // path inside the JOB directory, bytes read, file size. Throttling is the callee's.
  std::function<void(const std::string& file, std::uint64_t done, std::uint64_t total)> on_progress;
};

// Fills `job` from `dir`. On error the message names the file and, for records, the
// line; `job` is then partly filled and must not be used.
Status read_job(const std::filesystem::path& dir, const ReadOptions& options, Job* job);

}  // namespace svp::prof
