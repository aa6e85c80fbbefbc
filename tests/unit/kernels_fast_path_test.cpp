// oneDNN fast paths (src/kernels/onednn) against the reference kernels: every covered op
// per element type, NHWC chains, fusion, a whole network, concurrent run_layer calls.
// Integer paths must be bit-exact; float32 within kF32Tol (relative to the output's
// largest magnitude): oneDNN reorders float sums (blocked/vectorised accumulation, and
// pools average in float where the reference sums in double).
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <limits>
#include <list>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "compiler/builder.h"
#include "cpu_hog.h"
#include "kernel_runner.h"
#include "kernels/common.h"
#include "kernels/onednn/int8_conv_avx2.h"
#include "kernels/onednn/q8_depthwise.h"
#include "kernels/onednn/runtime.h"
#include "kernels/onednn/spin_governor.h"
#include "kernels/onednn/swish_f32.h"
#include "netzoo/networks.h"

namespace svp {
namespace {

using model::DType;
using compiler::LayerOptions;
using compiler::ModelBuilder;
using model::Quant;
using testing::Bytes;
using testing::Execution;
using I = std::vector<std::int64_t>;

constexpr float kF32Tol = 1e-5f;

Quant pt(float s, std::int32_t zp) { return Quant{{s}, {zp}, -1}; }

// Runs `m` with the reference kernels and with fast paths on the same inputs; returns the
// outputs of both (per model output) and checks which layers the fast build accelerated.
struct Compared {
  std::vector<Bytes> ref, fast;
  std::vector<std::string> impls;
};

Compared compare(const compiler::BuiltModel& m, std::uint32_t seed, int threads = 1, float lo = -1.f, float hi = 1.f) {
  Compared c;
  auto ref = testing::compile(m, false);
  auto fast = testing::compile(m, true, threads);
  for (std::size_t i = 0; i < fast->layer_count(); ++i) c.impls.push_back(fast->layer_impl(i));
  Execution er(m), ef(m);
  for (std::int32_t t : m.program.input_tensors()) {
    testing::fill_random(er.io(t), m.program.tensors[static_cast<std::size_t>(t)].dtype, seed++, lo, hi);
    ef.io(t) = er.io(t);
  }
  EXPECT_TRUE(er.run(*ref).ok());
  Status s = ef.run(*fast);
  EXPECT_TRUE(s.ok()) << s.message();
  for (std::int32_t t : m.program.output_tensors()) {
    c.ref.push_back(er.io(t));
    c.fast.push_back(ef.io(t));
  }
  return c;
}

void expect_f32_close(const Bytes& a, const Bytes& b) {
  ASSERT_EQ(a.size(), b.size());
  const std::size_t n = a.size() / 4;
  std::vector<float> x(n), y(n);
  std::memcpy(x.data(), a.data(), a.size());
  std::memcpy(y.data(), b.data(), b.size());
  float mag = 0;
  for (float v : x) mag = std::max(mag, std::fabs(v));
  ASSERT_GT(mag, 0.f) << "degenerate test: all-zero output";
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (!(std::fabs(x[i] - y[i]) <= kF32Tol * mag)) ++bad;
  EXPECT_EQ(bad, 0u) << "of " << n << " values, max magnitude " << mag;
}

void expect_exact(const Bytes& a, const Bytes& b, long min_distinct = 8) {
  ASSERT_EQ(a.size(), b.size());
  std::size_t bad = 0, first = a.size();
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) {
      if (first == a.size()) first = i;
      ++bad;
    }
  EXPECT_EQ(bad, 0u) << "first mismatch at byte " << first << ": ref " << int(static_cast<std::int8_t>(a[first]))
                     << " fast " << int(static_cast<std::int8_t>(b[first]));
  // The comparison means little if the outputs are constant (e.g. all saturated).
  std::vector<std::uint8_t> distinct(a.begin(), a.end());
  std::sort(distinct.begin(), distinct.end());
  EXPECT_GT(std::unique(distinct.begin(), distinct.end()) - distinct.begin(), min_distinct);
}

std::vector<std::int8_t> random_i8(std::size_t n, std::uint32_t seed, int lo = -127, int hi = 127) {
  std::vector<std::int8_t> v(n);
  for (auto& x : v) x = static_cast<std::int8_t>(lo + static_cast<int>(testing::lcg(seed) % (hi - lo + 1)));
  return v;
}
std::vector<float> random_f(std::size_t n, std::uint32_t seed, float scale = 0.2f) {
  std::vector<float> v(n);
  for (auto& x : v) x = scale * (static_cast<float>(testing::lcg(seed) % 2001) / 1000.f - 1.f);
  return v;
}

// ---------------------------------------------------------------------------------------
struct ConvCase {
  const char* name;
  std::int64_t c, m, h, w, k, stride, pad, dil, group;
  DType x = DType::kInt8;
  std::int32_t zp_x = 0;
  DType y = DType::kInt8;
  std::int32_t zp_y = 0;
  bool per_channel = true, bias = true;
  int x_range = 127;  // |x - zp| bound of the random inputs (small values make ties likely)
  float sy_mul = 1.f;
  // Non-zero: per-tensor weights and s_y chosen so that the requant scale is exactly
  // this power of two (then acc · scale lands on .5 for a fixed share of accumulators).
  float exact_scale = 0.f;
  // Accumulators beyond 2^24 (float conversion rounds): inputs near x_center + zp,
  // weights near 127.
  bool huge_acc = false;
  int x_center = 0;
};

compiler::BuiltModel conv_model(const ConvCase& cc, bool fp32, const char* post = nullptr) {
  ModelBuilder b("conv");
  const I wd{cc.m, cc.c / cc.group, cc.k, cc.k};
  const std::size_t wn = static_cast<std::size_t>(wd[0] * wd[1] * wd[2] * wd[3]);
  LayerOptions o;
  o.attrs.set("strides", I{cc.stride, cc.stride});
  o.attrs.set("pads", I{cc.pad, cc.pad, cc.pad, cc.pad});
  o.attrs.set("dilations", I{cc.dil, cc.dil});
  o.attrs.set("group", cc.group);
  compiler::TensorId x, w, bias = -1;
  if (fp32) {
    x = b.add_input("x", DType::kFloat32, {1, cc.c, cc.h, cc.w});
    w = b.add_constant("w", wd, random_f(wn, 7));
    if (cc.bias) bias = b.add_constant("b", {cc.m}, random_f(static_cast<std::size_t>(cc.m), 8));
  } else {
    const float sx = 0.02f;
    x = b.add_input("x", cc.x, {1, cc.c, cc.h, cc.w}, model::Layout::kNCHW, pt(sx, cc.zp_x));
    Quant wq = cc.per_channel ? Quant{{}, {}, 0} : pt(0.004f, 0);
    if (cc.per_channel) {
      for (std::int64_t i = 0; i < cc.m; ++i) {
        wq.scale.push_back(0.002f + 0.0005f * static_cast<float>(i % 7));
        wq.zero_point.push_back(0);
      }
    }
    w = b.add_constant("w", wd, cc.huge_acc ? random_i8(wn, 7, 120, 127) : random_i8(wn, 7), wq);
    if (cc.bias) {
      std::vector<std::int32_t> bv(static_cast<std::size_t>(cc.m));
      std::uint32_t s = 9;
      const std::uint32_t br = cc.exact_scale > 0 && !cc.huge_acc ? 500 : 10000;
      for (auto& v : bv) v = static_cast<std::int32_t>(testing::lcg(s) % (2 * br + 1)) - static_cast<std::int32_t>(br);
      bias = b.add_constant("b", {cc.m}, bv);
    }
    // Output scale so that outputs spread over the int8 range with some saturation.
    const float k = static_cast<float>(cc.k * cc.k * cc.c / cc.group);
    const float sy = sx * 0.003f * 40.f * static_cast<float>(cc.x_range) * std::sqrt(k) / 60.f * cc.sy_mul;
    o.output_dtypes = {cc.y};
    if (cc.y != DType::kFloat32) o.output_quants = {pt(cc.exact_scale > 0 ? (sx * 0.004f) / cc.exact_scale : sy, cc.zp_y)};
  }
  compiler::TensorId y = b.add_layer("conv", "Conv", cc.bias ? std::vector<compiler::TensorId>{x, w, bias}
                                                          : std::vector<compiler::TensorId>{x, w},
                                  o);
  if (post != nullptr) y = b.add_layer("post", post, {y});
  b.add_output(y);
  auto r = b.build();
  if (!r.ok()) throw std::runtime_error(r.status().message());
  return std::move(r.value());
}

const ConvCase kConvCases[] = {
    {"3x3_s1_p1", 16, 32, 14, 14, 3, 1, 1, 1, 1},
    {"3x3_s2_p1", 24, 16, 15, 15, 3, 2, 1, 1, 1},
    {"1x1", 64, 48, 7, 7, 1, 1, 0, 1, 1},
    {"7x7_s2_p3_c3", 3, 16, 32, 32, 7, 2, 3, 1, 1},
    {"dilation2", 16, 16, 12, 12, 3, 1, 2, 2, 1},
    {"groups4", 32, 32, 10, 10, 3, 1, 1, 1, 4},
    {"depthwise", 32, 32, 12, 12, 3, 1, 1, 1, 32},
    {"depthwise_s2", 48, 48, 13, 13, 3, 2, 1, 1, 48},
    {"uint8_in_zp", 16, 16, 9, 9, 3, 1, 1, 1, 1, DType::kUint8, 128},
    {"int8_in_zp_out_zp", 16, 16, 9, 9, 3, 1, 1, 1, 1, DType::kInt8, -5, DType::kInt8, 7},
    {"uint8_out_zp", 16, 16, 9, 9, 3, 1, 1, 1, 1, DType::kInt8, 0, DType::kUint8, 100},
    {"per_tensor_no_bias", 16, 16, 9, 9, 3, 1, 1, 1, 1, DType::kInt8, 0, DType::kInt8, 0, false, false},
    {"float_out", 16, 16, 9, 9, 3, 1, 1, 1, 1, DType::kInt8, 0, DType::kFloat32, 0},
    // Small inputs: many products land exactly on .5 after scaling (ties).
    {"ties_odd_zp", 8, 16, 9, 9, 1, 1, 0, 1, 1, DType::kInt8, 0, DType::kInt8, 3, false, false, 3, 1.f, 1.f / 16},
    {"huge_acc",      512,  16, 5, 5, 3, 1, 1, 1, 1, DType::kUint8, 0, DType::kInt8, 1, true, true, 3, 1.f,
     1.f / (1 << 21), true, 250},
    {"huge_acc_float_out", 512,  16, 5, 5, 3, 1, 1, 1, 1, DType::kUint8, 0, DType::kFloat32, 0, true, true, 3, 1.f,
     1.f / (1 << 21),      true, 250},
    {"ties_even_zp_bias", 8, 16, 9, 9, 1, 1, 0, 1, 1, DType::kInt8, 0, DType::kInt8, -4, false, true, 3, 1.f, 1.f / 16},
    // Edges of the avx2_int8 kernel: K odd and below one vector (5·3·3 = 45), output
    // channels not a multiple of its 16-channel tiles, padding read as a nonzero zp_x with
    // stride and dilation, groups of 3 output channels, depthwise channels beyond whole
    // 8-lane vectors, a depthwise multiplier (one input, two outputs per group).
    {"odd_k_odd_m_zp_pad", 5, 19, 11, 11, 3, 1, 1, 1, 1, DType::kInt8, 9, DType::kInt8, -2},
    {"uint8_zp_s2_d2_pad", 6, 21, 17, 17, 3, 2, 2, 2, 1, DType::kUint8, 37, DType::kUint8, 128},
    {"5x5_s2_p2_m35", 7, 35, 16, 16, 5, 2, 2, 1, 1, DType::kUint8, 200},
    {"groups3_mg3", 9, 9, 8, 8, 3, 1, 1, 1, 3, DType::kInt8, -7},
    {"depthwise_c13_zp", 13, 13, 10, 10, 3, 1, 1, 1, 13, DType::kInt8, 11, DType::kInt8, 4},
    {"depthwise_uint8_5x5_s2", 20, 20, 15, 15, 5, 2, 2, 1, 20, DType::kUint8, 120, DType::kUint8, 90},
    {"depthwise_dil2_float_out", 24, 24, 12, 12, 3, 1, 2, 2, 24, DType::kUint8, 3, DType::kFloat32, 0, false},
    {"depthwise_multiplier2", 8, 16, 9, 9, 3, 1, 1, 1, 8, DType::kInt8, 5},
    {"float_out_per_tensor_zp", 12, 20, 9, 9, 3, 1, 1, 1, 1, DType::kUint8, 60, DType::kFloat32, 0, false, true},
    {"1x1_uint8_c70_m50", 70, 50, 9, 7, 1, 1, 0, 1, 1, DType::kUint8, 128, DType::kInt8, 0, true, false},
    // Taps that read padding only are dropped from the kernel (DeepLabV3's ASPP): 3x3 with
    // dilation 6 on 6x6 keeps its centre (a 1x1), also with stride 2 on 5x5; 5x5 with
    // dilation 4 on 8x8 keeps its inner 3x3; dilation 5 on 7x7 keeps all (every tap reads
    // data for some output). Padding there is the input's zero point.
    {"dead_taps_to_1x1_zp", 16, 24, 6, 6, 3, 1, 6, 6, 1, DType::kUint8, 37},
    {"dead_taps_to_1x1_s2", 16, 16, 5, 5, 3, 2, 8, 8, 1, DType::kInt8, -9},
    {"dead_taps_5x5_to_3x3", 8, 16, 8, 8, 5, 1, 8, 4, 1, DType::kInt8, 5},
    {"dead_taps_none_dil5", 8, 16, 7, 7, 3, 1, 5, 5, 1, DType::kUint8, 200},
    // Padded inputs above 128 KB: FastOp's padding copy (with the int8 → uint8 flip for
    // the depthwise one) splits its rows over the threads.
    {"depthwise_large_int8_zp", 64, 64, 48, 48, 3, 1, 1, 1, 64, DType::kInt8, 5, DType::kInt8, -3},
    {"3x3_large_uint8_zp", 32, 16, 64, 64, 3, 1, 1, 1, 1, DType::kUint8, 100},
};

// oneDNN's int8 convolution and inner product are exact only on CPUs with VNNI
// (docs/kernels.md, "int8 needs VNNI"); elsewhere the planner must choose our exact AVX2
// kernel (int8_conv_avx2.h), or without AVX2 the reference kernel (the outputs then match
// trivially).
std::string int8_cube_impl(const char* fast = "onednn") {
  if (kernels::onednn::exact_int8_isa()) return fast;
  return kernels::onednn::int8_avx2_available() ? "avx2_int8" : "reference";
}

// Depthwise layers with an integer output run on our VNNI kernel where the CPU has it
// (q8_depthwise.h); the other integer convolutions as int8_cube_impl says.
std::string int8_conv_impl(const ConvCase& cc) {
  if (cc.group > 1 && cc.group == cc.c && cc.m == cc.c && cc.y != DType::kFloat32 &&
      kernels::onednn::q8_depthwise_available() &&
      kernels::onednn::q8_depthwise_preferred(cc.c, cc.k * cc.k, (cc.zp_x != 0 || cc.x == DType::kInt8) && cc.pad > 0))
    return "vnni_dw_int8";
  return int8_cube_impl();
}

class FastConv : public ::testing::TestWithParam<ConvCase> {};

TEST_P(FastConv, Int8BitExact) {
  const ConvCase& cc = GetParam();
  auto m = conv_model(cc, false);
  // Inputs as raw bytes; restrict their range around the zero point for the ties case.
  auto ref = testing::compile(m, false);
  auto fast = testing::compile(m, true);
  ASSERT_EQ(fast->layer_impl(0), int8_conv_impl(cc));
  Execution er(m), ef(m);
  const std::int32_t xt = m.program.input_tensors()[0];
  std::uint32_t s = 11;
  for (auto& v : er.io(xt)) {
    const int r = static_cast<int>(testing::lcg(s) % static_cast<std::uint32_t>(2 * cc.x_range + 1)) - cc.x_range;
    const int q = std::min(cc.x == DType::kInt8 ? 127 : 255,
                           std::max(cc.x == DType::kInt8 ? -128 : 0, cc.zp_x + cc.x_center + r));
    v = static_cast<std::uint8_t>(q);
  }
  ef.io(xt) = er.io(xt);
  ASSERT_TRUE(er.run(*ref).ok());
  Status st = ef.run(*fast);
  ASSERT_TRUE(st.ok()) << st.message();
  const std::int32_t yt = m.program.output_tensors()[0];
  // The integer path is exact for float32 outputs too (y = acc · s_x · s_w).
  expect_exact(er.io(yt), ef.io(yt));
}

TEST_P(FastConv, Float32WithinTolerance) {
  ConvCase cc = GetParam();
  auto m = conv_model(cc, true);
  auto c = compare(m, 3);
  EXPECT_EQ(c.impls[0], "onednn");
  expect_f32_close(c.ref[0], c.fast[0]);
}

// The source zero point folded into the bias moves zx·Σw between the two float terms of
// v = (float)acc + (float)bias; beyond 2^24 they round differently. Here acc ≈ 154·Σw ≈ 1.9·10^7
// (raw: 255·Σw ≈ 3.1·10^7) and the bias cancels it to a small v with requant scale 1/4, so a
// fold would move some outputs by a step (4 of 32 channels): the zero point must stay
// oneDNN's. With the parameter, a small layer that folds, and three dead channels in it
// (weight scale 1e-30 with a bias saturated at 2^31 − 1, whose folded bias is clamped;
// a subnormal weight scale, 1e-40, which oneDNN gets as 0; a bias saturated at −2^31
// whose scale leaves v·scale ≈ −4.6 for every input): still the same outputs.
class FastConvFold : public ::testing::TestWithParam<bool> {};

TEST_P(FastConvFold, KeepsResultsWhereFloatTermsPass2To24) {
  const bool dead = GetParam();
  // With dead channels, 64 inputs keep every other term within 2^24: the layer folds.
  const std::int64_t c = dead ? 64 : 1024, m = 34;
  const std::int32_t zx = 101;
  const std::vector<std::int8_t> wv = random_i8(static_cast<std::size_t>(m * c), 5, 113, 127);
  Quant wq{{}, {}, 0};
  std::vector<std::int32_t> bv(static_cast<std::size_t>(m));
  std::uint32_t seed = 3;
  for (std::int64_t o = 0; o < m; ++o) {
    std::int64_t sum = 0;
    for (std::int64_t i = 0; i < c; ++i) sum += wv[static_cast<std::size_t>(o * c + i)];
    const std::int64_t r = static_cast<std::int64_t>(testing::lcg(seed) % 401) - 200;
    wq.zero_point.push_back(0);
    if (dead && o == m - 3) {  // a subnormal scale (oneDNN gets 0 instead)
      wq.scale.push_back(1e-40f);
      bv[static_cast<std::size_t>(o)] = static_cast<std::int32_t>(r);
    } else if (dead && o == m - 2) {  // dead: no int32 v moves the output off the zero point
      wq.scale.push_back(1e-30f);
      bv[static_cast<std::size_t>(o)] = std::numeric_limits<std::int32_t>::max();
    } else if (dead && o == m - 1) {  // saturated bias: v·scale ≈ −4.6 for every input
      wq.scale.push_back(1.34e-10f);
      bv[static_cast<std::size_t>(o)] = std::numeric_limits<std::int32_t>::min();
    } else {
      wq.scale.push_back(1.f / 64);  // requant scale (1 · 1/64) / (1/16) = 1/4
      bv[static_cast<std::size_t>(o)] = static_cast<std::int32_t>(r - (255 - zx) * sum);
    }
  }
  ModelBuilder b("fold");
  compiler::TensorId x = b.add_input("x", DType::kUint8, {1, c, 2, 2}, model::Layout::kNCHW, pt(1.f, zx));
  compiler::TensorId w = b.add_constant("w", {m, c, 1, 1}, wv, wq);
  compiler::TensorId bias = b.add_constant("b", {m}, bv);
  LayerOptions o;
  o.output_dtypes = {DType::kInt8};
  o.output_quants = {pt(1.f / 16, dead ? 0 : 3)};  // dead channels' zero point 0: tiny values round to it
  b.add_output(b.add_layer("conv", "Conv", {x, w, bias}, o));
  auto built = b.build();
  ASSERT_TRUE(built.ok()) << built.status().message();
  const compiler::BuiltModel& model = built.value();
  auto ref = testing::compile(model, false);
  auto fast = testing::compile(model, true);
  ASSERT_EQ(fast->layer_impl(0), int8_cube_impl());
  Execution er(model), ef(model);
  const std::int32_t xt = model.program.input_tensors()[0], yt = model.program.output_tensors()[0];
  // Pixel 0 at 255 everywhere (v = r), the others 1–3 below (v far out: saturated).
  for (std::size_t i = 0; i < er.io(xt).size(); ++i)
    er.io(xt)[i] = static_cast<std::uint8_t>(i % 4 == 0 ? 255 : 251 + i % 4);
  ef.io(xt) = er.io(xt);
  ASSERT_TRUE(er.run(*ref).ok());
  ASSERT_TRUE(ef.run(*fast).ok());
  expect_exact(er.io(yt), ef.io(yt));
}

INSTANTIATE_TEST_SUITE_P(DeadChannels, FastConvFold, ::testing::Bool());

TEST(FastConvGuard, PossibleInt32OverflowUsesTheReference) {
  // K = 8192 · 3 · 3 taps of |w| = 127 with |x − zp| up to 255: 255 · Σ|w| > 2^31, so
  // oneDNN's int32 accumulators could wrap where the reference saturates: reference.
  ModelBuilder b("overflow");
  const std::int64_t c = 8192;
  compiler::TensorId x = b.add_input("x", DType::kUint8, {1, c, 3, 3}, model::Layout::kNCHW, pt(0.02f, 0));
  compiler::TensorId w = b.add_constant("w", {1, c, 3, 3}, std::vector<std::int8_t>(static_cast<std::size_t>(c * 9), 127),
                                     pt(0.004f, 0));
  LayerOptions o;
  o.output_quants = {pt(2000.f, 0)};
  b.add_output(b.add_layer("conv", "Conv", {x, w}, o));
  auto m = b.build();
  ASSERT_TRUE(m.ok()) << m.status().message();
  auto r = compare(m.value(), 1);
  EXPECT_EQ(r.impls[0], "reference");
  EXPECT_EQ(r.ref[0], r.fast[0]);
  // The same with a smaller K is within bounds and fast.
  ModelBuilder b2("no_overflow");
  compiler::TensorId x2 = b2.add_input("x", DType::kUint8, {1, 64, 3, 3}, model::Layout::kNCHW, pt(0.02f, 0));
  compiler::TensorId w2 = b2.add_constant("w", {1, 64, 3, 3}, std::vector<std::int8_t>(64 * 9, 127), pt(0.004f, 0));
  b2.add_output(b2.add_layer("conv", "Conv", {x2, w2}, o));
  auto m2 = b2.build();
  ASSERT_TRUE(m2.ok());
  EXPECT_EQ(compare(m2.value(), 1).impls[0], int8_cube_impl());
}

// The same cases on two threads (pixel blocks and, for few pixels, output-channel splits
// run in parallel) with a Relu folded in (integer: max(q, zp_y); float32: max(v, 0)).
// Depthwise shapes the square cases above do not reach: a batch of three (the widened
// rows are kept per image), kernels of odd and even width (an unpaired last column),
// uneven pads, 2-wide stride across and 1 down, on one and two threads. The requant scale
// (0.005) puts acc·scale + zp on or next to .5 for some outputs, where a multiply and add
// contracted into one FMA would round differently from the reference. The last two reach
// vnni_dw_int8's edges (on CPUs with it): three 64-channel blocks, the last with a tail of 58
// channels, kernels of more than four rows (a second interleaved group), dilation, int8
// input with a zero point in the padding.
TEST(FastConvInt8, DepthwiseBatchesAndUnevenKernels) {
  struct Case {
    I kernel, strides, pads, dilations;
    std::int64_t c;  // 37: two blocks of 16 and a tail of 5 (avx2_int8); 186: 64 + 64 + 58
    DType x;
    std::int32_t zp_x;
  };
  for (const Case& k : {Case{{3, 5}, {1, 2}, {2, 1, 0, 3}, {1, 1}, 37, DType::kUint8, 131},
                        Case{{2, 4}, {2, 1}, {0, 0, 1, 1}, {1, 1}, 37, DType::kUint8, 131},
                        Case{{1, 3}, {1, 1}, {0, 1, 0, 1}, {1, 1}, 37, DType::kUint8, 131},
                        Case{{7, 5}, {1, 1}, {5, 4, 6, 3}, {2, 1}, 186, DType::kInt8, -9},
                        Case{{5, 3}, {2, 2}, {2, 1, 2, 1}, {1, 2}, 128, DType::kUint8, 7}}) {
    for (int threads : {1, 2}) {
      SCOPED_TRACE(std::to_string(k.kernel[0]) + "x" + std::to_string(k.kernel[1]) + " c " + std::to_string(k.c) +
                   " threads " + std::to_string(threads));
      ModelBuilder b("dw");
      const std::int64_t c = k.c;
      compiler::TensorId x = b.add_input("x", k.x, {3, c, 9, 11}, model::Layout::kNCHW, pt(0.03f, k.zp_x));
      compiler::TensorId w = b.add_constant("w", {c, 1, k.kernel[0], k.kernel[1]},
                                            random_i8(static_cast<std::size_t>(c * k.kernel[0] * k.kernel[1]), 3),
                                            pt(0.005f, 0));
      LayerOptions o;
      o.attrs.set("group", c);
      o.attrs.set("kernel_shape", k.kernel);
      o.attrs.set("strides", k.strides);
      o.attrs.set("pads", k.pads);
      o.attrs.set("dilations", k.dilations);
      o.output_dtypes = {DType::kInt8};
      o.output_quants = {pt(0.03f, -5)};
      b.add_output(b.add_layer("conv", "Conv", {x, w}, o));
      auto m = b.build();
      ASSERT_TRUE(m.ok()) << m.status().message();
      auto r = compare(m.value(), 5, threads);
      const bool vnni = kernels::onednn::q8_depthwise_available() &&
                        kernels::onednn::q8_depthwise_preferred(c, k.kernel[0] * k.kernel[1], true);
      EXPECT_EQ(r.impls[0], vnni ? "vnni_dw_int8" : int8_cube_impl());
      expect_exact(r.ref[0], r.fast[0]);
    }
  }
}

TEST(FastConvInt8, TwoThreadsWithFoldedRelu) {
  for (const ConvCase& cc : kConvCases) {
    SCOPED_TRACE(cc.name);
    auto m = conv_model(cc, false, "Relu");
    auto c = compare(m, 17, 2);
    if (int8_cube_impl() != "reference") {
      EXPECT_EQ(c.impls[0], int8_conv_impl(cc));
      EXPECT_EQ(c.impls[1], int8_conv_impl(cc) + ":fused");
    }
    expect_exact(c.ref[0], c.fast[0], 4);
  }
}

// avx2_int8's requantization (int8_requant_row: 16 and 8 lanes at a time, then a scalar
// tail) against the reference's steps value by value, on the values where a vector
// rewrite can slip: accumulators landing exactly on x.5 after scaling (ties to even, with
// odd and even zero points), far beyond the output range (saturation both ways, products
// beyond int32 and float range, 0·inf = NaN), beyond 2^24 (the int → float rounding),
// relu floors, int8, uint8 and float32 outputs, every n from 1 to 17. Bytes past n must
// stay untouched.
std::vector<std::uint8_t> requant_row_expected(const std::vector<std::int32_t>& acc, const std::vector<float>& bias,
                                               const std::vector<float>& scale, const kernels::onednn::Int8Requant& q) {
  std::vector<std::uint8_t> out;
  for (std::size_t j = 0; j < acc.size(); ++j) {
    const float v = static_cast<float>(acc[j]) + bias[j];
    if (q.y == DType::kFloat32) {
      const float r = v * scale[j];
      const float f = q.relu && r < 0.f ? 0.f : r;
      const auto* b = reinterpret_cast<const std::uint8_t*>(&f);
      out.insert(out.end(), b, b + sizeof f);
      continue;
    }
    const std::int64_t floor = q.relu ? std::max<std::int64_t>(q.zp, q.lo) : q.lo;
    out.push_back(
        static_cast<std::uint8_t>(std::max(floor, kernels::detail::requantize_acc(v, scale[j], q.zp, q.lo, q.hi))));
  }
  return out;
}

TEST(Int8RequantRow, IdenticalToRequantizeAccAtTiesSaturationAndTails) {
  if (!kernels::onednn::int8_avx2_available()) GTEST_SKIP() << "no AVX2";
  const std::int32_t accs[] = {0,
                               1,
                               -1,
                               3,
                               -3,
                               5,
                               -7,
                               255,
                               -255,
                               1001,
                               -1001,
                               (1 << 24) + 1,
                               -(1 << 24) - 3,
                               1000000007,
                               std::numeric_limits<std::int32_t>::max(),
                               std::numeric_limits<std::int32_t>::min()};
  const float scales[] = {0.5f, 0.25f, 1.f / 16, 1.f, 0.0123f, 1e-9f, 3e38f, std::numeric_limits<float>::infinity()};
  const float biases[] = {0.f, 0.f, 1.f, -1.f, 2.f, -1000.f, 4097.f};
  struct Enc {
    DType y;
    std::int64_t lo, hi;
    std::vector<std::int32_t> zps;
  };
  const Enc encs[] = {{DType::kInt8, -128, 127, {-128, -3, 0, 4, 127}},
                      {DType::kUint8, 0, 255, {0, 3, 128, 255}},
                      {DType::kFloat32, 0, 0, {0}}};
  std::uint32_t s = 23;
  auto pick = [&s](const auto& list) { return list[testing::lcg(s) % std::size(list)]; };
  for (const Enc& e : encs)
    for (std::int32_t zp : e.zps)
      for (bool relu : {false, true})
        for (std::int64_t n = 1; n <= 17; ++n)
          for (int trial = 0; trial < 8; ++trial) {
            const kernels::onednn::Int8Requant q{e.y, relu, zp, e.lo, e.hi};
            std::vector<std::int32_t> acc(static_cast<std::size_t>(n));
            std::vector<float> bias(acc.size()), scale(acc.size());
            for (std::size_t j = 0; j < acc.size(); ++j) {
              // Half the trials all ties: odd accumulators, no bias, scale 1/2.
              const bool tie = trial % 2 == 0;
              acc[j] = tie ? 2 * static_cast<std::int32_t>(testing::lcg(s) % 601) - 601 : pick(accs);
              bias[j] = tie ? 0.f : pick(biases);
              scale[j] = tie ? 0.5f : pick(scales);
            }
            const std::vector<std::uint8_t> want = requant_row_expected(acc, bias, scale, q);
            std::vector<std::uint8_t> got(want.size() + 64, 0xA5);
            kernels::onednn::int8_requant_row(acc.data(), bias.data(), scale.data(), n, q, got.data());
            ASSERT_EQ(Bytes(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(want.size())), want)
                << "y " << static_cast<int>(e.y) << " zp " << zp << " relu " << relu << " n " << n << " trial "
                << trial;
            for (std::size_t i = want.size(); i < got.size(); ++i) ASSERT_EQ(got[i], 0xA5) << "wrote past n = " << n;
          }
}

INSTANTIATE_TEST_SUITE_P(Cases, FastConv, ::testing::ValuesIn(kConvCases),
                         [](const auto& info) { return std::string(info.param.name); });

// ---------------------------------------------------------------------------------------
// A Conv in front makes the op under test read NHWC data (the chain case); the model input
// goes straight in for the NCHW-input case.
compiler::BuiltModel single_op(const std::string& op, model::Attrs attrs, DType dt, bool after_conv, I xdims,
                            std::vector<compiler::TensorId> (*extra)(ModelBuilder&) = nullptr) {
  ModelBuilder b("op");
  const Quant q = dt == DType::kFloat32 ? Quant{} : pt(0.05f, dt == DType::kUint8 ? 120 : -3);
  compiler::TensorId x = b.add_input("x", dt, xdims, model::Layout::kNCHW, q);
  if (after_conv) {
    const std::int64_t c = xdims[1];
    LayerOptions o;
    o.attrs.set("pads", I{1, 1, 1, 1});
    compiler::TensorId w;
    if (dt == DType::kFloat32) {
      w = b.add_constant("w", {c, c, 3, 3}, random_f(static_cast<std::size_t>(c * c * 9), 5));
    } else {
      w = b.add_constant("w", {c, c, 3, 3}, random_i8(static_cast<std::size_t>(c * c * 9), 5), pt(0.004f, 0));
      o.output_quants = {pt(0.05f * 0.004f * 73.f * std::sqrt(9.f * static_cast<float>(c)) * 3.f / 127.f * 40.f,
                            dt == DType::kUint8 ? 120 : -3)};
    }
    x = b.add_layer("conv", "Conv", {x, w}, o);
  }
  std::vector<compiler::TensorId> in{x};
  if (extra != nullptr)
    for (compiler::TensorId t : extra(b)) in.push_back(t);
  LayerOptions o;
  o.attrs = std::move(attrs);
  b.add_output(b.add_layer("op", op, in, o));
  auto r = b.build();
  if (!r.ok()) throw std::runtime_error(r.status().message());
  return std::move(r.value());
}

model::Attrs pool_attrs(I k, I s, I p, bool ceil = false, bool include_pad = false, I dil = {1, 1}) {
  model::Attrs a;
  a.set("kernel_shape", k);
  a.set("strides", s);
  a.set("pads", p);
  a.set("dilations", dil);
  if (ceil) a.set("ceil_mode", std::int64_t{1});
  if (include_pad) a.set("count_include_pad", std::int64_t{1});
  return a;
}

void check(const compiler::BuiltModel& m, std::size_t layer, const char* impl, bool exact) {
  auto c = compare(m, 21);
  EXPECT_EQ(c.impls[layer], impl);
  if (exact) {
    expect_exact(c.ref[0], c.fast[0]);
  } else {
    expect_f32_close(c.ref[0], c.fast[0]);
  }
}

TEST(FastPool, MaxPoolInt8ExactNchwAndNhwc) {
  for (bool chain : {false, true}) {
    for (DType dt : {DType::kInt8, DType::kUint8}) {
      SCOPED_TRACE(std::to_string(chain) + " " + model::dtype_name(dt));
      check(single_op("MaxPool", pool_attrs({3, 3}, {2, 2}, {1, 1, 1, 1}), dt, chain, {1, 16, 15, 15}), chain ? 1 : 0,
            "onednn", true);
      check(single_op("MaxPool", pool_attrs({3, 3}, {2, 2}, {0, 0, 0, 0}, true), dt, chain, {1, 16, 16, 16}),
            chain ? 1 : 0, "onednn", true);
      // oneDNN 2.6 has no optimised dilated pooling (only ref:any): reference.
      check(single_op("MaxPool", pool_attrs({2, 2}, {1, 1}, {0, 0, 0, 0}, false, false, {2, 2}), dt, chain,
                      {1, 8, 9, 9}),
            chain ? 1 : 0, "reference", true);
    }
  }
}

TEST(FastPool, Float32Pools) {
  for (bool chain : {false, true}) {
    SCOPED_TRACE(chain);
    const std::size_t l = chain ? 1 : 0;
    // A max is exact in float too, unless a (fast) conv in front rounded differently.
    check(single_op("MaxPool", pool_attrs({3, 3}, {2, 2}, {1, 1, 1, 1}), DType::kFloat32, chain, {1, 16, 15, 15}), l,
          "onednn", !chain);
    check(single_op("AveragePool", pool_attrs({3, 3}, {2, 2}, {1, 1, 1, 1}), DType::kFloat32, chain, {1, 16, 15, 15}),
          l, "onednn", false);
    check(single_op("AveragePool", pool_attrs({3, 3}, {2, 2}, {1, 1, 1, 1}, false, true), DType::kFloat32, chain,
                    {1, 16, 15, 15}),
          l, "onednn", false);
    check(single_op("AveragePool", pool_attrs({3, 3}, {2, 2}, {0, 0, 0, 0}, true), DType::kFloat32, chain,
                    {1, 16, 16, 16}),
          l, "onednn", false);
    check(single_op("GlobalAveragePool", {}, DType::kFloat32, chain, {1, 32, 7, 7}), l, "onednn", false);
  }
}

TEST(FastPool, IntegerAverages) {
  // oneDNN's integer averaging is not the dequantizing reference rule: AveragePool has a
  // native kernel of the reference's rule (q8_avg_pool.h; after a conv, through NHWC → NCHW
  // conversion), as GlobalAveragePool has (NCHW and NHWC input).
  check(single_op("AveragePool", pool_attrs({3, 3}, {2, 2}, {1, 1, 1, 1}), DType::kInt8, true, {1, 16, 15, 15}), 1,
        "native", true);
  for (DType dt : {DType::kInt8, DType::kUint8}) {
    check(single_op("GlobalAveragePool", {}, dt, true, {1, 64, 7, 7}), 1, "native", true);
    check(single_op("GlobalAveragePool", {}, dt, false, {1, 64, 5, 9}), 0, "native", true);
    // A channel count that leaves a vector tail in NHWC (5×9 planes leave one in NCHW).
    check(single_op("GlobalAveragePool", {}, dt, true, {2, 36, 5, 7}), 1, "native", true);
  }
}

// Two int8 operands with different encodings (the output takes the first one's), with and
// without the Relu that follows, over lengths with a vector tail; the larger one (37332
// elements) split in two bands on two threads.
TEST(FastQ8Add, ExactWithMixedEncodingsAndRelu) {
  // 420 elements: 52 vectors of 8 and a tail of 4.
  for (const I& d : {I{1, 12, 5, 7}, I{1, 12, 61, 51}})
    for (bool relu : {false, true}) {
      for (DType dt : {DType::kInt8, DType::kUint8}) {
        SCOPED_TRACE(std::string(model::dtype_name(dt)) + (relu ? " relu " : " ") + std::to_string(d[2]));
        ModelBuilder b("add");
        const std::int32_t zp = dt == DType::kUint8 ? 128 : -3;
        compiler::TensorId x = b.add_input("x", dt, d, model::Layout::kNCHW, pt(0.05f, zp));
        compiler::TensorId w1 = b.add_constant("w1", {12, 12, 1, 1}, random_i8(144, 1), pt(0.01f, 0));
        compiler::TensorId w2 = b.add_constant("w2", {12, 12, 3, 3}, random_i8(12 * 12 * 9, 2), pt(0.004f, 0));
        LayerOptions o1, o2;
        o1.output_quants = {pt(0.3f, dt == DType::kUint8 ? 121 : 5)};
        o2.attrs.set("pads", I{1, 1, 1, 1});
        o2.output_quants = {pt(0.17f, dt == DType::kUint8 ? 130 : -7)};
        compiler::TensorId a = b.add_layer("c1", "Conv", {x, w1}, o1);
        compiler::TensorId c = b.add_layer("c2", "Conv", {x, w2}, o2);
        compiler::TensorId y = b.add_layer("add", "Add", {a, c});
        if (relu) y = b.add_layer("relu", "Relu", {y});
        // y stays an NHWC intermediate (a model output would have to be NCHW: reference).
        LayerOptions o3;
        o3.output_quants = {pt(0.2f, 0)};
        b.add_output(b.add_layer("c3", "Conv", {y, w1}, o3));
        auto m = b.build();
        ASSERT_TRUE(m.ok()) << m.status().message();
        auto r = compare(m.value(), 9, d[2] > 5 ? 2 : 1);
        EXPECT_EQ(r.impls[2], "native");
        if (relu) {
          EXPECT_EQ(r.impls[3], "native:fused");
        }
        expect_exact(r.ref[0], r.fast[0]);
      }
    }
}

TEST(FastEltwise, Float32ActivationsNchwAndNhwc) {
  const char* ops[] = {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "HardSwish", "Clip"};
  for (bool chain : {false, true}) {
    for (const char* op : ops) {
      SCOPED_TRACE(std::string(op) + (chain ? " after conv" : ""));
      model::Attrs a;
      if (std::string(op) == "Clip") {
        a.set("min", -0.25);
        a.set("max", 0.5);
      }
      if (std::string(op) == "LeakyRelu") a.set("alpha", 0.2);
      // After a conv a following Relu/Clip/LeakyRelu is fused (the conv's implementation),
      // so the model output must not be the conv's output: check the op's own layer then.
      auto m = single_op(op, a, DType::kFloat32, chain, {1, 8, 6, 6});
      auto c = compare(m, 4, 1, -4.f, 4.f);
      const std::string want = chain ? "onednn:fused" : "onednn";
      const bool fusable = std::string(op) != "Sigmoid" && std::string(op) != "Tanh" && std::string(op) != "HardSwish";
      EXPECT_EQ(c.impls[chain ? 1 : 0], chain ? (fusable ? want : std::string("onednn:fused")) : "onednn");
      expect_f32_close(c.ref[0], c.fast[0]);
    }
  }
}

TEST(FastEltwise, IntegerActivationsRunTheReferenceOnNhwcData) {
  for (const char* op : {"Relu", "Clip", "Sigmoid"}) {
    SCOPED_TRACE(op);
    model::Attrs a;
    if (std::string(op) == "Clip") {
      a.set("min", -0.5);
      a.set("max", 1.0);
    }
    // The op reads the conv's NHWC output; its output is a model output, which must be
    // NCHW, so it runs on the reference path (after conversion).
    auto m = single_op(op, a, DType::kInt8, true, {1, 16, 6, 6});
    auto c = compare(m, 4);
    expect_exact(c.ref[0], c.fast[0], 4);
  }
}

// ---------------------------------------------------------------------------------------
compiler::BuiltModel gemm_model(DType dt, bool trans_b, bool bias, const char* op = "Gemm", std::int32_t zp = 0,
                                I mkn = {3, 96, 40}) {
  ModelBuilder b("gemm");
  const std::int64_t M = mkn[0], K = mkn[1], N = mkn[2];
  const Quant q = dt == DType::kFloat32 ? Quant{} : pt(0.05f, zp);
  compiler::TensorId a = b.add_input("a", dt, {M, K}, model::Layout::kND, q);
  const I bd = trans_b ? I{N, K} : I{K, N};
  compiler::TensorId w, c = -1;
  LayerOptions o;
  if (trans_b) o.attrs.set("transB", std::int64_t{1});
  if (dt == DType::kFloat32) {
    w = b.add_constant("w", bd, random_f(static_cast<std::size_t>(N * K), 31));
    if (bias) c = b.add_constant("c", {N}, random_f(static_cast<std::size_t>(N), 32));
  } else {
    Quant wq{{}, {}, trans_b ? 0 : 1};
    for (std::int64_t n = 0; n < N; ++n) {
      wq.scale.push_back(0.003f + 0.0002f * static_cast<float>(n % 5));
      wq.zero_point.push_back(0);
    }
    w = b.add_constant("w", bd, random_i8(static_cast<std::size_t>(N * K), 31), wq);
    if (bias) {
      std::vector<std::int32_t> cv(static_cast<std::size_t>(N));
      std::uint32_t s = 33;
      for (auto& v : cv) v = static_cast<std::int32_t>(testing::lcg(s) % 4001) - 2000;
      c = b.add_constant("c", {N}, cv);
    }
    o.output_quants = {pt(0.05f * 0.003f * 73.f * 10.f * 3.f / 127.f * 8.f, 0)};  // IP: no dst zero point in 2.6
  }
  std::vector<compiler::TensorId> in{a, w};
  if (bias) in.push_back(c);
  b.add_output(b.add_layer("gemm", op, in, o));
  auto r = b.build();
  if (!r.ok()) throw std::runtime_error(r.status().message());
  return std::move(r.value());
}

TEST(FastInnerProduct, GemmAndMatMul) {
  for (DType dt : {DType::kFloat32, DType::kInt8, DType::kUint8}) {
    for (bool tb : {false, true}) {
      for (bool bias : {false, true}) {
        SCOPED_TRACE(std::string(model::dtype_name(dt)) + (tb ? " transB" : "") + (bias ? " bias" : ""));
        check(gemm_model(dt, tb, bias), 0, dt == DType::kFloat32 ? "onednn" : int8_cube_impl().c_str(),
              dt != DType::kFloat32);
      }
    }
    SCOPED_TRACE(std::string("MatMul ") + model::dtype_name(dt));
    check(gemm_model(dt, false, false, "MatMul"), 0, dt == DType::kFloat32 ? "onednn" : int8_cube_impl().c_str(),
          dt != DType::kFloat32);
  }
}

std::vector<float> ramp_values(std::size_t n, std::uint32_t seed) {
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>(testing::lcg(seed) % 2001) / 1000.f - 1.f;
  return v;
}

// Attention-style products of two activations ([B, H, T, D] × [B, H, D, T]) and a 3-D
// activation by 2-D weights: oneDNN's sgemm, one call per batch matrix.
TEST(FastSgemmMatMul, ActivationProductsAndSharedWeights) {
  {
    ModelBuilder b("qk");
    const auto q = b.add_input("q", DType::kFloat32, {1, 2, 5, 4});
    const auto k = b.add_input("k", DType::kFloat32, {1, 2, 4, 5});
    b.add_output(b.add_layer("qk", "MatMul", {q, k}));
    check(b.build().value(), 0, "onednn:sgemm", false);
  }
  {
    ModelBuilder b("proj");  // B shared by the batches (an activation: constant B is FastLinear's)
    const auto x = b.add_input("x", DType::kFloat32, {2, 6, 8});
    const auto w = b.add_input("w", DType::kFloat32, {8, 3});
    b.add_output(b.add_layer("proj", "MatMul", {x, w}));
    check(b.build().value(), 0, "onednn:sgemm", false);
  }
  {  // a batch broadcast neither equal nor shared stays on the reference
    ModelBuilder b("odd");
    const auto x = b.add_input("x", DType::kFloat32, {2, 1, 3, 4});
    const auto y = b.add_input("y", DType::kFloat32, {1, 2, 4, 3});
    b.add_output(b.add_layer("mm", "MatMul", {x, y}));
    check(b.build().value(), 0, "reference", false);
  }
}

// A sequence-first projection ([L, 1, K] × [K, N], as torch's attention exports its input
// projection): one GEMM over the stacked rows rather than L matrix-vector products.
TEST(FastSgemmMatMul, SharedWeightsStackTheBatchesIntoOneGemm) {
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    ModelBuilder b("seq");
    const auto x = b.add_input("x", DType::kFloat32, {7, 1, 9});
    const auto w = b.add_input("w", DType::kFloat32, {9, 5});  // constant B: FastLinear
    b.add_output(b.add_layer("proj", "MatMul", {x, w}));
    auto c = compare(b.build().value(), 4, threads);
    EXPECT_EQ(c.impls[0], "onednn:sgemm");
    expect_f32_close(c.ref[0], c.fast[0]);
  }
}

