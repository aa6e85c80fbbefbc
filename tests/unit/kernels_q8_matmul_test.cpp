// The native int8 MatMul / Gemm (src/kernels/onednn/q8_matmul.h) against the reference
// kernel's integer path, byte for byte: two activations and activation × constant B,
// int8/uint8 operands with zero points at the ends of their ranges, per-column B scales
// and zero points, outputs int8/uint8/float32 (saturating scales included), broadcast
// batch dims, K not a multiple of any vector width and K long enough to be split into
// exact blocks, tiny shapes, Gemm with transB and every form of C; one and two threads;
// and planned in a program (attention-like Q·Kᵀ, A·V and a Linear) with the reference's bytes.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "compiler/builder.h"
#include "fast_vs_reference.h"
#include "kernel_runner.h"
#include "kernels/kernels.h"
#include "kernels/onednn/int8_conv_avx2.h"
#include "kernels/onednn/q8_matmul.h"
#include "kernels/onednn/runtime.h"

namespace svp {
namespace {

using model::DType;
using model::Quant;
using I = std::vector<std::int64_t>;

std::int64_t count(const I& d) {
  std::int64_t n = 1;
  for (auto x : d) n *= x;
  return n;
}

std::vector<std::uint8_t> random_bytes(std::int64_t n, std::uint32_t seed) {
  std::vector<std::uint8_t> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = static_cast<std::uint8_t>(testing::lcg(seed) >> 5);
  return v;
}

model::TensorView view(DType t, const I& d, const Quant* q, void* p) {
  model::TensorView v;
  v.dtype = t;
  v.dims = d;
  v.quant = q;
  v.data = p;
  return v;
}

std::size_t elem_size(DType t) { return t == DType::kFloat32 ? 4 : (t == DType::kInt32 ? 4 : 1); }

struct Operand {
  DType dtype;
  I dims;
  Quant q;
};

struct Outcome {
  bool planned = false;
  bool int_gemm = false;  // oneDNN's integer gemm ran too (VNNI CPUs)
  bool gemv = false;      // and our matrix-vector kernel before it (few rows, int8 B)
  bool prim = false;      // and oneDNN's matmul primitive (what AMX CPUs plan)
  std::size_t bad = 0;
  bool saturated = false;
};

// Reference vs native for op (MatMul or Gemm) on random bytes.
Outcome check(const char* op, const model::Attrs& attrs, const Operand& a, const Operand& b, bool b_const,
              const Operand* c, std::vector<std::uint8_t> cdata, const Operand& y, std::uint32_t seed, int threads) {
  auto ad = random_bytes(count(a.dims), seed), bd = random_bytes(count(b.dims), seed + 7);
  const std::size_t ny = static_cast<std::size_t>(count(y.dims)) * elem_size(y.dtype);
  std::vector<std::uint8_t> ref(ny, 0xAA), fast(ny, 0x55);
  const Quant* yq = y.q.empty() ? nullptr : &y.q;
  std::vector<model::TensorView> in{view(a.dtype, a.dims, &a.q, ad.data()), view(b.dtype, b.dims, &b.q, bd.data())};
  if (c != nullptr) in.push_back(view(c->dtype, c->dims, c->q.empty() ? nullptr : &c->q, cdata.data()));
  Status s = kernels::run_reference(op, attrs, in, {view(y.dtype, y.dims, yq, ref.data())});
  EXPECT_TRUE(s.ok()) << s.message();
  kernels::onednn::Q8MatMul plan;
  std::string why;
  Outcome o;
  const model::TensorView yv = view(y.dtype, y.dims, yq, nullptr);
  o.planned = std::string(op) == "Gemm"
                  ? kernels::onednn::plan_q8_gemm(attrs, in[0], in[1], c != nullptr ? &in[2] : nullptr, yv, threads,
                                                  &plan, &why)
                  : kernels::onednn::plan_q8_matmul(in[0], in[1], yv, b_const, threads, &plan, &why);
  if (!o.planned) return o;
  // A constant B is read at planning only.
  if (b_const) std::fill(bd.begin(), bd.end(), 0x33);
  // Runs the plan as it stands and counts the bytes that differ from the reference.
  auto run_and_count = [&] {
    std::fill(fast.begin(), fast.end(), 0x55);
    s = kernels::onednn::run_q8_matmul(plan, ad.data(), bd.data(), fast.data(), threads);
    EXPECT_TRUE(s.ok()) << s.message();
    for (std::size_t i = 0; i < ny; ++i) o.bad += ref[i] != fast[i];
  };
  run_and_count();
  // Every product the plan can take: the matrix-vector kernel, oneDNN's integer gemm where
  // the CPU has it, and the exact float one.
  o.int_gemm = plan.int_gemm;
  o.gemv = plan.gemv;
  if (plan.gemv) {
    plan.gemv = false;
    run_and_count();
  }
  // Both routes of the integer gemm, whichever this CPU planned: oneDNN's gemm function and
  // its matmul primitive.
  if (plan.int_gemm) {
    const auto planned = plan.prim;
    plan.prim.reset();
    run_and_count();
    o.prim = kernels::onednn::use_int_matmul_primitive(&plan, threads);
    if (o.prim) run_and_count();
    plan.prim = planned;
  }
  if (plan.int_gemm) {
    plan.int_gemm = false;
    run_and_count();
  }
  if (y.dtype != DType::kFloat32) {
    const std::uint8_t top = y.dtype == DType::kInt8 ? 0x7F : 0xFF, bottom = y.dtype == DType::kInt8 ? 0x80 : 0;
    for (auto v : ref) o.saturated = o.saturated || v == top || v == bottom;
  }
  return o;
}

Quant per_tensor(float s, std::int32_t zp) { return Quant{{s}, {zp}, -1}; }

TEST(Q8MatMul, TwoActivationsMatchTheReference) {
  struct Shapes {
    I a, b, y;
  };
  const std::vector<Shapes> shapes = {
      {{1, 1}, {1, 1}, {1, 1}},                        // tiny
      {{3, 17}, {17, 5}, {3, 5}},                      // K, N odd
      {{2, 3, 7, 33}, {2, 3, 33, 9}, {2, 3, 7, 9}},    // attention batch dims
      {{2, 3, 7, 20}, {20, 31}, {2, 3, 7, 31}},        // B shared by every batch
      {{5, 12}, {4, 12, 6}, {4, 5, 6}},                // A shared
      {{1, 2, 9, 600}, {1, 2, 600, 3}, {1, 2, 9, 3}},  // K split into exact blocks
  };
  struct Enc {
    DType a, b, y;
    std::int32_t za, zb, zy;
    float sy;
  };
  const std::vector<Enc> encs = {
      {DType::kInt8, DType::kInt8, DType::kInt8, 0, 0, 0, 0.5f},
      {DType::kInt8, DType::kInt8, DType::kInt8, -128, 127, 3, 2.0f},
      {DType::kUint8, DType::kInt8, DType::kUint8, 255, -128, 0, 0.01f},  // saturates
      {DType::kUint8, DType::kUint8, DType::kInt8, 0, 255, -128, 40.0f},
      {DType::kInt8, DType::kUint8, DType::kFloat32, 127, 0, 0, 1.0f},
      {DType::kInt8, DType::kInt8, DType::kInt8, 5, -3, 1, 7.5f},
  };
  int planned = 0, saturated = 0, split = 0, int_gemm = 0, prim = 0;
  std::uint32_t seed = 1;
  for (const Shapes& sh : shapes) {
    for (const Enc& e : encs) {
      for (int threads : {1, 2}) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        const Operand a{e.a, sh.a, per_tensor(0.02f, e.za)}, b{e.b, sh.b, per_tensor(0.03f, e.zb)};
        const Operand y{e.y, sh.y, e.y == DType::kFloat32 ? Quant{} : per_tensor(e.sy, e.zy)};
        const Outcome o = check("MatMul", {}, a, b, false, nullptr, {}, y, seed++, threads);
        EXPECT_TRUE(o.planned);
        EXPECT_EQ(o.bad, 0u);
        planned += o.planned;
        int_gemm += o.int_gemm;
        prim += o.prim;
        saturated += o.saturated;
        split += o.planned && sh.a.back() == 600;
      }
    }
  }
  EXPECT_GT(saturated, 4);
  EXPECT_GT(split, 0);
  // Wherever the integer gemm ran, oneDNN's matmul primitive ran too (and matched).
  EXPECT_EQ(prim, int_gemm);
  if (dnnl::get_effective_cpu_isa() == dnnl::cpu_isa::avx512_core_vnni) {
    EXPECT_EQ(int_gemm, planned);
  }
}

TEST(Q8MatMul, ActivationByConstantWeightsMatchTheReference) {
  std::uint32_t seed = 100;
  int saturated = 0, gemv = 0;
  for (const I& ad : {I{1, 4, 19}, I{2, 3, 5, 64}, I{1, 1, 1}, I{1, 3, 1500}, I{1, 1283}}) {
    const std::int64_t K = ad.back();
    for (std::int64_t N : {1, 7, 48}) {
      for (bool per_col : {false, true}) {
        for (DType bt : {DType::kInt8, DType::kUint8}) {
          SCOPED_TRACE("seed " + std::to_string(seed));
          Quant bq = per_tensor(0.01f, bt == DType::kInt8 ? 0 : 128);
          if (per_col) {
            bq = Quant{{}, {}, 1};
            for (std::int64_t n = 0; n < N; ++n) {
              bq.scale.push_back(0.005f + 0.001f * static_cast<float>(n));
              bq.zero_point.push_back(bt == DType::kInt8 ? static_cast<std::int32_t>(n % 5) - 2
                                                         : static_cast<std::int32_t>(n * 37 % 256));
            }
            if (N == 1) bq.axis = -1;
          }
          I yd = ad;
          yd.back() = N;
          const Operand a{DType::kUint8, ad, per_tensor(0.04f, 7)}, b{bt, {K, N}, bq};
          const Operand y{DType::kInt8, yd, per_tensor(K > 1000 ? 0.05f : 0.3f, -2)};
          const Outcome o = check("MatMul", {}, a, b, true, nullptr, {}, y, seed++, 2);
          EXPECT_TRUE(o.planned);
          EXPECT_EQ(o.bad, 0u);
          saturated += o.saturated;
          gemv += o.gemv;
        }
      }
    }
  }
  EXPECT_GT(saturated, 0);
  // int8 weights with zero point 0 and at most 4 rows: the matrix-vector kernel (VNNI).
  if (dnnl::get_effective_cpu_isa() == dnnl::cpu_isa::avx512_core_vnni) {
    EXPECT_GE(gemv, 12);
  }
}

TEST(Q8MatMul, GemmMatchesTheReferenceForEveryFormOfC) {
  std::uint32_t seed = 500;
  const std::int64_t K = 37, N = 11;
  for (std::int64_t M : {6, 1}) {
    for (int tb : {0, 1}) {
      for (int cform : {0, 1, 2, 3, 4}) {  // none, float [N], int32 [N], int32 per-column [1, N], float [1, N]
        for (bool per_col : {false, true}) {
          SCOPED_TRACE("seed " + std::to_string(seed) + " transB " + std::to_string(tb) + " C " +
                       std::to_string(cform));
          const model::Attrs attrs{{"transB", model::AttrValue(std::int64_t{tb})}};
          Quant bq = per_tensor(0.02f, 0);
          if (per_col) {
            bq = Quant{{}, {}, tb ? 0 : 1};
            for (std::int64_t n = 0; n < N; ++n) {
              bq.scale.push_back(0.01f + 0.002f * static_cast<float>(n));
              bq.zero_point.push_back(static_cast<std::int32_t>(n % 3) - 1);
            }
          }
          const Operand a{DType::kInt8, {M, K}, per_tensor(0.05f, -100)};
          const Operand b{DType::kInt8, tb ? I{N, K} : I{K, N}, bq};
          const Operand y{DType::kUint8, {M, N}, per_tensor(0.2f, 128)};
          Operand c{DType::kFloat32, {N}, {}};
          std::vector<std::uint8_t> cdata(static_cast<std::size_t>(N) * 4);
          std::uint32_t cs = seed;
          for (std::int64_t n = 0; n < N; ++n) {
            const float f = static_cast<float>(static_cast<int>(testing::lcg(cs) % 2001) - 1000) * 0.01f;
            const std::int32_t i = static_cast<std::int32_t>(testing::lcg(cs) % 20001) - 10000;
            if (cform == 1 || cform == 4) {
              std::memcpy(&cdata[static_cast<std::size_t>(n) * 4], &f, 4);
            } else {
              std::memcpy(&cdata[static_cast<std::size_t>(n) * 4], &i, 4);
            }
          }
          if (cform == 4) c.dims = {1, N};
          if (cform == 2 || cform == 3) {
            c.dtype = DType::kInt32;
            if (cform == 3) {
              c.dims = {1, N};
              c.q = Quant{{}, {}, 1};
              for (std::int64_t n = 0; n < N; ++n) {
                c.q.scale.push_back(0.05f * bq.scale[per_col ? static_cast<std::size_t>(n) : 0]);
                c.q.zero_point.push_back(0);
              }
            }
          }
          const Outcome o = check("Gemm", attrs, a, b, true, cform == 0 ? nullptr : &c, cdata, y, seed++, 1);
          // A per-channel C of [1, N] with M > 1 sends the reference to its generic path.
          EXPECT_EQ(o.planned, cform != 3 || M == 1);
          EXPECT_EQ(o.bad, 0u);
        }
      }
    }
  }
}

// Extreme operands (every |x − zp| at its maximum): accumulators far beyond 2^24, where
// float32 sums would round unless split, and ties in the requantization.
TEST(Q8MatMul, AccumulatorsBeyond2To24MatchTheReference) {
  for (DType yt : {DType::kFloat32, DType::kInt8}) {
    const I ad{3, 1100}, bd{1100, 5}, yd{3, 5};
    const Quant qa = per_tensor(0.5f, 0), qb = per_tensor(0.25f, 127), qy = per_tensor(32768.f, 1);
    std::vector<std::uint8_t> a(3 * 1100, 255), b(1100 * 5, 0x80);  // uint8 255; int8 −128 − 127
    a[7] = 0;
    const std::size_t ny = 15 * (yt == DType::kFloat32 ? 4 : 1);
    std::vector<std::uint8_t> ref(ny), fast(ny, 0x55);
    const Quant* yq = yt == DType::kFloat32 ? nullptr : &qy;
    ASSERT_TRUE(kernels::run_reference("MatMul", {},
                                       {view(DType::kUint8, ad, &qa, a.data()), view(DType::kInt8, bd, &qb, b.data())},
                                       {view(yt, yd, yq, ref.data())})
                    .ok());
    kernels::onednn::Q8MatMul plan;
    std::string why;
    ASSERT_TRUE(kernels::onednn::plan_q8_matmul(view(DType::kUint8, ad, &qa, nullptr),
                                                view(DType::kInt8, bd, &qb, nullptr), view(yt, yd, yq, nullptr), false,
                                                2, &plan, &why))
        << why;
    EXPECT_GT(plan.k_split.size(), 2u);  // the float product is split
    for (bool int_gemm : {plan.int_gemm, false}) {
      plan.int_gemm = int_gemm;
      ASSERT_TRUE(kernels::onednn::run_q8_matmul(plan, a.data(), b.data(), fast.data(), 2).ok());
      EXPECT_EQ(ref, fast) << (int_gemm ? "integer gemm" : "float");
    }
  }
}

TEST(Q8MatMul, DeclinesWhatTheReferenceComputesOtherwise) {
  kernels::onednn::Q8MatMul plan;
  std::string why;
  const Quant qa = per_tensor(0.1f, 0), qy = per_tensor(0.1f, 0);
  std::vector<std::uint8_t> bdata(16 * 4, 1);
  // A float B: the reference's generic path.
  EXPECT_FALSE(kernels::onednn::plan_q8_matmul(view(DType::kInt8, {4, 16}, &qa, nullptr),
                                               view(DType::kFloat32, {16, 4}, nullptr, bdata.data()),
                                               view(DType::kInt8, {4, 4}, &qy, nullptr), true, 1, &plan, &why));
  // Gemm with alpha != 1.
  const model::Attrs attrs{{"alpha", model::AttrValue(0.5)}};
  EXPECT_FALSE(kernels::onednn::plan_q8_gemm(attrs, view(DType::kInt8, {4, 16}, &qa, nullptr),
                                             view(DType::kInt8, {16, 4}, &qa, bdata.data()), nullptr,
                                             view(DType::kInt8, {4, 4}, &qy, nullptr), 1, &plan, &why));
}

// An int8 attention block: Gemm projection (activation zero point ≠ 0, which oneDNN's inner
// product declines), Q·Kᵀ and A·V of two activations with a Softmax between them, a 3-D
// activation by constant weights and its float32 bias Add: every layer planned natively,
// the reference's bytes at the output.
TEST(Q8MatMul, PlannedForAnInt8AttentionBlockWithTheReferenceBytes) {
  for (int threads : {1, 2}) {
    compiler::ModelBuilder b("attn8");
    const auto x = b.add_input("x", DType::kInt8, {10, 16}, model::Layout::kND, per_tensor(0.05f, -3));
    const auto k = b.add_input("k", DType::kInt8, {1, 2, 16, 10}, model::Layout::kND, per_tensor(0.04f, 9));
    const auto v = b.add_input("v", DType::kUint8, {1, 2, 10, 16}, model::Layout::kND, per_tensor(0.03f, 120));
    std::uint32_t seed = 11;
    auto weights = [&](std::int64_t n) {
      std::vector<std::int8_t> w(static_cast<std::size_t>(n));
      for (auto& e : w) e = static_cast<std::int8_t>(static_cast<int>(testing::lcg(seed) % 255) - 127);
      return w;
    };
    std::vector<float> gb(32), bias(12);
    for (auto& e : gb) e = static_cast<float>(static_cast<int>(testing::lcg(seed) % 201) - 100) * 0.01f;
    for (auto& e : bias) e = static_cast<float>(static_cast<int>(testing::lcg(seed) % 201) - 100) * 0.02f;
    compiler::LayerOptions go;
    go.attrs.set("transB", std::int64_t{1});
    go.output_quants = {per_tensor(0.3f, 2)};
    const auto proj = b.add_layer(
        "proj", "Gemm",
        {x, b.add_constant("wp", {32, 16}, weights(32 * 16), per_tensor(0.01f, 0)), b.add_constant("bp", {32}, gb)},
        go);
    compiler::LayerOptions ro;
    ro.output_quants = {per_tensor(0.3f, 2)};
    const auto q =
        b.add_layer("q", "Reshape", {proj, b.add_constant("shape", {4}, std::vector<std::int64_t>{1, 2, 10, 16})}, ro);
    compiler::LayerOptions so;
    so.output_quants = {per_tensor(0.5f, -1)};
    const auto s = b.add_layer("qk", "MatMul", {q, k}, so);
    compiler::LayerOptions po;
    po.output_quants = {per_tensor(1.f / 256, -128)};
    const auto p = b.add_layer("softmax", "Softmax", {s}, po);
    compiler::LayerOptions ao;
    ao.output_quants = {per_tensor(0.02f, 4)};
    const auto av = b.add_layer("av", "MatMul", {p, v}, ao);
    compiler::LayerOptions lo;
    lo.output_quants = {per_tensor(0.1f, 0)};
    const auto lin = b.add_layer("linear", "MatMul",
                                 {av, b.add_constant("w", {16, 12}, weights(16 * 12), per_tensor(0.01f, 0))}, lo);
    compiler::LayerOptions bo;
    bo.output_quants = {per_tensor(0.12f, -6)};
    b.add_output(b.add_layer("bias", "Add", {lin, b.add_constant("b", {12}, bias)}, bo));
    auto m = b.build();
    ASSERT_TRUE(m.ok()) << m.status().message();
    auto ref = testing::compile(m.value(), false);
    auto fast = testing::compile(m.value(), true, threads);
    // Without VNNI the Gemm is avx2_int8's (exact with input zero points too).
    const bool avx2_gemm = !kernels::onednn::exact_int8_isa() && kernels::onednn::int8_avx2_available();
    EXPECT_EQ(fast->layer_impl(0), avx2_gemm ? "avx2_int8" : "native");
    for (std::size_t i : {2, 3, 4, 5, 6}) EXPECT_EQ(fast->layer_impl(i), "native") << i;
    testing::expect_fast_equals_reference(m.value(), *ref, *fast, 3);
  }
}

}  // namespace
}  // namespace svp
