// MaxPool, AveragePool and GlobalAveragePool reference kernels (float32).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
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

std::vector<float> pseudo_random(std::size_t n, std::uint32_t seed) {
  std::vector<float> v(n);
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>((seed >> 8) % 2001) / 1000.0f - 1.0f;
  }
  return v;
}

Result<std::vector<OwnedTensor>> run1(const char* op, const Attrs& a, const OwnedTensor& x) {
  return run_reference_owned(op, a, {x.view()});
}

F out0(const Result<std::vector<OwnedTensor>>& r) { return r.ok() ? r.value()[0].values<float>() : F{}; }

TEST(KernelsMaxPool, TwoByTwoStrideTwoTakesBlockMaxima) {
  // x = 1..16 as 4x4; blocks {1,2,5,6} {3,4,7,8} {9,10,13,14} {11,12,15,16}.
  F xv(16);
  for (int i = 0; i < 16; ++i) xv[static_cast<std::size_t>(i)] = static_cast<float>(i + 1);
  auto x = OwnedTensor::f32({1, 1, 4, 4}, xv);
  auto r = run1("MaxPool", {{"kernel_shape", I{2, 2}}, {"strides", I{2, 2}}}, x);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].view().dims, (I{1, 1, 2, 2}));
  EXPECT_EQ(out0(r), (F{6, 8, 14, 16}));
}

TEST(KernelsMaxPool, PaddingNeverWinsOverNegativeValues) {
  // x(r, c) = -(3r + c + 1) decreases along rows and columns, so with k 2, stride 1 and
  // pads 1 the max of window (i, j) is x(max(i-1, 0), max(j-1, 0)) — never a padded 0.
  auto x = OwnedTensor::f32({1, 1, 3, 3}, {-1, -2, -3, -4, -5, -6, -7, -8, -9});
  auto r = run1("MaxPool", {{"kernel_shape", I{2, 2}}, {"pads", I{1, 1, 1, 1}}}, x);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].view().dims, (I{1, 1, 4, 4}));
  F want;
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) want.push_back(-(3.0f * std::max(i - 1, 0) + std::max(j - 1, 0) + 1));
  }
  EXPECT_EQ(out0(r), want);
}

TEST(KernelsMaxPool, CeilModeAddsPartialWindow) {
  // 1-D x = [1 5 2 4 3], k 2, s 2: floor mode windows [1 5] [2 4] → [5 4];
  // ceil mode adds the partial window [3] → [5 4 3].
  auto x = OwnedTensor::f32({1, 1, 5}, {1, 5, 2, 4, 3});
  EXPECT_EQ(out0(run1("MaxPool", {{"kernel_shape", I{2}}, {"strides", I{2}}}, x)), (F{5, 4}));
  EXPECT_EQ(out0(run1("MaxPool", {{"kernel_shape", I{2}}, {"strides", I{2}}, {"ceil_mode", std::int64_t{1}}}, x)),
            (F{5, 4, 3}));
}

TEST(KernelsMaxPool, CeilModeDropsWindowStartingInTrailingPadding) {
  // in 5, k 2, s 3, pads 1/1: ceil((5 + 2 - 2) / 3) + 1 = 3, but window 3 would start at
  // 2*3 - 1 = 5 = in, i.e. inside the trailing padding → 2 outputs (PyTorch/ONNX rule).
  auto r = infer_shapes("MaxPool",
                        {{"kernel_shape", I{2}}, {"strides", I{3}}, {"pads", I{1, 1}}, {"ceil_mode", std::int64_t{1}}},
                        {{1, 1, 5}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0], (I{1, 1, 2}));
}

TEST(KernelsMaxPool, DilationSpacesTheTaps) {
  // x = [1 9 2 8 3], k 2, dilation 2: windows {x0,x2} {x1,x3} {x2,x4} → [2 9 3].
  auto x = OwnedTensor::f32({1, 1, 5}, {1, 9, 2, 8, 3});
  EXPECT_EQ(out0(run1("MaxPool", {{"kernel_shape", I{2}}, {"dilations", I{2}}}, x)), (F{2, 9, 3}));
}