// ---------------------------------------------------------------------------------------
// Linear layers: MatMul of an activation by constant B, with the bias Add and the Relu or
// erf GELU after it, as one oneDNN matmul (matmul_const.h, gelu_pattern.h).

// x [2, 7, 12] × w [12, 10] + bias, then torch's GELU chain (`variant` 0: Div by √2, Add
// 1 + e, (x · t) · 0.5; 1: Mul by 1/√2, e + 1, x · (t · 0.5)) or a Relu (`variant` 2).
compiler::BuiltModel linear_model(int variant, bool matmul_out_too = false, bool erf_out_too = false) {
  ModelBuilder b("linear");
  const auto x = b.add_input("x", DType::kFloat32, {2, 7, 12});
  auto k = [&](const char* name, float v) { return b.add_constant(std::string("k_") + name, {}, std::vector<float>{v}); };
  const auto mm = b.add_layer("mm", "MatMul", {x, b.add_constant("w", {12, 10}, ramp_values(120, 3))});
  if (matmul_out_too) b.add_output(mm);
  const auto h = b.add_layer("bias", "Add", {b.add_constant("c", {1, 1, 10}, ramp_values(10, 4)), mm});
  if (variant == 2) {
    b.add_output(b.add_layer("relu", "Relu", {h}));
  } else {
    const auto s = variant == 0 ? b.add_layer("div", "Div", {h, k("sqrt2", std::sqrt(2.f))})
                                : b.add_layer("scale", "Mul", {k("rsqrt2", std::sqrt(0.5f)), h});
    const auto e = b.add_layer("erf", "Erf", {s});
    if (erf_out_too) b.add_output(e);
    const auto t = variant == 0 ? b.add_layer("one", "Add", {e, k("one", 1.f)}) : b.add_layer("one", "Add", {k("one", 1.f), e});
    const auto y = variant == 0 ? b.add_layer("half", "Mul", {b.add_layer("gate", "Mul", {h, t}), k("half", 0.5f)})
                                : b.add_layer("gate", "Mul", {b.add_layer("half", "Mul", {t, k("half", 0.5f)}), h});
    b.add_output(y);
  }
  auto r = b.build();
  if (!r.ok()) throw std::runtime_error(r.status().message());
  return std::move(r.value());
}

