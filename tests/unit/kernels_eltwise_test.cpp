// Element-wise reference kernels (float32): unary activations, Clip, the broadcasting
// binary ops, PRelu, BatchNormalization and Softmax.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "kernels/invoke.h"
#include "kernels/kernels.h"
#include "model/tensor.h"

namespace svp::kernels {
namespace {

using model::DType;
using I = std::vector<std::int64_t>;
using F = std::vector<float>;

const F kSamples{-10, -3, -1.5f, -0.5f, 0, 0.25f, 0.5f, 1.5f, 3, 10};

F run_unary(const char* op, const Attrs& a, const F& x) {
  auto t = OwnedTensor::f32({static_cast<std::int64_t>(x.size())}, x);
  auto r = run_reference_owned(op, a, {t.view()});
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r.value()[0].values<float>() : F{};
}

void expect_unary(const char* op, const Attrs& a, const std::function<double(double)>& f, double tol) {
  const F y = run_unary(op, a, kSamples);
  ASSERT_EQ(y.size(), kSamples.size()) << op;
  for (std::size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], f(kSamples[i]), tol) << op << " at x=" << kSamples[i];
}

TEST(KernelsUnary, ActivationsMatchTheirFormulas) {
  expect_unary(
      "Relu", {}, [](double x) { return x > 0 ? x : 0; }, 0);
  expect_unary(
      "LeakyRelu", {}, [](double x) { return x > 0 ? x : 0.01 * x; }, 1e-7);
  expect_unary(
      "LeakyRelu", {{"alpha", 0.2}}, [](double x) { return x > 0 ? x : 0.2 * x; }, 1e-6);
  expect_unary(
      "Sigmoid", {}, [](double x) { return 1 / (1 + std::exp(-x)); }, 1e-6);
  expect_unary(
      "Tanh", {}, [](double x) { return std::tanh(x); }, 1e-6);
  expect_unary(
      "HardSigmoid", {}, [](double x) { return std::max(0.0, std::min(1.0, 0.2 * x + 0.5)); }, 1e-6);
  expect_unary(
      "HardSigmoid", {{"alpha", 0.5}, {"beta", 0.25}},
      [](double x) { return std::max(0.0, std::min(1.0, 0.5 * x + 0.25)); }, 1e-6);
  expect_unary(
      "HardSwish", {}, [](double x) { return x * std::max(0.0, std::min(1.0, x / 6 + 0.5)); }, 1e-6);
}

TEST(KernelsUnary, HardSwishHandValues) {
  // x * clamp(x/6 + 1/2, 0, 1): -3 → -3*0 = 0; 3 → 3*1 = 3; 1.5 → 1.5*0.75 = 1.125.
  EXPECT_EQ(run_unary("HardSwish", {}, {-3, 3, 1.5f}), (F{0, 3, 1.125f}));
}

TEST(KernelsUnary, IntegerAlphaAttributeIsAccepted) {
  // Attrs::get_float accepts an int attribute: alpha 2 → y = 2x for x < 0.
  EXPECT_EQ(run_unary("LeakyRelu", {{"alpha", std::int64_t{2}}}, {-1, 1}), (F{-2, 1}));
  EXPECT_EQ(infer_shapes("LeakyRelu", {{"alpha", std::string("x")}}, {{1}}).status().code(), err::kParseModel);
  EXPECT_EQ(infer_shapes("HardSigmoid", {{"beta", I{1}}}, {{1}}).status().code(), err::kParseModel);
}

TEST(KernelsClip, BoundsFromInputsAttributesOrNeither) {
  auto x = OwnedTensor::f32({5}, {-2, -1, 0, 1, 2});
  auto lo = OwnedTensor::f32({}, {-0.5f});
  auto hi = OwnedTensor::f32({}, {1.5f});
  auto r = run_reference_owned("Clip", {}, {x.view(), lo.view(), hi.view()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].values<float>(), (F{-0.5f, -0.5f, 0, 1, 1.5f}));
  // Only max: min is an absent optional input (default view).
  r = run_reference_owned("Clip", {}, {x.view(), TensorView{}, hi.view()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].values<float>(), (F{-2, -1, 0, 1, 1.5f}));
  // Opset-6 attributes.
  r = run_reference_owned("Clip", {{"min", 0.0}, {"max", 1.0}}, {x.view()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].values<float>(), (F{0, 0, 0, 1, 1}));
  // No bounds: identity.
  r = run_reference_owned("Clip", {}, {x.view()});
  EXPECT_EQ(r.value()[0].values<float>(), (F{-2, -1, 0, 1, 2}));
}

TEST(KernelsClip, MinAboveMaxGivesMax) {
  auto x = OwnedTensor::f32({3}, {-5, 0, 5});
  auto lo = OwnedTensor::f32({1}, {2});
  auto hi = OwnedTensor::f32({1}, {1});
  auto r = run_reference_owned("Clip", {}, {x.view(), lo.view(), hi.view()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].values<float>(), (F{1, 1, 1}));
}

TEST(KernelsClip, NonScalarBoundIsRejected) {
  EXPECT_EQ(infer_shapes("Clip", {}, {{4}, {2}}).status().code(), err::kInvalidParam);
}

// Independent broadcasting: output multi-index → input index by taking each input dim
// modulo its size (size-1 dims always index 0), right-aligned.
std::size_t bindex(const I& out_dims, std::size_t linear, const I& in_dims) {
  std::size_t idx = 0, mul = 1;
  for (std::size_t k = 0; k < in_dims.size(); ++k) {
    const std::size_t od = out_dims.size() - 1 - k, id = in_dims.size() - 1 - k;
    std::size_t stride = 1;
    for (std::size_t j = od + 1; j < out_dims.size(); ++j) stride *= static_cast<std::size_t>(out_dims[j]);
    const std::size_t coord = (linear / stride) % static_cast<std::size_t>(out_dims[od]);
    idx += (in_dims[id] == 1 ? 0 : coord) * mul;
    mul *= static_cast<std::size_t>(in_dims[id]);
  }
  return idx;
}

void check_binary(const char* op, const I& da, const I& db, const I& want_dims,
                  const std::function<float(float, float)>& f) {
  std::int64_t na = 1, nb = 1, no = 1;
  for (auto d : da) na *= d;
  for (auto d : db) nb *= d;
  for (auto d : want_dims) no *= d;
  F av(static_cast<std::size_t>(na)), bv(static_cast<std::size_t>(nb));
  for (std::size_t i = 0; i < av.size(); ++i) av[i] = static_cast<float>(i) * 0.5f - 3.0f;
  for (std::size_t i = 0; i < bv.size(); ++i) bv[i] = static_cast<float>(i) * 0.25f + 1.0f;
  auto a = OwnedTensor::f32(da, av), b = OwnedTensor::f32(db, bv);
  auto r = run_reference_owned(op, {}, {a.view(), b.view()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r.value()[0].view().dims, want_dims) << op;
  const F y = r.value()[0].values<float>();
  for (std::size_t i = 0; i < static_cast<std::size_t>(no); ++i) {
    EXPECT_EQ(y[i], f(av[bindex(want_dims, i, da)], bv[bindex(want_dims, i, db)])) << op << " at " << i;
  }
}

TEST(KernelsBinary, AddBroadcastsLikeNumpy) {
  auto add = [](float a, float b) { return a + b; };
  check_binary("Add", {2, 3}, {2, 3}, {2, 3}, add);
  check_binary("Add", {2, 3}, {3}, {2, 3}, add);
  check_binary("Add", {2, 1, 3}, {4, 1}, {2, 4, 3}, add);
  check_binary("Add", {1}, {3, 1, 2}, {3, 1, 2}, add);
  check_binary("Add", {}, {2, 2}, {2, 2}, add);  // scalar
  check_binary("Add", {}, {}, {}, add);          // scalar + scalar
  check_binary("Add", {5, 1, 1, 7}, {1, 6, 1}, {5, 1, 6, 7}, add);
}

TEST(KernelsBinary, SubMulDivUseTheSameBroadcasting) {
  check_binary("Sub", {3, 1}, {1, 4}, {3, 4}, [](float a, float b) { return a - b; });
  check_binary("Sub", {4}, {3, 1}, {3, 4}, [](float a, float b) { return a - b; });  // operand order kept
  check_binary("Mul", {2, 3, 4}, {3, 1}, {2, 3, 4}, [](float a, float b) { return a * b; });
  check_binary("Div", {2, 1, 4}, {1, 3, 1}, {2, 3, 4}, [](float a, float b) { return a / b; });
}

TEST(KernelsBinary, HandComputedValues) {
  // [1 2 3] - [[10] [20]] = [[-9 -8 -7] [-19 -18 -17]]; [1 2 3] / 0 = inf.
  auto a = OwnedTensor::f32({3}, {1, 2, 3});
  auto b = OwnedTensor::f32({2, 1}, {10, 20});
  auto r = run_reference_owned("Sub", {}, {a.view(), b.view()});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value()[0].values<float>(), (F{-9, -8, -7, -19, -18, -17}));
  auto z = OwnedTensor::f32({}, {0});
  r = run_reference_owned("Div", {}, {a.view(), z.view()});
  ASSERT_TRUE(r.ok());
  for (float v : r.value()[0].values<float>()) EXPECT_EQ(v, std::numeric_limits<float>::infinity());
}

TEST(KernelsBinary, IncompatibleShapesAreRejected) {
  EXPECT_EQ(infer_shapes("Add", {}, {{2, 3}, {4}}).status().code(), err::kInvalidParam);
  EXPECT_EQ(infer_shapes("Mul", {}, {{2, 3}, {3, 2}}).status().code(), err::kInvalidParam);
  EXPECT_EQ(infer_shapes("Add", {}, {{2, 3}}).status().code(), err::kInvalidParam);  // one input
}

TEST(KernelsBinary, MixedFloatAndInt64IsUnsupported) {
  auto a = OwnedTensor::f32({2}, {1, 2});
  auto b = OwnedTensor::i64({2}, {1, 2});
  OwnedTensor y(DType::kFloat32, {2});
  EXPECT_EQ(run_reference("Add", {}, {a.view(), b.view()}, {y.view()}).code(), err::kUnsupportedDataType);
}

TEST(KernelsPRelu, PerChannelSlopeBroadcastsOverSpatialDims) {
  // x (1, 2, 1, 2) = [[-1 2] [-3 4]], slope (2, 1, 1) = [0.5, 0.25]:
  // channel 0: -1*0.5 = -0.5, 2; channel 1: -3*0.25 = -0.75, 4.
  auto x = OwnedTensor::f32({1, 2, 1, 2}, {-1, 2, -3, 4});
  auto s = OwnedTensor::f32({2, 1, 1}, {0.5f, 0.25f});
  auto r = run_reference_owned("PRelu", {}, {x.view(), s.view()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].values<float>(), (F{-0.5f, 2, -0.75f, 4}));
  auto s1 = OwnedTensor::f32({1}, {0.1f});
  r = run_reference_owned("PRelu", {}, {x.view(), s1.view()});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value()[0].values<float>(), (F{-0.1f, 2, 0.1f * -3, 4}));
}

