// Quantized (int8/uint8, and int16 through the generic path) reference kernels: the integer rule of Conv, ConvTranspose,
// MatMul and Gemm checked bit for bit against the rule of docs/kernels.md computed here
// from independently accumulated integers; integer data movement; the generic
// dequantize → float → requantize path; QuantizeLinear / DequantizeLinear.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/invoke.h"
#include "kernels/kernels.h"
#include "model/tensor.h"

namespace svp::kernels {
namespace {

using model::DType;
using model::Quant;
using I = std::vector<std::int64_t>;
using F = std::vector<float>;
using Q = std::vector<std::int32_t>;

Quant per_tensor(float scale, std::int32_t zp) { return Quant{{scale}, {zp}, -1}; }
Quant pc(F scales, std::int32_t axis) { return Quant{scales, Q(scales.size(), 0), axis}; }

std::int64_t lo_of(DType t) { return t == DType::kInt8 ? -128 : 0; }
std::int64_t hi_of(DType t) { return t == DType::kInt8 ? 127 : 255; }

// Pseudo-random integers in [lo, hi].
Q ints(std::size_t n, std::int32_t lo, std::int32_t hi, std::uint32_t seed) {
  Q v(n);
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = lo + static_cast<std::int32_t>((seed >> 8) % static_cast<std::uint32_t>(hi - lo + 1));
  }
  return v;
}

// The documented requantization, written out: scale_c = ((float)s_x * (float)s_w) / (float)s_y
// in float, v = (float)acc32 + (float)bias, y = saturate(nearbyint(v * scale_c + (float)zp_y)),
// ties to even.
std::int64_t rule(std::int64_t acc, float sx, float sw, float sy, std::int32_t zp, DType t, std::int64_t bias = 0) {
  acc = std::min<std::int64_t>(std::max<std::int64_t>(acc, INT32_MIN), INT32_MAX);
  const float prod = sx * sw;
  const float scale = prod / sy;
  const float v = (static_cast<float>(acc) + static_cast<float>(bias)) * scale + static_cast<float>(zp);
  const double r = static_cast<double>(std::nearbyint(v));
  return static_cast<std::int64_t>(
      std::min<double>(std::max<double>(r, static_cast<double>(lo_of(t))), static_cast<double>(hi_of(t))));
}

// The generic path's output rule: saturate(nearbyint(x / s) + zp), x / s in float.
std::int64_t quant_rule(float x, float s, std::int32_t zp, DType t) {
  const double r = static_cast<double>(std::nearbyint(x / s)) + zp;
  return static_cast<std::int64_t>(
      std::min<double>(std::max<double>(r, static_cast<double>(lo_of(t))), static_cast<double>(hi_of(t))));
}

Q int_values(const OwnedTensor& t) {
  Q v;
  for (std::int64_t i = 0; i < t.elements(); ++i) {
    v.push_back(t.view().dtype == DType::kInt8 ? t.data<std::int8_t>()[i] : t.data<std::uint8_t>()[i]);
  }
  return v;
}

// Naive integer 2-D conv accumulators (no bias): acc[n, m, oh, ow] = sum (x - zx)(w - zw).
std::vector<std::int64_t> naive_conv_acc(const I& xd, const Q& x, std::int32_t zx, const I& wd, const Q& w, const Q& zw,
                                         std::int64_t stride, std::int64_t pad, std::int64_t group, I* out) {
  const std::int64_t N = xd[0], C = xd[1], H = xd[2], W = xd[3], M = wd[0], cg = wd[1], KH = wd[2], KW = wd[3];
  const std::int64_t OH = (H + 2 * pad - KH) / stride + 1, OW = (W + 2 * pad - KW) / stride + 1, mg = M / group;
  *out = {N, M, OH, OW};
  std::vector<std::int64_t> acc;
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t m = 0; m < M; ++m)
      for (std::int64_t oh = 0; oh < OH; ++oh)
        for (std::int64_t ow = 0; ow < OW; ++ow) {
          std::int64_t s = 0;
          for (std::int64_t cl = 0; cl < cg; ++cl)
            for (std::int64_t kh = 0; kh < KH; ++kh)
              for (std::int64_t kw = 0; kw < KW; ++kw) {
                const std::int64_t ih = oh * stride - pad + kh, iw = ow * stride - pad + kw;
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;  // padding is the zero point
                const std::int64_t c = (m / mg) * cg + cl;
                s += (x[static_cast<std::size_t>(((n * C + c) * H + ih) * W + iw)] - zx) *
                     (w[static_cast<std::size_t>(((m * cg + cl) * KH + kh) * KW + kw)] -
                      zw[zw.size() == 1 ? 0 : static_cast<std::size_t>(m)]);
              }
          acc.push_back(s);
        }
  return acc;
}

struct ConvCase {
  DType xt, yt;
  float sx, sy;
  std::int32_t zx, zy;
  F sw;  // 1 = per-tensor, M = per-channel
  I xd, wd;
  std::int64_t stride, pad, group;
  bool bias;
};

