#include "kernels/onednn/q8_matmul.h"

// The AVX-512 intrinsics below (sign extension, masked loads, reductions) expand to masked
// builtins, which -Wmaybe-uninitialized reports falsely (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <dnnl.h>
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "kernels/common.h"
#include "kernels/onednn/q8_elementwise.h"
#include "kernels/onednn/runtime.h"

namespace svp::kernels::onednn {

using model::DType;
using model::TensorView;

namespace {

// Beyond this magnitude float32 no longer holds every integer, so a partial sum could round.
constexpr std::int64_t kExactSum = std::int64_t{1} << 24;

// The largest |q − zp| a tensor of this type and zero point can hold.
std::int64_t max_dev(DType t, std::int32_t zp) {
  return std::max<std::int64_t>(zp - detail::qmin(t), detail::qmax(t) - zp);
}

// dst[i] = q[i] − zp[i % period], exactly (integers below 2^9).
template <typename T>
void shifted(const T* q, std::int64_t n, const std::int32_t* zp, std::int64_t period, float* dst) {
  if (period == 1) {
    const std::int32_t z = zp[0];
    for (std::int64_t i = 0; i < n; ++i) dst[i] = static_cast<float>(static_cast<std::int32_t>(q[i]) - z);
    return;
  }
  for (std::int64_t i = 0; i < n; i += period)
    for (std::int64_t j = 0; j < period; ++j)
      dst[i + j] = static_cast<float>(static_cast<std::int32_t>(q[i + j]) - zp[j]);
}

void shifted_q8(DType t, const void* q, std::int64_t n, const std::int32_t* zp, std::int64_t period, float* dst) {
  if (t == DType::kInt8) {
    shifted(static_cast<const std::int8_t*>(q), n, zp, period, dst);
  } else {
    shifted(static_cast<const std::uint8_t*>(q), n, zp, period, dst);
  }
}

// The reference's requantize_acc per element, for CPUs without AVX2.
void requant_row_scalar(const std::int32_t* acc, const float* bias, const float* scale, std::int64_t n,
                        const Int8Requant& q, void* y) {
  for (std::int64_t j = 0; j < n; ++j) {
    const float v = static_cast<float>(acc[j]) + bias[j];
    if (q.y == DType::kFloat32) {
      static_cast<float*>(y)[j] = v * scale[j];
    } else {
      const std::int64_t r = detail::requantize_acc(v, scale[j], q.zp, q.lo, q.hi);
      if (q.y == DType::kInt8) {
        static_cast<std::int8_t*>(y)[j] = static_cast<std::int8_t>(r);
      } else {
        static_cast<std::uint8_t*>(y)[j] = static_cast<std::uint8_t>(r);
      }
    }
  }
}

// Per-run buffers of the calling thread (one run_layer at a time per thread).
struct Buffers {
  std::vector<float> a, b, c;
  std::vector<std::int32_t> acc;
};
Buffers& thread_buffers() {
  thread_local Buffers b;
  return b;
}

template <typename V>
void ensure(V* v, std::int64_t n) {
  if (static_cast<std::int64_t>(v->size()) < n) v->resize(static_cast<std::size_t>(n));
}

}  // namespace

namespace {

// Output encoding, per-column scales and zero bias; B's zero points per column.
void plan_encodings(const TensorView& a, const TensorView& b, const TensorView& y, std::int64_t N, Q8MatMul* p) {
  const bool y_float = y.dtype == DType::kFloat32;
  p->a = a.dtype;
  p->b = b.dtype;
  p->zp_a = detail::zp_at(*a.quant, 0);
  const float sa = a.quant->scale[0];
  for (std::int64_t n = 0; n < N; ++n) {
    const auto c = static_cast<std::size_t>(n);
    p->zp_b.push_back(detail::zp_at(*b.quant, c));
    const float sb = detail::scale_at(*b.quant, c);
    p->scale.push_back(y_float ? sa * sb : detail::requant_scale(sa, sb, y.quant->scale[0]));
  }
  p->bias.assign(static_cast<std::size_t>(N), 0.0f);
  p->rq.y = y.dtype;
  if (!y_float) {
    p->rq.zp = detail::zp_at(*y.quant, 0);
    p->rq.lo = detail::qmin(y.dtype);
    p->rq.hi = detail::qmax(y.dtype);
  }
}

bool output_ok(const TensorView& y) {
  return (y.dtype == DType::kFloat32 && !detail::has_quant(y)) || (detail::is_quantized(y) && detail::is_per_tensor(y));
}

// K blocks whose float sums stay exact, given the largest |b − zp_b| of every row of B
// (over its columns and batch matrices); false when an int32 sum could overflow.
bool split_k(const std::vector<std::int64_t>& row_max, const std::vector<std::int64_t>& col_sum, std::int64_t dev_a,
             Q8MatMul* p, std::string* why) {
  for (std::int64_t s : col_sum)
    if (s * dev_a > std::numeric_limits<std::int32_t>::max()) return *why = "int32 accumulator could overflow", false;
  p->k_split.assign(1, 0);
  std::int64_t sum = 0;
  for (std::size_t k = 0; k < row_max.size(); ++k) {
    if ((sum + row_max[k]) * dev_a > kExactSum) {
      p->k_split.push_back(static_cast<std::int64_t>(k));
      sum = 0;
    }
    sum += row_max[k];
  }
  p->k_split.push_back(static_cast<std::int64_t>(row_max.size()));
  return true;
}

// B (K × N per batch matrix, already shifted) as constant: its row maxima and column sums.
bool split_k_const(std::int64_t dev_a, Q8MatMul* p, std::string* why) {
  const std::int64_t K = p->mm.K, N = p->mm.N;
  std::vector<std::int64_t> row_max(static_cast<std::size_t>(K), 0);
  std::vector<std::int64_t> col_sum(static_cast<std::size_t>(N), 0);
  for (std::int64_t m = 0; m < static_cast<std::int64_t>(p->b_const.size()); m += K * N) {
    std::vector<std::int64_t> col(static_cast<std::size_t>(N), 0);
    for (std::int64_t k = 0; k < K; ++k) {
      for (std::int64_t n = 0; n < N; ++n) {
        const auto v = static_cast<std::int64_t>(std::abs(p->b_const[static_cast<std::size_t>(m + k * N + n)]));
        row_max[static_cast<std::size_t>(k)] = std::max(row_max[static_cast<std::size_t>(k)], v);
        col[static_cast<std::size_t>(n)] += v;
      }
    }
    for (std::int64_t n = 0; n < N; ++n)
      col_sum[static_cast<std::size_t>(n)] =
          std::max(col_sum[static_cast<std::size_t>(n)], col[static_cast<std::size_t>(n)]);
  }
  return split_k(row_max, col_sum, dev_a, p, why);
}

// oneDNN's u8·s8 gemm sums in int32 exactly with AVX-512 VNNI (vpdpbusd) and above. Its
// kernels for other ISAs (AVX2, and AVX2-VNNI, which oneDNN 2.6's gemm may not use) can
// add product pairs in saturating int16, so they are not trusted; nor is any ISA capped
// below AVX-512 VNNI (DNNL_MAX_CPU_ISA), which the effective ISA reflects.
bool exact_int8_gemm() {
  static const bool exact = exact_int8_isa() && dnnl::get_effective_cpu_isa() != dnnl::cpu_isa::avx2_vnni;
  return exact;
}

// The matrix-vector kernel for up to kGemvRows rows of A by a constant B whose values
// are int8 as they are (bo = 0: int8 weights with zero point 0), where oneDNN's gemm
// would repack B on every call.
constexpr std::int64_t kGemvRows = 4;

void plan_gemv(Q8MatMul* p) {
  const SgemmMatMul& mm = p->mm;
  if (p->bo != 0 || !mm.b_shared || mm.batches * mm.M > kGemvRows) return;
  const std::int64_t K = mm.K, N = mm.N;
  p->gemv_n16 = (N + 15) / 16;
  p->gemv_k4 = (K + 3) / 4;
  p->b_vnni.assign(static_cast<std::size_t>(p->gemv_n16 * p->gemv_k4 * 64), 0);
  for (std::int64_t k = 0; k < K; ++k) {
    for (std::int64_t n = 0; n < N; ++n) {
      // Block n/16, group k/4: lane n%16 holds the group's 4 bytes in k order.
      p->b_vnni[static_cast<std::size_t>(((n / 16) * p->gemv_k4 + k / 4) * 64 + (n % 16) * 4 + k % 4)] =
          p->b_s8[static_cast<std::size_t>(k * N + n)];
    }
  }
  p->gemv = true;
}

// Σ_k B[k][n] for each of `batches` K × N matrices, B read row by row. The integer gemm
// (and so this) runs only on CPUs with AVX-512 VNNI or AMX, which have AVX-512 BW.
__attribute__((target("avx512f,avx512bw,avx512vl"))) void column_sums(const std::int8_t* b, std::int64_t batches,
                                                                      std::int64_t K, std::int64_t N,
                                                                      std::int32_t* sums) {
  for (std::int64_t i = 0; i < batches; ++i, sums += N) {
    std::fill(sums, sums + N, 0);
    for (std::int64_t k = 0; k < K; ++k, b += N) {
      for (std::int64_t n = 0; n < N; n += 16) {
        const auto m = static_cast<__mmask16>(N - n >= 16 ? 0xffff : (1u << (N - n)) - 1);
        const __m512i v = _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(m, b + n));
        _mm512_mask_storeu_epi32(sums + n, m, _mm512_add_epi32(_mm512_maskz_loadu_epi32(m, sums + n), v));
      }
    }
  }
}

// Σ of K bytes.
__attribute__((target("avx512f,avx512bw"))) std::uint32_t byte_sum(const std::uint8_t* a, std::int64_t K) {
  __m512i s = _mm512_setzero_si512();
  for (std::int64_t k = 0; k < K; k += 64) {
    const __mmask64 m = K - k >= 64 ? ~0ULL : (1ULL << (K - k)) - 1;
    s = _mm512_add_epi64(s, _mm512_sad_epu8(_mm512_maskz_loadu_epi8(m, a + k), _mm512_setzero_si512()));
  }
  return static_cast<std::uint32_t>(_mm512_reduce_add_epi64(s));
}

// What the primitive's raw sums still lack (raw_int_sums): the operands (u8 A after the
// re-bias) and B's column sums.
struct RawSums {
  const std::uint8_t* au = nullptr;
  const std::int32_t* colsum = nullptr;
};

// Rows [r0, r1) of the batches·M rows: acc −= ao·Σ_k b (per column) + bo·Σ_k a (per row) −
// K·ao·bo, in int32 with wrap-around.
__attribute__((target("avx512f,avx512bw"))) void subtract_offsets(const Q8MatMul& p, const RawSums& raw,
                                                                  std::int64_t r0, std::int64_t r1, std::int32_t* acc) {
  const SgemmMatMul& mm = p.mm;
  const std::int64_t M = mm.M, K = mm.K, N = mm.N;
  const auto ao = static_cast<std::uint32_t>(p.ao);
  const auto bo = static_cast<std::uint32_t>(static_cast<std::int32_t>(p.bo));
  const std::uint32_t k_ao_bo = static_cast<std::uint32_t>(K) * ao * bo;
  const __m512i vao = _mm512_set1_epi32(static_cast<int>(ao));
  for (std::int64_t g = r0; g < r1; ++g) {
    const std::int64_t i = g / M, r = g % M;
    const std::uint8_t* a = raw.au + (mm.a_shared ? 0 : i * M * K) + r * K;
    const std::int32_t* cs = raw.colsum + (mm.b_shared ? 0 : i * N);
    const std::uint32_t row_term = (bo != 0 ? bo * byte_sum(a, K) : 0) - k_ao_bo;
    if (ao == 0 && row_term == 0) continue;
    const __m512i vrow = _mm512_set1_epi32(static_cast<int>(row_term));
    std::int32_t* out = acc + g * N;
    for (std::int64_t n = 0; n < N; n += 16) {
      const auto m = static_cast<__mmask16>(N - n >= 16 ? 0xffff : (1u << (N - n)) - 1);
      __m512i t = vrow;
      if (ao != 0) t = _mm512_add_epi32(t, _mm512_mullo_epi32(vao, _mm512_maskz_loadu_epi32(m, cs + n)));
      _mm512_mask_storeu_epi32(out + n, m, _mm512_sub_epi32(_mm512_maskz_loadu_epi32(m, out + n), t));
    }
  }
}

// The raw u8·s8 → s32 sums of the plan's shapes as one oneDNN matmul primitive (see the
// header for when and why), made for `threads` threads with a one-thread twin. B is
// packed into the primitive's layout when constant. Null when oneDNN offers nothing
// better than its reference implementation, or cannot broadcast as the plan needs.
std::shared_ptr<const FastOp> make_raw_int_matmul(const Q8MatMul& p, int threads) {
  const SgemmMatMul& mm = p.mm;
  if (mm.batches > 1 && mm.a_shared && mm.b_shared) return nullptr;
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  const bool flat = mm.batches == 1;
  const dnnl::memory::dims a_dims =
      flat ? dnnl::memory::dims{mm.M, mm.K} : dnnl::memory::dims{mm.a_shared ? 1 : mm.batches, mm.M, mm.K};
  const dnnl::memory::dims b_dims =
      flat ? dnnl::memory::dims{mm.K, mm.N} : dnnl::memory::dims{mm.b_shared ? 1 : mm.batches, mm.K, mm.N};
  const dnnl::memory::dims y_dims = flat ? dnnl::memory::dims{mm.M, mm.N} : dnnl::memory::dims{mm.batches, mm.M, mm.N};
  const tag plain = flat ? tag::ab : tag::abc;
  try {
    const dnnl::engine& eng = cpu_engine();
    ThreadScope scope(threads);
    const dnnl::memory::desc a_md(a_dims, dt::u8, plain), y_md(y_dims, dt::s32, plain);
    const dnnl::memory::desc b_md(b_dims, dt::s8, p.b_is_const ? tag::any : plain);
    const dnnl::matmul::desc d(a_md, b_md, y_md);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const dnnl::matmul::primitive_desc pd(d, attr, eng);
    const std::string impl = pd.impl_info_str();
    if (impl.rfind("ref", 0) == 0) return nullptr;
    auto op = std::make_shared<FastOp>(dnnl::matmul(pd), a_md, y_md, pd.scratchpad_desc());
    if (p.b_is_const) {
      dnnl::memory user({b_dims, dt::s8, plain}, eng, const_cast<std::int8_t*>(p.b_s8.data()));
      op->set_weights(reordered_weights(user, pd.weights_desc()));
    } else {
      op->set_runtime_weights(b_md);
    }
    op->set_impl(impl);
    op->set_one_thread_twin(threads, [d, attr, eng] { return dnnl::matmul::primitive_desc(d, attr, eng); });
    return op;
  } catch (const dnnl::error&) {
    return nullptr;
  }
}

bool amx_cpu() {
  static const bool amx = dnnl::get_effective_cpu_isa() == dnnl::cpu_isa::avx512_core_amx;
  return amx;
}

// Chooses oneDNN's integer gemm where it is exact and B has one zero point.
void plan_int_gemm(Q8MatMul* p, int threads) {
  if (!exact_int8_gemm()) return;
  for (std::int32_t z : p->zp_b)
    if (z != p->zp_b[0]) return;
  p->int_gemm = true;
  p->a_flip = p->a == DType::kInt8;
  p->b_flip = p->b == DType::kUint8;
  p->ao = static_cast<std::uint8_t>(p->zp_a + (p->a_flip ? 128 : 0));
  p->bo = static_cast<std::int8_t>(p->zp_b[0] - (p->b_flip ? 128 : 0));
  if (p->b_is_const) {
    // b_const holds b − zp_b = b' − bo.
    p->b_s8.resize(p->b_const.size());
    for (std::size_t i = 0; i < p->b_const.size(); ++i)
      p->b_s8[i] = static_cast<std::int8_t>(static_cast<std::int32_t>(p->b_const[i]) + p->bo);
    const std::int64_t b_batches = p->mm.b_shared ? 1 : p->mm.batches;
    p->b_colsum.resize(static_cast<std::size_t>(b_batches * p->mm.N));
    column_sums(p->b_s8.data(), b_batches, p->mm.K, p->mm.N, p->b_colsum.data());
    plan_gemv(p);
  }
  if (!p->gemv && amx_cpu()) p->prim = make_raw_int_matmul(*p, threads);
}

// dst = src ^ 0x80: an int8 byte as the uint8 128 above it, or back (AVX-512: see
// column_sums).
__attribute__((target("avx512f,avx512bw"))) void rebias(const void* src, std::int64_t n, std::uint8_t* dst) {
  const auto* s = static_cast<const std::uint8_t*>(src);
  const __m512i x = _mm512_set1_epi8(static_cast<char>(0x80));
  for (std::int64_t i = 0; i < n; i += 64) {
    const __mmask64 m = n - i >= 64 ? ~0ULL : (1ULL << (n - i)) - 1;
    _mm512_mask_storeu_epi8(dst + i, m, _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, s + i), x));
  }
}

}  // namespace

