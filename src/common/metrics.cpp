#include "common/metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace svp::compare {

void MetricsAccumulator::Add(double g, double a) {
  if (std::isnan(g)) ++m_.golden_nan;
  else if (std::isinf(g)) ++m_.golden_inf;
  if (std::isnan(a)) ++m_.actual_nan;
  else if (std::isinf(a)) ++m_.actual_inf;
  if (!std::isfinite(g) || !std::isfinite(a)) return;
  ++m_.finite_pairs;
  const double d = a - g;
  dot_ += g * a;
  gg_ += g * g;
  aa_ += a * a;
  dd_ += d * d;
  sum_abs_ += std::fabs(d);
  max_abs_ = std::max(max_abs_, std::fabs(d));
  // Online log-sum-exp: the sums are kept relative to the largest value seen so far and
  // rescaled when a larger one arrives, so large logits never overflow.
  if (g > max_g_) {
    const double k = std::exp(max_g_ - g);  // 0 for the first pair (max_g_ = -inf)
    z_g_ *= k;
    s_ *= k;
    max_g_ = g;
  }
  if (a > max_a_) {
    z_a_ *= std::exp(max_a_ - a);
    max_a_ = a;
  }
  const double w = std::exp(g - max_g_);
  z_g_ += w;
  s_ += w * (g - a);
  z_a_ += std::exp(a - max_a_);
}

void MetricsAccumulator::Add(const std::vector<double>& golden, const std::vector<double>& actual) {
  const std::size_t n = std::min(golden.size(), actual.size());
  for (std::size_t i = 0; i < n; ++i) Add(golden[i], actual[i]);
}

Metrics MetricsAccumulator::Result() const {
  Metrics r = m_;
  if (r.finite_pairs == 0) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    r.cosine = r.relative_distance = r.max_abs_error = r.mean_abs_error = r.kl_divergence = nan;
    return r;
  }
  if (gg_ == 0.0 && aa_ == 0.0) r.cosine = 1.0;
  else if (gg_ == 0.0 || aa_ == 0.0) r.cosine = 0.0;
  else r.cosine = std::clamp(dot_ / (std::sqrt(gg_) * std::sqrt(aa_)), -1.0, 1.0);
  if (gg_ == 0.0) r.relative_distance = dd_ == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  else r.relative_distance = std::sqrt(dd_) / std::sqrt(gg_);
  r.max_abs_error = max_abs_;
  r.mean_abs_error = sum_abs_ / static_cast<double>(r.finite_pairs);
  // KL(P‖Q) = Σ p_i (log p_i − log q_i) = Σ p_i (g_i − a_i) − LSE(g) + LSE(a), Σ p_i = 1.
  const double lse_g = max_g_ + std::log(z_g_), lse_a = max_a_ + std::log(z_a_);
  const double kl = s_ / z_g_ - lse_g + lse_a;
  r.kl_divergence = std::max(0.0, kl);  // rounding can leave −1e-17 for equal inputs
  return r;
}

Metrics ComputeMetrics(const std::vector<double>& golden, const std::vector<double>& actual) {
  MetricsAccumulator acc;
  acc.Add(golden, actual);
  return acc.Result();
}

}  // namespace svp::compare
