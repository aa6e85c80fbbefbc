// Normalisation, softmax-family, loss and pooling-variant reference kernels
// (LayerNormalization, InstanceNormalization, LRN, LogSoftmax, Hardmax,
// NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss, MaxPool's Indices, GlobalMaxPool,
// Resize cubic): hand-computed values and the errors for bad attributes and shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/invoke.h"
#include "kernels/kernels.h"

namespace svp::kernels {
namespace {

using model::DType;
using I = std::vector<std::int64_t>;
using F = std::vector<float>;

std::vector<OwnedTensor> run_norm(const char* op, const Attrs& a, const std::vector<TensorView>& in,
                                const std::vector<OutputSpec>& specs = {}) {
  auto r = run_reference_owned(op, a, in, specs);
  EXPECT_TRUE(r.ok()) << op << ": " << r.status().message();
  return r.ok() ? std::move(r.value()) : std::vector<OwnedTensor>{};
}

void expect_near(const std::vector<float>& got, const std::vector<double>& want, double tol = 1e-6) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << i;
}

TEST(KernelsLayerNorm, NormalisesFromTheAxisAndReturnsMeanAndInvStdDev) {
  // Rows [1 3] and [2 6]: means 2 and 4, variances 1 and 4; scale [1 2], bias [0 1].
  auto x = OwnedTensor::f32({2, 2}, {1, 3, 2, 6});
  auto scale = OwnedTensor::f32({2}, {1, 2});
  auto bias = OwnedTensor::f32({2}, {0, 1});
  auto out = run_norm("LayerNormalization", {{"epsilon", 0.0}}, {x.view(), scale.view(), bias.view()});
  ASSERT_EQ(out.size(), 3u);
  expect_near(out[0].values<float>(), {-1, 3, -1, 3});
  EXPECT_EQ(out[1].view().dims, (I{2, 1}));
  expect_near(out[1].values<float>(), {2, 4});
  expect_near(out[2].values<float>(), {1, 0.5});
  // axis 0 normalises everything: mean 3, variance 3.5.
  auto all = run_norm("LayerNormalization", {{"axis", std::int64_t{0}}, {"epsilon", 0.0}},
                    {x.view(), OwnedTensor::f32({2, 2}, {1, 1, 1, 1}).view()}, {});
  ASSERT_FALSE(all.empty());
  expect_near(all[0].values<float>(), {-2 / std::sqrt(3.5), 0, -1 / std::sqrt(3.5), 3 / std::sqrt(3.5)});
  EXPECT_EQ(infer_shapes("LayerNormalization", {}, {{2, 2}, {3}}).status().code(), err::kInvalidParam);
  EXPECT_EQ(infer_shapes("LayerNormalization", {{"axis", std::int64_t{2}}}, {{2, 2}, {2}}).status().code(),
            err::kInvalidParam);
}

TEST(KernelsInstanceNormAndLrn, HandValues) {
  // One channel [0 2 4 6]: mean 3, variance 5; scale 2, bias 1.
  auto x = OwnedTensor::f32({1, 1, 4}, {0, 2, 4, 6});
  auto s = OwnedTensor::f32({1}, {2});
  auto b = OwnedTensor::f32({1}, {1});
  auto y = run_norm("InstanceNormalization", {{"epsilon", 0.0}}, {x.view(), s.view(), b.view()});
  ASSERT_FALSE(y.empty());
  const double sd = std::sqrt(5.0);
  expect_near(y[0].values<float>(), {1 - 6 / sd, 1 - 2 / sd, 1 + 2 / sd, 1 + 6 / sd});
  // LRN size 2 over channels [1 2]: channel 0 sums channels 0..0 (floor((2-1)/2) = 0 before,
  // ceil = 1 after: 0..1), channel 1 sums 1..1.
  auto c = OwnedTensor::f32({1, 2, 1}, {1, 2});
  auto l = run_norm("LRN", {{"size", std::int64_t{2}}, {"alpha", 0.5}, {"beta", 1.0}, {"bias", 1.0}}, {c.view()});
  ASSERT_FALSE(l.empty());
  expect_near(l[0].values<float>(), {1 / (1 + 0.25 * 5), 2 / (1 + 0.25 * 4)});
  EXPECT_EQ(infer_shapes("LRN", {}, {{1, 2, 1}}).status().code(), err::kParseModel);
  // MVN over the default axes (0, 2, 3): channel 0 [1 3] (mean 2, sd 1), channel 1 [5 5] (sd 0).
  auto m = OwnedTensor::f32({1, 2, 1, 2}, {1, 3, 5, 5});
  auto mv = run_norm("MeanVarianceNormalization", {}, {m.view()});
  ASSERT_FALSE(mv.empty());
  expect_near(mv[0].values<float>(), {-1, 1, 0, 0});
  EXPECT_EQ(infer_shapes("MeanVarianceNormalization", {}, {{2, 3}}).status().code(), err::kInvalidParam);
}

TEST(KernelsSoftmaxFamily, LogSoftmaxAndHardmax) {
  auto x = OwnedTensor::f32({2, 2}, {0, 0, 1, 3});
  auto ls = run_norm("LogSoftmax", {}, {x.view()});
  ASSERT_FALSE(ls.empty());
  expect_near(ls[0].values<float>(), {-std::log(2.0), -std::log(2.0), -2 - std::log1p(std::exp(-2.0)),
                                      -std::log1p(std::exp(-2.0))});
  auto hm = run_norm("Hardmax", {{"axis", std::int64_t{0}}}, {x.view()});
  ASSERT_FALSE(hm.empty());
  EXPECT_EQ(hm[0].values<float>(), (F{0, 0, 1, 1}));
  auto tie = OwnedTensor::f32({3}, {5, 5, 1});
  auto ht = run_norm("Hardmax", {}, {tie.view()});
  ASSERT_FALSE(ht.empty());
  EXPECT_EQ(ht[0].values<float>(), (F{1, 0, 0}));  // the first maximum
}

TEST(KernelsLoss, NllWithWeightsIgnoreIndexAndReductions) {
  // input (2, 3) log-probabilities, targets [2, 0], weights [1 2 3].
  auto x = OwnedTensor::f32({2, 3}, {-1, -2, -3, -4, -5, -6});
  auto t = OwnedTensor::i64({2}, {2, 0});
  auto w = OwnedTensor::f32({3}, {1, 2, 3});
  auto none = run_norm("NegativeLogLikelihoodLoss", {{"reduction", std::string("none")}}, {x.view(), t.view(), w.view()});
  ASSERT_FALSE(none.empty());
  EXPECT_EQ(none[0].values<float>(), (F{9, 4}));
  auto mean = run_norm("NegativeLogLikelihoodLoss", {}, {x.view(), t.view(), w.view()});
  ASSERT_FALSE(mean.empty());
  EXPECT_EQ(mean[0].view().dims, (I{}));
  EXPECT_FLOAT_EQ(mean[0].values<float>()[0], 13.0f / 4);  // divided by the weights 3 + 1
  auto ignored = run_norm("NegativeLogLikelihoodLoss", {{"ignore_index", std::int64_t{0}}}, {x.view(), t.view()});
  ASSERT_FALSE(ignored.empty());
  EXPECT_FLOAT_EQ(ignored[0].values<float>()[0], 3);
  auto bad = OwnedTensor::i64({2}, {3, 0});
  EXPECT_EQ(run_reference_owned("NegativeLogLikelihoodLoss", {}, {x.view(), bad.view()}).status().code(),
            err::kInvalidParam);
  EXPECT_EQ(infer_shapes("NegativeLogLikelihoodLoss", {{"reduction", std::string("max")}}, {{2, 3}, {2}})
                .status()
                .code(),
            err::kParseModel);
  EXPECT_EQ(infer_shapes("NegativeLogLikelihoodLoss", {}, {{2, 3}, {3}}).status().code(), err::kInvalidParam);
}

TEST(KernelsLoss, SoftmaxCrossEntropyIsNllOfLogSoftmax) {
  auto x = OwnedTensor::f32({1, 2}, {0, 0});
  auto t = OwnedTensor::i64({1}, {1});
  auto out = run_norm("SoftmaxCrossEntropyLoss", {{"reduction", std::string("sum")}}, {x.view(), t.view()});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_NEAR(out[0].values<float>()[0], std::log(2.0), 1e-6);
  expect_near(out[1].values<float>(), {-std::log(2.0), -std::log(2.0)});
}

TEST(KernelsPoolVariants, MaxPoolIndicesAndGlobalMaxPool) {
  // 1x1x2x2 [[1 4] [3 2]], kernel 2: the maximum 4 at (0, 1): index 1 row-major, 2 column-major.
  auto x = OwnedTensor::f32({1, 1, 2, 2}, {1, 4, 3, 2});
  const Attrs k2{{"kernel_shape", I{2, 2}}};
  auto r = run_norm("MaxPool", k2, {x.view()}, {{DType::kFloat32, {}}, {DType::kInt64, {}}});
  ASSERT_EQ(r.size(), 1u);  // infer at build time (outputs unknown) gives Y only
  OwnedTensor y(DType::kFloat32, {1, 1, 1, 1}), idx(DType::kInt64, {1, 1, 1, 1});
  ASSERT_TRUE(run_reference("MaxPool", k2, {x.view()}, {y.view(), idx.view()}).ok());
  EXPECT_EQ(y.values<float>(), (F{4}));
  EXPECT_EQ(idx.values<std::int64_t>(), (I{1}));
  Attrs col = k2;
  col.set("storage_order", std::int64_t{1});
  ASSERT_TRUE(run_reference("MaxPool", col, {x.view()}, {y.view(), idx.view()}).ok());
  EXPECT_EQ(idx.values<std::int64_t>(), (I{2}));
  auto u8 = OwnedTensor::from<std::uint8_t>(DType::kUint8, {1, 1, 2, 2}, {1, 200, 3, 2});
  auto yu = run_norm("MaxPool", k2, {u8.view()}, {{DType::kUint8, {}}});
  ASSERT_FALSE(yu.empty());
  EXPECT_EQ(yu[0].values<std::uint8_t>(), (std::vector<std::uint8_t>{200}));
  auto g = run_norm("GlobalMaxPool", {}, {x.view()});
  ASSERT_FALSE(g.empty());
  EXPECT_EQ(g[0].view().dims, (I{1, 1, 1, 1}));
  EXPECT_EQ(g[0].values<float>(), (F{4}));
}

TEST(KernelsResizeCubic, InterpolatesWithKeysKernel) {
  // 1-D [0 1 2 3] upsampled x2 with asymmetric coordinates: output 1 sits at x = 0.5 between
  // 0 and 1, with neighbours -1 (clamped to 0), 0, 1, 2 and weights for A = -0.75 at
  // distances 1.5, 0.5, 0.5, 1.5: w(1.5) = -0.09375, w(0.5) = 0.59375.
  auto x = OwnedTensor::f32({4}, {0, 1, 2, 3});
  auto scales = OwnedTensor::f32({1}, {2});
  const Attrs a{{"mode", std::string("cubic")}, {"coordinate_transformation_mode", std::string("asymmetric")}};
  auto y = run_norm("Resize", a, {x.view(), TensorView{}, scales.view()});
  ASSERT_FALSE(y.empty());
  const auto v = y[0].values<float>();
  ASSERT_EQ(v.size(), 8u);
  EXPECT_NEAR(v[0], 0, 1e-6);
  EXPECT_NEAR(v[1], -0.09375 * 0 + 0.59375 * 0 + 0.59375 * 1 - 0.09375 * 2, 1e-6);
  EXPECT_NEAR(v[2], 1, 1e-6);
  EXPECT_NEAR(v[3], -0.09375 * 0 + 0.59375 * 1 + 0.59375 * 2 - 0.09375 * 3, 1e-6);
}

TEST(KernelsMaxUnpool, ScattersToTheIndicesOfMaxPoolAndPadsToOutputShape) {
  // 1x1x1x2 values [5 7], kernel 2, stride 2: default output 1x1x2x4; indices 1 and 6 of it.
  // output_shape 3x5 pads that with a zero row and column at the end.
  auto x = OwnedTensor::f32({1, 1, 1, 2}, {5, 7});
  auto idx = OwnedTensor::i64({1, 1, 1, 2}, {1, 6});
  const Attrs k{{"kernel_shape", I{2, 2}}, {"strides", I{2, 2}}};
  auto y = run_norm("MaxUnpool", k, {x.view(), idx.view()});
  ASSERT_FALSE(y.empty());
  EXPECT_EQ(y[0].view().dims, (I{1, 1, 2, 4}));
  EXPECT_EQ(y[0].values<float>(), (F{0, 5, 0, 0, 0, 0, 7, 0}));
  auto shape = OwnedTensor::i64({4}, {1, 1, 3, 5});
  auto big = run_norm("MaxUnpool", k, {x.view(), idx.view(), shape.view()});
  ASSERT_FALSE(big.empty());
  EXPECT_EQ(big[0].values<float>(), (F{0, 5, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0}));
  auto small = OwnedTensor::i64({4}, {1, 1, 2, 2});
  EXPECT_EQ(run_reference_owned("MaxUnpool", k, {x.view(), idx.view(), small.view()}).status().code(),
            err::kInvalidParam);
  auto far = OwnedTensor::i64({1, 1, 1, 2}, {1, 9});
  EXPECT_EQ(run_reference_owned("MaxUnpool", k, {x.view(), far.view()}).status().code(),
            err::kInvalidParam);
}

}  // namespace
}  // namespace svp::kernels