TEST(KernelsPRelu, SlopeMustBroadcastToInput) {
  EXPECT_EQ(infer_shapes("PRelu", {}, {{1, 2, 3, 4}, {3}}).status().code(), err::kInvalidParam);           // 3 vs 4
  // A 1-D slope of C values that does not broadcast numpy-style is per channel (opset 6).
  auto x = OwnedTensor::f32({1, 2, 1, 3}, {-1, -1, -1, -2, -2, 2});
  auto slope = OwnedTensor::f32({2}, {0.5f, 0.25f});
  auto r = run_reference_owned("PRelu", {}, {x.view(), slope.view()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].values<float>(), (F{-0.5f, -0.5f, -0.5f, -0.5f, -0.5f, 2}));
  EXPECT_EQ(infer_shapes("PRelu", {}, {{1, 2, 3, 1}, {1, 2, 1, 4}}).status().code(), err::kInvalidParam);  // grows X
  EXPECT_TRUE(infer_shapes("PRelu", {}, {{1, 2, 3, 4}, {4}}).ok());
}

TEST(KernelsBatchNorm, NormalisesPerChannel) {
  // eps 0: channel 0: (x - 1) / sqrt(4) * 1 + 0 → x=1: 0, x=2: 0.5
  //        channel 1: (x - 3) / sqrt(1) * 2 + 1 → x=3: 1, x=4: 3
  auto x = OwnedTensor::f32({1, 2, 1, 2}, {1, 2, 3, 4});
  auto scale = OwnedTensor::f32({2}, {1, 2}), b = OwnedTensor::f32({2}, {0, 1});
  auto mean = OwnedTensor::f32({2}, {1, 3}), var = OwnedTensor::f32({2}, {4, 1});
  auto r = run_reference_owned("BatchNormalization", {{"epsilon", 0.0}},
                               {x.view(), scale.view(), b.view(), mean.view(), var.view()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].values<float>(), (F{0, 0.5f, 1, 3}));
}

