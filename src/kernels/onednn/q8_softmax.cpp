#include "kernels/onednn/q8_softmax.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/common.h"
#include "kernels/onednn/q8_table.h"
#include "kernels/onednn/quant_params.h"

namespace svp::kernels::onednn {

using model::DType;

// Named: the unity build joins this file with others' helpers.
namespace q8smax {
namespace {

// Table index of a byte: its code's order, 0 for the lowest code of the type.
inline int rank_of(std::uint8_t b, bool is_signed) { return is_signed ? (b ^ 0x80) : b; }

// |y / s_y| beyond this saturates any int8/uint8 output; clamping first keeps the
// float → int32 conversion in range (the reference rounds in double, then saturates).
constexpr float kClamp = 1048576.f;

// From this row length on, an int8/uint8 output is looked up from a per-row table of the
// 256 byte values' results rather than requantized element by element.
constexpr std::int64_t kRowTableFrom = 1024;

// y[i] = quantize_value((float)(e[i] / sum), sy, zp, lo, hi), four lanes at a time: the
// double division and its rounding to float, the float division, rounding to nearest even
// (MXCSR) and the saturation are the reference's operations on each lane. No NaN reaches
// here (sum >= 1, every e finite).
__attribute__((target("avx2"))) std::int64_t requant_avx2(const float* e, double sum, float sy, std::int32_t zp,
                                                          std::int32_t lo, std::int32_t hi, std::int64_t n,
                                                          std::uint8_t* y) {
  const __m256d s = _mm256_set1_pd(sum);
  const __m128 sy4 = _mm_set1_ps(sy), cmax = _mm_set1_ps(kClamp), cmin = _mm_set1_ps(-kClamp);
  const __m128i zp4 = _mm_set1_epi32(zp), lo4 = _mm_set1_epi32(lo), hi4 = _mm_set1_epi32(hi);
  const __m128i pack = _mm_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  std::int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m128 f = _mm256_cvtpd_ps(_mm256_div_pd(_mm256_cvtps_pd(_mm_loadu_ps(e + i)), s));
    __m128 v = _mm_div_ps(f, sy4);
    v = _mm_min_ps(_mm_max_ps(v, cmin), cmax);
    __m128i r = _mm_add_epi32(_mm_cvtps_epi32(v), zp4);
    r = _mm_min_epi32(_mm_max_epi32(r, lo4), hi4);
    const std::uint32_t four = static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm_shuffle_epi8(r, pack)));
    __builtin_memcpy(y + i, &four, 4);
  }
  return i;
}

// y[i] = (float)(e[i] / sum), the division in double: a float output's last step.
__attribute__((target("avx2"))) std::int64_t divide_avx2(const float* e, double sum, std::int64_t n, float* y) {
  const __m256d s = _mm256_set1_pd(sum);
  std::int64_t i = 0;
  for (; i + 4 <= n; i += 4) _mm_storeu_ps(y + i, _mm256_cvtpd_ps(_mm256_div_pd(_mm256_cvtps_pd(_mm_loadu_ps(e + i)), s)));
  return i;
}

// The largest rank of a row's first bytes, 32 at a time (ranks are the bytes, with the
// sign bit flipped for int8); returns how many bytes it read.
__attribute__((target("avx2"))) std::int64_t max_rank_avx2(const std::uint8_t* x, std::int64_t n, bool is_signed,
                                                           int* m) {
  const __m256i flip = _mm256_set1_epi8(is_signed ? static_cast<char>(0x80) : 0);
  __m256i acc = _mm256_setzero_si256();
  std::int64_t i = 0;
  for (; i + 32 <= n; i += 32)
    acc = _mm256_max_epu8(acc, _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i)), flip));
  __m128i v = _mm_max_epu8(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
  v = _mm_max_epu8(v, _mm_srli_si128(v, 8));
  v = _mm_max_epu8(v, _mm_srli_si128(v, 4));
  v = _mm_max_epu8(v, _mm_srli_si128(v, 2));
  v = _mm_max_epu8(v, _mm_srli_si128(v, 1));
  *m = std::max(*m, _mm_cvtsi128_si32(v) & 0xFF);
  return i;
}