TEST(FastLinear, BiasAndGeluOrReluFoldIntoOneMatmulWithinTolerance) {
  for (int variant : {0, 1, 2}) {
    for (int threads : {1, 2}) {
      SCOPED_TRACE("variant " + std::to_string(variant) + ", threads " + std::to_string(threads));
      auto c = compare(linear_model(variant), 17, threads, -3.f, 3.f);
      std::vector<std::string> want(c.impls.size(), "onednn:fused");
      want[0] = "onednn";
      EXPECT_EQ(c.impls, want);
      expect_f32_close(c.ref[0], c.fast[0]);
    }
  }
}

TEST(FastLinear, NothingFoldedWhenAnIntermediateIsReadElsewhere) {
  {  // the MatMul's own output is a model output: the matmul alone, the rest as before
    auto c = compare(linear_model(0, true), 18, 1, -3.f, 3.f);
    EXPECT_EQ(c.impls[0], "onednn");
    EXPECT_EQ(c.impls[1], "reference");
    for (std::size_t k = 0; k < c.ref.size(); ++k) expect_f32_close(c.ref[k], c.fast[k]);
  }
  {  // Erf's output is read outside the chain: the bias folds, the GELU does not
    auto c = compare(linear_model(0, false, true), 19, 1, -3.f, 3.f);
    EXPECT_EQ(c.impls[0], "onednn");
    EXPECT_EQ(c.impls[1], "onednn:fused");
    EXPECT_EQ(c.impls[2], "reference");
    EXPECT_EQ(c.impls[3], "native:erf");
    for (std::size_t k = 0; k < c.ref.size(); ++k) expect_f32_close(c.ref[k], c.fast[k]);
  }
  {  // fuse off (calibration and dumps read every layer's output): nothing folds
    const auto m = linear_model(0);
    kernels::CompileOptions o;
    o.fuse = false;
    auto r = kernels::CompiledProgram::compile(m.program, m.weights.data(), m.weights.size(), o);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.value()->layer_impl(0), "onednn");
    for (std::size_t i = 1; i < r.value()->layer_count(); ++i) EXPECT_NE(r.value()->layer_impl(i), "onednn:fused") << i;
  }
}

