// The native int8 Softmax (src/kernels/onednn/q8_softmax.h) against the reference's generic
// path, byte for byte: int8/uint8 in and out, zero points at the ends of their ranges,
// input scales from tiny (every exp near 1) to large (most exps underflow to 0), output
// scales that saturate, rows of 1, odd and attention-like lengths, rows long enough to be
// looked up from a per-row table, row counts off the block of four, each row's double sum against the reference's, the AVX2 and the baseline loops;
// float32 outputs; and planned in a program in place of the reference layer.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "compiler/builder.h"
#include "fast_vs_reference.h"
#include "kernel_runner.h"
#include "kernels/common.h"
#include "kernels/kernels.h"
#include "kernels/onednn/q8_softmax.h"

namespace svp {
namespace {

using model::DType;
using model::Quant;
using I = std::vector<std::int64_t>;

model::Tensor tensor(DType t, const I& dims, float s, std::int32_t zp) { return testing::per_tensor(t, dims, s, zp); }

TEST(Q8Softmax, MatchesTheReferenceOverEncodingsAndShapes) {
  using Enc = testing::InOutEncoding;
  const std::vector<Enc> encs = {
      {DType::kInt8, 0.05f, 0, DType::kUint8, 1.f / 256, 0},  // the usual attention encoding
      {DType::kInt8, 0.1f, -128, DType::kInt8, 1.f / 255, -128},
      {DType::kUint8, 0.02f, 255, DType::kUint8, 0.001f, 0},  // saturates
      {DType::kUint8, 1e-4f, 0, DType::kInt8, 0.004f, 127},   // every exp near 1
      {DType::kInt8, 2.0f, 127, DType::kUint8, 0.003f, 3},    // exps underflow
      {DType::kInt8, 0.07f, 5, DType::kInt8, 0.01f, -7},
  };
  // {9, 1501}: rows long enough for the per-row byte table (a recogniser's 6625 classes),
  // eight through the gathers and one after them, with a tail of columns past the last 8.
  const std::vector<I> shapes = {{1, 1}, {3, 1}, {2, 17}, {1, 3, 10, 197}, {4, 128}, {9, 1501}};
  std::uint32_t seed = 1;
  int saturated = 0;
  for (const Enc& e : encs) {
    for (const I& d : shapes) {
      SCOPED_TRACE("seed " + std::to_string(seed));
      const model::Tensor x = tensor(e.x, d, e.sx, e.zx), y = tensor(e.y, d, e.sy, e.zy);
      model::Layer l;
      l.op = "Softmax";
      l.inputs = {0};
      l.outputs = {1};
      if (seed % 2) l.attrs.set("axis", std::int64_t{static_cast<std::int64_t>(d.size()) - 1});
      std::int64_t n = 1;
      for (auto v : d) n *= v;
      std::vector<std::uint8_t> in(static_cast<std::size_t>(n)), ref(in.size(), 0xAA), fast(in.size(), 0x55);
      for (auto& b : in) b = static_cast<std::uint8_t>(testing::lcg(seed) >> 3);
      // Row r's codes at most 255 − 11·(r mod 7) in rank (the order of the codes): rows with
      // different maxima, whose exps come from different rows of the plan's table.
      const std::uint8_t flip = e.x == DType::kInt8 ? 0x80 : 0;
      for (std::size_t i = 0; i < in.size(); ++i) {
        const auto r = static_cast<int>(i / static_cast<std::size_t>(d.back()));
        in[i] = static_cast<std::uint8_t>(((in[i] ^ flip) % (256 - 11 * (r % 7))) ^ flip);
      }
      model::TensorView vx{x.dtype, x.dims, in.data(), &x.quant}, vy{y.dtype, y.dims, ref.data(), &y.quant};
      Status s = kernels::run_reference("Softmax", l.attrs, {vx}, {vy});
      ASSERT_TRUE(s.ok()) << s.message();
      kernels::onednn::Q8Softmax plan;
      ASSERT_TRUE(kernels::onednn::q8_softmax_for(l, x, y, &plan));
      kernels::onednn::q8_softmax(plan, in.data(), fast.data(), n);
      std::size_t bad = 0;
      for (std::size_t i = 0; i < ref.size(); ++i) bad += ref[i] != fast[i];
      EXPECT_EQ(bad, 0u);
      // Each row's Σ exp in double as reference/norm.cpp adds it, for the vector and the
      // baseline loops: exactly (a rounding there rarely shows in an output byte).
      std::vector<float> real(in.size());
      kernels::detail::dequantize(vx, real.data());
      const std::int64_t len = d.back(), rows = n / len;
      std::vector<double> want(static_cast<std::size_t>(rows));
      for (std::int64_t r = 0; r < rows; ++r) {
        const float* xr = real.data() + r * len;
        float m = -std::numeric_limits<float>::infinity();
        for (std::int64_t i = 0; i < len; ++i) m = xr[i] > m ? xr[i] : m;
        double sum = 0;
        for (std::int64_t i = 0; i < len; ++i) sum += std::exp(xr[i] - m);
        want[static_cast<std::size_t>(r)] = sum;
      }
      // The AVX-512 gathers (where the CPU has them), AVX2 alone, the baseline loops.
      const bool has512 = plan.avx512, has2 = plan.avx2;
      for (int isa : {2, 1, 0}) {
        plan.avx512 = isa == 2 && has512;
        plan.avx2 = isa >= 1 && has2;
        std::vector<double> sums(want.size());
        kernels::onednn::q8_softmax_row_sums(plan, in.data(), n, sums.data());
        EXPECT_EQ(std::memcmp(sums.data(), want.data(), sums.size() * sizeof(double)), 0) << isa;
        std::vector<std::uint8_t> again(in.size(), 0x33);
        kernels::onednn::q8_softmax(plan, in.data(), again.data(), n);
        EXPECT_EQ(again, ref) << isa;
      }
      plan.avx512 = has512;
      plan.avx2 = has2;
      const std::uint8_t top = e.y == DType::kInt8 ? 0x7F : 0xFF;
      for (auto b : ref) saturated += b == top && n > 1;
      // In place, as the planner allows.
      kernels::onednn::q8_softmax(plan, in.data(), in.data(), n);
      EXPECT_EQ(in, ref);
    }
  }
  EXPECT_GT(saturated, 0);
}

// An int8/uint8 input with a float32 output (a recogniser's last Softmax, a model output):
// the reference's float bits, over the same encodings and shapes.
TEST(Q8Softmax, FloatOutputMatchesTheReferenceBits) {
  const std::vector<std::pair<DType, Quant>> encs = {{DType::kInt8, Quant{{0.05f}, {0}, -1}},
                                                     {DType::kInt8, Quant{{2.0f}, {127}, -1}},
                                                     {DType::kUint8, Quant{{1e-4f}, {0}, -1}},
                                                     {DType::kUint8, Quant{{0.02f}, {255}, -1}}};
  const std::vector<I> shapes = {{1, 1}, {2, 17}, {1, 40, 663}, {4, 128}};
  std::uint32_t seed = 3;
  for (const auto& [dt, q] : encs) {
    for (const I& d : shapes) {
      SCOPED_TRACE("seed " + std::to_string(seed));
      const model::Tensor x = tensor(dt, d, q.scale[0], q.zero_point[0]);
      model::Tensor y;
      y.dtype = DType::kFloat32;
      y.dims = d;
      model::Layer l;
      l.op = "Softmax";
      l.inputs = {0};
      l.outputs = {1};
      std::int64_t n = 1;
      for (auto v : d) n *= v;
      std::vector<std::uint8_t> in(static_cast<std::size_t>(n));
      for (auto& b : in) b = static_cast<std::uint8_t>(testing::lcg(seed) >> 3);
      std::vector<float> ref(in.size(), -1.f), fast(in.size(), -2.f);
      model::TensorView vx{x.dtype, x.dims, in.data(), &x.quant}, vy{DType::kFloat32, d, ref.data(), nullptr};
      Status s = kernels::run_reference("Softmax", l.attrs, {vx}, {vy});
      ASSERT_TRUE(s.ok()) << s.message();
      kernels::onednn::Q8Softmax plan;
      ASSERT_TRUE(kernels::onednn::q8_softmax_for(l, x, y, &plan));
      kernels::onednn::q8_softmax(plan, in.data(), fast.data(), n);
      EXPECT_EQ(std::memcmp(ref.data(), fast.data(), ref.size() * sizeof(float)), 0);
    }
  }
}

TEST(Q8Softmax, DeclinesOtherAxesAndFloat) {
  model::Layer l;
  l.op = "Softmax";
  l.inputs = {0};
  l.outputs = {1};
  l.attrs.set("axis", std::int64_t{0});
  kernels::onednn::Q8Softmax plan;
  EXPECT_FALSE(kernels::onednn::q8_softmax_for(l, tensor(DType::kInt8, {4, 8}, 0.1f, 0),
                                               tensor(DType::kInt8, {4, 8}, 0.01f, 0), &plan));
  l.attrs.set("axis", std::int64_t{-1});
  model::Tensor f;
  f.dims = {4, 8};
  EXPECT_FALSE(kernels::onednn::q8_softmax_for(l, f, tensor(DType::kInt8, {4, 8}, 0.01f, 0), &plan));
}

// The second shape is large enough for its rows to be split over two kernel threads.
TEST(Q8Softmax, PlannedForAnInt8SoftmaxWithTheReferenceBytes) {
  for (const I& dims : {I{1, 2, 9, 33}, I{1, 27, 2500}})
  for (int threads : {1, 2}) {
    compiler::ModelBuilder b("smax8");
    const auto x = b.add_input("x", DType::kInt8, dims, model::Layout::kND, Quant{{0.06f}, {-5}, -1});
    compiler::LayerOptions o;
    o.output_quants = {Quant{{1.f / 256}, {-128}, -1}};
    b.add_output(b.add_layer("smax", "Softmax", {x}, o));
    testing::expect_planned_with_reference_bytes(b, 0, "native", threads, 9);
  }
}

}  // namespace
}  // namespace svp