// The row sums Σ e in double of four rows, one per lane, each left to right as the
// reference adds them: four columns of the four rows are transposed so that each addition
// takes one column (the sums round, so their order is the reference's; side by side, the
// four chains of additions overlap).
__attribute__((target("avx2"))) void row_sums4_avx2(const float* const* e, std::int64_t n, double* sum) {
  __m256d acc = _mm256_setzero_pd();
  std::int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    __m128 c0 = _mm_loadu_ps(e[0] + i), c1 = _mm_loadu_ps(e[1] + i), c2 = _mm_loadu_ps(e[2] + i),
           c3 = _mm_loadu_ps(e[3] + i);
    _MM_TRANSPOSE4_PS(c0, c1, c2, c3);  // now c_j holds column i + j of the four rows
    acc = _mm256_add_pd(acc, _mm256_cvtps_pd(c0));
    acc = _mm256_add_pd(acc, _mm256_cvtps_pd(c1));
    acc = _mm256_add_pd(acc, _mm256_cvtps_pd(c2));
    acc = _mm256_add_pd(acc, _mm256_cvtps_pd(c3));
  }
  _mm256_storeu_pd(sum, acc);
  for (int k = 0; k < 4; ++k)
    for (std::int64_t j = i; j < n; ++j) sum[k] += e[k][j];
}

inline long long load8(const std::uint8_t* p) {
  long long v;
  __builtin_memcpy(&v, p, 8);
  return v;
}

// The row sums Σ e in double of eight rows, one per lane, each left to right as the
// reference adds them, without an e buffer: e of row k's byte q is exp[(m_k, rank q)], 16 of
// them (two columns of the eight rows) per gather. Eight columns of the eight rows are
// loaded as 64 bytes and put in column order with one byte permute. The masked forms with
// every lane set: GCC 12's plain ones start from an "undefined" vector
// -Wmaybe-uninitialized reports.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi"))) void row_sums8_avx512(
    const std::uint8_t* const* x, const int* max_rank, const float* exp, std::int64_t len, bool is_signed,
    double* sum) {
  // Byte 8·r + c of the loaded vector is column c of row r; the permute takes it to 8·c + r.
  alignas(64) std::uint8_t order[64];
  for (int c = 0; c < 8; ++c)
    for (int r = 0; r < 8; ++r) order[8 * c + r] = static_cast<std::uint8_t>(8 * r + c);
  const __m512i to_columns = _mm512_load_si512(order);
  const __m512i flip = _mm512_set1_epi8(is_signed ? static_cast<char>(0x80) : 0);
  alignas(64) std::int32_t base[16];
  for (int l = 0; l < 16; ++l) base[l] = max_rank[l % 8] * 256;
  const __m512i offset = _mm512_load_si512(base);
  __m512d acc = _mm512_setzero_pd();
  std::int64_t i = 0;
  for (; i + 8 <= len; i += 8) {
    __m512i v = _mm512_set_epi64(load8(x[7] + i), load8(x[6] + i), load8(x[5] + i), load8(x[4] + i), load8(x[3] + i),
                                 load8(x[2] + i), load8(x[1] + i), load8(x[0] + i));
    v = _mm512_xor_si512(_mm512_maskz_permutexvar_epi8(~0ull, to_columns, v), flip);
    for (int pair = 0; pair < 4; ++pair) {
      const __m128i ranks = _mm512_maskz_extracti32x4_epi32(0xF, v, 0);
      v = _mm512_maskz_alignr_epi32(0xFFFF, v, v, 4);  // the next two columns to the bottom
      const __m512i idx = _mm512_add_epi32(_mm512_maskz_cvtepu8_epi32(0xFFFF, ranks), offset);
      const __m512 e = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), 0xFFFF, idx, exp, 4);
      const __m512d halves = _mm512_castps_pd(e);
      acc = _mm512_add_pd(acc, _mm512_maskz_cvtps_pd(0xFF, _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xF, halves, 0))));
      acc = _mm512_add_pd(acc, _mm512_maskz_cvtps_pd(0xFF, _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xF, halves, 1))));
    }
  }
  _mm512_storeu_pd(sum, acc);
  for (int k = 0; k < 8; ++k) {
    const float* t = exp + max_rank[k] * 256;
    for (std::int64_t j = i; j < len; ++j) sum[k] += t[rank_of(x[k][j], is_signed)];
  }
}

}  // namespace
}  // namespace q8smax

