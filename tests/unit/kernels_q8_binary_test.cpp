// The native int8 Add/Sub/Mul with broadcasting (src/kernels/onednn/q8_binary.h) against
// the reference kernel it stands in for: the same bytes for every op, element type mix,
// broadcast pattern (scalar, per-channel in NCHW and NHWC order, rows, both operands
// broadcast) and encoding, zero points at the ends of their ranges and output scales
// small enough to saturate included; and planned in place of the reference's generic path
// in a program, with the same output.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "compiler/builder.h"
#include "fast_vs_reference.h"
#include "kernel_runner.h"
#include "kernels/kernels.h"
#include "kernels/onednn/q8_binary.h"

namespace svp {
namespace {

using kernels::onednn::Q8BinaryOp;
using kernels::onednn::Q8Operand;
using model::DType;
using model::Quant;
using I = std::vector<std::int64_t>;

std::vector<std::uint8_t> random_bytes(std::int64_t n, std::uint32_t seed) {
  std::vector<std::uint8_t> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = static_cast<std::uint8_t>(testing::lcg(seed) >> 7);
  return v;
}
std::int64_t element_count(const I& d) {
  std::int64_t n = 1;
  for (auto x : d) n *= x;
  return n;
}

struct Enc {
  DType dtype;
  float scale;
  std::int32_t zp;
};

struct Stats {
  int cases = 0, varied = 0, saturated = 0;
};

// Runs op on a (da) and b (db) into dy with the reference kernel and with q8_binary.
void check_binary(const char* op, Q8BinaryOp kop, const I& da, Enc ea, const I& db, Enc eb, const I& dy, Enc ey,
           std::uint32_t seed, Stats* stats) {
  SCOPED_TRACE(std::string(op) + " seed " + std::to_string(seed));
  auto a = random_bytes(element_count(da), seed), b = random_bytes(element_count(db), seed + 101);
  const Quant qa{{ea.scale}, {ea.zp}, -1}, qb{{eb.scale}, {eb.zp}, -1}, qy{{ey.scale}, {ey.zp}, -1};
  std::vector<std::uint8_t> ref(static_cast<std::size_t>(element_count(dy)), 0xAA), fast(ref.size(), 0x55);
  auto view = [](DType t, const I& d, const Quant& q, void* p) {
    model::TensorView v;
    v.dtype = t;
    v.dims = d;
    v.quant = &q;
    v.data = p;
    return v;
  };
  Status s = kernels::run_reference(op, {}, {view(ea.dtype, da, qa, a.data()), view(eb.dtype, db, qb, b.data())},
                                    {view(ey.dtype, dy, qy, ref.data())});
  ASSERT_TRUE(s.ok()) << s.message();
  const Q8Operand oa{ea.dtype, ea.scale, ea.zp}, ob{eb.dtype, eb.scale, eb.zp}, oy{ey.dtype, ey.scale, ey.zp};
  ASSERT_TRUE(kernels::onednn::q8_binary_applies(oa, ob, oy));
  kernels::onednn::q8_binary(kop, a.data(), oa, da, b.data(), ob, db, fast.data(), oy, dy);
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < ref.size(); ++i)
    if (ref[i] != fast[i] && bad++ == 0) first = i;
  EXPECT_EQ(bad, 0u) << "of " << ref.size() << "; first at " << first << ": ref " << int(ref[first]) << " native "
                     << int(fast[first]);
  // How the cases exercise the kernel (checked over all of them by the caller).
  std::vector<bool> seen(256, false);
  for (auto x : ref) seen[x] = true;
  if (std::count(seen.begin(), seen.end(), true) > 8) ++stats->varied;
  const std::size_t top = ey.dtype == DType::kInt8 ? 0x7F : 0xFF, bottom = ey.dtype == DType::kInt8 ? 0x80 : 0;
  if (seen[top] || seen[bottom]) ++stats->saturated;
  ++stats->cases;
}

struct Shapes {
  I a, b, y;
};

TEST(Q8Binary, AddSubMulMatchTheReferenceOverBroadcastsAndEncodings) {
  const std::vector<Shapes> shapes = {
      {{2, 5, 7, 9}, {2, 5, 7, 9}, {2, 5, 7, 9}},     // same shape, a vector tail
      {{1, 16, 6, 5}, {1, 16, 1, 1}, {1, 16, 6, 5}},  // SE gate, NCHW: runs of H·W
      {{1, 6, 5, 19}, {1, 1, 1, 19}, {1, 6, 5, 19}},  // SE gate on NHWC views: runs of C
      {{1, 1, 1, 19}, {1, 6, 5, 19}, {1, 6, 5, 19}},  // the gate first
      {{1, 3, 4, 40}, {40}, {1, 3, 4, 40}},           // rows of 2.5 vectors
      {{1, 32}, {3, 1, 32}, {3, 1, 32}},              // rows of whole vectors, the row first
      {{1, 5, 3, 48}, {1, 1, 1, 48}, {1, 5, 3, 48}},  // rows of three whole vectors, the row second
      {{1, 5, 7, 8}, {1, 1, 1, 8}, {1, 5, 7, 8}},     // rows of half a vector, one row left over
      {{1, 1, 1, 4}, {1, 3, 6, 4}, {1, 3, 6, 4}},     // rows of a quarter, the row first, 2 left over
      {{1, 2, 9, 2}, {1, 1, 1, 2}, {1, 2, 9, 2}},     // rows of two, 36 values: 2 vectors and 2 rows
      {{1, 1, 3, 8}, {1, 1, 1, 8}, {1, 1, 3, 8}},     // 24 values: one vector and one row
      {{1, 5, 1, 40}, {1, 1, 1, 40}, {1, 5, 1, 40}},  // rows of 40: periods of 80, one row left over
      {{3, 17}, {}, {3, 17}},                         // a scalar
      {{4, 1, 9}, {3, 1}, {4, 3, 9}},                 // both broadcast
      {{2, 3, 1, 11}, {3, 4, 1}, {2, 3, 4, 11}},
  };
  const std::vector<Enc> in = {{DType::kInt8, 0.05f, 0},   {DType::kInt8, 0.031f, -128}, {DType::kInt8, 0.2f, 127},
                               {DType::kUint8, 0.04f, 0},  {DType::kUint8, 0.013f, 255}, {DType::kUint8, 0.1f, 128}};
  const std::vector<Enc> out = {{DType::kInt8, 0.07f, -3}, {DType::kUint8, 0.09f, 131},
                                {DType::kInt8, 0.003f, 0},  // saturates most of the outputs
                                {DType::kUint8, 0.5f, 0}, {DType::kInt8, 1.0f / 64, 127}};  // exact ties
  const struct {
    const char* name;
    Q8BinaryOp op;
  } ops[] = {{"Add", Q8BinaryOp::kAdd}, {"Sub", Q8BinaryOp::kSub}, {"Mul", Q8BinaryOp::kMul}};
  std::uint32_t seed = 1;
  Stats stats;
  for (const auto& o : ops)
    for (const Shapes& s : shapes)
      for (std::size_t k = 0; k < in.size(); ++k)
        check_binary(o.name, o.op, s.a, in[k], s.b, in[(k * 5 + 1) % in.size()], s.y, out[k % out.size()], seed++, &stats);
  // Most cases give varied bytes, and many saturate.
  EXPECT_GT(stats.varied, stats.cases / 2);
  EXPECT_GT(stats.saturated, stats.cases / 4);
}

// PP-LCNet's learnt affine steps: int8 × float scalar constant, + float scalar, either order.
TEST(Q8Binary, FloatScalarConstantOperandsMatchTheReference) {
  const I d{1, 7, 9, 13};
  const Quant qx{{0.037f}, {-5}, -1}, qu{{0.02f}, {131}, -1}, qy{{0.05f}, {3}, -1}, qs{{0.004f}, {0}, -1};
  std::uint32_t seed = 40;
  for (const char* op : {"Add", "Sub", "Mul"}) {
    for (float c : {1.75f, -0.25f, 0.f, 37.5f, -1e-3f}) {
      for (bool first : {false, true}) {
        for (const Quant* q : {&qx, &qu}) {
          for (const Quant* o : {&qy, &qs}) {
            SCOPED_TRACE(std::string(op) + " " + std::to_string(c) + (first ? " first" : ""));
            const DType xt = q == &qu ? DType::kUint8 : DType::kInt8, yt = o == &qs ? DType::kInt8 : DType::kUint8;
            auto x = random_bytes(element_count(d), seed++);
            float cv = c;
            model::TensorView vx, vc, vy;
            vx.dtype = xt;
            vx.dims = d;
            vx.quant = q;
            vx.data = x.data();
            vc.dtype = DType::kFloat32;
            vc.dims = {1};
            vc.data = &cv;
            std::vector<std::uint8_t> ref(x.size()), fast(x.size(), 0x55);
            vy.dtype = yt;
            vy.dims = d;
            vy.quant = o;
            vy.data = ref.data();
            Status st = kernels::run_reference(op, {}, first ? std::vector<model::TensorView>{vc, vx}
                                                             : std::vector<model::TensorView>{vx, vc},
                                               {vy});
            ASSERT_TRUE(st.ok()) << st.message();
            const Q8Operand ox{xt, q->scale[0], q->zero_point[0]}, oc = kernels::onednn::q8_float_scalar(c),
                            oy{yt, o->scale[0], o->zero_point[0]};
            ASSERT_TRUE(kernels::onednn::q8_binary_applies(ox, oc, oy));
            const Q8BinaryOp k = op[0] == 'A' ? Q8BinaryOp::kAdd : op[0] == 'S' ? Q8BinaryOp::kSub : Q8BinaryOp::kMul;
            if (first) {
              kernels::onednn::q8_binary(k, &cv, oc, {1}, x.data(), ox, d, fast.data(), oy, d);
            } else {
              kernels::onednn::q8_binary(k, x.data(), ox, d, &cv, oc, {1}, fast.data(), oy, d);
            }
            EXPECT_EQ(ref, fast);
          }
        }
      }
    }
  }
}

// A float32 constant tensor (a Linear layer's bias after an int8 MatMul) broadcast along
// rows, columns or as a full tensor, as either operand (a divisor only: Div by a non-zero
// constant, GELU's x / √2): read as floats, the reference's bytes.
TEST(Q8Binary, FloatConstantTensorOperandsMatchTheReference) {
  const I d{2, 5, 19};
  const Quant qx{{0.037f}, {-128}, -1}, qu{{0.02f}, {255}, -1}, qy{{0.05f}, {3}, -1}, qs{{0.004f}, {127}, -1};
  std::uint32_t seed = 900;
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
    for (const I& dc : {I{19}, I{1, 5, 1}, I{2, 5, 19}, I{5, 19}, I{1}}) {
      for (bool first : {false, true}) {
        if (first && op[0] == 'D') continue;
        for (const Quant* q : {&qx, &qu}) {
          for (const Quant* o : {&qy, &qs}) {
            SCOPED_TRACE(std::string(op) + " seed " + std::to_string(seed) + (first ? " first" : ""));
            const DType xt = q == &qu ? DType::kUint8 : DType::kInt8, yt = o == &qs ? DType::kInt8 : DType::kUint8;
            auto x = random_bytes(element_count(d), seed++);
            std::vector<float> cv(static_cast<std::size_t>(element_count(dc)));
            for (auto& v : cv) v = static_cast<float>(static_cast<int>(testing::lcg(seed) % 4001) - 2000) * 0.003f;
            if (op[0] == 'D')
              for (auto& v : cv) v = v == 0.f ? 1.4142135f : v;
            model::TensorView vx, vc, vy;
            vx.dtype = xt;
            vx.dims = d;
            vx.quant = q;
            vx.data = x.data();
            vc.dtype = DType::kFloat32;
            vc.dims = dc;
            vc.data = cv.data();
            std::vector<std::uint8_t> ref(x.size()), fast(x.size(), 0x55);
            vy.dtype = yt;
            vy.dims = d;
            vy.quant = o;
            vy.data = ref.data();
            Status st = kernels::run_reference(op, {}, first ? std::vector<model::TensorView>{vc, vx}
                                                             : std::vector<model::TensorView>{vx, vc},
                                               {vy});
            ASSERT_TRUE(st.ok()) << st.message();
            const Q8Operand ox{xt, q->scale[0], q->zero_point[0]}, oc = kernels::onednn::q8_float_scalar(cv[0]),
                            oy{yt, o->scale[0], o->zero_point[0]};
            ASSERT_TRUE(kernels::onednn::q8_binary_applies(ox, oc, oy));
            const Q8BinaryOp k = op[0] == 'A'   ? Q8BinaryOp::kAdd
                                 : op[0] == 'S' ? Q8BinaryOp::kSub
                                 : op[0] == 'D' ? Q8BinaryOp::kDiv
                                                : Q8BinaryOp::kMul;
            if (first) {
              kernels::onednn::q8_binary(k, cv.data(), oc, dc, x.data(), ox, d, fast.data(), oy, d);
            } else {
              kernels::onednn::q8_binary(k, x.data(), ox, d, cv.data(), oc, dc, fast.data(), oy, d);
            }
            EXPECT_EQ(ref, fast);
          }
        }
      }
    }
  }
}

