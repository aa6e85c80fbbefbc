#include "svp_prof/statistics.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>
#include <utility>

namespace svp::prof {
namespace {

// A JOB's timestamps are untrusted input: a record at the ends of the int64 range must
// not overflow the sums (undefined behaviour) — they saturate instead.
std::int64_t saturated(bool positive) {
  return positive ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
}

std::int64_t sat_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return saturated(b > 0);
  return r;
}

std::int64_t duration(std::int64_t start, std::int64_t end) {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(end, start, &r)) return saturated(end > start);
  return r;
}

std::int64_t rounded_avg(std::int64_t total, std::int64_t count) {
  return count == 0 ? 0 : total / count + (total % count * 2 >= count ? 1 : 0);
}

}  // namespace

std::int64_t OpStat::avg_ns() const { return rounded_avg(total_ns, count); }
std::int64_t ApiStat::avg_ns() const { return rounded_avg(total_ns, count); }

std::vector<OpStat> op_statistics(const std::vector<OpRecord>& ops) {
  std::map<std::pair<std::string, std::string>, OpStat> by_type;
  std::int64_t all_ns = 0;
  for (const OpRecord& o : ops) {
    const std::int64_t d = duration(o.start_ns, o.end_ns);
    OpStat& s = by_type[{o.type, o.unit}];
    if (s.count == 0) {
      s.type = o.type;
      s.unit = o.unit;
      s.min_ns = d;
      s.max_ns = d;
    }
    ++s.count;
    s.total_ns = sat_add(s.total_ns, d);
    s.min_ns = std::min(s.min_ns, d);
    s.max_ns = std::max(s.max_ns, d);
    all_ns = sat_add(all_ns, d);
  }
  std::vector<OpStat> out;
  out.reserve(by_type.size());
  for (auto& [key, s] : by_type) {
    s.share_pct = all_ns > 0 ? 100.0 * static_cast<double>(s.total_ns) / static_cast<double>(all_ns) : 0.0;
    out.push_back(std::move(s));
  }
  std::stable_sort(out.begin(), out.end(), [](const OpStat& a, const OpStat& b) { return a.total_ns > b.total_ns; });
  return out;
}

std::vector<ApiStat> api_statistics(const std::vector<ApiRecord>& calls) {
  std::map<std::string, ApiStat> by_name;
  for (const ApiRecord& c : calls) {
    const std::int64_t d = duration(c.start_ns, c.end_ns);
    ApiStat& s = by_name[c.name];
    if (s.count == 0) {
      s.name = c.name;
      s.min_ns = d;
      s.max_ns = d;
    }
    ++s.count;
    if (c.failed()) ++s.errors;
    s.total_ns = sat_add(s.total_ns, d);
    s.min_ns = std::min(s.min_ns, d);
    s.max_ns = std::max(s.max_ns, d);
  }
  std::vector<ApiStat> out;
  out.reserve(by_name.size());
  for (auto& [name, s] : by_name) out.push_back(std::move(s));
  std::stable_sort(out.begin(), out.end(), [](const ApiStat& a, const ApiStat& b) { return a.total_ns > b.total_ns; });
  return out;
}

}  // namespace svp::prof
