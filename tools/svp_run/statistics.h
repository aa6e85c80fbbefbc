// Latency figures of a run: min/mean/percentiles/max over samples in milliseconds.
#pragma once

#include <vector>

namespace svp::run {

struct LatencyStats {
  double min = 0, mean = 0, p50 = 0, p90 = 0, p99 = 0, max = 0, total = 0;
  std::size_t count = 0;
};

LatencyStats summarize(std::vector<double> samples_ms);

}  // namespace svp::run