bool plan_q8_matmul(const TensorView& a, const TensorView& b, const TensorView& y, bool b_is_const, int threads,
                    Q8MatMul* plan, std::string* why) {
  // The reference's integer path (int_path_applies with B's last axis as the channels).
  if (!detail::is_quantized(a) || !detail::is_per_tensor(a)) return *why = "A not per-tensor int8/uint8", false;
  if (!detail::is_quantized(b) || b.dims.size() < 2) return *why = "B not quantized int8/uint8 of rank >= 2", false;
  if (!output_ok(y)) return *why = "output not per-tensor int8/uint8 or float32", false;
  Q8MatMul p;
  if (!plan_sgemm_matmul(a.dims, b.dims, y.dims, &p.mm)) return *why = "batch layout", false;
  // One B for consecutive A matrices (a sequence-first Linear: [L, 1, C] × [C, N]): they
  // are the rows of one taller A, so one product instead of L thin ones.
  if (p.mm.b_shared && !p.mm.a_shared) {
    p.mm.M *= p.mm.batches;
    p.mm.batches = 1;
  }
  const std::int64_t K = p.mm.K, N = p.mm.N;
  const std::int64_t rank_b = static_cast<std::int64_t>(b.dims.size());
  if (!detail::is_per_tensor(b) &&
      (detail::quant_axis(b) != rank_b - 1 || static_cast<std::int64_t>(b.quant->scale.size()) != N))
    return *why = "B not per-tensor nor per column", false;
  plan_encodings(a, b, y, N, &p);
  const std::int64_t dev_a = max_dev(a.dtype, p.zp_a);
  if (b_is_const) {
    const std::int64_t nb = (p.mm.b_shared ? 1 : p.mm.batches) * K * N;
    p.b_const.resize(static_cast<std::size_t>(nb));
    shifted_q8(b.dtype, b.data, nb, p.zp_b.data(), N, p.b_const.data());
    if (!split_k_const(dev_a, &p, why)) return false;
  } else {
    std::int64_t dev_b = 0;
    for (std::int32_t z : p.zp_b) dev_b = std::max(dev_b, max_dev(b.dtype, z));
    const std::vector<std::int64_t> row_max(static_cast<std::size_t>(K), dev_b);
    const std::vector<std::int64_t> col_sum(static_cast<std::size_t>(N), dev_b * K);
    if (!split_k(row_max, col_sum, dev_a, &p, why)) return false;
  }
  p.b_is_const = b_is_const;
  plan_int_gemm(&p, threads);
  *plan = std::move(p);
  return true;
}

