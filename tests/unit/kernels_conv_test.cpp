// Conv and ConvTranspose reference kernels (float32) against hand-computed values and a
// naive per-output-element formula written independently here.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "kernels/invoke.h"
#include "kernels/kernels.h"
#include "model/tensor.h"

namespace svp::kernels {
namespace {

using model::DType;
using I = std::vector<std::int64_t>;

std::vector<float> pseudo_random(std::size_t n, std::uint32_t seed) {
  std::vector<float> v(n);
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>((seed >> 8) % 2001) / 1000.0f - 1.0f;  // [-1, 1] in steps of 0.001
  }
  return v;
}

std::int64_t count(const I& d) {
  std::int64_t n = 1;
  for (auto v : d) n *= v;
  return n;
}

void expect_all_near(const std::vector<float>& got, const std::vector<float>& want, float tol) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

// Conv geometry for the naive formulas: up to 3 spatial dims, in the order given.
struct Geo {
  I x = {};                             // N, C, spatial...
  I w = {};                             // Conv: M, C/g, k...   ConvTranspose: C, M/g, k...
  I strides = {}, dil = {}, pads = {};  // pads: begin..., end...
  std::int64_t group = 1;
  I out_pad = {};  // ConvTranspose only
};

// Output element (n, m, o...) = b[m] + sum_{c in group, k} x[n, c, o*s - pb + k*d] * w[m, c, k].
std::vector<float> naive_conv(const Geo& g, const std::vector<float>& x, const std::vector<float>& w,
                              const std::vector<float>& b, I* out_dims) {
  const std::size_t ns = g.x.size() - 2;
  const std::int64_t N = g.x[0], C = g.x[1], M = g.w[0], cg = C / g.group, mg = M / g.group;
  I in(g.x.begin() + 2, g.x.end()), k(g.w.begin() + 2, g.w.end()), out(ns);
  for (std::size_t i = 0; i < ns; ++i) {
    out[i] = (in[i] + g.pads[i] + g.pads[i + ns] - (k[i] - 1) * g.dil[i] - 1) / g.strides[i] + 1;
  }
  *out_dims = {N, M};
  out_dims->insert(out_dims->end(), out.begin(), out.end());
  std::vector<float> y(static_cast<std::size_t>(count(*out_dims)));
  const std::int64_t osz = count(out), isz = count(in), ksz = count(k);
  for (std::int64_t n = 0; n < N; ++n) {
    for (std::int64_t m = 0; m < M; ++m) {
      for (std::int64_t oi = 0; oi < osz; ++oi) {
        // Unflatten the output position.
        I o(ns);
        std::int64_t rem = oi;
        for (std::size_t i = ns; i-- > 0;) {
          o[i] = rem % out[i];
          rem /= out[i];
        }
        double acc = b.empty() ? 0.0 : b[static_cast<std::size_t>(m)];
        for (std::int64_t cl = 0; cl < cg; ++cl) {
          const std::int64_t c = (m / mg) * cg + cl;
          for (std::int64_t ki = 0; ki < ksz; ++ki) {
            I kk(ns);
            std::int64_t r2 = ki;
            for (std::size_t i = ns; i-- > 0;) {
              kk[i] = r2 % k[i];
              r2 /= k[i];
            }
            std::int64_t xoff = 0;
            bool inside = true;
            for (std::size_t i = 0; i < ns; ++i) {
              const std::int64_t p = o[i] * g.strides[i] - g.pads[i] + kk[i] * g.dil[i];
              inside = inside && p >= 0 && p < in[i];
              xoff = xoff * in[i] + p;
            }
            if (!inside) continue;
            acc += static_cast<double>(x[static_cast<std::size_t>((n * C + c) * isz + xoff)]) *
                   w[static_cast<std::size_t>((m * cg + cl) * ksz + ki)];
          }
        }
        y[static_cast<std::size_t>((n * M + m) * osz + oi)] = static_cast<float>(acc);
      }
    }
  }
  return y;
}

// ConvTranspose as a gather: y[n, m, o] = b[m] + sum over input positions i and taps k with
// i*s - pb + k*d == o of x[n, c, i] * w[c, m % (M/g), k].
std::vector<float> naive_conv_transpose(const Geo& g, const std::vector<float>& x, const std::vector<float>& w,
                                        const std::vector<float>& b, I* out_dims) {
  const std::size_t ns = g.x.size() - 2;
  const std::int64_t N = g.x[0], C = g.x[1], mg = g.w[1], M = mg * g.group, cg = C / g.group;
  I in(g.x.begin() + 2, g.x.end()), k(g.w.begin() + 2, g.w.end()), out(ns);
  for (std::size_t i = 0; i < ns; ++i) {
    const std::int64_t op = g.out_pad.empty() ? 0 : g.out_pad[i];
    out[i] = g.strides[i] * (in[i] - 1) + op + (k[i] - 1) * g.dil[i] + 1 - g.pads[i] - g.pads[i + ns];
  }
  *out_dims = {N, M};
  out_dims->insert(out_dims->end(), out.begin(), out.end());
  std::vector<float> y(static_cast<std::size_t>(count(*out_dims)));
  const std::int64_t osz = count(out), isz = count(in), ksz = count(k);
  for (std::int64_t n = 0; n < N; ++n) {
    for (std::int64_t m = 0; m < M; ++m) {
      const std::int64_t grp = m / mg;
      for (std::int64_t oi = 0; oi < osz; ++oi) {
        I o(ns);
        std::int64_t rem = oi;
        for (std::size_t i = ns; i-- > 0;) {
          o[i] = rem % out[i];
          rem /= out[i];
        }
        double acc = b.empty() ? 0.0 : b[static_cast<std::size_t>(m)];
        for (std::int64_t cl = 0; cl < cg; ++cl) {
          const std::int64_t c = grp * cg + cl;
          for (std::int64_t ii = 0; ii < isz; ++ii) {
            I iv(ns);
            std::int64_t r1 = ii;
            for (std::size_t d = ns; d-- > 0;) {
              iv[d] = r1 % in[d];
              r1 /= in[d];
            }
            for (std::int64_t ki = 0; ki < ksz; ++ki) {
              I kk(ns);
              std::int64_t r2 = ki;
              for (std::size_t d = ns; d-- > 0;) {
                kk[d] = r2 % k[d];
                r2 /= k[d];
              }
              bool hit = true;
              for (std::size_t d = 0; d < ns; ++d) {
                hit = hit && iv[d] * g.strides[d] - g.pads[d] + kk[d] * g.dil[d] == o[d];
              }
              if (!hit) continue;
              acc += static_cast<double>(x[static_cast<std::size_t>((n * C + c) * isz + ii)]) *
                     w[static_cast<std::size_t>((c * mg + m % mg) * ksz + ki)];
            }
          }
        }
        y[static_cast<std::size_t>((n * M + m) * osz + oi)] = static_cast<float>(acc);
      }
    }
  }
  return y;
}

Attrs geo_attrs(const Geo& g) {
  Attrs a;
  a.set("strides", g.strides);
  a.set("dilations", g.dil);
  a.set("pads", g.pads);
  a.set("group", g.group);
  if (!g.out_pad.empty()) a.set("output_padding", g.out_pad);
  return a;
}

void check_conv(const Geo& g, bool bias, std::uint32_t seed) {
  const auto x = pseudo_random(static_cast<std::size_t>(count(g.x)), seed);
  const auto w = pseudo_random(static_cast<std::size_t>(count(g.w)), seed + 1);
  const std::vector<float> b = bias ? pseudo_random(static_cast<std::size_t>(g.w[0]), seed + 2) : std::vector<float>{};
  I want_dims;
  const auto want = naive_conv(g, x, w, b, &want_dims);
  auto tx = OwnedTensor::f32(g.x, x), tw = OwnedTensor::f32(g.w, w), tb = OwnedTensor::f32({g.w[0]}, b);
  std::vector<TensorView> in{tx.view(), tw.view()};
  if (bias) in.push_back(tb.view());
  auto r = run_reference_owned("Conv", geo_attrs(g), in);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].view().dims, want_dims);
  expect_all_near((*r)[0].values<float>(), want, 1e-4f);
}