using q8smax::rank_of;

bool q8_softmax_for(const model::Layer& l, const model::Tensor& x, const model::Tensor& y, Q8Softmax* plan) {
  if (l.op != "Softmax" || l.inputs.size() != 1 || l.outputs.size() != 1) return false;
  // A float32 output (the recogniser's last Softmax, a model output) keeps the same steps
  // up to e / sum rounded to float, which is then the output.
  const bool float_out = y.dtype == DType::kFloat32 && y.quant.empty();
  if (!per_tensor_q8(x) || !(float_out || per_tensor_q8(y)) || x.dims != y.dims || x.dims.empty()) return false;
  const std::int64_t rank = static_cast<std::int64_t>(x.dims.size());
  auto axis = l.attrs.get_int("axis", -1);
  if (!axis.ok() || (axis.value() != -1 && axis.value() != rank - 1)) return false;
  const float sx = x.quant.scale[0];
  const std::int32_t zpx = x.quant.zero_point.empty() ? 0 : x.quant.zero_point[0];
  // Finite positive scales keep every value finite (no NaN whose rounding could differ).
  if (!(sx > 0.f) || !std::isfinite(sx * 256.f)) return false;
  if (!float_out && (!(y.quant.scale[0] > 0.f) || !std::isfinite(y.quant.scale[0]))) return false;
  Q8Softmax p;
  p.x = x.dtype;
  p.y = y.dtype;
  if (!float_out) {
    p.sy = y.quant.scale[0];
    p.zpy = y.quant.zero_point.empty() ? 0 : y.quant.zero_point[0];
  }
  p.len = x.dims.back();
  if (p.len <= 0) return false;
  // Real values by rank (the reference's dequantization).
  const bool is_signed = x.dtype == DType::kInt8;
  float v[256];
  for (int r = 0; r < 256; ++r) {
    const std::int32_t code = is_signed ? r - 128 : r;
    v[r] = static_cast<float>(static_cast<std::int64_t>(code) - zpx) * sx;
  }
  p.avx2 = __builtin_cpu_supports("avx2");
  p.avx512 = p.avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vbmi");
  p.exp.assign(256 * 256, 0.0f);
  for (int m = 0; m < 256; ++m)
    for (int r = 0; r <= m; ++r) p.exp[static_cast<std::size_t>(m * 256 + r)] = std::exp(v[r] - v[m]);
  *plan = std::move(p);
  return true;
}

