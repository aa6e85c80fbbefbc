// MatMul (numpy semantics: 1-D promotion, broadcast batch dims), Gemm, the integer
// MatMulInteger / QLinearMatMul, and Det.
#include <algorithm>
#include <cmath>
#include <utility>

#include "kernels/reference/int_ops.h"
#include "kernels/reference/ops.h"
#include "kernels/reference/typed.h"

namespace svp::kernels::detail {
namespace {

// y[m, n] += sum_k a(m, k) * b(k, n) with a(m, k) = a[m * ars + k * acs], b likewise;
// y is dense M x N.
template <typename T, typename A>
void gemm_core(const T* a, std::int64_t ars, std::int64_t acs, const T* b, std::int64_t brs, std::int64_t bcs, A* y,
               std::int64_t M, std::int64_t K, std::int64_t N) {
  if (bcs != 1 && brs == 1) {
    // B transposed (a Linear layer's Gemm, transB = 1): a dot product along k reads both
    // operands contiguously; each y[m, n] still adds its products in ascending k from its
    // initial value, so the result is the same as the loop below.
    for (std::int64_t m = 0; m < M; ++m) {
      for (std::int64_t n = 0; n < N; ++n) {
        const T* bc = b + n * bcs;
        A acc = y[m * N + n];
        if (acs == 1) {
          const T* ar = a + m * ars;
          for (std::int64_t k = 0; k < K; ++k) acc += static_cast<A>(ar[k]) * static_cast<A>(bc[k]);
        } else {
          for (std::int64_t k = 0; k < K; ++k) acc += static_cast<A>(a[m * ars + k * acs]) * static_cast<A>(bc[k]);
        }
        y[m * N + n] = acc;
      }
    }
    return;
  }
  for (std::int64_t m = 0; m < M; ++m) {
    A* yr = y + m * N;
    for (std::int64_t k = 0; k < K; ++k) {
      const A av = static_cast<A>(a[m * ars + k * acs]);
      const T* br = b + k * brs;
      if (bcs == 1) {
        for (std::int64_t n = 0; n < N; ++n) yr[n] += av * static_cast<A>(br[n]);
      } else {
        for (std::int64_t n = 0; n < N; ++n) yr[n] += av * static_cast<A>(br[n * bcs]);
      }
    }
  }
}

// ---------------------------------------------------------------------------
// MatMul

struct MatMulSetup {
  std::int64_t M = 1, K = 1, N = 1;
  Shape batch;                             // broadcast batch dims
  std::vector<std::int64_t> a_off, b_off;  // element offsets of each batch's matrices
  Shape out;
};

Result<MatMulSetup> matmul_setup(const InferCtx& c) {
  Shape a = c.in[0], b = c.in[1];
  if (a.empty() || b.empty())
    return Invalid(c.op, "inputs must have rank >= 1, got {} and {}", shape_str(a), shape_str(b));
  const bool a1 = a.size() == 1, b1 = b.size() == 1;
  if (a1) a.insert(a.begin(), 1);
  if (b1) b.push_back(1);
  MatMulSetup s;
  s.M = a[a.size() - 2];
  s.K = a[a.size() - 1];
  s.N = b[b.size() - 1];
  if (b[b.size() - 2] != s.K) {
    return Invalid(c.op, "inner dimensions do not match: A {} and B {}", shape_str(c.in[0]), shape_str(c.in[1]));
  }
  const Shape ba(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  KN_ASSIGN(s.batch, broadcast_shapes(c.op, ba, bb));
  s.out = s.batch;
  if (!a1) s.out.push_back(s.M);
  if (!b1) s.out.push_back(s.N);
  std::vector<std::int64_t> sa = broadcast_strides(ba, s.batch), sb = broadcast_strides(bb, s.batch);
  for (auto& v : sa) v *= s.M * s.K;
  for (auto& v : sb) v *= s.K * s.N;
  for_each_row<2>(s.batch, {&sa, &sb}, {0, 0},
                  [&](const std::array<std::int64_t, 2>& off, std::int64_t n, const std::array<std::int64_t, 2>& st) {
                    for (std::int64_t i = 0; i < n; ++i) {
                      s.a_off.push_back(off[0] + i * st[0]);
                      s.b_off.push_back(off[1] + i * st[1]);
                    }
                  });
  return s;
}

Result<std::vector<Shape>> infer_matmul(const InferCtx& c) {
  KN_ASSIGN(MatMulSetup s, matmul_setup(c));
  return std::vector<Shape>{s.out};
}

template <typename T, typename A>
void matmul_batches(const MatMulSetup& s, const T* a, const T* b, A* y) {
  std::fill(y, y + static_cast<std::int64_t>(s.a_off.size()) * s.M * s.N, A{});
  for (std::size_t i = 0; i < s.a_off.size(); ++i) {
    gemm_core<T, A>(a + s.a_off[i], s.K, 1, b + s.b_off[i], s.N, 1, y + static_cast<std::int64_t>(i) * s.M * s.N, s.M,
                    s.K, s.N);
  }
}

Status matmul_float(const RunCtx& c) {
  SVP_RETURN_IF_ERROR(require_f32(c, {0, 1}));
  KN_ASSIGN(MatMulSetup s, with_infer_ctx(c, matmul_setup));
  matmul_batches<float, float>(s, c.in[0].as<const float>(), c.in[1].as<const float>(), c.out[0].as<float>());
  return Status::Ok();
}

Status run_matmul(const RunCtx& c) {
  // Per-channel B scales are along its last axis (the output columns); a 1-D B has none.
  const std::int64_t w_axis = c.in[1].dims.size() >= 2 ? static_cast<std::int64_t>(c.in[1].dims.size()) - 1 : -2;
  if (!int_path_applies(c.in[0], c.in[1], w_axis, nullptr, c.out[0])) return run_via_float(c, matmul_float);
  KN_ASSIGN(MatMulSetup s, with_infer_ctx(c, matmul_setup));
  const Quant& bq = *c.in[1].quant;
  const AccWriter out(
      c.in[0], [&](std::int64_t n) { return scale_at(bq, static_cast<std::size_t>(n)); }, s.N, c.out[0]);
  const std::vector<std::int32_t> as = shifted_ints(c.in[0]), bs = shifted_ints(c.in[1]);
  std::vector<std::int64_t> acc(static_cast<std::size_t>(c.out[0].elements()));
  matmul_batches<std::int32_t, std::int64_t>(s, as.data(), bs.data(), acc.data());
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(acc.size()); ++i) {
    out.put(i, acc[static_cast<std::size_t>(i)], i % s.N);
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// Gemm: Y = alpha * A' * B' + beta * C.

struct GemmSetup {
  std::int64_t M = 0, K = 0, N = 0;
  bool ta = false, tb = false;
  double alpha = 1, beta = 1;
};

Result<GemmSetup> gemm_setup(const InferCtx& c) {
  const Shape& a = c.in[0];
  const Shape& b = c.in[1];
  if (a.size() != 2 || b.size() != 2) {
    return Invalid(c.op, "A and B must be 2-D, got {} and {}", shape_str(a), shape_str(b));
  }
  GemmSetup g;
  const AttrReader r = c.attr();
  KN_ASSIGN(g.ta, r.flag("transA", false));
  KN_ASSIGN(g.tb, r.flag("transB", false));
  KN_ASSIGN(g.alpha, r.f("alpha", 1.0));
  KN_ASSIGN(g.beta, r.f("beta", 1.0));
  g.M = g.ta ? a[1] : a[0];
  g.K = g.ta ? a[0] : a[1];
  const std::int64_t kb = g.tb ? b[1] : b[0];
  g.N = g.tb ? b[0] : b[1];
  if (kb != g.K) {
    return Invalid(c.op, "inner dimensions do not match: A {} (transA={}) and B {} (transB={})", shape_str(a),
                   g.ta ? 1 : 0, shape_str(b), g.tb ? 1 : 0);
  }
  if (c.has(2)) {
    KN_ASSIGN(Shape bc, broadcast_shapes(c.op, c.in[2], Shape{g.M, g.N}));
    if (bc != Shape{g.M, g.N}) {
      return Invalid(c.op, "C shape {} does not broadcast to [{}, {}]", shape_str(c.in[2]), g.M, g.N);
    }
  }
  return g;
}

Result<std::vector<Shape>> infer_gemm(const InferCtx& c) {
  KN_ASSIGN(GemmSetup g, gemm_setup(c));
  return std::vector<Shape>{Shape{g.M, g.N}};
}

template <typename T, typename A>
void gemm_run(const GemmSetup& g, const T* a, const T* b, A* y) {
  std::fill(y, y + g.M * g.N, A{});
  gemm_core<T, A>(a, g.ta ? 1 : g.K, g.ta ? g.M : 1, b, g.tb ? 1 : g.N, g.tb ? g.K : 1, y, g.M, g.K, g.N);
}

Status gemm_float(const RunCtx& c) {
  SVP_RETURN_IF_ERROR(require_f32(c, {0, 1, 2}));
  KN_ASSIGN(GemmSetup g, with_infer_ctx(c, gemm_setup));
  float* y = c.out[0].as<float>();
  gemm_run<float, float>(g, c.in[0].as<const float>(), c.in[1].as<const float>(), y);
  const float alpha = static_cast<float>(g.alpha), beta = static_cast<float>(g.beta);
  const Shape mn{g.M, g.N};
  std::vector<float> cb(static_cast<std::size_t>(g.M * g.N), 0.0f);
  if (c.has(2)) gather_strided(cb.data(), c.in[2].data, sizeof(float), 0, mn, broadcast_strides(c.in[2].dims, mn));
  for (std::int64_t i = 0; i < g.M * g.N; ++i) y[i] = alpha * y[i] + beta * cb[static_cast<std::size_t>(i)];
  return Status::Ok();
}

Status run_gemm(const RunCtx& c) {
  KN_ASSIGN(GemmSetup g, with_infer_ctx(c, gemm_setup));
  const TensorView* bias = c.has(2) ? &c.in[2] : nullptr;
  const bool unit = g.alpha == 1.0 && (g.beta == 1.0 || bias == nullptr);
  const bool bias_ok = bias == nullptr || is_per_tensor(*bias) || !has_quant(*bias) || bias->dims == Shape{g.M, g.N};
  if (!unit || !bias_ok || !int_path_applies(c.in[0], c.in[1], g.tb ? 0 : 1, bias, c.out[0])) {
    return run_via_float(c, gemm_float);
  }
  const Quant& bq = *c.in[1].quant;
  const AccWriter out(
      c.in[0], [&](std::int64_t n) { return scale_at(bq, static_cast<std::size_t>(n)); }, g.N, c.out[0]);
  const std::vector<std::int32_t> as = shifted_ints(c.in[0]), bs = shifted_ints(c.in[1]);
  std::vector<std::int64_t> acc(static_cast<std::size_t>(g.M * g.N));
  gemm_run<std::int32_t, std::int64_t>(g, as.data(), bs.data(), acc.data());
  if (bias != nullptr) {
    // C broadcast to [M, N]; element (m, n) has the scale of output column n.
    const Shape mn{g.M, g.N};
    OwnedTensor cexp(bias->dtype, mn);
    gather_strided(cexp.view().data, bias->data, 4, 0, mn, broadcast_strides(bias->dims, mn));
    if (has_quant(*bias)) cexp.set_quant(*bias->quant);
    KN_ASSIGN(std::vector<std::int64_t> cq,
              bias_to_int(c.op, cexp.view(), [&](std::int64_t i) { return out.bias_scale(i % g.N); }));
    for (std::int64_t i = 0; i < g.M * g.N; ++i) {
      out.put(i, acc[static_cast<std::size_t>(i)], i % g.N, cq[static_cast<std::size_t>(i)]);
    }
    return Status::Ok();
  }
  for (std::int64_t i = 0; i < g.M * g.N; ++i) out.put(i, acc[static_cast<std::size_t>(i)], i % g.N);
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// MatMulInteger (A, B, a_zero_point?, b_zero_point?) → int32, exact (per-tensor zero
// points, or B's per column); QLinearMatMul (a, a_scale, a_zero_point, b, b_scale,
// b_zero_point, y_scale, y_zero_point) is MatMul's integer path on operands carrying them.

Result<std::vector<Shape>> infer_qlinear_matmul(const InferCtx& c) { return with_inputs(c, {0, 3}, infer_matmul); }

std::int64_t last_axis(const TensorView& t) { return static_cast<std::int64_t>(t.dims.size()) - 1; }

Status run_matmul_integer(const RunCtx& c) {
  const TensorView& y = c.out[0];
  if (y.dtype != DType::kInt32 || has_quant(y)) return BadType(c.op, "output must be int32, got {}", type_desc(y));
  Quant qa, qb;
  KN_ASSIGN(TensorView a, with_quant(c.op, "A", c.in[0], nullptr, c.has(2) ? &c.in[2] : nullptr, 0, &qa));
  KN_ASSIGN(TensorView b, with_quant(c.op, "B", c.in[1], nullptr, c.has(3) ? &c.in[3] : nullptr, last_axis(c.in[1]),
                                     &qb));
  if (qa.scale.size() > 1) return Invalid(c.op, "a_zero_point must be a single value");
  KN_ASSIGN(MatMulSetup s, with_infer_ctx(c, matmul_setup));
  const std::vector<std::int32_t> as = shifted_ints(a), bs = shifted_ints(b);
  std::vector<std::int64_t> acc(static_cast<std::size_t>(y.elements()));
  matmul_batches<std::int32_t, std::int64_t>(s, as.data(), bs.data(), acc.data());
  for (std::size_t i = 0; i < acc.size(); ++i) y.as<std::int32_t>()[i] = saturate_i32(acc[i]);
  return Status::Ok();
}

Status run_qlinear_matmul(const RunCtx& c) {
  Quant qa, qb, qy;
  KN_ASSIGN(TensorView a, with_quant(c.op, "a", c.in[0], &c.in[1], &c.in[2], 0, &qa));
  KN_ASSIGN(TensorView b, with_quant(c.op, "b", c.in[3], &c.in[4], &c.in[5], last_axis(c.in[3]), &qb));
  KN_ASSIGN(TensorView y, with_quant(c.op, "y", c.out[0], &c.in[6], &c.in[7], 0, &qy));
  if (qa.scale.size() > 1 || qy.scale.size() > 1) return Invalid(c.op, "a and y quantization must be per-tensor");
  const std::vector<TensorView> in{a, b}, out{y};
  return run_matmul(RunCtx{c.op, c.attrs, in, out});
}

// ---------------------------------------------------------------------------
// Det: determinants of the trailing M x M matrices, by LU decomposition with partial
// pivoting in double.

Result<std::vector<Shape>> infer_det(const InferCtx& c) {
  const Shape& x = c.in[0];
  if (x.size() < 2 || x[x.size() - 1] != x[x.size() - 2]) {
    return Invalid(c.op, "input must end in a square matrix [..., M, M], got {}", shape_str(x));
  }
  return std::vector<Shape>{Shape(x.begin(), x.end() - 2)};
}

double determinant(std::vector<double>& a, std::int64_t m) {
  double det = 1;
  for (std::int64_t k = 0; k < m; ++k) {
    std::int64_t p = k;
    for (std::int64_t r = k + 1; r < m; ++r) {
      if (std::fabs(a[static_cast<std::size_t>(r * m + k)]) > std::fabs(a[static_cast<std::size_t>(p * m + k)])) p = r;
    }
    if (a[static_cast<std::size_t>(p * m + k)] == 0.0) return 0.0;
    if (p != k) {
      for (std::int64_t j = 0; j < m; ++j) std::swap(a[static_cast<std::size_t>(p * m + j)], a[static_cast<std::size_t>(k * m + j)]);
      det = -det;
    }
    const double pivot = a[static_cast<std::size_t>(k * m + k)];
    det *= pivot;
    for (std::int64_t r = k + 1; r < m; ++r) {
      const double f = a[static_cast<std::size_t>(r * m + k)] / pivot;
      for (std::int64_t j = k; j < m; ++j) a[static_cast<std::size_t>(r * m + j)] -= f * a[static_cast<std::size_t>(k * m + j)];
    }
  }
  return det;
}

Status run_det(const RunCtx& c) {
  const TensorView &x = c.in[0], &y = c.out[0];
  if (x.dtype != y.dtype || has_quant(x)) {
    return BadType(c.op, "input is {} but the output is {}", type_desc(x), type_desc(y));
  }
  const std::int64_t m = x.dims.back(), mats = y.elements();
  const bool ok = visit_types<kFloatTypes>(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    std::vector<double> a(static_cast<std::size_t>(m * m));
    for (std::int64_t i = 0; i < mats; ++i) {
      for (std::int64_t e = 0; e < m * m; ++e) a[static_cast<std::size_t>(e)] = load(x.as<const T>()[i * m * m + e]);
      y.as<T>()[i] = store<T>(determinant(a, m));
    }
  });
  if (!ok) return bad_type(c.op, "input 0", x, kFloatTypes);
  return Status::Ok();
}

}  // namespace

void add_matmul_ops(std::vector<OpDef>& ops) {
  ops.push_back({"MatMul", 2, 2, infer_matmul, run_matmul});
  ops.push_back({"Gemm", 2, 3, infer_gemm, run_gemm});
  ops.push_back({"MatMulInteger", 2, 4, infer_matmul, run_matmul_integer});
  ops.push_back({"QLinearMatMul", 8, 8, infer_qlinear_matmul, run_qlinear_matmul});
  ops.push_back({"Det", 1, 1, infer_det, run_det});
}

}  // namespace svp::kernels::detail