TEST(KernelsMaxPool, MatchesNaiveFormulaWithStridesAndAsymmetricPads) {
  const I dims{2, 3, 7, 8};
  const auto xv = pseudo_random(2 * 3 * 7 * 8, 5);
  auto x = OwnedTensor::f32(dims, xv);
  auto r = run1("MaxPool", {{"kernel_shape", I{3, 2}}, {"strides", I{2, 3}}, {"pads", I{1, 0, 2, 1}}}, x);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const int oh = (7 + 1 + 2 - 3) / 2 + 1, ow = (8 + 0 + 1 - 2) / 3 + 1;
  EXPECT_EQ(r.value()[0].view().dims, (I{2, 3, oh, ow}));
  const F y = out0(r);
  for (int p = 0; p < 6; ++p) {
    for (int i = 0; i < oh; ++i) {
      for (int j = 0; j < ow; ++j) {
        float m = -std::numeric_limits<float>::infinity();
        for (int a = i * 2 - 1; a < i * 2 - 1 + 3; ++a) {
          for (int b = j * 3; b < j * 3 + 2; ++b) {
            if (a >= 0 && a < 7 && b >= 0 && b < 8) m = std::max(m, xv[static_cast<std::size_t>((p * 7 + a) * 8 + b)]);
          }
        }
        EXPECT_EQ(y[static_cast<std::size_t>((p * oh + i) * ow + j)], m);
      }
    }
  }
}

TEST(KernelsMaxPool, NanPropagates) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto x = OwnedTensor::f32({1, 1, 4}, {1, nan, 3, 2});
  const F y = out0(run1("MaxPool", {{"kernel_shape", I{2}}, {"strides", I{2}}}, x));
  ASSERT_EQ(y.size(), 2u);
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_EQ(y[1], 3.0f);
}

TEST(KernelsMaxPool, AutoPadSameUpperKeepsCeilOfInputOverStride) {
  // in 5, k 3, s 2: out ceil(5/2) = 3, total pad (3-1)*2 + 3 - 5 = 2 → 1 and 1.
  // x = [3 1 4 1 5]: windows [pad 3 1] [1 4 1]... starts -1, 1, 3 → [3, 4, 5].
  auto x = OwnedTensor::f32({1, 1, 5}, {3, 1, 4, 1, 5});
  auto r = run1("MaxPool", {{"kernel_shape", I{3}}, {"strides", I{2}}, {"auto_pad", std::string("SAME_UPPER")}}, x);
  EXPECT_EQ(out0(r), (F{3, 4, 5}));
}

TEST(KernelsMaxPool, BadAttributesAreRejected) {
  auto code = [](const Attrs& a, const Shape& s) { return infer_shapes("MaxPool", a, {s}).status().code(); };
  EXPECT_EQ(code({}, {1, 1, 4, 4}), err::kParseModel);                             // kernel_shape missing
  EXPECT_EQ(code({{"kernel_shape", I{2}}}, {1, 1, 4, 4}), err::kParseModel);       // wrong length
  EXPECT_EQ(code({{"kernel_shape", I{2, 0}}}, {1, 1, 4, 4}), err::kInvalidParam);  // zero kernel
  EXPECT_EQ(code({{"kernel_shape", I{2, 2}}, {"pads", I{2, 0, 0, 0}}}, {1, 1, 4, 4}), err::kInvalidParam);
  EXPECT_EQ(code({{"kernel_shape", I{2, 2}}, {"strides", I{1, -1}}}, {1, 1, 4, 4}), err::kInvalidParam);
  EXPECT_EQ(code({{"kernel_shape", I{5, 5}}}, {1, 1, 4, 4}), err::kInvalidParam);  // bigger than input
  EXPECT_EQ(code({{"kernel_shape", I{2}}}, {4, 4}), err::kInvalidParam);           // rank 2
  EXPECT_EQ(code({{"kernel_shape", I{2, 2}}, {"ceil_mode", std::int64_t{2}}}, {1, 1, 4, 4}), err::kInvalidParam);
}

TEST(KernelsMaxPool, IndicesMustBeInt64AndThereAreAtMostTwoOutputs) {
  // The values of the Indices output: kernels_norm_test.
  auto x = OwnedTensor::f32({1, 1, 2, 2}, {1, 2, 3, 4});
  OwnedTensor y(DType::kFloat32, {1, 1, 1, 1}), idx(DType::kInt64, {1, 1, 1, 1}), idx32(DType::kInt32, {1, 1, 1, 1});
  const Attrs k{{"kernel_shape", I{2, 2}}};
  ASSERT_TRUE(run_reference("MaxPool", k, {x.view()}, {y.view(), idx.view()}).ok());
  EXPECT_EQ(idx.values<std::int64_t>(), (I{3}));
  EXPECT_EQ(run_reference("MaxPool", k, {x.view()}, {y.view(), idx32.view()}).code(), err::kUnsupportedDataType);
  EXPECT_EQ(run_reference("MaxPool", k, {x.view()}, {y.view(), idx.view(), idx.view()}).code(), err::kInvalidParam);
}

