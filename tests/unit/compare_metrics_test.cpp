// Metric definitions (docs/accuracy.md) on vectors small enough to compute by hand.
#include "common/metrics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace svp::compare {
namespace {

TEST(CompareMetrics, HandComputedPair) {
  // g = (3, 4), a = (4, 3): g·a = 24, ‖g‖ = ‖a‖ = 5 → cos = 24/25.
  // a − g = (1, −1): ‖·‖ = √2 → rel = √2/5; max 1; mean 1.
  const Metrics m = ComputeMetrics({3, 4}, {4, 3});
  EXPECT_DOUBLE_EQ(m.cosine, 24.0 / 25.0);
  EXPECT_DOUBLE_EQ(m.relative_distance, std::sqrt(2.0) / 5.0);
  EXPECT_DOUBLE_EQ(m.euclidean_distance, std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(m.max_abs_error, 1.0);
  EXPECT_DOUBLE_EQ(m.mean_abs_error, 1.0);
  // P = softmax(3,4) = (1/(1+e), e/(1+e)), Q = softmax(4,3) = reversed.
  // KL = p1 log(p1/q1) + p2 log(p2/q2) = (1/(1+e))(−1) + (e/(1+e))(1) = (e−1)/(e+1).
  const double e = std::exp(1.0);
  EXPECT_NEAR(m.kl_divergence, (e - 1) / (e + 1), 1e-15);
  EXPECT_EQ(m.finite_pairs, 2u);
}

TEST(CompareMetrics, IdenticalTensorsArePerfect) {
  const Metrics m = ComputeMetrics({1, -2, 0.5}, {1, -2, 0.5});
  EXPECT_DOUBLE_EQ(m.cosine, 1.0);
  EXPECT_DOUBLE_EQ(m.relative_distance, 0.0);
  EXPECT_DOUBLE_EQ(m.euclidean_distance, 0.0);
  EXPECT_DOUBLE_EQ(m.max_abs_error, 0.0);
  EXPECT_DOUBLE_EQ(m.kl_divergence, 0.0);
}

TEST(CompareMetrics, OppositeSignGivesMinusOne) {
  const Metrics m = ComputeMetrics({1, 2}, {-1, -2});
  EXPECT_DOUBLE_EQ(m.cosine, -1.0);
  EXPECT_DOUBLE_EQ(m.relative_distance, 2.0);
  EXPECT_DOUBLE_EQ(m.max_abs_error, 4.0);
  EXPECT_DOUBLE_EQ(m.mean_abs_error, 3.0);
}

TEST(CompareMetrics, ZeroTensors) {
  const Metrics both = ComputeMetrics({0, 0}, {0, 0});
  EXPECT_DOUBLE_EQ(both.cosine, 1.0);
  EXPECT_DOUBLE_EQ(both.relative_distance, 0.0);
  const Metrics golden_zero = ComputeMetrics({0, 0}, {1, 0});
  EXPECT_DOUBLE_EQ(golden_zero.cosine, 0.0);
  EXPECT_TRUE(std::isinf(golden_zero.relative_distance));
}

TEST(CompareMetrics, NonFiniteAreCountedAndExcluded) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const Metrics m = ComputeMetrics({nan, 3, 4, 1}, {1, 3, 4, -inf});
  EXPECT_EQ(m.golden_nan, 1u);
  EXPECT_EQ(m.golden_inf, 0u);
  EXPECT_EQ(m.actual_nan, 0u);
  EXPECT_EQ(m.actual_inf, 1u);
  EXPECT_EQ(m.finite_pairs, 2u);
  EXPECT_DOUBLE_EQ(m.cosine, 1.0);
  const Metrics none = ComputeMetrics({nan}, {inf});
  EXPECT_TRUE(std::isnan(none.cosine));
}

TEST(CompareMetrics, KlIsStableForLargeValues) {
  // softmax is shift-invariant: adding 1000 to both sides changes nothing and must not overflow.
  const Metrics small = ComputeMetrics({3, 4}, {4, 3});
  const Metrics large = ComputeMetrics({1003, 1004}, {1004, 1003});
  EXPECT_NEAR(large.kl_divergence, small.kl_divergence, 1e-12);
}

TEST(CompareMetrics, AccumulatingSampleBySampleGivesTheMetricsOfTheConcatenation) {
  // Rising and falling maxima on both sides exercise the online log-sum-exp's rescaling.
  const std::vector<std::vector<double>> g = {{0.5, -3, 2}, {40, 1}, {-7, 100, 3.5}};
  const std::vector<std::vector<double>> a = {{0.4, -2, 2.5}, {39, 2}, {-6, 98, 120}};
  std::vector<double> all_g, all_a;
  MetricsAccumulator acc;
  for (std::size_t i = 0; i < g.size(); ++i) {
    acc.Add(g[i], a[i]);
    all_g.insert(all_g.end(), g[i].begin(), g[i].end());
    all_a.insert(all_a.end(), a[i].begin(), a[i].end());
  }
  const Metrics streamed = acc.Result();
  const Metrics whole = ComputeMetrics(all_g, all_a);
  EXPECT_EQ(streamed.finite_pairs, 8u);
  EXPECT_DOUBLE_EQ(streamed.cosine, whole.cosine);
  EXPECT_DOUBLE_EQ(streamed.max_abs_error, 116.5);
  EXPECT_DOUBLE_EQ(streamed.mean_abs_error, whole.mean_abs_error);
  // KL(softmax(g) || softmax(a)), written out: softmax(g) is all but one-hot on g = 100.
  double zg = 0, za = 0;
  for (double v : all_g) zg += std::exp(v - 100);
  for (double v : all_a) za += std::exp(v - 120);
  double kl = 0;
  for (std::size_t i = 0; i < all_g.size(); ++i) {
    const double lp = all_g[i] - 100 - std::log(zg), lq = all_a[i] - 120 - std::log(za);
    kl += std::exp(lp) * (lp - lq);
  }
  EXPECT_NEAR(streamed.kl_divergence, kl, 1e-9 * kl);
  EXPECT_NEAR(whole.kl_divergence, kl, 1e-9 * kl);
}

// The per-layer analysis's float block path gives what the pair-by-pair path does: the
// same sums (cosine, distances) and KL within float-precision exp terms; clamping and a
// non-finite pair behave as the caller clamping and the pair path excluding it.
TEST(Metrics, TheFloatBlockPathMatchesThePairByPairPath) {
  std::vector<float> g(1000), a(1000);
  for (std::size_t i = 0; i < g.size(); ++i) {
    g[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i)) * 12.0);  // exps over ~24 nats
    a[i] = g[i] + static_cast<float>(std::cos(1.3 * static_cast<double>(i)) * 0.5);
  }
  g[500] = std::numeric_limits<float>::quiet_NaN();
  for (bool clamp : {false, true}) {
    MetricsAccumulator block, pairs;
    block.Add(g.data(), a.data(), 600, clamp);  // two calls: the running maxima carry over
    block.Add(g.data() + 600, a.data() + 600, 400, clamp);
    for (std::size_t i = 0; i < g.size(); ++i) {
      pairs.Add(clamp && g[i] < 0 ? 0.0 : g[i], clamp && a[i] < 0 ? 0.0 : a[i]);
    }
    const Metrics x = block.Result(), y = pairs.Result();
    EXPECT_EQ(x.finite_pairs, 999u);
    EXPECT_EQ(x.golden_nan, 1u);
    EXPECT_NEAR(x.cosine, y.cosine, 1e-12);
    EXPECT_NEAR(x.relative_distance, y.relative_distance, 1e-12);
    EXPECT_DOUBLE_EQ(x.max_abs_error, y.max_abs_error);
    EXPECT_GT(y.kl_divergence, 1e-3);
    EXPECT_NEAR(x.kl_divergence, y.kl_divergence, 1e-6 * y.kl_divergence + 1e-9) << "clamp " << clamp;
  }
}

}  // namespace
}  // namespace svp::compare
