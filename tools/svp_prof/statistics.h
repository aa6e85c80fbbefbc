// Aggregates for the summary tables: operator time per (type, unit) and API time per
// function name. Durations stay in integer nanoseconds so that totals are exact.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "svp_prof/job.h"

namespace svp::prof {

struct OpStat {
  std::string type;
  std::string unit;
  std::int64_t count = 0;
  std::int64_t total_ns = 0;
  std::int64_t min_ns = 0;
  std::int64_t max_ns = 0;
  double share_pct = 0;  // of the total time of all operators

  std::int64_t avg_ns() const;  // rounded to the nearest ns
};

struct ApiStat {
  std::string name;
  std::int64_t count = 0;
  std::int64_t errors = 0;  // calls that failed (ApiRecord::failed)
  std::int64_t total_ns = 0;
  std::int64_t min_ns = 0;
  std::int64_t max_ns = 0;

  std::int64_t avg_ns() const;
};

// Sorted by total time, largest first (ties by type, unit).
std::vector<OpStat> op_statistics(const std::vector<OpRecord>& ops);
// Sorted by total time, largest first (ties by name).
std::vector<ApiStat> api_statistics(const std::vector<ApiRecord>& calls);

}  // namespace svp::prof