TEST(KernelsAveragePool, CountIncludePadChangesBorderDivisors) {
  // x = [1 2 3], k 2, s 1, pads 1/1 → windows [pad 1] [1 2] [2 3] [3 pad]:
  // exclude pad: 1/1, 3/2, 5/2, 3/1;  include pad: 1/2, 3/2, 5/2, 3/2.
  auto x = OwnedTensor::f32({1, 1, 3}, {1, 2, 3});
  Attrs a{{"kernel_shape", I{2}}, {"pads", I{1, 1}}};
  EXPECT_EQ(out0(run1("AveragePool", a, x)), (F{1, 1.5f, 2.5f, 3}));
  a.set("count_include_pad", std::int64_t{1});
  EXPECT_EQ(out0(run1("AveragePool", a, x)), (F{0.5f, 1.5f, 2.5f, 1.5f}));
}

TEST(KernelsAveragePool, CeilModeWindowBeyondPaddingCountsOnlyRealTaps) {
  // x = 1..6, k 3, s 2, ceil mode: windows [1 2 3] [3 4 5] [5 6 (past end)] → 2, 4, 5.5,
  // with or without count_include_pad (the overhang is outside the padded input too).
  auto x = OwnedTensor::f32({1, 1, 6}, {1, 2, 3, 4, 5, 6});
  Attrs a{{"kernel_shape", I{3}}, {"strides", I{2}}, {"ceil_mode", std::int64_t{1}}};
  EXPECT_EQ(out0(run1("AveragePool", a, x)), (F{2, 4, 5.5f}));
  a.set("count_include_pad", std::int64_t{1});
  EXPECT_EQ(out0(run1("AveragePool", a, x)), (F{2, 4, 5.5f}));
}

TEST(KernelsAveragePool, TwoDimensionalMatchesNaiveMean) {
  const auto xv = pseudo_random(1 * 2 * 5 * 6, 9);
  auto x = OwnedTensor::f32({1, 2, 5, 6}, xv);
  auto r = run1("AveragePool",
                {{"kernel_shape", I{2, 3}},
                 {"strides", I{2, 1}},
                 {"pads", I{1, 1, 0, 1}},
                 {"count_include_pad", std::int64_t{1}}},
                x);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const int oh = (5 + 1 - 2) / 2 + 1, ow = (6 + 2 - 3) / 1 + 1;
  EXPECT_EQ(r.value()[0].view().dims, (I{1, 2, oh, ow}));
  const F y = out0(r);
  for (int p = 0; p < 2; ++p) {
    for (int i = 0; i < oh; ++i) {
      for (int j = 0; j < ow; ++j) {
        double s = 0;
        for (int a = i * 2 - 1; a < i * 2 + 1; ++a) {
          for (int b = j - 1; b < j + 2; ++b) {
            if (a >= 0 && a < 5 && b >= 0 && b < 6) s += xv[static_cast<std::size_t>((p * 5 + a) * 6 + b)];
          }
        }
        // All windows lie inside the padded extent here, so the divisor is always 2*3.
        EXPECT_NEAR(y[static_cast<std::size_t>((p * oh + i) * ow + j)], s / 6.0, 1e-6);
      }
    }
  }
}

TEST(KernelsGlobalAveragePool, AveragesEachChannelPlane) {
  // channel 0: (1+2+3+4)/4 = 2.5; channel 1: (10+20+30+40)/4 = 25.
  auto x = OwnedTensor::f32({1, 2, 2, 2}, {1, 2, 3, 4, 10, 20, 30, 40});
  auto r = run1("GlobalAveragePool", {}, x);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].view().dims, (I{1, 2, 1, 1}));
  EXPECT_EQ(out0(r), (F{2.5f, 25}));
  EXPECT_EQ(infer_shapes("GlobalAveragePool", {}, {{2, 3, 4, 5, 6}}).value()[0], (I{2, 3, 1, 1, 1}));
  EXPECT_EQ(infer_shapes("GlobalAveragePool", {}, {{2, 3}}).status().code(), err::kInvalidParam);
}

}  // namespace
}  // namespace svp::kernels