bool plan_q8_gemm(const model::Attrs& attrs, const TensorView& a, const TensorView& b, const TensorView* c,
                  const TensorView& y, int threads, Q8MatMul* plan, std::string* why) {
  if (a.dims.size() != 2 || b.dims.size() != 2 || y.dims.size() != 2) return *why = "not 2-D", false;
  const detail::AttrReader r("Gemm", attrs);
  auto ta = r.i("transA", 0), tb = r.i("transB", 0);
  auto alpha = r.f("alpha", 1.0), beta = r.f("beta", 1.0);
  if (!ta.ok() || !tb.ok() || !alpha.ok() || !beta.ok()) return *why = "attributes", false;
  if (ta.value() != 0 || alpha.value() != 1.0) return *why = "transA or alpha", false;
  if (c != nullptr && beta.value() != 1.0) return *why = "beta", false;
  const bool trans_b = tb.value() != 0;
  const std::int64_t M = a.dims[0], K = a.dims[1];
  const std::int64_t N = trans_b ? b.dims[0] : b.dims[1];
  if ((trans_b ? b.dims[1] : b.dims[0]) != K || y.dims != std::vector<std::int64_t>{M, N} || M <= 0 || K <= 0 || N <= 0)
    return *why = "shapes", false;
  if (!detail::is_quantized(a) || !detail::is_per_tensor(a)) return *why = "A not per-tensor int8/uint8", false;
  if (!detail::is_quantized(b)) return *why = "B not quantized int8/uint8", false;
  if (!detail::is_per_tensor(b) && detail::quant_axis(b) != (trans_b ? 0 : 1)) return *why = "B's channel axis", false;
  if (!output_ok(y)) return *why = "output not per-tensor int8/uint8 or float32", false;
  Q8MatMul p;
  p.mm = SgemmMatMul{M, K, N, 1, false, false};
  plan_encodings(a, b, y, N, &p);
  if (c != nullptr) {
    // A vector of N (what a Linear layer has). A per-channel C takes the reference's
    // integer path only as [M, N] (else its generic path): here M = 1 along axis 1, where
    // the channel of element (m, n) is n.
    const bool vec = c->elements() == N && (c->dims.size() == 1 || (c->dims.size() == 2 && c->dims[0] == 1));
    if (!vec) return *why = "C is not a vector of N", false;
    const bool cq = detail::has_quant(*c);
    if (cq && !detail::is_per_tensor(*c) &&
        !(c->dims == std::vector<std::int64_t>{M, N} && detail::quant_axis(*c) == 1))
      return *why = "C's quantization", false;
    const float sa = a.quant->scale[0];
    for (std::int64_t n = 0; n < N; ++n) {
      const auto i = static_cast<std::size_t>(n);
      const float bs = sa * detail::scale_at(*b.quant, i);
      if (c->dtype == DType::kInt32) {
        if (cq) {
          // The reference rejects these at run time; leave them to it.
          if (detail::zp_at(*c->quant, i) != 0) return *why = "C's zero point", false;
          if (std::fabs(detail::scale_at(*c->quant, i) - bs) > 1e-3f * bs) return *why = "C's scale", false;
        }
        p.bias[i] = static_cast<float>(static_cast<const std::int32_t*>(c->data)[n]);
      } else if (c->dtype == DType::kFloat32 && !cq) {
        p.bias[i] = static_cast<float>(detail::round_saturate(static_cast<const float*>(c->data)[n] / bs, 0,
                                                              std::numeric_limits<std::int32_t>::min(),
                                                              std::numeric_limits<std::int32_t>::max()));
      } else {
        return *why = "C's type", false;
      }
    }
  }
  // B as K × N, shifted.
  p.b_const.resize(static_cast<std::size_t>(K * N));
  std::vector<float> raw(static_cast<std::size_t>(K * N));
  shifted_q8(b.dtype, b.data, K * N, p.zp_b.data(), trans_b ? 1 : N, raw.data());
  for (std::int64_t k = 0; k < K; ++k) {
    for (std::int64_t n = 0; n < N; ++n) {
      float v = raw[static_cast<std::size_t>(trans_b ? n * K + k : k * N + n)];
      // Transposed B's per-channel zero points run along its rows: shift them here.
      if (trans_b) v -= static_cast<float>(p.zp_b[static_cast<std::size_t>(n)] - p.zp_b[0]);
      p.b_const[static_cast<std::size_t>(k * N + n)] = v;
    }
  }
  if (!split_k_const(max_dev(a.dtype, p.zp_a), &p, why)) return false;
  p.b_is_const = true;
  plan_int_gemm(&p, threads);
  *plan = std::move(p);
  return true;
}