// ---------------------------------------------------------------------------------------
// Transformer ops: Softmax and LayerNormalization through oneDNN, Erf through our AVX-512
// kernel (reference layers whose arithmetic is replaced, on logical data).

compiler::BuiltModel one_op(const char* op, I dims, const model::Attrs& attrs,
                            const std::vector<std::pair<I, std::vector<float>>>& consts = {}, bool one_output = true) {
  ModelBuilder b("op");
  std::vector<compiler::TensorId> in{b.add_input("x", DType::kFloat32, dims)};
  int k = 0;
  for (const auto& [d, v] : consts) in.push_back(b.add_constant("c" + std::to_string(k++), d, v));
  LayerOptions o;
  o.attrs = attrs;
  if (one_output) o.output_shapes = {dims};  // LayerNormalization: Y only
  b.add_output(b.add_layer("op", op, in, o));
  auto r = b.build();
  if (!r.ok()) throw std::runtime_error(r.status().message());
  return std::move(r.value());
}

TEST(FastSoftmax, LastAndInnerAxesTinyShapesAndTwoThreads) {
  struct Case {
    I dims;
    std::int64_t axis;
  };
  for (const Case& k : {Case{{3, 197, 197}, -1}, Case{{2, 5, 7}, 1}, Case{{4, 6}, 0}, Case{{1, 1}, -1},
                        Case{{2, 3, 33}, 2}}) {
    for (int threads : {1, 2}) {
      SCOPED_TRACE(::testing::Message() << "dims " << k.dims.size() << "-D, last " << k.dims.back() << ", axis "
                                        << k.axis << ", threads " << threads);
      model::Attrs a;
      a.set("axis", k.axis);
      // Logits up to ±8, as attention scores reach: exp's range matters, not just [-1, 1].
      auto c = compare(one_op("Softmax", k.dims, a), 6, threads, -8.f, 8.f);
      if (k.axis == -1 || k.axis == static_cast<std::int64_t>(k.dims.size()) - 1) {
        EXPECT_EQ(c.impls[0], "onednn:softmax");
      }
      expect_f32_close(c.ref[0], c.fast[0]);
    }
  }
}

