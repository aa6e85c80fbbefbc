// The native int8/int16 LayerNormalization (src/kernels/onednn/q8_layer_norm.h) against the
// reference's generic path, byte for byte: int8/uint8/int16 in and out, zero points at the
// ends of their ranges, output scales that saturate, rows of 1, odd lengths (vector tails),
// row counts off the block of four, an inner axis over several dims, float and quantized
// Scale and B, broadcast Scale, no B, epsilon 0 with constant rows (the reference's NaN),
// the AVX2 and the baseline loops, in place and on two threads — and each row's mean and
// 1 / sqrt(var + epsilon) in double against reference/norm.cpp's loops (a rounding there
// rarely changes a byte); and planned in a program for an AI-CPU layer as svp_atc places it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "compiler/builder.h"
#include "fast_vs_reference.h"
#include "kernel_runner.h"
#include "kernels/common.h"
#include "kernels/kernels.h"
#include "kernels/onednn/q8_layer_norm.h"
#include "test_support.h"

namespace svp {
namespace {

using model::DType;
using model::Quant;
using model::TensorView;
using I = std::vector<std::int64_t>;
namespace ok = kernels::onednn;

using Enc = testing::InOutEncoding;

struct Case {
  I dims;
  std::int64_t axis;
  I scale_dims;    // Scale's shape (broadcast to the normalised dims)
  bool bias;       // B present
  bool quantized;  // Scale and B int8 with quantization parameters
  float epsilon;
  bool constant;  // every row one value (with epsilon 0: 0 · inf in the reference)
};

std::int64_t numel(const I& d) {
  std::int64_t n = 1;
  for (auto v : d) n *= v;
  return n;
}

std::size_t dsize(DType t) { return t == DType::kInt16 ? 2 : 1; }

// Runs the reference and the fast kernel (vector and baseline loops, apart and in place,
// one and two threads) on one case; returns the number of differing bytes.
std::size_t run_case(const Enc& e, const Case& c, std::uint32_t seed, int* saturated) {
  model::Layer l;
  l.op = "LayerNormalization";
  l.inputs = {0, 1, 2};
  l.outputs = {3};
  l.attrs.set("axis", c.axis);
  l.attrs.set("epsilon", static_cast<double>(c.epsilon));
  const Quant qx{{e.sx}, {e.zx}, -1}, qy{{e.sy}, {e.zy}, -1};
  const Quant qs{{0.02f}, {3}, -1}, qb{{0.01f}, {-2}, -1};
  const std::int64_t n = numel(c.dims), ns = numel(c.scale_dims);
  std::vector<std::uint8_t> in(static_cast<std::size_t>(n) * dsize(e.x));
  for (auto& b : in) b = static_cast<std::uint8_t>(testing::lcg(seed) >> 3);
  if (c.constant)
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = in[i % dsize(e.x)];
  std::vector<float> sf(static_cast<std::size_t>(ns)), bf(static_cast<std::size_t>(ns));
  std::vector<std::int8_t> s8(sf.size()), b8(bf.size());
  for (std::size_t i = 0; i < sf.size(); ++i) {
    sf[i] = 0.5f + static_cast<float>(testing::lcg(seed) % 1000) / 1000.f;
    bf[i] = -0.3f + static_cast<float>(testing::lcg(seed) % 600) / 1000.f;
    s8[i] = static_cast<std::int8_t>(testing::lcg(seed) % 100);
    b8[i] = static_cast<std::int8_t>(static_cast<int>(testing::lcg(seed) % 60) - 30);
  }
  TensorView vx{e.x, c.dims, in.data(), &qx};
  TensorView vs = c.quantized ? TensorView{DType::kInt8, c.scale_dims, s8.data(), &qs}
                              : TensorView{DType::kFloat32, c.scale_dims, sf.data(), nullptr};
  TensorView vb = c.quantized ? TensorView{DType::kInt8, c.scale_dims, b8.data(), &qb}
                              : TensorView{DType::kFloat32, c.scale_dims, bf.data(), nullptr};
  if (!c.bias) vb = TensorView{};
  const std::size_t ybytes = static_cast<std::size_t>(n) * dsize(e.y);
  std::vector<std::uint8_t> ref(ybytes, 0xAA);
  TensorView vy{e.y, c.dims, ref.data(), &qy};
  std::vector<TensorView> ins = {vx, vs};
  if (c.bias) ins.push_back(vb);
  Status st = kernels::run_reference("LayerNormalization", l.attrs, ins, {vy});
  EXPECT_TRUE(st.ok()) << st.message();
  if (!c.bias) l.inputs = {0, 1};
  ok::Q8LayerNorm plan;
  std::string why;
  EXPECT_TRUE(ok::q8_layer_norm_for(l, vx, vs, c.bias ? &vb : nullptr, vy, &plan, &why)) << why;
  const std::int64_t rows = n / plan.inner;
  // The per-row doubles as reference/norm.cpp computes them on the dequantized floats.
  std::vector<float> real(static_cast<std::size_t>(n));
  kernels::detail::dequantize(vx, real.data());
  std::vector<double> want_mean, want_inv;
  for (std::int64_t o = 0; o < rows; ++o) {
    const float* xr = real.data() + o * plan.inner;
    double mean = 0, var = 0;
    for (std::int64_t i = 0; i < plan.inner; ++i) mean += xr[i];
    mean /= static_cast<double>(plan.inner);
    for (std::int64_t i = 0; i < plan.inner; ++i) var += (xr[i] - mean) * (xr[i] - mean);
    var /= static_cast<double>(plan.inner);
    want_mean.push_back(mean);
    want_inv.push_back(1.0 / std::sqrt(var + static_cast<double>(c.epsilon)));
  }
  std::size_t bad = 0;
  for (bool avx2 : {plan.avx2, false}) {
    plan.avx2 = avx2;
    std::vector<double> mean(static_cast<std::size_t>(rows)), inv(mean.size());
    ok::q8_layer_norm_stats(plan, in.data(), rows, mean.data(), inv.data());
    for (std::size_t r = 0; r < mean.size(); ++r) {
      bad += std::memcmp(&mean[r], &want_mean[r], sizeof(double)) != 0;
      bad += std::memcmp(&inv[r], &want_inv[r], sizeof(double)) != 0;
    }
    for (int threads : {1, 2}) {
      std::vector<std::uint8_t> fast(ybytes, 0x55);
      ok::q8_layer_norm(plan, in.data(), fast.data(), rows, threads);
      for (std::size_t i = 0; i < ref.size(); ++i) bad += ref[i] != fast[i];
    }
    if (e.x == e.y) {  // in place, as the planner allows for one element type
      std::vector<std::uint8_t> io = in;
      ok::q8_layer_norm(plan, io.data(), io.data(), rows, 1);
      bad += io != ref;
    }
  }
  if (e.y != DType::kInt16) {
    const std::uint8_t top = e.y == DType::kInt8 ? 0x7F : 0xFF, bottom = e.y == DType::kInt8 ? 0x80 : 0x00;
    for (auto b : ref) *saturated += b == top || b == bottom;
  }
  return bad;
}

TEST(Q8LayerNorm, MatchesTheReferenceOverEncodingsAndShapes) {
  const std::vector<Enc> encs = {
      {DType::kInt8, 0.05f, 0, DType::kInt8, 0.03f, 0},  // A8W8 symmetric
      {DType::kInt8, 0.1f, -128, DType::kUint8, 0.02f, 255},
      {DType::kUint8, 0.02f, 255, DType::kInt8, 0.005f, 127},  // saturates
      {DType::kUint8, 1e-4f, 0, DType::kUint8, 0.01f, 0},
      {DType::kInt8, 2.0f, 127, DType::kInt8, 0.07f, -128},
      {DType::kInt16, 3e-4f, 0, DType::kInt16, 1e-4f, 0},  // A16W8
      {DType::kInt16, 1e-3f, -7, DType::kInt8, 0.02f, 5},
      {DType::kInt8, 0.07f, 5, DType::kInt16, 2e-4f, 3},
  };
  const std::vector<Case> cases = {
      {{1, 1}, -1, {1}, true, false, 1e-5f, false},
      {{3, 5}, -1, {5}, true, false, 1e-5f, false},
      {{2, 7, 17}, -1, {17}, false, false, 1e-6f, false},
      {{1, 197, 192}, -1, {192}, true, false, 1e-6f, false},  // ViT-Ti/16
      {{5, 256}, 1, {256}, true, true, 1e-5f, false},         // quantized Scale and B
      {{4, 3, 8}, 1, {1, 8}, true, false, 1e-5f, false},      // two normalised dims, broadcast Scale
      {{6, 33}, -1, {33}, true, false, 0.0f, true},           // 0 · inf = NaN → the zero point
      {{9, 40}, -1, {40}, true, false, 1e-5f, true},
  };
  std::uint32_t seed = 1;
  int saturated = 0;
  for (const Enc& e : encs) {
    for (const Case& c : cases) {
      SCOPED_TRACE("seed " + std::to_string(seed));
      EXPECT_EQ(run_case(e, c, seed, &saturated), 0u);
      ++seed;
    }
  }
  EXPECT_GT(saturated, 0);
}

TEST(Q8LayerNorm, DeclinesFloatMoreOutputsAndRowsTooLongForAnExactMean) {
  model::Layer l;
  l.op = "LayerNormalization";
  l.inputs = {0, 1};
  l.outputs = {2};
  const Quant q{{0.1f}, {0}, -1};
  std::vector<float> s(70000, 1.0f);
  TensorView x{DType::kInt8, {2, 8}, nullptr, &q}, y = x, f{DType::kFloat32, {2, 8}, nullptr, nullptr};
  TensorView sc{DType::kFloat32, {8}, s.data(), nullptr};
  ok::Q8LayerNorm plan;
  std::string why;
  EXPECT_TRUE(ok::q8_layer_norm_for(l, x, sc, nullptr, y, &plan, &why)) << why;
  EXPECT_FALSE(ok::q8_layer_norm_for(l, f, sc, nullptr, y, &plan, &why));
  EXPECT_FALSE(ok::q8_layer_norm_for(l, x, sc, nullptr, f, &plan, &why));
  l.outputs = {2, 3};
  EXPECT_FALSE(ok::q8_layer_norm_for(l, x, sc, nullptr, y, &plan, &why));
  l.outputs = {2};
  // int16 rows of 70000: the mean's double sum could round, so the reference runs.
  TensorView x16{DType::kInt16, {1, 70000}, nullptr, &q};
  TensorView s16{DType::kFloat32, {70000}, s.data(), nullptr};
  EXPECT_FALSE(ok::q8_layer_norm_for(l, x16, s16, nullptr, x16, &plan, &why));
}

// An AI-CPU layer runs in an application thread on that thread alone, whatever the kernel
// threads: an OpenMP region opened there would start a second team (a new pool thread),
// and with more OpenMP threads than CPUs libgomp shortens the spin-waits of the whole
// process, the NPU layers' included.
TEST(Q8LayerNorm, AnAiCpuLayerStartsNoOpenMpThreadsWithTwoKernelThreads) {
  compiler::ModelBuilder b("ln8");
  const auto x = b.add_input("x", DType::kInt8, {1, 197, 192}, model::Layout::kND, Quant{{0.06f}, {-5}, -1});
  const auto s = b.add_constant("scale", {192}, std::vector<float>(192, 0.9f));
  const auto bb = b.add_constant("bias", {192}, std::vector<float>(192, 0.1f));
  compiler::LayerOptions o;
  o.target = model::Target::kAiCpu;
  o.attrs.set("epsilon", 1e-6);
  o.output_shapes = {{1, 197, 192}};
  o.output_quants = {Quant{{0.04f}, {3}, -1}};
  b.add_output(b.add_layer("ln", "LayerNormalization", {x, s, bb}, o));
  auto m = b.build();
  ASSERT_TRUE(m.ok()) << m.status().message();
  auto fast = testing::compile(m.value(), true, 2);
  ASSERT_EQ(fast->layer_impl(0), "native");
  int before = 0, after = 0;
  Status st;
  // A fresh thread, as svp_run's AI-CPU worker is: libgomp keeps a pool per thread that
  // opens a region.
  std::thread worker([&] {
    testing::Execution e(m.value());
    before = svp::test::process_thread_count();
    st = e.run(*fast);
    after = svp::test::process_thread_count();
  });
  worker.join();
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(after, before);
}

TEST(Q8LayerNorm, PlannedForAnAiCpuLayerWithTheReferenceBytes) {
  for (int threads : {1, 2}) {
    compiler::ModelBuilder b("ln8");
    const auto x = b.add_input("x", DType::kInt8, {1, 197, 192}, model::Layout::kND, Quant{{0.06f}, {-5}, -1});
    std::vector<float> scale(192), bias(192);
    for (std::size_t i = 0; i < scale.size(); ++i) {
      scale[i] = 0.8f + 0.003f * static_cast<float>(i % 97);
      bias[i] = -0.2f + 0.002f * static_cast<float>(i % 211);
    }
    const auto s = b.add_constant("scale", {192}, scale), bb = b.add_constant("bias", {192}, bias);
    compiler::LayerOptions o;
    o.target = model::Target::kAiCpu;
    o.attrs.set("epsilon", 1e-6);
    o.output_shapes = {{1, 197, 192}};  // Y alone, as svp_atc keeps it
    o.output_quants = {Quant{{0.04f}, {3}, -1}};
    b.add_output(b.add_layer("ln", "LayerNormalization", {x, s, bb}, o));
    testing::expect_planned_with_reference_bytes(b, 0, "native", threads, 11);
  }
}

}  // namespace
}  // namespace svp