TEST(Q8Binary, RefusesEncodingsThatCouldMakeNaN) {
  const Q8Operand ok{DType::kInt8, 0.1f, 0};
  EXPECT_FALSE(kernels::onednn::q8_binary_applies(ok, {DType::kInt8, 0.f, 0}, ok));
  EXPECT_FALSE(kernels::onednn::q8_binary_applies(ok, ok, {DType::kUint8, -1.f, 0}));
  EXPECT_FALSE(kernels::onednn::q8_binary_applies({DType::kInt8, 3e38f, 0}, ok, ok));
  EXPECT_FALSE(kernels::onednn::q8_binary_applies(ok, {DType::kInt16, 0.1f, 0}, ok));
  EXPECT_TRUE(kernels::onednn::q8_binary_applies(ok, {DType::kUint8, 0.2f, 255}, ok));
  EXPECT_FALSE(kernels::onednn::q8_binary_applies(ok, kernels::onednn::q8_float_scalar(INFINITY), ok));
  EXPECT_FALSE(kernels::onednn::q8_binary_applies(ok, ok, kernels::onednn::q8_float_scalar(1.f)));
}

// An SE block in int8: Conv (NHWC output), a per-channel gate input, Mul and a residual
// Add with a second Conv: the Mul and Add run natively on NHWC views, bytes unchanged.
// The 64 × 80 maps are large enough for the Mul and the Add to be split over two threads
// (q8_elementwise.h): the gate broadcasts along the split rows, the Add's operands do not.
TEST(Q8Binary, PlannedForAnInt8SeBlockWithTheReferenceBytes) {
  for (const auto& [h, w_] : {std::pair<std::int64_t, std::int64_t>{6, 5}, {64, 80}})
  for (int threads : {1, 2}) {
    compiler::ModelBuilder b("se8");
    const Quant qx{{0.05f}, {-3}, -1};
    const auto x = b.add_input("x", DType::kInt8, {1, 8, h, w_}, model::Layout::kNCHW, qx);
    const auto gate = b.add_input("gate", DType::kUint8, {1, 8, 1, 1}, model::Layout::kNCHW, Quant{{0.004f}, {0}, -1});
    std::vector<std::int8_t> w(8 * 8);
    std::uint32_t seed = 5;
    for (auto& v : w) v = static_cast<std::int8_t>(static_cast<int>(testing::lcg(seed) % 255) - 127);
    const auto wt = b.add_constant("w", {8, 8, 1, 1}, w, Quant{{0.01f}, {0}, -1});
    compiler::LayerOptions co;
    co.output_quants = {Quant{{0.08f}, {4}, -1}};
    const auto y = b.add_layer("conv", "Conv", {x, wt}, co);
    compiler::LayerOptions mo;
    mo.output_quants = {Quant{{0.03f}, {-9}, -1}};
    const auto g = b.add_layer("gate_mul", "Mul", {y, gate}, mo);
    compiler::LayerOptions ao;
    ao.output_quants = {Quant{{0.06f}, {2}, -1}};
    const auto s = b.add_layer("sum", "Add", {g, y}, ao);
    b.add_output(b.add_layer("conv2", "Conv", {s, wt}, co));
    auto m = b.build();
    ASSERT_TRUE(m.ok()) << m.status().message();
    auto ref = testing::compile(m.value(), false);
    auto fast = testing::compile(m.value(), true, threads);
    EXPECT_EQ(fast->layer_impl(1), "native:nhwc");
    testing::expect_fast_equals_reference(m.value(), *ref, *fast, 3);
  }
}

}  // namespace
}  // namespace svp