TEST(FastLayerNorm, LastAxisEarlierAxisWithoutBiasAndTwoThreads) {
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    model::Attrs a;
    a.set("epsilon", 1e-5);
    {  // ViT's shape: 197 tokens of 192
      auto c = compare(one_op("LayerNormalization", {1, 197, 192}, a,
                              {{{192}, ramp_values(192, 3)}, {{192}, ramp_values(192, 4)}}),
                       7, threads, -3.f, 5.f);
      EXPECT_EQ(c.impls[0], "onednn:layer_norm");
      expect_f32_close(c.ref[0], c.fast[0]);
    }
    {  // axis 1 of [2, 3, 5]: rows of 15, Scale [3, 5], no B
      model::Attrs a1 = a;
      a1.set("axis", std::int64_t{1});
      auto c = compare(one_op("LayerNormalization", {2, 3, 5}, a1, {{{3, 5}, ramp_values(15, 5)}}), 8, threads);
      EXPECT_EQ(c.impls[0], "onednn:layer_norm");
      expect_f32_close(c.ref[0], c.fast[0]);
    }
    {  // Mean and InvStdDev wanted as well: the reference computes them
      auto c = compare(one_op("LayerNormalization", {2, 4, 6}, a, {{{6}, ramp_values(6, 6)}}, false), 9, threads);
      EXPECT_EQ(c.impls[0], "reference");
    }
    {  // a Scale that broadcasts inside the row stays on the reference
      auto c = compare(one_op("LayerNormalization", {2, 4, 6}, a, {{{1}, {0.5f}}}), 9, threads);
      EXPECT_EQ(c.impls[0], "reference");
      expect_f32_close(c.ref[0], c.fast[0]);
    }
  }
}

// Erf over its whole float range (saturating beyond ±4), odd lengths (a masked tail) and
// enough values to be split between two threads. Beyond the per-op bound, every value
// is within 5e-7 of std::erf (the reference): the approximation's error, not only rounding.
TEST(FastErf, WithinBoundOverTheRangeTailsAndThreads) {
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "no AVX-512: Erf runs the reference";
  for (I dims : {I{1, 7}, I{3, 197, 33}, I{2, 20001}}) {
    for (int threads : {1, 2}) {
      SCOPED_TRACE(::testing::Message() << dims.back() << " values per row, threads " << threads);
      auto c = compare(one_op("Erf", dims, {}), 10, threads, -5.f, 5.f);
      EXPECT_EQ(c.impls[0], "native:erf");
      expect_f32_close(c.ref[0], c.fast[0]);
      const std::size_t n = c.ref[0].size() / 4;
      std::vector<float> r(n), f(n);
      std::memcpy(r.data(), c.ref[0].data(), n * 4);
      std::memcpy(f.data(), c.fast[0].data(), n * 4);
      float worst = 0;
      for (std::size_t i = 0; i < n; ++i) worst = std::max(worst, std::fabs(r[i] - f[i]));
      EXPECT_LE(worst, 5e-7f);
    }
  }
}