namespace q8smax {
namespace {

// Rows [r0, r0 + nr) (nr ≤ 4): each row's exps into its own part of e (er[k]; the spare
// lanes of a last block repeat its last row) and their sums, side by side.
void block_exps(const Q8Softmax& p, const std::uint8_t* in, std::int64_t r0, int nr, bool avx2, float* e,
                const float** er, double* sum, int* max_rank = nullptr) {
  const bool is_signed = p.x == DType::kInt8;
  const auto len = static_cast<std::size_t>(p.len);
  for (int k = 0; k < nr; ++k) {
    const std::uint8_t* xr = in + (r0 + k) * p.len;
    int m = 0;
    for (std::int64_t i = avx2 ? max_rank_avx2(xr, p.len, is_signed, &m) : 0; i < p.len; ++i)
      m = std::max(m, rank_of(xr[i], is_signed));
    if (max_rank != nullptr) max_rank[k] = m;
    const float* t = p.exp.data() + static_cast<std::size_t>(m) * 256;
    float* ek = e + static_cast<std::size_t>(k) * len;
    for (std::int64_t i = 0; i < p.len; ++i) ek[i] = t[rank_of(xr[i], is_signed)];
  }
  for (int k = 0; k < 4; ++k) er[k] = e + static_cast<std::size_t>(std::min(k, nr - 1)) * len;
  if (avx2) {
    row_sums4_avx2(er, p.len, sum);
    return;
  }
  for (int k = 0; k < nr; ++k) {
    sum[k] = 0;
    for (std::int64_t i = 0; i < p.len; ++i) sum[k] += er[k][i];
  }
}

}  // namespace
}  // namespace q8smax

namespace q8smax {
namespace {

// A long row's int8/uint8 output: its byte is a function of the input byte, so each byte
// value's e / sum is requantized once (the same steps on the same floats) and the row is
// looked up.
void table_row(const Q8Softmax& p, int max_rank, double sum, const std::uint8_t* xr, std::uint8_t* yr) {
  const std::int64_t lo = detail::qmin(p.y), hi = detail::qmax(p.y);
  const bool is_signed = p.x == DType::kInt8;
  const float* t = p.exp.data() + static_cast<std::size_t>(max_rank) * 256;
  alignas(64) float eb[256];
  for (int b = 0; b < 256; ++b) eb[b] = t[rank_of(static_cast<std::uint8_t>(b), is_signed)];
  Q8Table table;
  const std::int64_t first = p.avx2 ? requant_avx2(eb, sum, p.sy, p.zpy, static_cast<std::int32_t>(lo),
                                                   static_cast<std::int32_t>(hi), 256, table.data())
                                    : 0;
  for (std::int64_t b = first; b < 256; ++b)
    table[static_cast<std::size_t>(b)] =
        static_cast<std::uint8_t>(detail::quantize_value(static_cast<float>(eb[b] / sum), p.sy, p.zpy, lo, hi));
  q8_table_apply(table, xr, yr, p.len);
}

// Rows [r0, r0 + 8) of a long-row plan through the gathers: their maxima and sums.
void gathered_sums8(const Q8Softmax& p, const std::uint8_t* in, std::int64_t r0, int* max_rank, double* sum) {
  const bool is_signed = p.x == DType::kInt8;
  const std::uint8_t* xr[8];
  for (int k = 0; k < 8; ++k) {
    xr[k] = in + (r0 + k) * p.len;
    int m = 0;
    for (std::int64_t i = max_rank_avx2(xr[k], p.len, is_signed, &m); i < p.len; ++i)
      m = std::max(m, rank_of(xr[k][i], is_signed));
    max_rank[k] = m;
  }
  row_sums8_avx512(xr, max_rank, p.exp.data(), p.len, is_signed, sum);
}

// Whether rows from r0 take the gathers: long rows with int8/uint8 output, eight left.
bool gathers_from(const Q8Softmax& p, std::int64_t r0, std::int64_t rows) {
  return p.avx512 && p.y != DType::kFloat32 && p.len >= kRowTableFrom && rows - r0 >= 8;
}

}  // namespace
}  // namespace q8smax

