// Unary int8 elementwise ops as load-time tables (src/kernels/onednn/q8_table.h): planned
// between quantized convolutions (NHWC data) and as a model output, with the reference's
// bytes for every op and encoding pair, in and out of place; and Mul(x, U(x)) (SiLU,
// x·HardSigmoid(x)) folded with its gate into one table; the lookup loop (64 bytes at a
// time with AVX-512 VBMI) over every length around its block and every byte, in place; and
// an AI-CPU Erf (as svp_atc places it) planned as a table.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "compiler/builder.h"
#include "fast_vs_reference.h"
#include "kernel_runner.h"
#include "kernels/onednn/q8_table.h"

namespace svp {
namespace {

using model::DType;
using model::Quant;
using I = std::vector<std::int64_t>;

Quant pt(float s, std::int32_t zp) { return Quant{{s}, {zp}, -1}; }

std::vector<std::int8_t> weights(std::size_t n, std::uint32_t seed) {
  std::vector<std::int8_t> w(n);
  for (auto& v : w) v = static_cast<std::int8_t>(static_cast<int>(testing::lcg(seed) % 255) - 127);
  return w;
}

// u as the model output, or read by a 1×1 int8 Conv with weights w that is.
void output_or_conv(compiler::ModelBuilder& b, compiler::TensorId u, compiler::TensorId w, bool as_output) {
  if (as_output) {
    b.add_output(u);
    return;
  }
  compiler::LayerOptions o2;
  o2.output_quants = {pt(0.05f, 0)};
  b.add_output(b.add_layer("conv2", "Conv", {u, w}, o2));
}

TEST(Q8Table, UnaryOpsBetweenInt8ConvsMatchTheReference) {
  const char* ops[] = {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish", "Erf"};
  struct Enc {
    DType t;
    float s;
    std::int32_t zp;
  };
  const Enc encs[] = {{DType::kInt8, 0.05f, -128}, {DType::kUint8, 0.03f, 255}, {DType::kInt8, 0.02f, 127},
                      {DType::kUint8, 0.011f, 0}};
  int native = 0, cases = 0;
  for (const char* op : ops) {
    for (std::size_t e = 0; e < 4; ++e) {
      for (bool as_output : {false, true}) {
        SCOPED_TRACE(std::string(op) + " encoding " + std::to_string(e) + (as_output ? " output" : ""));
        compiler::ModelBuilder b("q8table");
        const auto x = b.add_input("x", DType::kInt8, {1, 8, 6, 7}, model::Layout::kNCHW, pt(0.04f, 3));
        const auto w = b.add_constant("w", {8, 8, 1, 1}, weights(64, 3 + static_cast<std::uint32_t>(e)), pt(0.02f, 0));
        compiler::LayerOptions co;
        co.output_quants = {pt(0.06f, encs[e].t == DType::kUint8 ? 120 : -4)};
        co.output_dtypes = {encs[e].t};
        const auto c = b.add_layer("conv", "Conv", {x, w}, co);
        compiler::LayerOptions uo;
        uo.output_quants = {pt(encs[e].s, encs[e].zp)};
        uo.output_dtypes = {encs[e].t};
        if (std::string(op) == "LeakyRelu") uo.attrs.set("alpha", 0.13f);
        const auto u = b.add_layer("act", op, {c}, uo);
        output_or_conv(b, u, w, as_output);
        auto m = b.build();
        ASSERT_TRUE(m.ok()) << m.status().message();
        auto ref = testing::compile(m.value(), false);
        auto fast = testing::compile(m.value(), true);
        ++cases;
        if (fast->layer_impl(1).rfind("native", 0) == 0) ++native;
        testing::expect_fast_equals_reference(m.value(), *ref, *fast, 11);
      }
    }
  }
  // Every case takes the table (the conv's output encoding is per-tensor int8/uint8).
  EXPECT_EQ(native, cases);
}

// A map large enough for the table to be split over two kernel threads (q8_elementwise.h),
// between two convolutions and as the model output.
TEST(Q8Table, LargeMapsSplitOverTwoThreadsWithTheReferenceBytes) {
  for (bool as_output : {false, true}) {
    SCOPED_TRACE(as_output ? "output" : "between convs");
    compiler::ModelBuilder b("q8table2");
    const auto x = b.add_input("x", DType::kInt8, {1, 8, 64, 80}, model::Layout::kNCHW, pt(0.04f, 3));
    const auto w = b.add_constant("w", {8, 8, 1, 1}, weights(64, 5), pt(0.02f, 0));
    compiler::LayerOptions co;
    co.output_quants = {pt(0.06f, -4)};
    const auto c = b.add_layer("conv", "Conv", {x, w}, co);
    compiler::LayerOptions uo;
    uo.output_quants = {pt(0.03f, -100)};
    const auto u = b.add_layer("act", "HardSwish", {c}, uo);
    output_or_conv(b, u, w, as_output);
    // As the model output the table runs on the logical (NCHW) tensor, between convs on NHWC.
    testing::expect_planned_with_reference_bytes(b, 1, as_output ? "native" : "native:nhwc", 2, 23);
  }
}

// SiLU as int8 graphs spell it (Conv → Sigmoid → Mul with the Conv's output), either
// operand order, signed and unsigned encodings, and x·HardSigmoid(x): the gate folds into
// the Mul's table, and the bytes are the reference's.
TEST(Q8Table, SelfGatedMulFoldsItsGateIntoOneTableWithTheReferenceBytes) {
  struct Case {
    const char* gate;
    bool gate_first;
    DType t;
  };
  const Case cases[] = {{"Sigmoid", false, DType::kInt8}, {"Sigmoid", true, DType::kUint8},
                        {"HardSigmoid", false, DType::kUint8}, {"Sigmoid", true, DType::kInt8}};
  for (const Case& k : cases) {
    SCOPED_TRACE(std::string(k.gate) + (k.gate_first ? " gate first " : " ") + model::dtype_name(k.t));
    compiler::ModelBuilder b("silu");
    const auto x = b.add_input("x", DType::kInt8, {1, 8, 6, 7}, model::Layout::kNCHW, pt(0.04f, 3));
    const auto w = b.add_constant("w", {8, 8, 1, 1}, weights(64, 5), pt(0.02f, 0));
    compiler::LayerOptions co;
    co.output_quants = {pt(0.06f, k.t == DType::kUint8 ? 120 : -4)};
    co.output_dtypes = {k.t};
    const auto c = b.add_layer("conv", "Conv", {x, w}, co);
    compiler::LayerOptions go;
    go.output_quants = {pt(1.0f / 255.0f, k.t == DType::kUint8 ? 0 : -128)};
    go.output_dtypes = {k.t};
    const auto g = b.add_layer("gate", k.gate, {c}, go);
    compiler::LayerOptions mo;
    mo.output_quants = {pt(0.03f, k.t == DType::kUint8 ? 10 : -7)};
    mo.output_dtypes = {k.t};
    const auto y = b.add_layer("mul", "Mul", k.gate_first ? std::vector<compiler::TensorId>{g, c}
                                                          : std::vector<compiler::TensorId>{c, g},
                               mo);
    compiler::LayerOptions o2;
    o2.output_quants = {pt(0.05f, 0)};
    b.add_output(b.add_layer("conv2", "Conv", {y, w}, o2));
    auto m = b.build();
    ASSERT_TRUE(m.ok()) << m.status().message();
    auto ref = testing::compile(m.value(), false);
    auto fast = testing::compile(m.value(), true);
    EXPECT_EQ(fast->layer_impl(1), "native:fused");
    EXPECT_EQ(fast->layer_impl(2).rfind("native", 0), 0u) << fast->layer_impl(2);
    testing::expect_fast_equals_reference(m.value(), *ref, *fast, 17);
  }
}

// A binary op with a one-element constant operand — PP-LCNet's learnt x·k and x + c after
// HardSwish, with the constant first or second, float32 or int8; Sub, Div, Pow(x, 2) — is
// one table over the other operand's bytes, with the reference's bytes.
TEST(Q8Table, BinaryOpsWithAScalarConstantBecomeTablesWithTheReferenceBytes) {
  struct Case {
    const char* op;
    bool constant_first;
    bool int8_constant;
    float value;
  };
  const Case cases[] = {{"Mul", false, false, 1.75f}, {"Add", true, false, -0.25f}, {"Sub", true, false, 0.5f},
                        {"Div", false, false, 3.0f},  {"Pow", false, false, 2.0f},  {"Mul", true, true, 0.f},
                        {"Add", false, true, 0.f}};
  for (const Case& k : cases) {
    for (DType t : {DType::kInt8, DType::kUint8}) {
      SCOPED_TRACE(std::string(k.op) + (k.constant_first ? " constant first" : "") +
                   (k.int8_constant ? " int8 constant " : " ") + model::dtype_name(t));
      compiler::ModelBuilder b("scalar");
      const auto x = b.add_input("x", DType::kInt8, {1, 8, 6, 7}, model::Layout::kNCHW, pt(0.04f, 3));
      const auto w = b.add_constant("w", {8, 8, 1, 1}, weights(64, 9), pt(0.02f, 0));
      compiler::LayerOptions co;
      co.output_quants = {pt(0.06f, t == DType::kUint8 ? 120 : -4)};
      co.output_dtypes = {t};
      const auto c = b.add_layer("conv", "Conv", {x, w}, co);
      const auto kc = k.int8_constant ? b.add_constant("k", {1}, std::vector<std::int8_t>{37}, pt(0.02f, 0))
                                      : b.add_constant("k", {}, std::vector<float>{k.value});
      compiler::LayerOptions bo;
      bo.output_quants = {pt(0.05f, t == DType::kUint8 ? 100 : -9)};
      bo.output_dtypes = {t};
      const auto y = b.add_layer("op", k.op, k.constant_first ? std::vector<compiler::TensorId>{kc, c}
                                                            : std::vector<compiler::TensorId>{c, kc},
                                 bo);
      compiler::LayerOptions o2;
      o2.output_quants = {pt(0.05f, 0)};
      b.add_output(b.add_layer("conv2", "Conv", {y, w}, o2));
      auto m = b.build();
      ASSERT_TRUE(m.ok()) << m.status().message();
      auto ref = testing::compile(m.value(), false);
      auto fast = testing::compile(m.value(), true);
      EXPECT_EQ(fast->layer_impl(1).rfind("native", 0), 0u) << fast->layer_impl(1);
      testing::expect_fast_equals_reference(m.value(), *ref, *fast, 19);
    }
  }
}

TEST(Q8Table, LookupGivesTheTableEntryOfEveryByteAtEveryLength) {
  kernels::onednn::Q8Table t{};
  std::uint32_t seed = 5;
  for (auto& v : t) v = static_cast<std::uint8_t>(testing::lcg(seed));
  for (std::int64_t n : {0, 1, 63, 64, 65, 127, 128, 200, 256, 1000}) {
    std::vector<std::uint8_t> x(static_cast<std::size_t>(n)), y(x.size(), 0xAA);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::uint8_t>(i * 7 + (i >> 8));
    kernels::onednn::q8_table_apply(t, x.data(), y.data(), n);
    for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], t[x[i]]) << n << " " << i;
    kernels::onednn::q8_table_apply(t, x.data(), x.data(), n);
    EXPECT_EQ(x, y);
  }
}

TEST(Q8Table, AnAiCpuErfIsPlannedAsATableWithTheReferenceBytes) {
  compiler::ModelBuilder b("erf_aicpu");
  const auto x = b.add_input("x", DType::kInt8, {1, 50, 96}, model::Layout::kND, pt(0.04f, 3));
  compiler::LayerOptions o;
  o.target = model::Target::kAiCpu;
  o.output_quants = {pt(1.f / 127, 0)};
  b.add_output(b.add_layer("erf", "Erf", {x}, o));
  testing::expect_planned_with_reference_bytes(b, 0, "native", 1, 3);
}

}  // namespace
}  // namespace svp
