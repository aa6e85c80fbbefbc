// The native int8 AveragePool (src/kernels/onednn/q8_avg_pool.h) against the reference's
// generic path, byte for byte: int8/uint8 in and out, zero points at the ends of their
// ranges, scales that saturate the output, 1-D to 3-D windows with strides, dilations,
// pads with and without count_include_pad, ceil_mode; and planned in a program in place of
// the reference layer.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/builder.h"
#include "fast_vs_reference.h"
#include "kernel_runner.h"
#include "kernels/kernels.h"
#include "kernels/onednn/q8_avg_pool.h"

namespace svp {
namespace {

using model::DType;
using model::Quant;
using I = std::vector<std::int64_t>;

model::Tensor tensor(DType t, const I& dims, float s, std::int32_t zp) { return testing::per_tensor(t, dims, s, zp); }

struct Window {
  I x, kernel, strides, pads, dilations;
  bool include_pad = false, ceil = false;
};

TEST(Q8AvgPool, MatchesTheReferenceOverEncodingsAndWindows) {
  using Enc = testing::InOutEncoding;
  const std::vector<Enc> encs = {
      {DType::kInt8, 0.33f, -124, DType::kInt8, 0.14f, -119},  // PP-OCRv4 rec's pool
      {DType::kUint8, 0.02f, 255, DType::kUint8, 0.001f, 0},   // saturates
      {DType::kInt8, 1e-4f, 127, DType::kUint8, 3e-5f, 3},
      {DType::kUint8, 0.7f, 0, DType::kInt8, 0.7f, -128},      // the same scale
  };
  const std::vector<Window> windows = {
      {{1, 5, 3, 80}, {3, 2}, {3, 2}, {}, {}},                       // rec: [3, 2] / [3, 2]
      {{2, 3, 9, 11}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {}, false},     // pads, not counted
      {{2, 3, 9, 11}, {3, 3}, {2, 2}, {1, 0, 2, 1}, {}, true},      // pads counted
      {{1, 4, 7, 7}, {2, 3}, {2, 2}, {}, {}, false, true},          // ceil_mode
      {{1, 2, 13}, {4}, {3}, {2, 2}, {2}},                          // 1-D, dilated
      {{1, 2, 4, 5, 6}, {2, 2, 3}, {1, 2, 2}, {0, 1, 1, 1, 0, 0}, {}},  // 3-D
  };
  std::uint32_t seed = 5;
  int saturated = 0;
  for (const Enc& e : encs) {
    for (const Window& win : windows) {
      SCOPED_TRACE("seed " + std::to_string(seed));
      model::Layer l;
      l.op = "AveragePool";
      l.inputs = {0};
      l.outputs = {1};
      l.attrs.set("kernel_shape", win.kernel);
      if (!win.strides.empty()) l.attrs.set("strides", win.strides);
      if (!win.pads.empty()) l.attrs.set("pads", win.pads);
      if (!win.dilations.empty()) l.attrs.set("dilations", win.dilations);
      if (win.include_pad) l.attrs.set("count_include_pad", std::int64_t{1});
      if (win.ceil) l.attrs.set("ceil_mode", std::int64_t{1});
      auto shapes = kernels::infer_shapes("AveragePool", l.attrs, {win.x});
      ASSERT_TRUE(shapes.ok()) << shapes.status().message();
      const I yd = shapes.value()[0];
      const model::Tensor x = tensor(e.x, win.x, e.sx, e.zx), y = tensor(e.y, yd, e.sy, e.zy);
      std::int64_t n = 1, m = 1;
      for (auto v : win.x) n *= v;
      for (auto v : yd) m *= v;
      std::vector<std::uint8_t> in(static_cast<std::size_t>(n)), ref(static_cast<std::size_t>(m), 0xAA),
          fast(ref.size(), 0x55);
      for (auto& b : in) b = static_cast<std::uint8_t>(testing::lcg(seed) >> 3);
      model::TensorView vx{x.dtype, x.dims, in.data(), &x.quant}, vy{y.dtype, y.dims, ref.data(), &y.quant};
      Status s = kernels::run_reference("AveragePool", l.attrs, {vx}, {vy});
      ASSERT_TRUE(s.ok()) << s.message();
      kernels::onednn::Q8AvgPool plan;
      ASSERT_TRUE(kernels::onednn::q8_avg_pool_for(l, x, y, &plan));
      kernels::onednn::q8_avg_pool(plan, in.data(), fast.data(), 0, plan.g.planes);
      EXPECT_EQ(fast, ref);
      const std::uint8_t top = e.y == DType::kInt8 ? 0x7F : 0xFF;
      for (auto b : ref) saturated += b == top;
    }
  }
  EXPECT_GT(saturated, 0);
}

TEST(Q8AvgPool, DeclinesFloatAndPerChannelEncodings) {
  model::Layer l;
  l.op = "AveragePool";
  l.inputs = {0};
  l.outputs = {1};
  l.attrs.set("kernel_shape", I{2, 2});
  kernels::onednn::Q8AvgPool plan;
  model::Tensor f;
  f.dims = {1, 2, 4, 4};
  const model::Tensor y = tensor(DType::kInt8, {1, 2, 3, 3}, 0.1f, 0);
  EXPECT_FALSE(kernels::onednn::q8_avg_pool_for(l, f, y, &plan));
  model::Tensor pc = tensor(DType::kInt8, {1, 2, 4, 4}, 0.1f, 0);
  pc.quant = Quant{{0.1f, 0.2f}, {0, 0}, 1};
  EXPECT_FALSE(kernels::onednn::q8_avg_pool_for(l, pc, y, &plan));
}

TEST(Q8AvgPool, PlannedForAnInt8AveragePoolWithTheReferenceBytes) {
  for (int threads : {1, 2}) {
    compiler::ModelBuilder b("avgpool8");
    // 480 planes of 3 × 80 (PP-OCRv4 rec's): enough for two threads to split them.
    const auto x = b.add_input("x", DType::kInt8, {1, 480, 3, 80}, model::Layout::kNCHW, Quant{{0.3f}, {-100}, -1});
    compiler::LayerOptions o;
    o.attrs.set("kernel_shape", I{3, 2});
    o.attrs.set("strides", I{3, 2});
    o.output_quants = {Quant{{0.12f}, {-110}, -1}};
    b.add_output(b.add_layer("pool", "AveragePool", {x}, o));
    testing::expect_planned_with_reference_bytes(b, 0, "native", threads, 9);
  }
}

}  // namespace
}  // namespace svp