namespace q8smax {
namespace {

// Rows [r_begin, r_end) of q8_softmax.
void run_rows(const Q8Softmax& p, const void* x, void* y, std::int64_t r_begin, std::int64_t rows) {
  const bool float_out = p.y == DType::kFloat32;
  const std::int64_t lo = float_out ? 0 : detail::qmin(p.y), hi = float_out ? 0 : detail::qmax(p.y);
  const auto* in = static_cast<const std::uint8_t*>(x);
  auto* out = static_cast<std::uint8_t*>(y);
  std::vector<float> e;
  for (std::int64_t r0 = r_begin; r0 < rows;) {
    if (q8smax::gathers_from(p, r0, rows)) {
      int max_rank[8];
      double sum[8];
      q8smax::gathered_sums8(p, in, r0, max_rank, sum);
      for (int k = 0; k < 8; ++k)
        q8smax::table_row(p, max_rank[k], sum[k], in + (r0 + k) * p.len, out + (r0 + k) * p.len);
      r0 += 8;
      continue;
    }
    const int nr = static_cast<int>(std::min<std::int64_t>(4, rows - r0));
    const float* er[4];
    double sum[4];
    int max_rank[4];
    e.resize(4 * static_cast<std::size_t>(p.len));
    q8smax::block_exps(p, in, r0, nr, p.avx2, e.data(), er, sum, max_rank);
    for (int k = 0; k < nr; ++k) {
      if (float_out) {
        float* yf = static_cast<float*>(y) + (r0 + k) * p.len;
        const std::int64_t done = p.avx2 ? q8smax::divide_avx2(er[k], sum[k], p.len, yf) : 0;
        for (std::int64_t i = done; i < p.len; ++i) yf[i] = static_cast<float>(er[k][i] / sum[k]);
        continue;
      }
      std::uint8_t* yr = out + (r0 + k) * p.len;
      if (p.len >= q8smax::kRowTableFrom) {
        q8smax::table_row(p, max_rank[k], sum[k], in + (r0 + k) * p.len, yr);
        continue;
      }
      const std::int64_t done = p.avx2 ? q8smax::requant_avx2(er[k], sum[k], p.sy, p.zpy, static_cast<std::int32_t>(lo),
                                                              static_cast<std::int32_t>(hi), p.len, yr)
                                       : 0;
      for (std::int64_t i = done; i < p.len; ++i) {
        const float s = static_cast<float>(er[k][i] / sum[k]);
        yr[i] = static_cast<std::uint8_t>(detail::quantize_value(s, p.sy, p.zpy, lo, hi));
      }
    }
    r0 += nr;
  }
}

// Values from which the rows are split over the kernel threads.
constexpr std::int64_t kParallelFrom = std::int64_t{1} << 16;

}  // namespace
}  // namespace q8smax

void q8_softmax(const Q8Softmax& p, const void* x, void* y, std::int64_t elements, int threads) {
  const std::int64_t rows = elements / p.len;
  // Bands of whole groups of eight rows; a row's result does not depend on its band.
  const std::int64_t groups = (rows + 7) / 8;
  const int nt = static_cast<int>(std::min<std::int64_t>(std::max(threads, 1), groups));
  if (nt < 2 || elements < q8smax::kParallelFrom) return q8smax::run_rows(p, x, y, 0, rows);
#pragma omp parallel num_threads(nt)
  {
    const std::int64_t t = omp_get_thread_num(), n = omp_get_num_threads();
    q8smax::run_rows(p, x, y, std::min(rows, groups * t / n * 8), std::min(rows, groups * (t + 1) / n * 8));
  }
}

void q8_softmax_row_sums(const Q8Softmax& p, const void* x, std::int64_t elements, double* sums) {
  const auto* in = static_cast<const std::uint8_t*>(x);
  std::vector<float> e(4 * static_cast<std::size_t>(p.len));
  const std::int64_t rows = elements / p.len;
  for (std::int64_t r0 = 0; r0 < rows;) {
    if (q8smax::gathers_from(p, r0, rows)) {
      int max_rank[8];
      q8smax::gathered_sums8(p, in, r0, max_rank, sums + r0);
      r0 += 8;
      continue;
    }
    const int nr = static_cast<int>(std::min<std::int64_t>(4, rows - r0));
    const float* er[4];
    double sum[4];
    q8smax::block_exps(p, in, r0, nr, p.avx2, e.data(), er, sum);
    std::copy(sum, sum + nr, sums + r0);
    r0 += nr;
  }
}

}  // namespace svp::kernels::onednn