bool use_int_matmul_primitive(Q8MatMul* plan, int threads) {
  if (!plan->int_gemm || plan->gemv) return false;
  std::shared_ptr<const FastOp> prim = make_raw_int_matmul(*plan, threads);
  if (!prim) return false;
  plan->prim = std::move(prim);
  return true;
}

namespace {

// Outputs from the int32 sums, row by row (int8_requant_row: the reference's requantize_acc).
void requantize_rows(const Q8MatMul& p, const std::int32_t* acc, std::int64_t r0, std::int64_t r1, void* y) {
  const std::int64_t N = p.mm.N;
  const std::size_t ysize = p.rq.y == DType::kFloat32 ? sizeof(float) : 1;
  const bool avx2 = int8_avx2_available();
  for (std::int64_t r = r0; r < r1; ++r) {
    void* yr = static_cast<std::uint8_t*>(y) + static_cast<std::size_t>(r * N) * ysize;
    if (avx2) {
      int8_requant_row(acc + r * N, p.bias.data(), p.scale.data(), N, p.rq, yr);
    } else {
      requant_row_scalar(acc + r * N, p.bias.data(), p.scale.data(), N, p.rq, yr);
    }
  }
}

// acc[n] = Σ_k (au[k] − ao)·B[k][n] for one row au of K bytes (uint8 after the re-bias):
// Σ au·B by vpdpbusd, then − ao·Σ B. Exact in int32 (the planner's overflow bound covers
// Σ |au − ao|·|B|, and the two partial sums are the gemm's own terms).
__attribute__((target("avx512f,avx512vnni"))) void gemv_row_vnni(const Q8MatMul& p, const std::uint8_t* au,
                                                                  std::int32_t* acc) {
  const std::int64_t K = p.mm.K, N = p.mm.N, k4 = p.gemv_k4;
  // A's row as 4-byte groups, zero-padded to whole groups (B's padding is 0 too).
  thread_local std::vector<std::int32_t> groups;
  groups.assign(static_cast<std::size_t>(k4), 0);
  __builtin_memcpy(groups.data(), au, static_cast<std::size_t>(K));
  const __m512i ao = _mm512_set1_epi32(p.ao);
  for (std::int64_t nb = 0; nb < p.gemv_n16; ++nb) {
    const std::int8_t* blk = p.b_vnni.data() + nb * k4 * 64;
    __m512i s0 = _mm512_setzero_si512(), s1 = _mm512_setzero_si512();
    std::int64_t g = 0;
    for (; g + 2 <= k4; g += 2) {  // two chains: vpdpbusd's latency
      s0 = _mm512_dpbusd_epi32(s0, _mm512_set1_epi32(groups[static_cast<std::size_t>(g)]), _mm512_loadu_si512(blk + g * 64));
      s1 = _mm512_dpbusd_epi32(s1, _mm512_set1_epi32(groups[static_cast<std::size_t>(g + 1)]),
                               _mm512_loadu_si512(blk + (g + 1) * 64));
    }
    if (g < k4) s0 = _mm512_dpbusd_epi32(s0, _mm512_set1_epi32(groups[static_cast<std::size_t>(g)]), _mm512_loadu_si512(blk + g * 64));
    const std::int64_t n0 = nb * 16, lanes = std::min<std::int64_t>(16, N - n0);
    const auto m = static_cast<__mmask16>(lanes == 16 ? 0xffff : (1u << lanes) - 1);
    const __m512i colsum = _mm512_maskz_loadu_epi32(m, p.b_colsum.data() + n0);
    const __m512i r = _mm512_sub_epi32(_mm512_add_epi32(s0, s1), _mm512_mullo_epi32(ao, colsum));
    _mm512_mask_storeu_epi32(acc + n0, m, r);
  }
}

// The primitive's raw Σ_k a·b; *raw gets what subtract_offsets needs to make them
// Σ_k (a − ao)·(b − bo). Its wrap-around arithmetic gives the exact sums because they fit in
// int32 (the planner's bound).
Status raw_int_sums(const Q8MatMul& p, const std::uint8_t* au, const std::int8_t* bs, int threads, std::int32_t* acc,
                    RawSums* raw) {
  const SgemmMatMul& mm = p.mm;
  // Not thread_scratch(): a reference layer's converted inputs (a and b here) live there.
  thread_local std::vector<std::uint8_t> pad;
  ensure(&pad, static_cast<std::int64_t>(p.prim->scratch_bytes()) + 64);
  auto* scratch = reinterpret_cast<std::uint8_t*>(align_up(reinterpret_cast<std::uintptr_t>(pad.data())));
  try {
    ThreadScope scope(threads);
    if (p.b_is_const) {
      p.prim->run(au, acc, scratch);
    } else {
      p.prim->run(au, bs, acc, scratch);
    }
  } catch (const dnnl::error& e) {
    return Status(err::kInternalError, std::string("oneDNN int8 matmul failed: ") + e.what());
  }
  raw->au = au;
  raw->colsum = p.b_colsum.data();
  thread_local std::vector<std::int32_t> sums;
  if (!p.b_is_const && p.ao != 0) {
    const std::int64_t b_batches = mm.b_shared ? 1 : mm.batches;
    ensure(&sums, b_batches * mm.N);
    column_sums(bs, b_batches, mm.K, mm.N, sums.data());
    raw->colsum = sums.data();
  }
  return Status::Ok();
}

// The int32 sums through oneDNN's u8·s8 gemm (plan_int_gemm); through its matmul primitive
// (p.prim) they are raw, and *raw says how to finish them.
Status int_gemm_sums(const Q8MatMul& p, const void* a, const void* b, int threads, std::int32_t* acc, RawSums* raw) {
  const SgemmMatMul& mm = p.mm;
  const std::int64_t M = mm.M, K = mm.K, N = mm.N;
  const std::int64_t na = (mm.a_shared ? 1 : mm.batches) * M * K;
  const std::int64_t nb = (mm.b_shared ? 1 : mm.batches) * K * N;
  thread_local std::vector<std::uint8_t> abuf, bbuf;
  ensure(&abuf, na);
  const std::uint8_t* au = static_cast<const std::uint8_t*>(a);
  if (p.a_flip) {
    rebias(a, na, abuf.data());
    au = abuf.data();
  }
  const std::int8_t* bs = p.b_s8.data();
  if (!p.b_is_const) {
    bs = static_cast<const std::int8_t*>(b);
    if (p.b_flip) {
      ensure(&bbuf, nb);
      rebias(b, nb, bbuf.data());
      bs = reinterpret_cast<const std::int8_t*>(bbuf.data());
    }
  }
  if (p.gemv) {
    for (std::int64_t r = 0; r < mm.batches * M; ++r)
      gemv_row_vnni(p, au + (mm.a_shared ? r % M : r) * K, acc + r * N);
    return Status::Ok();
  }
  if (p.prim) return raw_int_sums(p, au, bs, threads, acc, raw);
  const std::int32_t co = 0;
  std::atomic<int> failed{dnnl_success};  // calls may run on several threads
  const bool ok = for_each_batch(mm.batches, M, threads, [&](std::int64_t i, std::int64_t m0, std::int64_t m1) {
    const std::uint8_t* ai = au + (mm.a_shared ? 0 : i * M * K) + m0 * K;
    const std::int8_t* bi = bs + (mm.b_shared ? 0 : i * K * N);
    const dnnl_status_t s = dnnl_gemm_u8s8s32('N', 'N', 'F', m1 - m0, N, K, 1.0f, ai, K, p.ao, bi, N, p.bo, 0.0f,
                                              acc + i * M * N + m0 * N, N, &co);
    if (s != dnnl_success) failed.store(s, std::memory_order_relaxed);
    return s == dnnl_success;
  });
  if (!ok) return Status(err::kInternalError, "oneDNN gemm_u8s8s32 failed (status " + std::to_string(failed.load()) + ")");
  return Status::Ok();
}

}  // namespace

