#include "svp_run/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace svp::run {

LatencyStats summarize(std::vector<double> s) {
  LatencyStats r;
  if (s.empty()) return r;
  std::sort(s.begin(), s.end());
  // Nearest-rank percentiles: a reported figure is always one that was measured.
  auto pct = [&](double p) {
    const std::size_t rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(s.size())));
    return s[std::min(s.size() - 1, rank == 0 ? 0 : rank - 1)];
  };
  r.count = s.size();
  r.min = s.front();
  r.max = s.back();
  r.total = std::accumulate(s.begin(), s.end(), 0.0);
  r.mean = r.total / static_cast<double>(s.size());
  r.p50 = pct(50);
  r.p90 = pct(90);
  r.p99 = pct(99);
  return r;
}

}  // namespace svp::run