TEST(FastDeconv, ConvTransposeStridedGroupedAndOutputPadding) {
  struct Case {
    std::int64_t group, stride, pad, out_pad;
  };
  for (const Case& k : {Case{1, 2, 0, 0}, Case{2, 2, 1, 1}, Case{1, 1, 1, 0}}) {
    SCOPED_TRACE(::testing::Message() << "group " << k.group << " stride " << k.stride << " pad " << k.pad
                                      << " output_padding " << k.out_pad);
    ModelBuilder b("deconv");
    const auto x = b.add_input("x", DType::kFloat32, {1, 4, 5, 6});
    const auto w = b.add_constant("w", {4, 6 / k.group, 3, 3}, ramp_values(static_cast<std::size_t>(4 * 6 / k.group * 9), 9));
    const auto bias = b.add_constant("b", {6}, ramp_values(6, 3));
    LayerOptions o;
    o.attrs.set("group", k.group);
    o.attrs.set("strides", std::vector<std::int64_t>{k.stride, k.stride});
    o.attrs.set("pads", std::vector<std::int64_t>{k.pad, k.pad, k.pad, k.pad});
    o.attrs.set("output_padding", std::vector<std::int64_t>{k.out_pad, k.out_pad});
    b.add_output(b.add_layer("deconv", "ConvTranspose", {x, w, bias}, o));
    check(b.build().value(), 0, "onednn", false);
  }
}

// Kernel = stride (the upsampling of segmentation and DB text-detection heads): a 1×1 Conv
// and a pixel shuffle (deconv_as_conv.h), for 1 output channel (2-byte runs), a few, and
// kernels 2×2 and 3×2, with and without a bias.
TEST(FastDeconv, KernelEqualToStrideRunsAsConvAndShuffle) {
  struct Case {
    std::int64_t m, kh, kw;
    bool bias;
  };
  for (const Case& k : {Case{1, 2, 2, true}, Case{5, 2, 2, false}, Case{3, 3, 2, true}}) {
    SCOPED_TRACE(::testing::Message() << k.m << " output channels, kernel " << k.kh << "x" << k.kw);
    ModelBuilder b("deconv_k_is_s");
    const auto x = b.add_input("x", DType::kFloat32, {2, 6, 5, 7});
    const auto w = b.add_constant("w", {6, k.m, k.kh, k.kw}, ramp_values(static_cast<std::size_t>(6 * k.m * k.kh * k.kw), 7));
    std::vector<compiler::TensorId> in{x, w};
    if (k.bias) in.push_back(b.add_constant("b", {k.m}, ramp_values(static_cast<std::size_t>(k.m), 3)));
    LayerOptions o;
    o.attrs.set("strides", std::vector<std::int64_t>{k.kh, k.kw});
    b.add_output(b.add_layer("deconv", "ConvTranspose", in, o));
    auto c = compare(b.build().value(), 21);
    EXPECT_EQ(c.impls[0].rfind("shuffle:", 0), 0u) << c.impls[0];
    expect_f32_close(c.ref[0], c.fast[0]);
  }
}

// int8 ConvTranspose (native, q8_deconv.h): the reference's integer sums through oneDNN's
// float deconvolution, requantized like the reference, for uint8/int8 inputs with edge zero
// points, per-tensor and per-channel weights, float and int32 biases, int8/uint8/float
// outputs, strides, pads and output_padding, after a Conv (NHWC input) and as a model
// output; and a layer whose sums could exceed 2^24 left to the reference.
TEST(FastDeconv, Int8ConvTransposeIdenticalToTheReference) {
  struct Case {
    DType xt;
    std::int32_t zp_x;
    DType yt;
    std::int32_t zp_y;
    bool per_channel, int_bias, after_conv;
    std::int64_t stride, pad, out_pad, k, m;
  };
  // Kernel = stride with no pads runs as a 1×1 Conv and a pixel shuffle (deconv_as_conv.h).
  const Case cases[] = {
      {DType::kUint8, 0, DType::kInt8, -7, false, false, true, 2, 0, 0, 2, 13},  // PP-OCR det's head
      {DType::kUint8, 3, DType::kUint8, 0, false, true, true, 2, 0, 0, 2, 1},    // its last layer: one channel
      {DType::kInt8, -128, DType::kUint8, 9, true, true, false, 3, 0, 0, 3, 13},
      {DType::kInt8, 7, DType::kFloat32, 0, true, false, false, 2, 0, 0, 2, 13},
      {DType::kUint8, 255, DType::kUint8, 131, true, true, false, 2, 1, 1, 3, 13},
      {DType::kInt8, -128, DType::kInt8, 127, true, false, true, 1, 1, 0, 3, 13},
      {DType::kInt8, 5, DType::kFloat32, 0, false, true, false, 3, 2, 2, 3, 13},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(::testing::Message() << model::dtype_name(k.xt) << " zp " << k.zp_x << " -> " << model::dtype_name(k.yt)
                                      << " stride " << k.stride);
    ModelBuilder b("q8deconv");
    const std::int64_t C = 12, M = k.m;  // 13: one vector of 8 channels and a tail of 5
    auto x = b.add_input("x", k.xt, {1, C, 7, 9}, model::Layout::kNCHW, pt(0.05f, k.zp_x));
    if (k.after_conv) {
      LayerOptions co;
      co.attrs.set("pads", I{1, 1, 1, 1});
      co.output_quants = {pt(0.09f, k.zp_x)};
      x = b.add_layer("conv", "Conv", {x, b.add_constant("cw", {C, C, 3, 3}, random_i8(C * C * 9, 3), pt(0.004f, 0))},
                      co);
    }
    Quant wq = pt(0.01f, 0);
    if (k.per_channel) {
      wq = Quant{{}, {}, 1};
      for (std::int64_t c = 0; c < M; ++c) {
        wq.scale.push_back(0.005f + 0.0011f * static_cast<float>(c));
        wq.zero_point.push_back(0);
      }
    }
    const auto w = b.add_constant("w", {C, M, k.k, k.k}, random_i8(static_cast<std::size_t>(C * M * k.k * k.k), 8), wq);
    compiler::TensorId bias;
    if (k.int_bias) {
      std::vector<std::int32_t> bv(M);
      for (std::int64_t c = 0; c < M; ++c) bv[static_cast<std::size_t>(c)] = static_cast<std::int32_t>(c * 97 - 200);
      bias = b.add_constant("b", {M}, bv);
    } else {
      bias = b.add_constant("b", {M}, random_f(M, 4, 0.5f));
    }
    LayerOptions o;
    o.attrs.set("strides", I{k.stride, k.stride});
    o.attrs.set("pads", I{k.pad, k.pad, k.pad, k.pad});
    o.attrs.set("output_padding", I{k.out_pad, k.out_pad});
    o.output_quants = {k.yt == DType::kFloat32 ? Quant{} : pt(0.03f, k.zp_y)};
    o.output_dtypes = {k.yt};
    const auto y = b.add_layer("deconv", "ConvTranspose", {x, w, bias}, o);
    b.add_output(y);
    auto m = b.build();
    ASSERT_TRUE(m.ok()) << m.status().message();
    auto r = compare(m.value(), 21);
    const std::string& impl = r.impls[k.after_conv ? 1 : 0];
    if (k.stride == k.k && k.pad == 0) {
      EXPECT_EQ(impl.rfind("shuffle:", 0), 0u) << impl;
    } else {
      EXPECT_EQ(impl, "native");
    }
    if (k.yt == DType::kFloat32) {
      EXPECT_EQ(r.ref[0], r.fast[0]);
    } else {
      expect_exact(r.ref[0], r.fast[0]);
    }
  }
}

TEST(FastDeconv, Int8SumsBeyondFloatPrecisionStayOnTheReference) {
  ModelBuilder b("q8deconv_big");
  const std::int64_t C = 600;  // 255 · 127 · 600 > 2^24
  const auto x = b.add_input("x", DType::kUint8, {1, C, 2, 2}, model::Layout::kNCHW, pt(0.05f, 0));
  // Stride 1 with a 2×2 kernel (overlapping taps): not the 1×1 Conv form, which sums in int32.
  const auto w = b.add_constant("w", {C, 1, 2, 2}, std::vector<std::int8_t>(C * 4, 127), pt(0.01f, 0));
  LayerOptions o;
  o.output_quants = {pt(400.f, 0)};
  b.add_output(b.add_layer("deconv", "ConvTranspose", {x, w}, o));
  auto r = compare(b.build().value(), 5);
  EXPECT_EQ(r.impls[0], "reference");
  EXPECT_EQ(r.ref[0], r.fast[0]);
}

// After a conv (NHWC output) a Mul by a constant scalar and a Mul by a per-channel gate
// run on the NHWC data as it is, then an Add of the two.
TEST(FastAgnostic, ScalarAndPerChannelOperandsOnNhwcData) {
  ModelBuilder b("se");
  const auto x = b.add_input("x", DType::kFloat32, {1, 4, 6, 5});
  const auto gate = b.add_input("gate", DType::kFloat32, {1, 8, 1, 1});
  const auto w = b.add_constant("w", {8, 4, 3, 3}, ramp_values(8 * 4 * 9, 11));
  LayerOptions co;
  co.attrs.set("pads", std::vector<std::int64_t>{1, 1, 1, 1});
  const auto y = b.add_layer("conv", "Conv", {x, w}, co);
  const auto scaled = b.add_layer("scale", "Mul", {y, b.add_constant("s", {}, std::vector<float>{1.5f})});
  const auto gated = b.add_layer("gate_mul", "Mul", {gate, y});
  b.add_output(b.add_layer("sum", "Add", {scaled, gated}));
  auto c = compare(b.build().value(), 17);
  EXPECT_EQ(c.impls[1], "reference:nhwc");  // the reference kernel on the NHWC bytes
  expect_f32_close(c.ref[0], c.fast[0]);
}

