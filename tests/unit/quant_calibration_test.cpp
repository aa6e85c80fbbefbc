// Calibration methods on distributions whose right answer is known: exact ranges for
// min-max, the clipped tail for percentile, and for entropy / MSE search a clipping range
// that beats min-max on heavy-tailed data and stays whole on uniform data.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "compiler/quantize/calibration.h"

namespace svp::compiler::quant {
namespace {

struct Observed {
  RangeObserver range;
  std::unique_ptr<HistogramObserver> hist;
};

Observed observe(const std::vector<float>& v) {
  Observed o;
  o.range.add(v.data(), v.size());
  o.hist = std::make_unique<HistogramObserver>(o.range.min(), o.range.max());
  o.hist->add(v.data(), v.size());
  return o;
}

Encoding choose(const Observed& o, Method m, double percentile = 99.99) {
  CalibrationOptions opt;
  opt.method = m;
  opt.percentile = percentile;
  auto e = choose_encoding(o.range, o.hist.get(), opt);
  EXPECT_TRUE(e.ok()) << e.status().message();
  return e.ok() ? *e : Encoding{};
}

// Mean squared error of quantizing `v` with `e` (computed here, independently of the
// histogram estimate).
double mse(const std::vector<float>& v, const Encoding& e) {
  double s = 0;
  for (float x : v) {
    double q = std::nearbyint(x / e.scale) + e.zero_point;
    q = std::min(127.0, std::max(-128.0, q));
    const double d = x - e.scale * (q - e.zero_point);
    s += d * d;
  }
  return s / static_cast<double>(v.size());
}

std::vector<float> gaussian_with_outliers(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> g(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = g(rng);
  v[7] = 40.0f;  // a handful of far outliers, as activations of real networks have
  v[99] = -35.0f;
  v[500] = 38.0f;
  return v;
}

TEST(EncodeRange, AsymmetricUsesAll256LevelsAndKeepsZeroExact) {
  const Encoding e = encode_range(0.0f, 25.5f, false);
  EXPECT_FLOAT_EQ(e.scale, 0.1f);
  EXPECT_EQ(e.zero_point, -128);
  EXPECT_FLOAT_EQ(e.lo, 0.0f);
  EXPECT_NEAR(e.hi, 25.5f, 1e-5);
  const Encoding s = encode_range(-2.0f, 1.0f, true);
  EXPECT_EQ(s.zero_point, 0);
  EXPECT_FLOAT_EQ(s.scale, 2.0f / 127.0f);
  // A range that excludes 0 is widened to contain it.
  const Encoding w = encode_range(3.0f, 5.1f, false);
  EXPECT_FLOAT_EQ(w.lo, 0.0f);
  EXPECT_FLOAT_EQ(w.scale, 5.1f / 255.0f);
  // Degenerate: all zeros.
  EXPECT_FLOAT_EQ(encode_range(0.0f, 0.0f, false).scale, 1.0f);
}

TEST(Calibration, MinMaxCoversExactlyTheObservedRange) {
  const std::vector<float> v = {-1.5f, 0.25f, 3.0f, 2.0f, -0.5f};
  const Observed o = observe(v);
  const Encoding e = choose(o, Method::kMinMax);
  EXPECT_FLOAT_EQ(e.scale, 4.5f / 255.0f);
  EXPECT_NEAR(e.lo, -1.5f, e.scale);
  EXPECT_NEAR(e.hi, 3.0f, e.scale);
}

TEST(Calibration, NonFiniteValuesAreIgnored) {
  const std::vector<float> v = {1.0f, NAN, INFINITY, -2.0f, -INFINITY};
  RangeObserver r;
  r.add(v.data(), v.size());
  EXPECT_EQ(r.count(), 2u);
  EXPECT_FLOAT_EQ(r.min(), -2.0f);
  EXPECT_FLOAT_EQ(r.max(), 1.0f);
}

TEST(Calibration, NothingObservedIsAnError) {
  RangeObserver r;
  auto e = choose_encoding(r, nullptr, CalibrationOptions{});
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("no finite value"), std::string::npos);
}

TEST(Calibration, HistogramMethodsNeedTheSecondPass) {
  const std::vector<float> v = {1.0f, 2.0f};
  RangeObserver r;
  r.add(v.data(), v.size());
  CalibrationOptions opt;
  opt.method = Method::kEntropy;
  auto e = choose_encoding(r, nullptr, opt);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("second pass"), std::string::npos);
}

TEST(Calibration, PercentileDropsTheTails) {
  // 0..9999 uniformly: keeping 98 % drops about 1 % on each side.
  std::vector<float> v(10000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  const Encoding e = choose(observe(v), Method::kPercentile, 98.0);
  EXPECT_NEAR(e.hi, 9900.0f, 60.0f);
  EXPECT_NEAR(e.lo, 0.0f, 1e-3);  // the range is widened to contain 0
  EXPECT_FALSE(choose_encoding(observe(v).range, observe(v).hist.get(), {Method::kPercentile, 40.0}).ok());
}

TEST(Calibration, EntropyClipsRareOutliersSymmetrically) {
  const std::vector<float> v = gaussian_with_outliers(200000, 1);
  const Encoding kl = choose(observe(v), Method::kEntropy);
  EXPECT_LT(kl.hi, 20.0f);  // far inside the ±40 outliers
  EXPECT_GT(kl.hi, 2.5f);   // but the bulk of a unit Gaussian stays
  EXPECT_EQ(kl.zero_point, 0);  // signed data: symmetric
}

TEST(Calibration, MseSearchNeverLosesToMinMaxAndClipsWhenThatPays) {
  // Outliers far enough out and numerous enough that keeping them is cheaper than
  // coarser steps: MSE search keeps the whole range (and so does min-max).
  const std::vector<float> g = gaussian_with_outliers(200000, 1);
  const Observed og = observe(g);
  EXPECT_LE(mse(g, choose(og, Method::kMse)), mse(g, choose(og, Method::kMinMax)) * 1.0001);
  // One value at 3 among half a million in [-1, 1]: clipping it costs 4/500000 per value,
  // while halving the step saves three times that; the search must clip near 1.
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(500000);
  for (float& x : v) x = u(rng);
  v[1234] = 3.0f;
  const Observed o = observe(v);
  const Encoding ms = choose(o, Method::kMse);
  const Encoding mm = choose(o, Method::kMinMax);
  EXPECT_LT(ms.hi, 1.6f);
  EXPECT_GT(ms.hi, 0.9f);
  EXPECT_LT(mse(v, ms), mse(v, mm));
  // The histogram estimate the search minimises agrees with the direct measurement.
  EXPECT_NEAR(expected_squared_error(*o.hist, ms), mse(v, ms), 0.25 * mse(v, ms));
}

TEST(Calibration, UniformDataKeepsItsWholeRange) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(0.0f, 6.0f);  // a ReLU6 output
  std::vector<float> v(100000);
  for (float& x : v) x = u(rng);
  const Observed o = observe(v);
  const Encoding ms = choose(o, Method::kMse);
  const Encoding kl = choose(o, Method::kEntropy);
  EXPECT_GT(ms.hi, 5.7f);
  EXPECT_GT(kl.hi, 5.4f);
  EXPECT_EQ(kl.zero_point, -128);  // non-negative data: all 256 levels on [0, t]
}

TEST(Calibration, DeterministicForTheSameValues) {
  const std::vector<float> v = gaussian_with_outliers(50000, 9);
  for (Method m : {Method::kMinMax, Method::kPercentile, Method::kEntropy, Method::kMse}) {
    const Encoding a = choose(observe(v), m);
    const Encoding b = choose(observe(v), m);
    EXPECT_EQ(a.scale, b.scale) << method_name(m);
    EXPECT_EQ(a.zero_point, b.zero_point) << method_name(m);
  }
}

TEST(Calibration, MethodNamesRoundTrip) {
  for (const char* n : {"minmax", "percentile", "entropy", "mse"}) {
    auto m = method_from_name(n);
    ASSERT_TRUE(m.ok());
    EXPECT_STREQ(method_name(*m), n);
  }
  EXPECT_EQ(*method_from_name("kl"), Method::kEntropy);
  auto bad = method_from_name("ifmr2");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("minmax, percentile"), std::string::npos);
}

}  // namespace
}  // namespace svp::compiler::quant