TEST(KernelsBatchNorm, DefaultEpsilonAndBatchOfTwoMatchFormula) {
  F xv;
  for (int i = 0; i < 2 * 3 * 4; ++i) xv.push_back(static_cast<float>(i) * 0.3f - 2);
  const F sc{0.5f, 1, 2}, bb{0.1f, -0.2f, 0.3f}, mu{0, 1, -1}, va{1, 0.5f, 2};
  auto x = OwnedTensor::f32({2, 3, 4}, xv);
  auto scale = OwnedTensor::f32({3}, sc), b = OwnedTensor::f32({3}, bb);
  auto mean = OwnedTensor::f32({3}, mu), var = OwnedTensor::f32({3}, va);
  auto r = run_reference_owned("BatchNormalization", {}, {x.view(), scale.view(), b.view(), mean.view(), var.view()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const F y = r.value()[0].values<float>();
  for (std::size_t i = 0; i < xv.size(); ++i) {
    const std::size_t c = (i / 4) % 3;
    EXPECT_NEAR(y[i], (xv[i] - mu[c]) / std::sqrt(va[c] + 1e-5) * sc[c] + bb[c], 1e-5);
  }
}

TEST(KernelsBatchNorm, TrainingModeUsesBatchStatisticsAndUpdatesTheRunningOnes) {
  // One channel, batch [1 3]: mean 2, population variance 1; running mean 0, var 1,
  // momentum 0.5: running mean 0 * 0.5 + 2 * 0.5 = 1, running var 1 * 0.5 + 1 * 0.5 = 1.
  auto x = OwnedTensor::f32({2, 1}, {1, 3});
  auto one = OwnedTensor::f32({1}, {1});
  auto zero = OwnedTensor::f32({1}, {0});
  auto r = run_reference_owned("BatchNormalization",
                               {{"training_mode", std::int64_t{1}}, {"momentum", 0.5}, {"epsilon", 0.0}},
                               {x.view(), one.view(), zero.view(), zero.view(), one.view()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r.value().size(), 3u);
  EXPECT_EQ(r.value()[0].values<float>(), (F{-1, 1}));
  EXPECT_EQ(r.value()[1].values<float>(), (F{1}));
  EXPECT_EQ(r.value()[2].values<float>(), (F{1}));
}

TEST(KernelsBatchNorm, BadParameterShapesAndModesAreRejected) {
  EXPECT_EQ(infer_shapes("BatchNormalization", {}, {{1, 3, 2, 2}, {3}, {3}, {2}, {3}}).status().code(),
            err::kInvalidParam);
  EXPECT_EQ(infer_shapes("BatchNormalization", {{"training_mode", std::int64_t{2}}}, {{1, 3, 2, 2}, {3}, {3}, {3}, {3}})
                .status()
                .code(),
            err::kInvalidParam);
  EXPECT_EQ(infer_shapes("BatchNormalization", {}, {{3}, {3}, {3}, {3}, {3}}).status().code(), err::kInvalidParam);
}

TEST(KernelsSoftmax, LastAxisByDefault) {
  // softmax([1 2 3]) = e^i / (e^1 + e^2 + e^3); row 2 = [0 0 0] → 1/3 each.
  auto x = OwnedTensor::f32({2, 3}, {1, 2, 3, 0, 0, 0});
  auto r = run_reference_owned("Softmax", {}, {x.view()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const F y = r.value()[0].values<float>();
  const double s = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  EXPECT_NEAR(y[0], std::exp(1.0) / s, 1e-7);
  EXPECT_NEAR(y[1], std::exp(2.0) / s, 1e-7);
  EXPECT_NEAR(y[2], std::exp(3.0) / s, 1e-7);
  for (int i = 3; i < 6; ++i) EXPECT_NEAR(y[static_cast<std::size_t>(i)], 1.0 / 3, 1e-7);
}

TEST(KernelsSoftmax, MiddleAndNegativeAxesNormaliseAlongThatAxisOnly) {
  F xv;
  for (int i = 0; i < 2 * 3 * 4; ++i) xv.push_back(static_cast<float>((i * 7) % 11) * 0.5f);
  auto x = OwnedTensor::f32({2, 3, 4}, xv);
  for (std::int64_t axis : {1, -2}) {
    auto r = run_reference_owned("Softmax", {{"axis", axis}}, {x.view()});
    ASSERT_TRUE(r.ok()) << r.status().message();
    const F y = r.value()[0].values<float>();
    for (int n = 0; n < 2; ++n) {
      for (int k = 0; k < 4; ++k) {
        double s = 0;
        for (int c = 0; c < 3; ++c)
          s += std::exp(static_cast<double>(xv[static_cast<std::size_t>((n * 3 + c) * 4 + k)]));
        for (int c = 0; c < 3; ++c) {
          const std::size_t i = static_cast<std::size_t>((n * 3 + c) * 4 + k);
          EXPECT_NEAR(y[i], std::exp(static_cast<double>(xv[i])) / s, 1e-6);
        }
      }
    }
  }
}

TEST(KernelsSoftmax, LargeInputsDoNotOverflow) {
  auto x = OwnedTensor::f32({2}, {1000, 1000});
  auto r = run_reference_owned("Softmax", {}, {x.view()});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value()[0].values<float>(), (F{0.5f, 0.5f}));
}

TEST(KernelsSoftmax, AxisOutOfRangeIsRejected) {
  EXPECT_EQ(infer_shapes("Softmax", {{"axis", std::int64_t{2}}}, {{2, 3}}).status().code(), err::kInvalidParam);
  EXPECT_EQ(infer_shapes("Softmax", {{"axis", std::int64_t{-3}}}, {{2, 3}}).status().code(), err::kInvalidParam);
  EXPECT_EQ(infer_shapes("Softmax", {}, {{}}).status().code(), err::kInvalidParam);  // rank 0
}

}  // namespace
}  // namespace svp::kernels