// A feature pyramid's neck: two Conv outputs (NHWC), one upsampled by nearest Resize,
// added to a bilinear Resize's output (a reference layer: logical NCHW), gated per channel,
// concatenated along the channels and read by a Conv. The Resize, Add, Mul and Concat run
// on the NHWC bytes (the logical operand converted once), on 1 and on 2 threads (the
// elementwise layers are then split between them), and must give the reference's bytes.
TEST(FastNhwcViews, NearestResizeConcatAndMixedLayoutOperandsMatchTheReference) {
  for (const char* ctm : {"asymmetric", "half_pixel", "tf_half_pixel_for_nn"}) {
    for (int threads : {1, 2}) {
      SCOPED_TRACE(std::string(ctm) + ", threads " + std::to_string(threads));
      ModelBuilder b("neck");
      const auto x = b.add_input("x", DType::kFloat32, {1, 4, 40, 36});
      LayerOptions co;
      co.attrs.set("pads", std::vector<std::int64_t>{1, 1, 1, 1});
      const auto fine = b.add_layer("fine", "Conv", {x, b.add_constant("w1", {8, 4, 3, 3}, random_f(8 * 4 * 9, 21))}, co);
      LayerOptions down = co;
      down.attrs.set("strides", std::vector<std::int64_t>{2, 2});
      const auto coarse =
          b.add_layer("coarse", "Conv", {x, b.add_constant("w2", {8, 4, 3, 3}, random_f(8 * 4 * 9, 22))}, down);
      LayerOptions nearest;
      nearest.attrs.set("mode", std::string("nearest"));
      nearest.attrs.set("coordinate_transformation_mode", std::string(ctm));
      nearest.attrs.set("nearest_mode", std::string("round_prefer_ceil"));
      const auto scales = b.add_constant("scales", {4}, std::vector<float>{1, 1, 2, 2});
      const auto up = b.add_layer("up", "Resize", {coarse, -1, scales}, nearest);
      LayerOptions linear;
      linear.attrs.set("mode", std::string("linear"));
      const auto smooth = b.add_layer("smooth", "Resize", {coarse, -1, scales}, linear);  // NCHW
      const auto sum = b.add_layer("sum", "Add", {smooth, fine});  // mixed layouts
      const auto gate = b.add_input("gate", DType::kFloat32, {1, 8, 1, 1});
      const auto gated = b.add_layer("gated", "Mul", {sum, gate});
      LayerOptions cat;
      cat.attrs.set("axis", std::int64_t{-3});
      const auto both = b.add_layer("cat", "Concat", {up, gated, smooth}, cat);
      b.add_output(b.add_layer("head", "Conv", {both, b.add_constant("w3", {2, 24, 1, 1}, random_f(48, 23))}));
      auto m = b.build();
      ASSERT_TRUE(m.ok()) << m.status().message();
      auto c = compare(m.value(), 31, threads);
      ASSERT_EQ(c.impls.size(), 8u);
      EXPECT_EQ(c.impls[2], "reference:nhwc");  // up
      EXPECT_EQ(c.impls[3], "reference");       // smooth (linear stays logical)
      EXPECT_EQ(c.impls[4], "reference:nhwc");  // sum
      EXPECT_EQ(c.impls[5], "reference:nhwc");  // gated
      EXPECT_EQ(c.impls[6], "reference:nhwc");  // cat
      // Copies and elementwise arithmetic on the same floats: identical bytes.
      EXPECT_EQ(c.ref[0].size(), c.fast[0].size());
      expect_f32_close(c.ref[0], c.fast[0]);
    }
  }
}

// K odd, N not a multiple of avx2_int8's 16-channel tiles, more rows than one micro-tile
// (6), one row, on one and two threads.
TEST(FastInnerProduct, OddShapesExact) {
  for (const I& mkn : {I{13, 37, 29}, I{1, 301, 70}, I{20, 8, 3}}) {
    for (int threads : {1, 2}) {
      for (bool tb : {false, true}) {
        SCOPED_TRACE(std::to_string(mkn[0]) + "x" + std::to_string(mkn[1]) + "x" + std::to_string(mkn[2]) +
                     " threads " + std::to_string(threads) + (tb ? " transB" : ""));
        auto c = compare(gemm_model(DType::kUint8, tb, true, "Gemm", 0, mkn), 23, threads);
        EXPECT_EQ(c.impls[0], int8_cube_impl());
        expect_exact(c.ref[0], c.fast[0], 2);
      }
    }
  }
}

TEST(FastInnerProduct, InputZeroPointUsesQ8MatMulOrAvx2Int8) {
  // oneDNN 2.6's int8 inner product has no source zero point; avx2_int8 has, and where
  // oneDNN is chosen (VNNI) the declined Gemm runs q8_matmul ("native").
  const std::string impl = kernels::onednn::exact_int8_isa() ? "native" : int8_cube_impl();
  check(gemm_model(DType::kInt8, true, true, "Gemm", 3), 0, impl.c_str(), true);
  check(gemm_model(DType::kUint8, false, true, "Gemm", 131), 0, impl.c_str(), true);
  check(gemm_model(DType::kUint8, true, true, "Gemm", 131, {2, 1280, 100}), 0, impl.c_str(), true);  // EfficientNet-B0's
}

// ---------------------------------------------------------------------------------------
netzoo::NetOptions small(DType dt) {
  netzoo::NetOptions o;
  o.dtype = dt;
  o.height = o.width = 64;  // the reference runs it too; 224 would take seconds
  o.classes = 100;
  return o;
}

std::size_t count(const std::vector<std::string>& v, const std::string& s) {
  return static_cast<std::size_t>(std::count(v.begin(), v.end(), s));
}

TEST(FastNetwork, ResNet18Int8IdenticalToReference) {
  auto m = netzoo::build_resnet18(small(DType::kInt8));
  ASSERT_TRUE(m.ok()) << m.status().message();
  auto c = compare(m.value(), 1, 1, -1.f, 1.f);
  // Every conv on oneDNN (20), each conv1 Relu fused (9 incl. the stem), the pool and the
  // classifier; the 8 residual Adds with their Relus and the int8 GAP natively; Flatten on
  // the reference.
  if (kernels::onednn::exact_int8_isa()) {
    EXPECT_EQ(count(c.impls, "onednn"), 20u + 2u);
    EXPECT_EQ(count(c.impls, "onednn:fused"), 9u);
    EXPECT_EQ(count(c.impls, "native"), 8u + 1u);
    EXPECT_EQ(count(c.impls, "native:fused"), 8u);
    EXPECT_EQ(count(c.impls, "reference"), 1u);
  } else if (kernels::onednn::int8_avx2_available()) {
    EXPECT_EQ(count(c.impls, "avx2_int8"), 20u + 1u);
    EXPECT_EQ(count(c.impls, "avx2_int8:fused"), 9u);
    EXPECT_EQ(count(c.impls, "onednn"), 1u);  // the max pool
    EXPECT_EQ(count(c.impls, "native"), 8u + 1u);
    EXPECT_EQ(count(c.impls, "reference"), 1u);
  } else {
    EXPECT_EQ(count(c.impls, "onednn") + count(c.impls, "onednn:fused"), 1u);  // the max pool only
  }
  // The float32 logits of the integer Gemm are exact too.
  EXPECT_EQ(c.ref[0], c.fast[0]);
}

TEST(FastNetwork, MobileNetV2Int8IdenticalToReference) {
  auto m = netzoo::build_mobilenet_v2(small(DType::kInt8));
  ASSERT_TRUE(m.ok()) << m.status().message();
  auto c = compare(m.value(), 2);
  EXPECT_EQ(c.ref[0], c.fast[0]);
  // Of its 17 depthwise layers (ReLU6 folded into the quantization range), the 13 of 192
  // channels or more fill vnni_dw_int8's blocks; those of 32, 96 and 144 stay on oneDNN.
  const std::size_t dw = kernels::onednn::q8_depthwise_available() ? 13u : 0u;
  EXPECT_EQ(count(c.impls, "vnni_dw_int8"), dw);
  if (kernels::onednn::exact_int8_isa()) {
    EXPECT_GT(count(c.impls, "onednn") + dw, 50u);
  } else if (kernels::onednn::int8_avx2_available()) {
    EXPECT_GT(count(c.impls, "avx2_int8"), 50u);
  }
}

TEST(FastNetwork, Float32NetworksWithinTolerance) {
  for (auto* build : {&netzoo::build_resnet18, &netzoo::build_mobilenet_v2}) {
    auto m = build(small(DType::kFloat32));
    ASSERT_TRUE(m.ok()) << m.status().message();
    auto c = compare(m.value(), 3);
    // Residual Adds and their Relus fold into the conv before them (sum post-op).
    EXPECT_GT(count(c.impls, "onednn:fused"), 10u);
    std::vector<float> r(c.ref[0].size() / 4), f(r.size());
    std::memcpy(r.data(), c.ref[0].data(), c.ref[0].size());
    std::memcpy(f.data(), c.fast[0].data(), c.fast[0].size());
    float mag = 0, err = 0;
    for (std::size_t i = 0; i < r.size(); ++i) {
      mag = std::max(mag, std::fabs(r[i]));
      err = std::max(err, std::fabs(r[i] - f[i]));
    }
    // Through ~50 layers the float reorderings add up; 1e-4 of the logits' range.
    EXPECT_LE(err, 1e-4f * mag) << "max error " << err << " of " << mag;
    EXPECT_GT(mag, 0.f);
  }
}

// PP-LCNetV3's "learnable affine block" after an activation: HardSwish, then a Mul by a
// learnt scalar and an Add of one; here also k − x. All fold into the Conv as post-ops
// (the three linear steps as one). A second Relu after a Relu ends the group: oneDNN 2.6
// would run it with the first one's parameters.
TEST(FastFusion, ActivationThenScalarAffineStepsFoldIntoTheConv) {
  ModelBuilder b("lab");
  compiler::TensorId x = b.add_input("x", DType::kFloat32, {1, 8, 6, 6});
  compiler::TensorId y = b.add_layer("conv", "Conv", {x, b.add_constant("w", {8, 8, 1, 1}, random_f(64, 3))});
  y = b.add_layer("act", "HardSwish", {y});
  y = b.add_layer("scale", "Mul", {y, b.add_constant("k", {}, std::vector<float>{1.75f})});
  y = b.add_layer("bias", "Add", {b.add_constant("c", {1}, std::vector<float>{-0.25f}), y});
  y = b.add_layer("flip", "Sub", {b.add_constant("d", {}, std::vector<float>{0.5f}), y});
  y = b.add_layer("relu", "Relu", {y});
  y = b.add_layer("shift", "Add", {y, b.add_constant("e", {}, std::vector<float>{-0.125f})});
  b.add_output(b.add_layer("leaky", "LeakyRelu", {y}));
  auto m = b.build();
  ASSERT_TRUE(m.ok()) << m.status().message();
  auto c = compare(m.value(), 41);
  EXPECT_EQ(c.impls, (std::vector<std::string>{"onednn", "onednn:fused", "onednn:fused", "onednn:fused",
                                               "onednn:fused", "onednn:fused", "reference:nhwc", "reference"}));
  expect_f32_close(c.ref[0], c.fast[0]);
}

