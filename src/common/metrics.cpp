#include "common/metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace svp::compare {
namespace {

// log Σ exp(x_i) with the maximum factored out, so large logits do not overflow.
double LogSumExp(const std::vector<double>& x) {
  double m = -std::numeric_limits<double>::infinity();
  for (double v : x) m = std::max(m, v);
  double s = 0.0;
  for (double v : x) s += std::exp(v - m);
  return m + std::log(s);
}

}  // namespace

Metrics ComputeMetrics(const std::vector<double>& golden, const std::vector<double>& actual) {
  Metrics r;
  const std::size_t n = std::min(golden.size(), actual.size());
  std::vector<double> g, a;
  g.reserve(n);
  a.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double gi = golden[i], ai = actual[i];
    if (std::isnan(gi)) ++r.golden_nan;
    else if (std::isinf(gi)) ++r.golden_inf;
    if (std::isnan(ai)) ++r.actual_nan;
    else if (std::isinf(ai)) ++r.actual_inf;
    if (std::isfinite(gi) && std::isfinite(ai)) {
      g.push_back(gi);
      a.push_back(ai);
    }
  }
  r.finite_pairs = g.size();
  if (g.empty()) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    r.cosine = r.relative_distance = r.max_abs_error = r.mean_abs_error = r.kl_divergence = nan;
    return r;
  }
  double dot = 0.0, gg = 0.0, aa = 0.0, dd = 0.0, sum_abs = 0.0, max_abs = 0.0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    const double d = a[i] - g[i];
    dot += g[i] * a[i];
    gg += g[i] * g[i];
    aa += a[i] * a[i];
    dd += d * d;
    sum_abs += std::fabs(d);
    max_abs = std::max(max_abs, std::fabs(d));
  }
  if (gg == 0.0 && aa == 0.0) r.cosine = 1.0;
  else if (gg == 0.0 || aa == 0.0) r.cosine = 0.0;
  else r.cosine = std::clamp(dot / (std::sqrt(gg) * std::sqrt(aa)), -1.0, 1.0);
  if (gg == 0.0) r.relative_distance = dd == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  else r.relative_distance = std::sqrt(dd) / std::sqrt(gg);
  r.max_abs_error = max_abs;
  r.mean_abs_error = sum_abs / static_cast<double>(g.size());
  // KL(P‖Q) = Σ p_i (log p_i − log q_i), log p_i = g_i − LSE(g).
  const double lse_g = LogSumExp(g), lse_a = LogSumExp(a);
  double kl = 0.0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    const double log_p = g[i] - lse_g, log_q = a[i] - lse_a;
    kl += std::exp(log_p) * (log_p - log_q);
  }
  r.kl_divergence = std::max(0.0, kl);  // rounding can leave −1e-17 for equal inputs
  return r;
}

}  // namespace svp::compare