Status run_q8_matmul(const Q8MatMul& p, const void* a, const void* b, void* y, int threads) {
  const SgemmMatMul& mm = p.mm;
  const std::int64_t M = mm.M, K = mm.K, N = mm.N;
  const std::int64_t na = (mm.a_shared ? 1 : mm.batches) * M * K;
  const std::int64_t nb = (mm.b_shared ? 1 : mm.batches) * K * N;
  const std::int64_t rows = mm.batches * M;
  Buffers& buf = thread_buffers();
  ensure(&buf.acc, rows * N);
  if (p.int_gemm) {
    RawSums raw;
    SVP_RETURN_IF_ERROR(int_gemm_sums(p, a, b, threads, buf.acc.data(), &raw));
    // Split over the kernel threads: the rows' sums are spread over both cores' caches.
    std::int32_t* acc = buf.acc.data();
    q8_split_rows(rows, N, threads, [&](std::int64_t r0, std::int64_t r1) {
      if (raw.au != nullptr) subtract_offsets(p, raw, r0, r1, acc);
      requantize_rows(p, acc, r0, r1, y);
    });
    return Status::Ok();
  }
  ensure(&buf.a, na);
  ensure(&buf.c, M * N);
  shifted_q8(p.a, a, na, &p.zp_a, 1, buf.a.data());
  const float* bf = p.b_const.data();
  if (p.b_const.empty()) {
    ensure(&buf.b, nb);
    shifted_q8(p.b, b, nb, p.zp_b.data(), N, buf.b.data());
    bf = buf.b.data();
  }
  {
    ThreadScope scope(threads);
    for (std::int64_t i = 0; i < mm.batches; ++i) {
      const float* ai = buf.a.data() + (mm.a_shared ? 0 : i * M * K);
      const float* bi = bf + (mm.b_shared ? 0 : i * K * N);
      std::int32_t* acc = buf.acc.data() + i * M * N;
      float* c = buf.c.data();
      for (std::size_t j = 0; j + 1 < p.k_split.size(); ++j) {
        const std::int64_t k0 = p.k_split[j], kb = p.k_split[j + 1] - k0;
        const dnnl_status_t s = dnnl_sgemm('N', 'N', M, N, kb, 1.0f, ai + k0, K, bi + k0 * N, N, 0.0f, c, N);
        if (s != dnnl_success)
          return Status(err::kInternalError, "oneDNN sgemm failed (status " + std::to_string(s) + ")");
        // Exact integers below 2^24, and int32 sums that cannot overflow.
        if (j == 0) {
          for (std::int64_t e = 0; e < M * N; ++e) acc[e] = static_cast<std::int32_t>(c[e]);
        } else {
          for (std::int64_t e = 0; e < M * N; ++e) acc[e] += static_cast<std::int32_t>(c[e]);
        }
      }
    }
  }
  requantize_rows(p, buf.acc.data(), 0, rows, y);
  return Status::Ok();
}

}  // namespace svp::kernels::onednn