void check_int8_conv(const ConvCase& c, std::uint32_t seed) {
  std::int64_t nx = 1, nw = 1;
  for (auto d : c.xd) nx *= d;
  for (auto d : c.wd) nw *= d;
  const Q xv = ints(static_cast<std::size_t>(nx), static_cast<std::int32_t>(lo_of(c.xt)),
                    static_cast<std::int32_t>(hi_of(c.xt)), seed);
  const Q wv = ints(static_cast<std::size_t>(nw), -127, 127, seed + 1);
  const std::int64_t M = c.wd[0];
  const Q bv = ints(static_cast<std::size_t>(M), -5000, 5000, seed + 2);
  auto x = OwnedTensor::q8(c.xt, c.xd, xv, per_tensor(c.sx, c.zx));
  auto w = OwnedTensor::q8(DType::kInt8, c.wd, wv, c.sw.size() == 1 ? per_tensor(c.sw[0], 0) : pc(c.sw, 0));
  auto b = OwnedTensor::from<std::int32_t>(DType::kInt32, {M}, bv);
  Attrs a{{"strides", I{c.stride, c.stride}}, {"pads", I{c.pad, c.pad, c.pad, c.pad}}, {"group", c.group}};
  std::vector<TensorView> in{x.view(), w.view()};
  if (c.bias) in.push_back(b.view());
  auto r = run_reference_owned("Conv", a, in, {{c.yt, per_tensor(c.sy, c.zy)}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  I dims;
  const auto acc = naive_conv_acc(c.xd, xv, c.zx, c.wd, wv, Q{0}, c.stride, c.pad, c.group, &dims);
  ASSERT_EQ(r.value()[0].view().dims, dims);
  const Q got = int_values(r.value()[0]);
  const std::int64_t plane = dims[2] * dims[3];
  int saturated = 0;
  for (std::size_t i = 0; i < acc.size(); ++i) {
    const std::int64_t m = (static_cast<std::int64_t>(i) / plane) % M;
    const float sw = c.sw[c.sw.size() == 1 ? 0 : static_cast<std::size_t>(m)];
    const std::int64_t want = rule(acc[i], c.sx, sw, c.sy, c.zy, c.yt, c.bias ? bv[static_cast<std::size_t>(m)] : 0);
    ASSERT_EQ(got[i], want) << "element " << i;
    saturated += (want == lo_of(c.yt) || want == hi_of(c.yt)) ? 1 : 0;
  }
  EXPECT_LT(saturated, static_cast<int>(acc.size()));  // not everything clipped
}

TEST(KernelsInt8Conv, PerTensorUint8MatchesDocumentedRuleExactly) {
  check_int8_conv(
      {DType::kUint8, DType::kUint8, 0.05f, 0.4f, 128, 120, {0.02f}, {1, 3, 7, 6}, {4, 3, 3, 3}, 1, 1, 1, true}, 1);
}

TEST(KernelsInt8Conv, PerChannelInt8WithStridesPadsAndGroups) {
  check_int8_conv({DType::kInt8,
                   DType::kInt8,
                   0.03f,
                   0.2f,
                   -5,
                   3,
                   {0.01f, 0.02f, 0.005f, 0.04f},
                   {2, 4, 6, 7},
                   {4, 2, 3, 3},
                   2,
                   1,
                   2,
                   true},
                  2);
  // Depthwise, int8 input, uint8 output, no bias.
  check_int8_conv({DType::kInt8,
                   DType::kUint8,
                   0.1f,
                   0.3f,
                   10,
                   128,
                   {0.02f, 0.03f, 0.01f},
                   {1, 3, 5, 5},
                   {3, 1, 3, 3},
                   1,
                   1,
                   3,
                   false},
                  3);
}

TEST(KernelsInt8Conv, SmallOutputScaleSaturates) {
  // Output scale 0.001 makes almost every value leave the uint8 range.
  auto x = OwnedTensor::q8(DType::kUint8, {1, 1, 2, 2}, {0, 255, 255, 0}, per_tensor(0.1f, 128));
  auto w = OwnedTensor::q8(DType::kInt8, {1, 1, 1, 1}, {100}, per_tensor(0.1f, 0));
  auto r = run_reference_owned("Conv", {}, {x.view(), w.view()}, {{DType::kUint8, per_tensor(0.001f, 128)}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  // acc = (x - 128) * 100 = -12800, 12700: scale 0.1*0.1/0.001 = 10 → far outside → 0 and 255.
  EXPECT_EQ(int_values(r.value()[0]), (Q{0, 255, 255, 0}));
}

TEST(KernelsInt8Conv, RequantizationRoundsHalfToEven) {
  // s_x = s_w = 1, s_y = 2 → scale 0.5. x - zp = 5, 7, -5, -7 with w = 1:
  // 2.5 → 2, 3.5 → 4, -2.5 → -2, -3.5 → -4.
  auto x = OwnedTensor::q8(DType::kInt8, {1, 1, 1, 4}, {6, 8, -4, -6}, per_tensor(1.0f, 1));
  auto w = OwnedTensor::q8(DType::kInt8, {1, 1, 1, 1}, {1}, per_tensor(1.0f, 0));
  auto r = run_reference_owned("Conv", {}, {x.view(), w.view()}, {{DType::kInt8, per_tensor(2.0f, 0)}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(int_values(r.value()[0]), (Q{2, 4, -2, -4}));
}

TEST(KernelsInt8MatMul, RequantScaleIsFloatInTheDocumentedOrder) {
  // Cases where ((float)s_x * s_w) / s_y differs from s_x * (s_w / s_y) or from the exact
  // (double) value, found by search; `want` follows the documented float order:
  //  s 0.1, 0.01 → 0.1: acc 50 * 0.0099999998f = 0.50000006f → 1 (other order and double: 0)
  //  s 0.1, 0.02 → 0.3: acc 225 → exactly 1.5f → ties to even 2 (other order / double: 1)
  //  s 0.1, 0.007 → 0.3: acc 1500 → 3.49999976f → 3 (double: 4)
  struct Case {
    float sw, sy;
    std::int32_t a, b, want;
  } cases[] = {{0.01f, 0.1f, 50, 1, 1}, {0.02f, 0.3f, 75, 3, 2}, {0.007f, 0.3f, 100, 15, 3}};
  for (const Case& c : cases) {
    auto a = OwnedTensor::q8(DType::kInt8, {1, 1}, {c.a}, per_tensor(0.1f, 0));
    auto b = OwnedTensor::q8(DType::kInt8, {1, 1}, {c.b}, per_tensor(c.sw, 0));
    auto r = run_reference_owned("MatMul", {}, {a.view(), b.view()}, {{DType::kInt8, per_tensor(c.sy, 0)}});
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(int_values(r.value()[0]), (Q{c.want})) << "s_w " << c.sw << " s_y " << c.sy;
    EXPECT_EQ(rule(c.a * c.b, 0.1f, c.sw, c.sy, 0, DType::kInt8), c.want);
  }
}

TEST(KernelsInt8MatMul, ZeroPointIsAddedInFloatBeforeRounding) {
  // acc 5 · scale 0.5 = 2.5; + zp 1 = 3.5 → 4 (rounding first would give 2 + 1 = 3). This
  // is oneDNN's order, which the fast paths reproduce.
  auto a = OwnedTensor::q8(DType::kInt8, {1, 1}, {1}, per_tensor(0.5f, 0));
  auto b = OwnedTensor::q8(DType::kInt8, {1, 1}, {5}, per_tensor(1.0f, 0));
  auto r = run_reference_owned("MatMul", {}, {a.view(), b.view()}, {{DType::kInt8, per_tensor(1.0f, 1)}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(int_values(r.value()[0]), (Q{4}));
  EXPECT_EQ(rule(5, 0.5f, 1.0f, 1.0f, 1, DType::kInt8), 4);
}

TEST(KernelsInt8Gemm, BiasIsAddedAfterTheFloatConversion) {
  // acc = 2^24 + 1 (1040 · 127² + 48 · 63 + 33 · 1), bias 1, float output with scale 1:
  // (float)acc = 2^24, + 1.0f = 2^24 (ties to even), where (float)(acc + bias) = 2^24 + 2.
  Q av(1040, 127), bv(1040, 127);
  av.push_back(48);
  bv.push_back(63);
  av.push_back(33);
  bv.push_back(1);
  const auto k = static_cast<std::int64_t>(av.size());
  auto a = OwnedTensor::q8(DType::kInt8, {1, k}, av, per_tensor(1.0f, 0));
  auto b = OwnedTensor::q8(DType::kInt8, {k, 1}, bv, per_tensor(1.0f, 0));
  auto c = OwnedTensor::from<std::int32_t>(DType::kInt32, {1}, {1});
  auto r = run_reference_owned("Gemm", {}, {a.view(), b.view(), c.view()}, {{DType::kFloat32, Quant{}}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].view().as<float>()[0], 16777216.0f);
}

TEST(KernelsInt8Conv, FloatBiasIsQuantizedHalfToEvenAndFloatOutputUsesInputTimesWeightScale) {
  // s_x = s_w = 0.5 → bias scale 0.25. b = 0.625 → 2.5 → 2; b = 0.875 → 3.5 → 4.
  // x = zero point, so acc = bias_q; float output y = acc * 0.25 = 0.5 and 1.0.
  auto x = OwnedTensor::q8(DType::kUint8, {1, 1, 1, 1}, {7}, per_tensor(0.5f, 7));
  auto w = OwnedTensor::q8(DType::kInt8, {2, 1, 1, 1}, {3, -3}, per_tensor(0.5f, 0));
  auto b = OwnedTensor::f32({2}, {0.625f, 0.875f});
  auto r = run_reference_owned("Conv", {}, {x.view(), w.view(), b.view()}, {{DType::kFloat32, {}}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].values<float>(), (F{0.5f, 1.0f}));
}

TEST(KernelsInt8Conv, WeightZeroPointIsSubtracted) {
  // uint8 weights with zero point 100: w - zw = 2 and -1; x - zx = 3 and 4:
  // acc = 3*2 + 4*(-1) = 2; float output 2 * (0.5 * 0.25) = 0.25.
  auto x = OwnedTensor::q8(DType::kUint8, {1, 2, 1, 1}, {13, 14}, per_tensor(0.5f, 10));
  auto w = OwnedTensor::q8(DType::kUint8, {1, 2, 1, 1}, {102, 99}, per_tensor(0.25f, 100));
  auto r = run_reference_owned("Conv", {}, {x.view(), w.view()}, {{DType::kFloat32, {}}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].values<float>(), (F{0.25f}));
}

TEST(KernelsInt8Conv, Int32BiasQuantizationParametersAreChecked) {
  auto x = OwnedTensor::q8(DType::kUint8, {1, 1, 1, 1}, {7}, per_tensor(0.5f, 7));
  auto w = OwnedTensor::q8(DType::kInt8, {1, 1, 1, 1}, {3}, per_tensor(0.5f, 0));
  auto ok = OwnedTensor::from<std::int32_t>(DType::kInt32, {1}, {4});
  ok.set_quant(per_tensor(0.25f, 0));  // = s_x * s_w
  auto r = run_reference_owned("Conv", {}, {x.view(), w.view(), ok.view()}, {{DType::kFloat32, {}}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].values<float>(), (F{1.0f}));  // 4 * 0.25
  auto wrong_scale = OwnedTensor::from<std::int32_t>(DType::kInt32, {1}, {4});
  wrong_scale.set_quant(per_tensor(0.5f, 0));
  EXPECT_EQ(run_reference_owned("Conv", {}, {x.view(), w.view(), wrong_scale.view()}, {{DType::kFloat32, {}}})
                .status()
                .code(),
            err::kInvalidParam);
  auto wrong_zp = OwnedTensor::from<std::int32_t>(DType::kInt32, {1}, {4});
  wrong_zp.set_quant(per_tensor(0.25f, 1));
  EXPECT_EQ(
      run_reference_owned("Conv", {}, {x.view(), w.view(), wrong_zp.view()}, {{DType::kFloat32, {}}}).status().code(),
      err::kInvalidParam);
}

float fconv_at(const F& x, const F& w, const F& b, int C, int H, int W, int m, int oh, int ow) {
  double s = b[static_cast<std::size_t>(m)];
  for (int c = 0; c < C; ++c)
    for (int kh = 0; kh < 3; ++kh)
      for (int kw = 0; kw < 3; ++kw) {
        const int ih = oh - 1 + kh, iw = ow - 1 + kw;
        if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
        s += static_cast<double>(x[static_cast<std::size_t>((c * H + ih) * W + iw)]) *
             w[static_cast<std::size_t>(((m * C + c) * 3 + kh) * 3 + kw)];
      }
  return static_cast<float>(s);
}

TEST(KernelsInt8Conv, ApproximatesFloatConvWithinQuantizationError) {
  // Real-valued x in [0, 2), w in [-0.5, 0.5): quantize them, run the int8 conv, and
  // compare with the float conv of (a) the dequantized inputs — only the output rounding
  // differs, so |error| <= s_y / 2 — and (b) the original floats (input rounding adds
  // up to C*9*(|w| s_x/2 + |x| s_w/2)).
  const int C = 8, H = 6, W = 6, M = 4;
  const float sx = 2.0f / 255, sy = 0.4f;  // int8 output range about [-47, 55]
  const F sw{0.5f / 127, 0.25f / 127, 0.5f / 127, 0.4f / 127};
  const Q xq = ints(C * H * W, 0, 255, 51);
  const Q wq = ints(M * C * 9, -127, 127, 52);
  F xr, wr, wr_per_m;
  for (auto q : xq) xr.push_back(q * sx);
  for (std::size_t i = 0; i < wq.size(); ++i) wr.push_back(wq[i] * sw[i / (C * 9)]);
  const F bias{0.1f, -0.2f, 0.3f, 0};
  auto x = OwnedTensor::q8(DType::kUint8, {1, C, H, W}, xq, per_tensor(sx, 0));
  auto w = OwnedTensor::q8(DType::kInt8, {M, C, 3, 3}, wq, pc(sw, 0));
  auto b = OwnedTensor::f32({M}, bias);
  auto r = run_reference_owned("Conv", {{"pads", I{1, 1, 1, 1}}}, {x.view(), w.view(), b.view()},
                               {{DType::kInt8, per_tensor(sy, -10)}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Q y = int_values(r.value()[0]);
  // Perturbed originals: the dequantized value plus up to half a step.
  F xo = xr, wo = wr;
  for (std::size_t i = 0; i < xo.size(); ++i) xo[i] += (i % 3 == 0 ? 0.4f : -0.3f) * sx;
  for (std::size_t i = 0; i < wo.size(); ++i) wo[i] += (i % 2 == 0 ? 0.45f : -0.45f) * sw[i / (C * 9)];
  for (int m = 0; m < M; ++m)
    for (int oh = 0; oh < H; ++oh)
      for (int ow = 0; ow < W; ++ow) {
        const float got = sy * static_cast<float>(y[static_cast<std::size_t>((m * H + oh) * W + ow)] + 10);
        // Bias is quantized to s_x*s_w too: add its rounding error (<= s_x*s_w/2).
        EXPECT_NEAR(got, fconv_at(xr, wr, bias, C, H, W, m, oh, ow),
                    sy / 2 + sx * sw[static_cast<std::size_t>(m)] + 1e-4f);
        EXPECT_NEAR(got, fconv_at(xo, wo, bias, C, H, W, m, oh, ow),
                    sy / 2 + C * 9 * (0.5f * sx / 2 + 2 * sw[static_cast<std::size_t>(m)] / 2) + 1e-3f);
      }
}

TEST(KernelsInt8ConvTranspose, PerChannelAxisOneMatchesRule) {
  // W (C=4, M/g=2, 2, 2), group 2 → M = 4; per-channel scales on axis 1 (2 entries):
  // output channel oc uses s_w[oc % 2].
  const Q xv = ints(1 * 4 * 3 * 3, 0, 255, 61), wv = ints(4 * 2 * 2 * 2, -127, 127, 62);
  const float sx = 0.04f, sy = 0.3f;
  const F sw{0.01f, 0.03f};
  auto x = OwnedTensor::q8(DType::kUint8, {1, 4, 3, 3}, xv, per_tensor(sx, 100));
  auto w = OwnedTensor::q8(DType::kInt8, {4, 2, 2, 2}, wv, pc(sw, 1));
  auto r = run_reference_owned("ConvTranspose", {{"strides", I{2, 2}}, {"group", std::int64_t{2}}},
                               {x.view(), w.view()}, {{DType::kInt8, per_tensor(sy, 5)}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r.value()[0].view().dims, (I{1, 4, 6, 6}));
  const Q got = int_values(r.value()[0]);
  for (int oc = 0; oc < 4; ++oc)
    for (int oh = 0; oh < 6; ++oh)
      for (int ow = 0; ow < 6; ++ow) {
        std::int64_t acc = 0;
        const int g = oc / 2;
        for (int cl = 0; cl < 2; ++cl)
          for (int ih = 0; ih < 3; ++ih)
            for (int iw = 0; iw < 3; ++iw) {
              const int kh = oh - 2 * ih, kw = ow - 2 * iw;
              if (kh < 0 || kh > 1 || kw < 0 || kw > 1) continue;
              const int c = g * 2 + cl;
              acc += (xv[static_cast<std::size_t>((c * 3 + ih) * 3 + iw)] - 100) *
                     wv[static_cast<std::size_t>(((c * 2 + oc % 2) * 2 + kh) * 2 + kw)];
            }
        EXPECT_EQ(got[static_cast<std::size_t>((oc * 6 + oh) * 6 + ow)],
                  rule(acc, sx, sw[static_cast<std::size_t>(oc % 2)], sy, 5, DType::kInt8));
      }
}

TEST(KernelsInt8MatMul, BatchedPerColumnScalesMatchRule) {
  // A (2, 3, 5) uint8 zp 77; B (5, 4) int8 per-channel on the last axis.
  const Q av = ints(30, 0, 255, 71), bv = ints(20, -127, 127, 72);
  const F sb{0.01f, 0.02f, 0.005f, 0.03f};
  auto a = OwnedTensor::q8(DType::kUint8, {2, 3, 5}, av, per_tensor(0.02f, 77));
  auto b = OwnedTensor::q8(DType::kInt8, {5, 4}, bv, pc(sb, 1));
  auto r = run_reference_owned("MatMul", {}, {a.view(), b.view()}, {{DType::kInt8, per_tensor(0.05f, -3)}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r.value()[0].view().dims, (I{2, 3, 4}));
  const Q got = int_values(r.value()[0]);
  for (int bm = 0; bm < 6; ++bm)
    for (int n = 0; n < 4; ++n) {
      std::int64_t acc = 0;
      for (int k = 0; k < 5; ++k)
        acc += (av[static_cast<std::size_t>(bm * 5 + k)] - 77) * bv[static_cast<std::size_t>(k * 4 + n)];
      EXPECT_EQ(got[static_cast<std::size_t>(bm * 4 + n)],
                rule(acc, 0.02f, sb[static_cast<std::size_t>(n)], 0.05f, -3, DType::kInt8));
    }
}

TEST(KernelsInt8MatMul, AccumulatorSaturatesToInt32) {
  // K = 40000 products of 255 * 255 = 2.6e9 > INT32_MAX: the accumulator saturates,
  // float output = (float)INT32_MAX * (s_a * s_b).
  const int K = 40000;
  auto a = OwnedTensor::q8(DType::kUint8, {1, K}, Q(K, 255), per_tensor(0.5f, 0));
  auto b = OwnedTensor::q8(DType::kUint8, {K, 1}, Q(K, 255), per_tensor(0.25f, 0));
  auto r = run_reference_owned("MatMul", {}, {a.view(), b.view()}, {{DType::kFloat32, {}}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].values<float>()[0], static_cast<float>(INT32_MAX) * (0.5f * 0.25f));
}

TEST(KernelsInt8Gemm, TransBPerChannelAndInt32BiasMatchRule) {
  // A (3, 4) int8, B^T (5, 4) int8 per-channel on axis 0 (= output columns), C int32 [5].
  const Q av = ints(12, -128, 127, 81), bv = ints(20, -127, 127, 82), cv = ints(5, -300, 300, 83);
  const F sb{0.01f, 0.02f, 0.03f, 0.04f, 0.05f};
  auto a = OwnedTensor::q8(DType::kInt8, {3, 4}, av, per_tensor(0.1f, 2));
  auto b = OwnedTensor::q8(DType::kInt8, {5, 4}, bv, pc(sb, 0));
  auto c = OwnedTensor::from<std::int32_t>(DType::kInt32, {5}, cv);
  auto r = run_reference_owned("Gemm", {{"transB", std::int64_t{1}}}, {a.view(), b.view(), c.view()},
                               {{DType::kUint8, per_tensor(0.2f, 128)}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Q got = int_values(r.value()[0]);
  for (int m = 0; m < 3; ++m)
    for (int n = 0; n < 5; ++n) {
      std::int64_t acc = cv[static_cast<std::size_t>(n)];
      for (int k = 0; k < 4; ++k)
        acc += (av[static_cast<std::size_t>(m * 4 + k)] - 2) * bv[static_cast<std::size_t>(n * 4 + k)];
      EXPECT_EQ(got[static_cast<std::size_t>(m * 5 + n)],
                rule(acc, 0.1f, sb[static_cast<std::size_t>(n)], 0.2f, 128, DType::kUint8));
    }
}

TEST(KernelsInt8Gemm, NonUnitAlphaTakesTheGenericPath) {
  // alpha 0.5: dequantize, float Gemm, quantize: y = q(0.5 * sum(a*b) + c).
  auto a = OwnedTensor::q8(DType::kInt8, {1, 2}, {10, -20}, per_tensor(0.1f, 0));  // 1.0, -2.0
  auto b = OwnedTensor::q8(DType::kInt8, {2, 1}, {30, 5}, per_tensor(0.1f, 0));    // 3.0, 0.5
  auto c = OwnedTensor::f32({1}, {0.25f});
  auto r = run_reference_owned("Gemm", {{"alpha", 0.5}}, {a.view(), b.view(), c.view()}, {{DType::kInt8, per_tensor(0.1f, 0)}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  // 0.5 * (3 - 1) + 0.25 = 1.25 → 1.25 / 0.1 = 12.5 (in float 12.499999) → 12.
  EXPECT_EQ(int_values(r.value()[0]), (Q{12}));
  EXPECT_EQ(quant_rule(0.5f * (1.0f * 3.0f + -2.0f * 0.5f) + 0.25f, 0.1f, 0, DType::kInt8), 12);
}

// ---------------------------------------------------------------------------
// Integer data movement and the generic path.

TEST(KernelsInt8Movement, SameQuantizationMovesIntegersUnchanged) {
  const Quant q = per_tensor(0.1f, 3);
  const Q xv{-128, -1, 0, 5, 127, 64};
  auto x = OwnedTensor::q8(DType::kInt8, {2, 3}, xv, q);
  auto shape = OwnedTensor::i64({1}, {6});
  auto r = run_reference_owned("Reshape", {}, {x.view(), shape.view()}, {{DType::kInt8, q}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(int_values(r.value()[0]), xv);
  r = run_reference_owned("Transpose", {}, {x.view()}, {{DType::kInt8, q}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(int_values(r.value()[0]), (Q{-128, 5, -1, 127, 0, 64}));
  auto s = OwnedTensor::i64({1}, {-1}), e = OwnedTensor::i64({1}, {-4}), ax = OwnedTensor::i64({1}, {1}),
       st = OwnedTensor::i64({1}, {-1});
  r = run_reference_owned("Slice", {}, {x.view(), s.view(), e.view(), ax.view(), st.view()}, {{DType::kInt8, q}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(int_values(r.value()[0]), (Q{0, -1, -128, 64, 127, 5}));
  r = run_reference_owned("Concat", {{"axis", std::int64_t{0}}}, {x.view(), x.view()}, {{DType::kInt8, q}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(int_values(r.value()[0]).size(), 12u);
  r = run_reference_owned("Split", {{"axis", std::int64_t{1}}, {"split", I{1, 2}}}, {x.view()},
                          {{DType::kInt8, q}, {DType::kInt8, q}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(int_values(r.value()[1]), (Q{-1, 0, 127, 64}));
}

TEST(KernelsInt8Movement, PadQuantizesTheConstantWithTheOutputParameters) {
  // value 1.0 with scale 0.5, zero point 3 → 1/0.5 + 3 = 5; default 0.0 → the zero point 3.
  const Quant q = per_tensor(0.5f, 3);
  auto x = OwnedTensor::q8(DType::kUint8, {2}, {10, 20}, q);
  auto pads = OwnedTensor::i64({2}, {1, 1});
  auto v = OwnedTensor::f32({}, {1.0f});
  auto r = run_reference_owned("Pad", {}, {x.view(), pads.view(), v.view()}, {{DType::kUint8, q}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(int_values(r.value()[0]), (Q{5, 10, 20, 5}));
  r = run_reference_owned("Pad", {}, {x.view(), pads.view()}, {{DType::kUint8, q}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(int_values(r.value()[0]), (Q{3, 10, 20, 3}));
  r = run_reference_owned("Pad", {{"mode", std::string("reflect")}}, {x.view(), pads.view()}, {{DType::kUint8, q}});
  EXPECT_EQ(int_values(r.value()[0]), (Q{20, 10, 20, 10}));
}

TEST(KernelsInt8Movement, MaxPoolAndReluStayInIntegers) {
  const Quant q = per_tensor(0.2f, -10);
  auto x = OwnedTensor::q8(DType::kInt8, {1, 1, 2, 2}, {-50, -12, 30, -128}, q);
  auto r = run_reference_owned("MaxPool", {{"kernel_shape", I{2, 2}}}, {x.view()}, {{DType::kInt8, q}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(int_values(r.value()[0]), (Q{30}));
  r = run_reference_owned("Relu", {}, {x.view()}, {{DType::kInt8, q}});  // max(q, zp = -10)
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(int_values(r.value()[0]), (Q{-10, -10, 30, -10}));
}

TEST(KernelsInt8Generic, DifferentScalesRequantizeThroughFloat) {
  // Relu with a different output scale: y = q(relu(s_in * (x - zp_in))).
  auto x = OwnedTensor::q8(DType::kUint8, {4}, {0, 100, 150, 255}, per_tensor(0.1f, 128));
  auto r = run_reference_owned("Relu", {}, {x.view()}, {{DType::kUint8, per_tensor(0.3f, 0)}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  Q want;
  for (int q : {0, 100, 150, 255}) {
    const float real = static_cast<float>(q - 128) * 0.1f;
    want.push_back(static_cast<std::int32_t>(quant_rule(real > 0 ? real : 0.0f, 0.3f, 0, DType::kUint8)));
  }
  EXPECT_EQ(int_values(r.value()[0]), want);
  // Concat of two differently scaled inputs into a third scale.
  auto a = OwnedTensor::q8(DType::kInt8, {2}, {-100, 100}, per_tensor(0.05f, 0));
  auto b = OwnedTensor::q8(DType::kInt8, {1}, {127}, per_tensor(0.5f, 1));
  r = run_reference_owned("Concat", {{"axis", std::int64_t{0}}}, {a.view(), b.view()}, {{DType::kInt8, per_tensor(0.25f, 0)}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  // -5 / 0.25 = -20, 5 / 0.25 = 20, 63 / 0.25 = 252 → saturates to 127.
  EXPECT_EQ(int_values(r.value()[0]), (Q{-20, 20, 127}));
}

// Movement ops between different per-tensor encodings convert each input byte through a
// table: every one of the 256 codes of int8 and uint8 inputs must come out as the generic
// rule quantize(dequantize(q)) says, saturation at both ends included.
TEST(KernelsInt8Generic, MovementBetweenEncodingsGivesEveryCodeTheGenericRulesByte) {
  Q all_i8, all_u8;
  for (int v = -128; v < 128; ++v) all_i8.push_back(v);
  for (int v = 0; v < 256; ++v) all_u8.push_back(v);
  const Quant qa = per_tensor(0.037f, -3), qb = per_tensor(0.11f, 140), qy = per_tensor(0.05f, 7);
  auto a = OwnedTensor::q8(DType::kInt8, {2, 128}, all_i8, qa);
  auto b = OwnedTensor::q8(DType::kUint8, {2, 128}, all_u8, qb);
  auto rule = [&](std::int32_t q, const Quant& in, DType out_type) {
    const float real = static_cast<float>(q - in.zero_point[0]) * in.scale[0];
    return static_cast<std::int32_t>(quant_rule(real, qy.scale[0], qy.zero_point[0], out_type));
  };
  for (DType out_type : {DType::kInt8, DType::kUint8}) {
    SCOPED_TRACE(out_type == DType::kInt8 ? "int8 output" : "uint8 output");
    auto r = run_reference_owned("Concat", {{"axis", std::int64_t{1}}}, {a.view(), b.view()}, {{out_type, qy}});
    ASSERT_TRUE(r.ok()) << r.status().message();
    Q want;
    for (int row = 0; row < 2; ++row) {
      for (int k = 0; k < 128; ++k) want.push_back(rule(all_i8[static_cast<std::size_t>(row * 128 + k)], qa, out_type));
      for (int k = 0; k < 128; ++k) want.push_back(rule(all_u8[static_cast<std::size_t>(row * 128 + k)], qb, out_type));
    }
    EXPECT_EQ(int_values(r.value()[0]), want);
    r = run_reference_owned("Transpose", {{"perm", I{1, 0}}}, {b.view()}, {{out_type, qy}});
    ASSERT_TRUE(r.ok()) << r.status().message();
    want.clear();
    for (int k = 0; k < 128; ++k) {
      for (int row = 0; row < 2; ++row) want.push_back(rule(all_u8[static_cast<std::size_t>(row * 128 + k)], qb, out_type));
    }
    EXPECT_EQ(int_values(r.value()[0]), want);
  }
  // Slice (constant starts/ends inputs stay as they are) and Split.
  auto starts = OwnedTensor::from(DType::kInt64, {1}, std::vector<std::int64_t>{100});
  auto ends = OwnedTensor::from(DType::kInt64, {1}, std::vector<std::int64_t>{300});
  auto flat = OwnedTensor::q8(DType::kUint8, {256}, all_u8, qb);
  auto r = run_reference_owned("Slice", {}, {flat.view(), starts.view(), ends.view()}, {{DType::kInt8, qy}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  Q want;
  for (int k = 100; k < 256; ++k) want.push_back(rule(k, qb, DType::kInt8));
  EXPECT_EQ(int_values(r.value()[0]), want);
  r = run_reference_owned("Split", {{"axis", std::int64_t{0}}, {"num_outputs", std::int64_t{2}}}, {flat.view()}, {{DType::kInt8, qy}, {DType::kInt8, qy}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  want.clear();
  for (int k = 0; k < 128; ++k) want.push_back(rule(k, qb, DType::kInt8));
  EXPECT_EQ(int_values(r.value()[0]), want);
}

TEST(KernelsInt8Generic, AddDequantizesBothInputsAndRequantizes) {
  const Q av = ints(12, -128, 127, 91), bv = ints(3, 0, 255, 92);
  auto a = OwnedTensor::q8(DType::kInt8, {4, 3}, av, per_tensor(0.07f, -4));
  auto b = OwnedTensor::q8(DType::kUint8, {3}, bv, per_tensor(0.03f, 120));
  auto r = run_reference_owned("Add", {}, {a.view(), b.view()}, {{DType::kInt8, per_tensor(0.09f, 6)}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Q got = int_values(r.value()[0]);
  for (std::size_t i = 0; i < 12; ++i) {
    const float x = static_cast<float>(av[i] + 4) * 0.07f + static_cast<float>(bv[i % 3] - 120) * 0.03f;
    EXPECT_EQ(got[i], quant_rule(x, 0.09f, 6, DType::kInt8)) << i;
  }
}

TEST(KernelsInt8Generic, EveryFloatOpOnQuantizedTensorsEqualsDequantizeRunQuantize) {
  // For ops without an integer path: int8 in / uint8 out must equal
  // quantize(float op(dequantize(x))) with the documented rules, per element.
  struct Case {
    const char* op;
    Attrs attrs;
    I dims;
  };
  const std::vector<Case> cases{
      {"AveragePool", {{"kernel_shape", I{2, 2}}, {"pads", I{1, 1, 0, 0}}}, {1, 2, 3, 3}},
      {"Softmax", {}, {2, 5}},
      {"LeakyRelu", {{"alpha", 0.1}}, {7}},
      {"Tanh", {}, {7}},
      {"HardSigmoid", {}, {7}},
      {"HardSwish", {}, {7}},
      {"ReduceMean", {{"axes", I{1}}}, {3, 4}},
      {"ReduceMax", {{"axes", I{0}}}, {3, 4}},
      {"Flatten", {}, {2, 3, 2}},
      // Large enough for the 256-entry table of the elementwise ops (run_unary_via_float).
      {"HardSwish", {}, {4, 3, 100}},
      {"Sigmoid", {}, {1500}},
      {"Tanh", {}, {1500}},
      {"HardSigmoid", {}, {1500}},
      {"LeakyRelu", {{"alpha", 0.1}}, {1500}},
      {"Erf", {}, {7}},
      {"Erf", {}, {1500}},  // the math functions (run_unary) take the table too
  };
  const Quant qin = per_tensor(0.04f, -7), qout = per_tensor(0.02f, 100);
  for (const Case& c : cases) {
    std::int64_t n = 1;
    for (auto d : c.dims) n *= d;
    const Q xv = ints(static_cast<std::size_t>(n), -128, 127, 97);
    auto xq = OwnedTensor::q8(DType::kInt8, c.dims, xv, qin);
    F xf;
    for (auto q : xv) xf.push_back(static_cast<float>(q + 7) * 0.04f);
    auto xt = OwnedTensor::f32(c.dims, xf);
    auto rf = run_reference_owned(c.op, c.attrs, {xt.view()});
    auto rq = run_reference_owned(c.op, c.attrs, {xq.view()}, {{DType::kUint8, qout}});
    ASSERT_TRUE(rf.ok() && rq.ok()) << c.op << ": " << rf.status().message() << rq.status().message();
    const F yf = rf.value()[0].values<float>();
    const Q yq = int_values(rq.value()[0]);
    ASSERT_EQ(yf.size(), yq.size()) << c.op;
    for (std::size_t i = 0; i < yf.size(); ++i) {
      EXPECT_EQ(yq[i], quant_rule(yf[i], 0.02f, 100, DType::kUint8)) << c.op << " at " << i;
    }
  }
}

// Nearest Resize of int8 data moves bytes (an FPN's upsampling): every code of the input,
// upsampled ×2 and ×1.5, must come out as quantize(float nearest Resize(dequantize(x))) —
// in the same encoding, in another one and into uint8.
TEST(KernelsInt8Generic, NearestResizeGivesTheGenericRulesBytes) {
  Q codes;
  for (int v = -128; v < 128; ++v) codes.push_back(v);
  const Quant qin = per_tensor(0.037f, -3);
  auto xq = OwnedTensor::q8(DType::kInt8, {1, 1, 16, 16}, codes, qin);
  F xf;
  for (auto q : codes) xf.push_back(static_cast<float>(q + 3) * 0.037f);
  auto xt = OwnedTensor::f32({1, 1, 16, 16}, xf);
  auto roi = OwnedTensor::f32({0}, {});
  struct Out {
    DType t;
    Quant q;
  };
  for (float scale : {2.0f, 1.5f}) {
    auto scales = OwnedTensor::f32({4}, {1.f, 1.f, scale, scale});
    for (const Out& o : {Out{DType::kInt8, qin}, Out{DType::kInt8, per_tensor(0.05f, 7)}, Out{DType::kUint8, per_tensor(0.02f, 130)}}) {
      SCOPED_TRACE(std::to_string(scale) + " " + model::dtype_name(o.t) + " scale " + std::to_string(o.q.scale[0]));
      const Attrs attrs{{"mode", std::string("nearest")}};
      auto rf = run_reference_owned("Resize", attrs, {xt.view(), roi.view(), scales.view()});
      auto rq = run_reference_owned("Resize", attrs, {xq.view(), roi.view(), scales.view()}, {{o.t, o.q}});
      ASSERT_TRUE(rf.ok() && rq.ok()) << rf.status().message() << rq.status().message();
      const F yf = rf.value()[0].values<float>();
      const Q yq = int_values(rq.value()[0]);
      ASSERT_EQ(yf.size(), yq.size());
      for (std::size_t i = 0; i < yf.size(); ++i)
        ASSERT_EQ(yq[i], quant_rule(yf[i], o.q.scale[0], o.q.zero_point[0], o.t)) << "at " << i;
    }
  }
}

TEST(KernelsInt8Generic, SigmoidAndFloatOutputs) {
  auto x = OwnedTensor::q8(DType::kInt8, {5}, {-100, -10, 0, 10, 100}, per_tensor(0.05f, 0));
  auto r = run_reference_owned("Sigmoid", {}, {x.view()}, {{DType::kUint8, per_tensor(1.0f / 256, 0)}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Q got = int_values(r.value()[0]);
  const Q qv{-100, -10, 0, 10, 100};
  for (std::size_t i = 0; i < 5; ++i) {
    const double s = 1 / (1 + std::exp(-0.05 * qv[i]));
    EXPECT_NEAR(got[i], std::min(255.0, std::nearbyint(s * 256)), 1.0) << i;
  }
  // Quantized input, float output: GlobalAveragePool of s * (q - zp).
  auto p = OwnedTensor::q8(DType::kUint8, {1, 1, 2, 2}, {10, 20, 30, 40}, per_tensor(0.5f, 10));
  r = run_reference_owned("GlobalAveragePool", {}, {p.view()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].values<float>(), (F{7.5f}));  // (0 + 5 + 10 + 15) / 4
}

TEST(KernelsInt8Generic, ArgMaxOfQuantizedInput) {
  auto x = OwnedTensor::q8(DType::kUint8, {2, 3}, {1, 9, 3, 200, 7, 200}, per_tensor(0.1f, 5));
  auto r = run_reference_owned("ArgMax", {{"axis", std::int64_t{1}}}, {x.view()}, {{DType::kInt64, {}}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].values<std::int64_t>(), (I{1, 0}));
}

TEST(KernelsInt8Generic, QuantizedTensorWithoutParametersIsUnsupported) {
  OwnedTensor x(DType::kInt8, {1, 1, 2, 2}), w(DType::kInt8, {1, 1, 1, 1}), y(DType::kInt8, {1, 1, 2, 2});
  Status s = run_reference("Conv", {}, {x.view(), w.view()}, {y.view()});
  EXPECT_EQ(s.code(), err::kUnsupportedDataType);
  EXPECT_NE(s.message().find("int8"), std::string::npos) << s.message();
  OwnedTensor y2(DType::kInt8, {1, 1, 2, 2});
  EXPECT_EQ(run_reference("Sigmoid", {}, {x.view()}, {y2.view()}).code(), err::kUnsupportedDataType);
}

TEST(KernelsInt8Generic, InvalidQuantizationParametersAreRejected) {
  auto x = OwnedTensor::q8(DType::kInt8, {2, 3}, Q(6, 0), per_tensor(0.1f, 0));
  OwnedTensor y(DType::kFloat32, {2, 3});
  auto run_with = [&](Quant q) {
    x.set_quant(std::move(q));
    return run_reference("Relu", {}, {x.view()}, {y.view()}).code();
  };
  EXPECT_EQ(run_with(per_tensor(0.0f, 0)), err::kInvalidParam);  // zero scale
  EXPECT_EQ(run_with(per_tensor(std::numeric_limits<float>::infinity(), 0)), err::kInvalidParam);
  EXPECT_EQ(run_with(per_tensor(0.1f, 200)), err::kInvalidParam);                         // zp outside int8
  EXPECT_EQ(run_with(Quant{{0.1f, 0.2f}, {0, 0}, 1}), err::kInvalidParam);        // 2 scales, dim 1 has 3
  EXPECT_EQ(run_with(Quant{{0.1f, 0.2f}, {0, 0}, 5}), err::kInvalidParam);        // axis out of range
  EXPECT_EQ(run_with(Quant{{0.1f, 0.2f, 0.3f}, {0, 0}, 1}), err::kInvalidParam);  // zp count
  EXPECT_EQ(run_with(Quant{{0.1f, 0.2f, 0.3f}, {}, -1}), err::kNone);             // axis -1 = last
}

// ---------------------------------------------------------------------------
// QuantizeLinear / DequantizeLinear

TEST(KernelsQuantizeLinear, RoundsHalfToEvenAndSaturates) {
  // scale 2, zero point 10: x/2 = 1.5 → 2, 2.5 → 2, -0.5 → -0, -1.5 → -2, then + 10;
  // 1000 → 510 → 255; -1000 → -490 → 0.
  auto x = OwnedTensor::f32({6}, {3, 5, -1, -3, 1000, -1000});
  auto s = OwnedTensor::f32({}, {2});
  auto z = OwnedTensor::q8(DType::kUint8, {}, {10}, {});
  auto r = run_reference_owned("QuantizeLinear", {}, {x.view(), s.view(), z.view()}, {{DType::kUint8, {}}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(int_values(r.value()[0]), (Q{12, 12, 10, 8, 255, 0}));
  // int8 output, no zero point input: zero point 0.
  r = run_reference_owned("QuantizeLinear", {}, {x.view(), s.view()}, {{DType::kInt8, {}}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(int_values(r.value()[0]), (Q{2, 2, 0, -2, 127, -128}));
}

TEST(KernelsQuantizeLinear, DividesInFloat) {
  // -35.25f / 0.3f = -117.499992f → -117 (x * (1/s) would give -117.5 → -118);
  // -66.15f / 0.7f = -94.5f exactly in float → ties to even -94 (in double: -94.5000038 → -95).
  auto x = OwnedTensor::f32({2}, {-35.25f, -66.15f});
  auto s = OwnedTensor::f32({2}, {0.3f, 0.7f});
  auto r =
      run_reference_owned("QuantizeLinear", {{"axis", std::int64_t{0}}}, {x.view(), s.view()}, {{DType::kInt8, {}}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(int_values(r.value()[0]), (Q{-117, -94}));
  // The generic path requantizes with the same rule: float Clip into an int8 output.
  auto x2 = OwnedTensor::f32({1}, {-66.15f});
  r = run_reference_owned("Clip", {}, {x2.view()}, {{DType::kInt8, per_tensor(0.7f, 0)}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(int_values(r.value()[0]), (Q{-94}));
}

TEST(KernelsQuantizeLinear, PerAxisScalesAndZeroPoints) {
  // x (2, 3), axis 1: scales [1, 0.5, 0.25], zero points [0, 1, -1].
  auto x = OwnedTensor::f32({2, 3}, {1, 1, 1, -2, 2, 0.1f});
  auto s = OwnedTensor::f32({3}, {1, 0.5f, 0.25f});
  auto z = OwnedTensor::q8(DType::kInt8, {3}, {0, 1, -1}, {});
  auto r = run_reference_owned("QuantizeLinear", {}, {x.view(), s.view(), z.view()}, {{DType::kInt8, {}}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  // 1/1+0, 1/0.5+1, 1/0.25-1, -2/1+0, 2/0.5+1, round(0.4)-1
  EXPECT_EQ(int_values(r.value()[0]), (Q{1, 3, 3, -2, 5, -1}));
  // axis 0 with a 2-element scale.
  auto s0 = OwnedTensor::f32({2}, {1, 2});
  r = run_reference_owned("QuantizeLinear", {{"axis", std::int64_t{0}}}, {x.view(), s0.view()}, {{DType::kInt8, {}}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(int_values(r.value()[0]), (Q{1, 1, 1, -1, 1, 0}));
}

TEST(KernelsQuantizeLinear, BadParametersAndTypesAreRejected) {
  auto x = OwnedTensor::f32({2, 3}, F(6, 0));
  auto s2 = OwnedTensor::f32({2}, {1, 1});
  EXPECT_EQ(run_reference_owned("QuantizeLinear", {}, {x.view(), s2.view()}, {{DType::kInt8, {}}}).status().code(),
            err::kInvalidParam);  // axis 1 has 3 entries
  auto s = OwnedTensor::f32({}, {1});
  auto zu = OwnedTensor::q8(DType::kUint8, {}, {0}, {});
  EXPECT_EQ(
      run_reference_owned("QuantizeLinear", {}, {x.view(), s.view(), zu.view()}, {{DType::kInt8, {}}}).status().code(),
      err::kUnsupportedDataType);  // zero point type != output type
  EXPECT_EQ(run_reference_owned("QuantizeLinear", {}, {x.view(), s.view()}, {{DType::kInt32, {}}}).status().code(),
            err::kUnsupportedDataType);
  auto neg = OwnedTensor::f32({}, {-1});
  EXPECT_EQ(run_reference_owned("QuantizeLinear", {}, {x.view(), neg.view()}, {{DType::kInt8, {}}}).status().code(),
            err::kInvalidParam);
}

TEST(KernelsDequantizeLinear, PerTensorPerAxisAndInt32) {
  auto x = OwnedTensor::q8(DType::kUint8, {2, 2}, {0, 10, 128, 255}, {});
  auto s = OwnedTensor::f32({}, {0.5f});
  auto z = OwnedTensor::q8(DType::kUint8, {}, {128}, {});
  auto r = run_reference_owned("DequantizeLinear", {}, {x.view(), s.view(), z.view()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].values<float>(), (F{-64, -59, 0, 63.5f}));  // (q - 128) * 0.5
  // Per-axis on axis 0: rows scaled by 1 and 0.25, zero points 0 and 10.
  auto sa = OwnedTensor::f32({2}, {1, 0.25f});
  auto za = OwnedTensor::q8(DType::kUint8, {2}, {0, 10}, {});
  r = run_reference_owned("DequantizeLinear", {{"axis", std::int64_t{0}}}, {x.view(), sa.view(), za.view()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].values<float>(), (F{0, 10, 29.5f, 61.25f}));
  // int32 (a bias): zero point 0.
  auto b = OwnedTensor::from<std::int32_t>(DType::kInt32, {2}, {-400, 1000});
  auto sb = OwnedTensor::f32({}, {0.01f});
  r = run_reference_owned("DequantizeLinear", {}, {b.view(), sb.view()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].values<float>(), (F{-400 * 0.01f, 1000 * 0.01f}));
  // Without scale input: the tensor's own quantization.
  auto own = OwnedTensor::q8(DType::kInt8, {2}, {-3, 4}, per_tensor(0.5f, 1));
  r = run_reference_owned("DequantizeLinear", {}, {own.view()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].values<float>(), (F{-2, 1.5f}));
  // Round trip: quantize(dequantize(q)) == q.
  auto rq = run_reference_owned("QuantizeLinear", {}, {r.value()[0].view(), s.view()}, {{DType::kInt8, {}}});
  ASSERT_TRUE(rq.ok());
  EXPECT_EQ(int_values(rq.value()[0]), (Q{-4, 3}));  // -2/0.5, 1.5/0.5
}

// ---------------------------------------------------------------------------
// int16 (A16W8's activations): QuantizeLinear / DequantizeLinear and the generic path.

OwnedTensor i16(std::vector<std::int64_t> dims, const std::vector<std::int16_t>& v, Quant q) {
  OwnedTensor t = OwnedTensor::from<std::int16_t>(DType::kInt16, std::move(dims), v);
  t.set_quant(std::move(q));
  return t;
}

TEST(KernelsInt16, QuantizeLinearRoundsHalfToEvenAndSaturatesToInt16) {
  auto x = OwnedTensor::f32({5}, {1.25f, -0.75f, 40000.0f, -70000.0f, 3.0f});
  auto s = OwnedTensor::f32({}, {0.5f});
  auto z = OwnedTensor::from<std::int16_t>(DType::kInt16, {}, {-2});
  auto r = run_reference_owned("QuantizeLinear", {}, {x.view(), s.view(), z.view()}, {{DType::kInt16, {}}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  // 2.5 → 2, -1.5 → -2, 80000 → 32767, -140000 → -32768, 6; then the zero point −2.
  EXPECT_EQ(r.value()[0].values<std::int16_t>(), (std::vector<std::int16_t>{0, -4, 32767, -32768, 4}));
  auto d = run_reference_owned("DequantizeLinear", {}, {r.value()[0].view(), s.view(), z.view()});
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d.value()[0].values<float>(), (F{1, -1, 16384.5f, -16383, 3}));
}

TEST(KernelsInt16, FloatOpsOnInt16EqualDequantizeRunRequantize) {
  auto x = i16({4}, {-20000, -100, 0, 30000}, per_tensor(1e-4f, 0));
  auto r = run_reference_owned("Sigmoid", {}, {x.view()}, {{DType::kInt16, per_tensor(1.0f / 32767, 0)}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const std::vector<std::int16_t> got = r.value()[0].values<std::int16_t>();
  const std::vector<std::int16_t> q{-20000, -100, 0, 30000};
  for (std::size_t i = 0; i < q.size(); ++i) {
    const float real = static_cast<float>(q[i]) * 1e-4f;
    const float y = 1.0f / (1.0f + std::exp(-real));
    EXPECT_NEAR(got[i], std::min(32767.0f, std::nearbyint(y / (1.0f / 32767))), 1.0f) << i;
  }
  // A Conv on int16 activations and int8 weights: the float conv of the dequantized values,
  // requantized to int16 (int16 takes no integer kernel).
  auto cx = i16({1, 1, 1, 3}, {1000, -2000, 3000}, per_tensor(0.01f, 0));
  auto cw = OwnedTensor::q8(DType::kInt8, {2, 1, 1, 1}, {100, -50}, pc({0.02f, 0.04f}, 0));
  auto c = run_reference_owned("Conv", {}, {cx.view(), cw.view()}, {{DType::kInt16, per_tensor(0.05f, 0)}});
  ASSERT_TRUE(c.ok()) << c.status().message();
  // channel 0: x · 2, channel 1: x · −2 (reals 10, −20, 30), / 0.05.
  EXPECT_EQ(c.value()[0].values<std::int16_t>(), (std::vector<std::int16_t>{400, -800, 1200, -400, 800, -1200}));
  // Same encoding in and out: Reshape moves the int16 values unchanged.
  auto shape = OwnedTensor::i64({1}, {3});
  auto m = run_reference_owned("Reshape", {}, {cx.view(), shape.view()}, {{DType::kInt16, per_tensor(0.01f, 0)}});
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m.value()[0].values<std::int16_t>(), (std::vector<std::int16_t>{1000, -2000, 3000}));
}

TEST(KernelsDequantizeLinear, BadTypesAreRejected) {
  auto x = OwnedTensor::f32({2}, {1, 2});
  auto s = OwnedTensor::f32({}, {1});
  EXPECT_EQ(run_reference_owned("DequantizeLinear", {}, {x.view(), s.view()}).status().code(),
            err::kUnsupportedDataType);
  auto q = OwnedTensor::q8(DType::kUint8, {2}, {1, 2}, {});
  auto zi = OwnedTensor::q8(DType::kInt8, {}, {0}, {});
  EXPECT_EQ(run_reference_owned("DequantizeLinear", {}, {q.view(), s.view(), zi.view()}).status().code(),
            err::kUnsupportedDataType);
  auto b = OwnedTensor::from<std::int32_t>(DType::kInt32, {1}, {5});
  auto zb = OwnedTensor::from<std::int32_t>(DType::kInt32, {}, {3});
  EXPECT_EQ(run_reference_owned("DequantizeLinear", {}, {b.view(), s.view(), zb.view()}).status().code(),
            err::kInvalidParam);  // int32 needs zero point 0
}

}  // namespace
}  // namespace svp::kernels
