// The CSV outputs: op_summary.csv, op_statistics.csv, task_summary.csv and
// api_statistics.csv (columns in docs/profiling.md, "Reading a profile: svp_prof").
// Times are microseconds with three decimals; points in time count from info.json
// start_ns.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "svp_prof/job.h"
#include "svp_prof/statistics.h"
#include "svp_prof/status.h"
#include "svp_prof/timeline.h"

namespace svp::prof {

// One CSV field, quoted when it holds a comma, quote, CR or LF (RFC 4180).
std::string csv_field(const std::string& value);

Status write_op_summary(const std::filesystem::path& path, const Job& job);
Status write_op_statistics(const std::filesystem::path& path, const std::vector<OpStat>& stats);
Status write_task_summary(const std::filesystem::path& path, const Job& job, const Timeline& timeline);
Status write_api_statistics(const std::filesystem::path& path, const std::vector<ApiStat>& stats);

}  // namespace svp::prof