void check_conv_transpose(const Geo& g, bool bias, std::uint32_t seed) {
  const auto x = pseudo_random(static_cast<std::size_t>(count(g.x)), seed);
  const auto w = pseudo_random(static_cast<std::size_t>(count(g.w)), seed + 1);
  const std::int64_t M = g.w[1] * g.group;
  const std::vector<float> b = bias ? pseudo_random(static_cast<std::size_t>(M), seed + 2) : std::vector<float>{};
  I want_dims;
  const auto want = naive_conv_transpose(g, x, w, b, &want_dims);
  auto tx = OwnedTensor::f32(g.x, x), tw = OwnedTensor::f32(g.w, w), tb = OwnedTensor::f32({M}, b);
  std::vector<TensorView> in{tx.view(), tw.view()};
  if (bias) in.push_back(tb.view());
  auto r = run_reference_owned("ConvTranspose", geo_attrs(g), in);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].view().dims, want_dims);
  expect_all_near((*r)[0].values<float>(), want, 1e-4f);
}

TEST(KernelsConv, TwoByTwoOnesKernelSumsEachWindowPlusBias) {
  // x = [[1 2 3] [4 5 6] [7 8 9]], w = 2x2 ones, bias 0.5:
  // 1+2+4+5=12, 2+3+5+6=16, 4+5+7+8=24, 5+6+8+9=28, each + 0.5.
  auto x = OwnedTensor::f32({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto w = OwnedTensor::f32({1, 1, 2, 2}, {1, 1, 1, 1});
  auto b = OwnedTensor::f32({1}, {0.5f});
  auto r = run_reference_owned("Conv", {}, {x.view(), w.view(), b.view()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].view().dims, (I{1, 1, 2, 2}));
  EXPECT_EQ((*r)[0].values<float>(), (std::vector<float>{12.5f, 16.5f, 24.5f, 28.5f}));
}

TEST(KernelsConv, PaddedStridedConvHandComputed) {
  // x = 1..9 (3x3), w = [[1 0] [0 -1]], pads 1 all sides, stride 2 → out 2x2:
  // out(0,0): taps at (-1,-1)=pad,(−1,0)=pad,(0,-1)=pad,(0,0)=1 → 1*0... only w11=-1 hits x(0,0)=1 → -1
  // out(0,1): window rows -1..0, cols 1..2 → w00*x(-1,1)=0, w11*x(0,2)=-3 → -3
  // out(1,0): rows 1..2, cols -1..0 → w11*x(2,0)=-7 → -7
  // out(1,1): rows 1..2, cols 1..2 → w00*x(1,1)=5, w11*x(2,2)=-9 → -4
  auto x = OwnedTensor::f32({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto w = OwnedTensor::f32({1, 1, 2, 2}, {1, 0, 0, -1});
  Attrs a{{"pads", I{1, 1, 1, 1}}, {"strides", I{2, 2}}};
  auto r = run_reference_owned("Conv", a, {x.view(), w.view()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].view().dims, (I{1, 1, 2, 2}));
  EXPECT_EQ((*r)[0].values<float>(), (std::vector<float>{-1, -3, -7, -4}));
}

TEST(KernelsConv, DilatedKernelSkipsInputs) {
  // 1-D: x = 1..5, w = [1, 1] with dilation 3 → y[i] = x[i] + x[i+3]: 1+4=5, 2+5=7.
  auto x = OwnedTensor::f32({1, 1, 5}, {1, 2, 3, 4, 5});
  auto w = OwnedTensor::f32({1, 1, 2}, {1, 1});
  auto r = run_reference_owned("Conv", {{"dilations", I{3}}}, {x.view(), w.view()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].values<float>(), (std::vector<float>{5, 7}));
}

TEST(KernelsConv, MatchesNaiveFormulaAcrossGeometries) {
  // strides, asymmetric pads, dilation, several channels, batch 2
  check_conv({{2, 3, 7, 6}, {4, 3, 3, 2}, {2, 1}, {1, 2}, {1, 0, 2, 1}}, true, 1);
  // stride 3, big pads (windows fully in padding)
  check_conv({{1, 2, 5, 5}, {3, 2, 3, 3}, {3, 3}, {1, 1}, {3, 3, 3, 3}}, true, 2);
  // 1x1 kernel
  check_conv({{1, 5, 4, 4}, {2, 5, 1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}}, false, 3);
}

TEST(KernelsConv, GroupedAndDepthwiseMatchNaiveFormula) {
  Geo grouped{{1, 4, 6, 5}, {6, 2, 3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, 2};
  check_conv(grouped, true, 4);
  Geo depthwise{{2, 3, 6, 6}, {3, 1, 3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, 3};
  check_conv(depthwise, true, 5);
  Geo multiplier{{1, 2, 5, 5}, {4, 1, 3, 3}, {1, 1}, {2, 2}, {2, 2, 2, 2}, 2};  // depth multiplier 2
  check_conv(multiplier, false, 6);
}

TEST(KernelsConv, OneAndThreeSpatialDimsMatchNaiveFormula) {
  check_conv({{2, 3, 11}, {4, 3, 3}, {2}, {2}, {1, 2}}, true, 7);
  check_conv({{1, 2, 4, 5, 6}, {3, 2, 2, 3, 2}, {1, 2, 1}, {1, 1, 2}, {0, 1, 1, 1, 0, 1}}, true, 8);
}

TEST(KernelsConv, AutoPadSameAndValidChooseTheDocumentedPads) {
  // in 5, k 2, s 2: SAME out = ceil(5/2) = 3, total pad = (3-1)*2 + 2 - 5 = 1.
  // SAME_UPPER → pads (0, 1); SAME_LOWER → (1, 0); VALID → out floor((5-2)/2)+1 = 2, no pads.
  const auto xv = pseudo_random(25, 11);
  const auto wv = pseudo_random(4, 12);
  auto x = OwnedTensor::f32({1, 1, 5, 5}, xv);
  auto w = OwnedTensor::f32({1, 1, 2, 2}, wv);
  struct Case {
    const char* mode;
    I pads;
  } cases[] = {{"SAME_UPPER", {0, 0, 1, 1}}, {"SAME_LOWER", {1, 1, 0, 0}}, {"VALID", {0, 0, 0, 0}}};
  for (const Case& c : cases) {
    Attrs a{{"auto_pad", std::string(c.mode)}, {"strides", I{2, 2}}};
    auto r = run_reference_owned("Conv", a, {x.view(), w.view()});
    ASSERT_TRUE(r.ok()) << r.status().message();
    I dims;
    const auto want = naive_conv({{1, 1, 5, 5}, {1, 1, 2, 2}, {2, 2}, {1, 1}, c.pads}, xv, wv, {}, &dims);
    EXPECT_EQ((*r)[0].view().dims, dims) << c.mode;
    expect_all_near((*r)[0].values<float>(), want, 1e-5f);
  }
}

TEST(KernelsConv, InferShapesReportsOutputShape) {
  auto r = infer_shapes("Conv", {{"pads", I{1, 1, 1, 1}}, {"strides", I{2, 2}}}, {{1, 3, 224, 224}, {64, 3, 7, 7}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0], (I{1, 64, 110, 110}));  // floor((224 + 2 - 7) / 2) + 1
}

TEST(KernelsConv, BadShapesAndAttributesAreRejected) {
  const std::vector<Shape> ok{{1, 4, 8, 8}, {6, 2, 3, 3}};
  auto code = [](const Attrs& a, const std::vector<Shape>& s) { return infer_shapes("Conv", a, s).status().code(); };
  EXPECT_EQ(code({{"group", std::int64_t{2}}}, ok), err::kNone);
  EXPECT_EQ(code({{"group", std::int64_t{3}}}, ok), err::kInvalidParam);  // 4 channels, group 3
  EXPECT_EQ(code({{"group", std::int64_t{0}}}, ok), err::kInvalidParam);
  EXPECT_EQ(code({}, ok), err::kInvalidParam);  // W expects 2 input channels per group, X has 4
  EXPECT_EQ(code({{"group", std::int64_t{2}}, {"strides", I{0, 1}}}, ok), err::kInvalidParam);
  EXPECT_EQ(code({{"group", std::int64_t{2}}, {"strides", I{1}}}, ok), err::kParseModel);
  EXPECT_EQ(code({{"group", std::int64_t{2}}, {"pads", I{1, 1}}}, ok), err::kParseModel);
  EXPECT_EQ(code({{"group", std::int64_t{2}}, {"pads", I{-1, 0, 0, 0}}}, ok), err::kInvalidParam);
  EXPECT_EQ(code({{"group", std::int64_t{2}}, {"dilations", I{0, 1}}}, ok), err::kInvalidParam);
  EXPECT_EQ(code({{"group", std::int64_t{2}}, {"kernel_shape", I{5, 5}}}, ok), err::kInvalidParam);
  EXPECT_EQ(code({{"group", std::int64_t{2}}, {"auto_pad", std::string("SAME")}}, ok), err::kParseModel);
  EXPECT_EQ(code({{"group", std::int64_t{2}}, {"auto_pad", std::string("VALID")}, {"pads", I{1, 1, 1, 1}}}, ok),
            err::kParseModel);
  EXPECT_EQ(code({{"group", std::string("2")}}, ok), err::kParseModel);  // wrong attribute type
  EXPECT_EQ(code({{"group", std::int64_t{2}}}, {{1, 4, 2, 2}, {6, 2, 3, 3}}), err::kInvalidParam);  // input < kernel
  EXPECT_EQ(code({}, {{4, 8, 8}, {6, 4, 3, 3}}), err::kInvalidParam);                               // rank mismatch
  EXPECT_EQ(code({}, {{1, 4, 8}, {6, 4}}), err::kInvalidParam);
  EXPECT_EQ(code({{"group", std::int64_t{2}}}, {{1, 4, 8, 8}, {6, 2, 3, 3}, {5}}), err::kInvalidParam);  // bias size
  EXPECT_EQ(code({}, {{1, 4, 8, 8}, {6, 4, 0, 3}}), err::kInvalidParam);                                 // empty kernel
  EXPECT_EQ(code({}, {{1, 4, -8, 8}, {6, 4, 3, 3}}), err::kInvalidParam);                                // negative dim
  EXPECT_EQ(infer_shapes("Conv", {}, {{1, 4, 8, 8}}).status().code(), err::kInvalidParam);               // missing W
}

TEST(KernelsConv, RunRejectsWrongOutputShapeAndMissingData) {
  auto x = OwnedTensor::f32({1, 1, 3, 3}, std::vector<float>(9, 1.0f));
  auto w = OwnedTensor::f32({1, 1, 2, 2}, std::vector<float>(4, 1.0f));
  OwnedTensor y(DType::kFloat32, {1, 1, 3, 3});
  EXPECT_EQ(run_reference("Conv", {}, {x.view(), w.view()}, {y.view()}).code(), err::kInvalidParam);
  OwnedTensor y2(DType::kFloat32, {1, 1, 2, 2});
  TensorView no_data = x.view();
  no_data.data = nullptr;
  EXPECT_EQ(run_reference("Conv", {}, {no_data, w.view()}, {y2.view()}).code(), err::kInvalidParam);
  EXPECT_EQ(run_reference("Conv", {}, {x.view(), w.view()}, {}).code(), err::kInvalidParam);
  EXPECT_TRUE(run_reference("Conv", {}, {x.view(), w.view()}, {y2.view()}).ok());
}

TEST(KernelsConv, IntegerInputsWithoutQuantizationAreUnsupported) {
  OwnedTensor x(DType::kInt32, {1, 1, 3, 3}), w(DType::kInt32, {1, 1, 2, 2}), y(DType::kInt32, {1, 1, 2, 2});
  Status s = run_reference("Conv", {}, {x.view(), w.view()}, {y.view()});
  EXPECT_EQ(s.code(), err::kUnsupportedDataType);
  EXPECT_NE(s.message().find("Conv"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("int32"), std::string::npos) << s.message();
}

TEST(KernelsConvTranspose, TwoByTwoInputOnesKernelHandComputed) {
  // Every input element adds itself to a 2x2 block of the 3x3 output:
  // [1, 1+2, 2; 1+3, 1+2+3+4, 2+4; 3, 3+4, 4].
  auto x = OwnedTensor::f32({1, 1, 2, 2}, {1, 2, 3, 4});
  auto w = OwnedTensor::f32({1, 1, 2, 2}, {1, 1, 1, 1});
  auto r = run_reference_owned("ConvTranspose", {}, {x.view(), w.view()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].view().dims, (I{1, 1, 3, 3}));
  EXPECT_EQ((*r)[0].values<float>(), (std::vector<float>{1, 3, 2, 4, 10, 6, 3, 7, 4}));
}

TEST(KernelsConvTranspose, StrideTwoInterleavesKernelCopies) {
  // 1-D: x = [1, 2], w = [1, 10, 100], stride 2 → positions 0..4:
  // y[0]=1, y[1]=10, y[2]=100+2, y[3]=20, y[4]=200.
  auto x = OwnedTensor::f32({1, 1, 2}, {1, 2});
  auto w = OwnedTensor::f32({1, 1, 3}, {1, 10, 100});
  auto r = run_reference_owned("ConvTranspose", {{"strides", I{2}}}, {x.view(), w.view()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].values<float>(), (std::vector<float>{1, 10, 102, 20, 200}));
}

TEST(KernelsConvTranspose, MatchesNaiveFormulaAcrossGeometries) {
  check_conv_transpose({{2, 3, 4, 5}, {3, 2, 3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}}, true, 21);
  check_conv_transpose({{1, 2, 3, 3}, {2, 3, 2, 3}, {2, 3}, {2, 1}, {0, 1, 1, 0}, 1, {1, 2}}, true, 22);
  check_conv_transpose({{1, 4, 3, 4}, {4, 1, 3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, 4, {1, 1}}, true, 23);  // depthwise
  check_conv_transpose({{1, 4, 5}, {4, 3, 4}, {3}, {1}, {2, 1}, 2}, false, 24);                           // 1-D, groups
}

TEST(KernelsConvTranspose, OutputShapeAttributeDerivesPads) {
  // in 3, k 3, s 2: full = 2*(3-1) + 3 = 7. output_shape 6 → total pad 1:
  // NOTSET/SAME_LOWER put the odd pad at the beginning (1, 0), SAME_UPPER at the end (0, 1).
  const auto xv = pseudo_random(9, 31);
  const auto wv = pseudo_random(9, 32);
  auto x = OwnedTensor::f32({1, 1, 3, 3}, xv);
  auto w = OwnedTensor::f32({1, 1, 3, 3}, wv);
  struct Case {
    const char* mode;
    I pads;
  } cases[] = {{"NOTSET", {1, 1, 0, 0}}, {"SAME_UPPER", {0, 0, 1, 1}}};
  for (const Case& c : cases) {
    Attrs a{{"strides", I{2, 2}}, {"output_shape", I{6, 6}}, {"auto_pad", std::string(c.mode)}};
    auto r = run_reference_owned("ConvTranspose", a, {x.view(), w.view()});
    ASSERT_TRUE(r.ok()) << r.status().message();
    I dims;
    const auto want = naive_conv_transpose({{1, 1, 3, 3}, {1, 1, 3, 3}, {2, 2}, {1, 1}, c.pads}, xv, wv, {}, &dims);
    EXPECT_EQ(dims, (I{1, 1, 6, 6}));
    EXPECT_EQ((*r)[0].view().dims, dims) << c.mode;
    expect_all_near((*r)[0].values<float>(), want, 1e-5f);
  }
}

TEST(KernelsConvTranspose, OutputShapeBeyondTheFullOutputPadsTheEndWithZeros) {
  // in 3, k 3, s 2: full = 7. output_shape 8 → total pad -1 → (0, -1): the full output
  // followed by one row and column no input reaches.
  auto x = OwnedTensor::f32({1, 1, 3, 3}, pseudo_random(9, 33));
  auto w = OwnedTensor::f32({1, 1, 3, 3}, pseudo_random(9, 34));
  auto full = run_reference_owned("ConvTranspose", {{"strides", I{2, 2}}}, {x.view(), w.view()});
  auto big = run_reference_owned("ConvTranspose", {{"strides", I{2, 2}}, {"output_shape", I{8, 8}}},
                                 {x.view(), w.view()});
  ASSERT_TRUE(full.ok() && big.ok()) << big.status().message();
  ASSERT_EQ((*big)[0].view().dims, (I{1, 1, 8, 8}));
  const auto f = (*full)[0].values<float>(), b = (*big)[0].values<float>();
  for (std::size_t i = 0; i < 8; ++i) {
    for (std::size_t j = 0; j < 8; ++j) {
      EXPECT_EQ(b[i * 8 + j], i < 7 && j < 7 ? f[i * 7 + j] : 0.0f) << i << "," << j;
    }
  }
}

TEST(KernelsConvTranspose, SameUpperOutputIsInputTimesStride) {
  auto r = infer_shapes("ConvTranspose", {{"strides", I{2, 2}}, {"auto_pad", std::string("SAME_UPPER")}},
                        {{1, 8, 5, 7}, {8, 4, 3, 3}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0], (I{1, 4, 10, 14}));
}

TEST(KernelsConvTranspose, BadShapesAndAttributesAreRejected) {
  auto code = [](const Attrs& a, const std::vector<Shape>& s) {
    return infer_shapes("ConvTranspose", a, s).status().code();
  };
  EXPECT_EQ(code({}, {{1, 4, 3, 3}, {3, 2, 3, 3}}), err::kInvalidParam);  // W[0] != C
  EXPECT_EQ(code({{"group", std::int64_t{3}}}, {{1, 4, 3, 3}, {4, 2, 3, 3}}), err::kInvalidParam);
  EXPECT_EQ(code({{"output_padding", I{1}}}, {{1, 4, 3, 3}, {4, 2, 3, 3}}), err::kParseModel);
  EXPECT_EQ(code({{"output_padding", I{-1, 0}}}, {{1, 4, 3, 3}, {4, 2, 3, 3}}), err::kInvalidParam);
  EXPECT_EQ(code({{"output_shape", I{0, 9}}}, {{1, 4, 3, 3}, {4, 2, 3, 3}}), err::kInvalidParam);
  EXPECT_EQ(code({{"pads", I{3, 3, 3, 3}}}, {{1, 4, 3, 3}, {4, 2, 3, 3}}), err::kInvalidParam);    // no output
  EXPECT_EQ(code({}, {{1, 4, 3, 3}, {4, 2, 3, 3}, {4}}), err::kInvalidParam);                      // bias != M=2
}

// A ResNet-sized layer gives the right values at interior and border positions. (Its speed
// is a benchmark matter, not a unit-test assertion.)
TEST(KernelsConv, ThreeByThree64To64On56x56MatchesTheFormulaInsideAndOnTheBorder) {
  const auto x = pseudo_random(64 * 56 * 56, 41);
  const auto w = pseudo_random(64 * 64 * 9, 42);
  auto tx = OwnedTensor::f32({1, 64, 56, 56}, x), tw = OwnedTensor::f32({64, 64, 3, 3}, w);
  auto r = run_reference_owned("Conv", {{"pads", I{1, 1, 1, 1}}}, {tx.view(), tw.view()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  // Spot-check one interior and one border element against the formula.
  const auto y = (*r)[0].values<float>();
  for (auto [m, oh, ow] : {std::array<int, 3>{5, 20, 31}, std::array<int, 3>{63, 0, 55}}) {
    double acc = 0;
    for (int c = 0; c < 64; ++c) {
      for (int kh = 0; kh < 3; ++kh) {
        for (int kw = 0; kw < 3; ++kw) {
          const int ih = oh - 1 + kh, iw = ow - 1 + kw;
          if (ih < 0 || ih >= 56 || iw < 0 || iw >= 56) continue;
          acc += static_cast<double>(x[static_cast<std::size_t>((c * 56 + ih) * 56 + iw)]) *
                 w[static_cast<std::size_t>(((m * 64 + c) * 3 + kh) * 3 + kw)];
        }
      }
    }
    EXPECT_NEAR(y[static_cast<std::size_t>((m * 56 + oh) * 56 + ow)], acc, 1e-3);
  }
}

TEST(KernelsConvInteger, SubtractsZeroPointsAndAccumulatesExactly) {
  // x (1,1,2,2) uint8 [10 11 12 13] with zero point 10 → [0 1 2 3]; w 1x1 of 3 with zero
  // point 1 → 2: y = 2 * [0 1 2 3].
  auto x = OwnedTensor::from<std::uint8_t>(DType::kUint8, {1, 1, 2, 2}, {10, 11, 12, 13});
  auto w = OwnedTensor::from<std::uint8_t>(DType::kUint8, {1, 1, 1, 1}, {3});
  auto xzp = OwnedTensor::from<std::uint8_t>(DType::kUint8, {}, {10});
  auto wzp = OwnedTensor::from<std::uint8_t>(DType::kUint8, {}, {1});
  auto r = run_reference_owned("ConvInteger", {}, {x.view(), w.view(), xzp.view(), wzp.view()},
                               {{DType::kInt32, std::nullopt}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].values<std::int32_t>(), (std::vector<std::int32_t>{0, 2, 4, 6}));
  auto f = OwnedTensor::f32({1, 1, 2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(run_reference_owned("ConvInteger", {}, {f.view(), w.view()}, {{DType::kInt32, std::nullopt}}).status().code(),
            err::kUnsupportedDataType);
}

}  // namespace
}  // namespace svp::kernels