// SiLU as torch exports it (EfficientNet, YOLO): Sigmoid(t) and Mul(t, that) after a Conv
// fold into it as eltwise_swish, in either operand order, after other post-ops too; not
// when the Sigmoid's output has another reader.
TEST(FastFusion, SigmoidGatedMulFoldsIntoTheConvAsSwish) {
  for (bool gate_first : {false, true}) {
    SCOPED_TRACE(gate_first);
    ModelBuilder b("silu");
    compiler::TensorId x = b.add_input("x", DType::kFloat32, {1, 8, 6, 6});
    compiler::TensorId t = b.add_layer("conv", "Conv", {x, b.add_constant("w", {8, 8, 1, 1}, random_f(64, 3))});
    t = b.add_layer("scale", "Mul", {t, b.add_constant("k", {}, std::vector<float>{1.5f})});
    compiler::TensorId g = b.add_layer("sig", "Sigmoid", {t});
    b.add_output(b.add_layer("mul", "Mul", gate_first ? std::vector<compiler::TensorId>{g, t}
                                                      : std::vector<compiler::TensorId>{t, g}));
    auto m = b.build();
    ASSERT_TRUE(m.ok()) << m.status().message();
    auto c = compare(m.value(), 43);
    EXPECT_EQ(c.impls, (std::vector<std::string>{"onednn", "onednn:fused", "onednn:fused", "onednn:fused"}));
    expect_f32_close(c.ref[0], c.fast[0]);
  }
  {  // the gate is also a model output: Sigmoid and Mul run on their own
    ModelBuilder b("silu_read");
    compiler::TensorId x = b.add_input("x", DType::kFloat32, {1, 8, 6, 6});
    compiler::TensorId t = b.add_layer("conv", "Conv", {x, b.add_constant("w", {8, 8, 1, 1}, random_f(64, 3))});
    compiler::TensorId g = b.add_layer("sig", "Sigmoid", {t});
    b.add_output(b.add_layer("mul", "Mul", {t, g}));
    b.add_output(g);
    auto m = b.build();
    ASSERT_TRUE(m.ok()) << m.status().message();
    auto c = compare(m.value(), 44);
    EXPECT_EQ(c.impls[0], "onednn");
    EXPECT_NE(c.impls[1], "onednn:fused");
    EXPECT_NE(c.impls[2], "onednn:fused");
    expect_f32_close(c.ref[0], c.fast[0]);
    expect_f32_close(c.ref[1], c.fast[1]);
  }
}

// The swish pass that ends a Conv's fusion group (swish_f32.h): within 3e-7 relative of
// x·sigmoid(x) computed in double over the whole float range that matters (e^-|x| down to
// its e^-87 floor, where the results are below 1e-36), odd lengths (a masked tail), and
// long enough arrays to be split between two threads; NaN stays NaN.
TEST(FastSwish, WithinBoundOverTheRangeTailsAndThreads) {
  if (!kernels::onednn::swish_f32_available()) GTEST_SKIP() << "no AVX-512: the swish stays a oneDNN post-op";
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{37}, std::int64_t{40001}}) {
    for (int threads : {1, 2}) {
      SCOPED_TRACE(::testing::Message() << n << " values, threads " << threads);
      std::vector<float> x(static_cast<std::size_t>(n)), y;
      for (std::int64_t i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = -100.f + 200.f * static_cast<float>(i) / static_cast<float>(std::max<std::int64_t>(n - 1, 1));
      if (n > 1) x[1] = std::numeric_limits<float>::quiet_NaN();
      y = x;
      kernels::onednn::ThreadScope scope(threads);
      kernels::onednn::swish_f32_inplace(y.data(), n);
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (std::isnan(x[i])) {
          EXPECT_TRUE(std::isnan(y[i]));
          continue;
        }
        const double want = static_cast<double>(x[i]) / (1.0 + std::exp(-static_cast<double>(x[i])));
        if (x[i] < -87.f) {
          EXPECT_LE(std::fabs(y[i]), 1e-35f) << x[i];
        } else {
          EXPECT_LE(std::fabs(y[i] - want), 3e-7 * std::fabs(want) + 1e-38) << x[i];
        }
      }
    }
  }
}

// A Conv whose fusion group ends in SiLU: the swish runs as the pass above over the conv's
// output, large enough for two threads to split it, agreeing with the reference's
// Sigmoid and Mul.
TEST(FastSwish, ConvWithSiluOverALargeMap) {
  ModelBuilder b("silu_large");
  compiler::TensorId x = b.add_input("x", DType::kFloat32, {1, 16, 40, 41});
  compiler::TensorId t = b.add_layer("conv", "Conv", {x, b.add_constant("w", {24, 16, 1, 1}, random_f(24 * 16, 3))});
  b.add_output(b.add_layer("mul", "Mul", {t, b.add_layer("sig", "Sigmoid", {t})}));
  auto m = b.build();
  ASSERT_TRUE(m.ok()) << m.status().message();
  for (int threads : {1, 2}) {
    auto c = compare(m.value(), 45, threads, -4.f, 4.f);
    EXPECT_EQ(c.impls, (std::vector<std::string>{"onednn", "onednn:fused", "onednn:fused"}));
    expect_f32_close(c.ref[0], c.fast[0]);
  }
}

TEST(FastFusion, NotFusedWhenTheIntermediateIsReadElsewhere) {
  // conv → relu, and the conv output is also a model output: no fusion.
  ModelBuilder b("nofuse");
  compiler::TensorId x = b.add_input("x", DType::kFloat32, {1, 8, 6, 6});
  compiler::TensorId w = b.add_constant("w", {8, 8, 1, 1}, random_f(64, 3));
  compiler::TensorId y = b.add_layer("conv", "Conv", {x, w});
  b.add_output(b.add_layer("relu", "Relu", {y}));
  b.add_output(y);
  auto m = b.build();
  ASSERT_TRUE(m.ok());
  auto c = compare(m.value(), 5);
  EXPECT_EQ(c.impls[0], "onednn");
  EXPECT_EQ(c.impls[1], "onednn");  // a standalone float eltwise
  expect_f32_close(c.ref[0], c.fast[0]);
  expect_f32_close(c.ref[1], c.fast[1]);
}

TEST(FastConcurrency, RunLayerFromTwoThreads) {
  auto m = netzoo::build_resnet18(small(DType::kInt8));
  ASSERT_TRUE(m.ok());
  auto fast = testing::compile(m.value(), true);
  const std::int32_t in = m.value().program.input_tensors()[0];
  const std::int32_t out = m.value().program.output_tensors()[0];
  // Reference results for two different inputs, computed one at a time.
  std::vector<Bytes> want;
  for (std::uint32_t seed : {100u, 200u}) {
    Execution e(m.value());
    testing::fill_random(e.io(in), DType::kInt8, seed);
    ASSERT_TRUE(e.run(*fast).ok());
    want.push_back(e.io(out));
  }
  ASSERT_NE(want[0], want[1]);
  // Both at once, repeatedly, on the same CompiledProgram.
  std::vector<Bytes> got(2);
  auto worker = [&](int k) {
    for (int rep = 0; rep < 5; ++rep) {
      Execution e(m.value());
      testing::fill_random(e.io(in), DType::kInt8, k == 0 ? 100u : 200u);
      if (!e.run(*fast).ok()) return;
      if (e.io(out) != want[static_cast<std::size_t>(k)]) return;
    }
    got[static_cast<std::size_t>(k)] = want[static_cast<std::size_t>(k)];
  };
  std::thread t0(worker, 0), t1(worker, 1);
  t0.join();
  t1.join();
  EXPECT_EQ(got[0], want[0]);
  EXPECT_EQ(got[1], want[1]);
}

// The process's thread ids, from /proc/self/task.
std::set<std::string> thread_ids() {
  std::set<std::string> ids;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/task")) ids.insert(e.path().filename());
  return ids;
}

bool gained_a_thread(const std::set<std::string>& before, const std::set<std::string>& after) {
  return std::any_of(after.begin(), after.end(), [&](const std::string& id) { return before.count(id) == 0; });
}

// Preparing a model must not open an OpenMP parallel region in the preparing thread: its
// pool's worker would outlive the load, and with more libgomp threads than CPUs libgomp
// throttles every pool's spin-wait, so the threads that execute layers sleep and wake
// between layers (MobileNetV2 with two kernel threads ran no faster than with one). The
// execution in the same thread shows that the check can see a pool being started.
TEST(FastThreads, PreparingWithTwoThreadsStartsNoOpenMpWorkerButRunningDoes) {
  auto m = netzoo::build_mobilenet_v2(small(DType::kFloat32));
  ASSERT_TRUE(m.ok()) << m.status().message();
  bool compile_gained = true, run_gained = false, ran = false;
  // A fresh thread: the test thread may already own a pool from earlier tests.
  std::thread t([&] {
    const auto before = thread_ids();
    auto fast = testing::compile(m.value(), true, 2);
    const auto compiled = thread_ids();
    compile_gained = gained_a_thread(before, compiled);
    Execution e(m.value());
    for (std::int32_t in : m.value().program.input_tensors()) {
      testing::fill_random(e.io(in), DType::kFloat32, 9);
    }
    ran = e.run(*fast).ok();
    run_gained = gained_a_thread(compiled, thread_ids());
  });
  t.join();
  EXPECT_FALSE(compile_gained) << "compile() started a thread (an OpenMP pool) in the preparing thread";
  EXPECT_TRUE(ran);
  EXPECT_TRUE(run_gained) << "running with 2 threads started no OpenMP worker: the check above proves nothing";
}

// On a busy machine the kernels run on one thread, except layers large enough to keep
// theirs (program.cpp, kBusyKeepsThreadsMacs): with the governor reduced, a 116 M MAC Conv
// still opens a two-thread region and a 1.8 M MAC one does not.
TEST(FastThreads, OnABusyMachineOnlyLargeLayersKeepTheirTwoThreads) {
  if (std::getenv("GOMP_SPINCOUNT") != nullptr || std::getenv("OMP_WAIT_POLICY") != nullptr) {
    GTEST_SKIP() << "the environment sets libgomp's policy: auto leaves it alone";
  }
  using kernels::KernelSpin;
  namespace gov = kernels::onednn;
  const ConvCase big{"big", 64, 64, 56, 56, 3, 1, 1, 1, 1};
  const ConvCase small_conv{"small", 16, 16, 28, 28, 3, 1, 1, 1, 1};
  const auto mb = conv_model(big, true), ms = conv_model(small_conv, true);
  const auto fb = testing::compile(mb, true, 2), fs = testing::compile(ms, true, 2);
  // Runs a model in a fresh thread (libgomp starts a pool per thread that opens a region):
  // did the process gain a thread?
  auto opens_a_team = [](const compiler::BuiltModel& m, const kernels::CompiledProgram& p, bool* ok) {
    bool gained = false;
    std::thread t([&] {
      Execution e(m);
      for (std::int32_t in : m.program.input_tensors()) testing::fill_random(e.io(in), DType::kFloat32, 5);
      const auto before = thread_ids();
      *ok = e.run(p).ok();
      gained = gained_a_thread(before, thread_ids());
    });
    t.join();
    return gained;
  };
  gov::spin_governor_reset();
  std::list<svp::test::CpuHog> hogs(static_cast<std::size_t>(omp_get_num_procs() + 1));  // CPU-bound until cleared
  for (int i = 0; i < 200 && !gov::spin_governor_reduced(); ++i) {
    gov::spin_governor_tick(KernelSpin::kAuto, 2);
    std::this_thread::sleep_for(std::chrono::milliseconds(11));
  }
  const bool reduced = gov::spin_governor_reduced();
  bool small_ok = false, big_ok = false;
  const bool small_gained = opens_a_team(ms, *fs, &small_ok);
  const bool big_gained = opens_a_team(mb, *fb, &big_ok);
  hogs.clear();
  gov::spin_governor_reset();
  ASSERT_TRUE(reduced) << "the governor never found the machine oversubscribed";
  EXPECT_TRUE(small_ok);
  EXPECT_TRUE(big_ok);
  EXPECT_FALSE(small_gained) << "a small Conv opened a two-thread region on a busy machine";
  EXPECT_TRUE(big_gained) << "a large Conv gave up its second thread on a busy machine";
}

}  // namespace
}  // namespace svp
