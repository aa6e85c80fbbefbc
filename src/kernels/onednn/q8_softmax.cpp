#include "kernels/onednn/q8_softmax.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/common.h"
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
                const float** er, double* sum) {
  const bool is_signed = p.x == DType::kInt8;
  const auto len = static_cast<std::size_t>(p.len);
  for (int k = 0; k < nr; ++k) {
    const std::uint8_t* xr = in + (r0 + k) * p.len;
    int m = 0;
    for (std::int64_t i = avx2 ? max_rank_avx2(xr, p.len, is_signed, &m) : 0; i < p.len; ++i)
      m = std::max(m, rank_of(xr[i], is_signed));
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

void q8_softmax(const Q8Softmax& p, const void* x, void* y, std::int64_t elements) {
  const bool float_out = p.y == DType::kFloat32;
  const std::int64_t lo = float_out ? 0 : detail::qmin(p.y), hi = float_out ? 0 : detail::qmax(p.y);
  const auto* in = static_cast<const std::uint8_t*>(x);
  auto* out = static_cast<std::uint8_t*>(y);
  std::vector<float> e(4 * static_cast<std::size_t>(p.len));
  const std::int64_t rows = elements / p.len;
  for (std::int64_t r0 = 0; r0 < rows; r0 += 4) {
    const int nr = static_cast<int>(std::min<std::int64_t>(4, rows - r0));
    const float* er[4];
    double sum[4];
    q8smax::block_exps(p, in, r0, nr, p.avx2, e.data(), er, sum);
    for (int k = 0; k < nr; ++k) {
      if (float_out) {
        float* yf = static_cast<float*>(y) + (r0 + k) * p.len;
        const std::int64_t done = p.avx2 ? q8smax::divide_avx2(er[k], sum[k], p.len, yf) : 0;
        for (std::int64_t i = done; i < p.len; ++i) yf[i] = static_cast<float>(er[k][i] / sum[k]);
        continue;
      }
      std::uint8_t* yr = out + (r0 + k) * p.len;
      const std::int64_t done = p.avx2 ? q8smax::requant_avx2(er[k], sum[k], p.sy, p.zpy, static_cast<std::int32_t>(lo),
                                                              static_cast<std::int32_t>(hi), p.len, yr)
                                       : 0;
      for (std::int64_t i = done; i < p.len; ++i) {
        const float s = static_cast<float>(er[k][i] / sum[k]);
        yr[i] = static_cast<std::uint8_t>(detail::quantize_value(s, p.sy, p.zpy, lo, hi));
      }
    }
  }
}

void q8_softmax_row_sums(const Q8Softmax& p, const void* x, std::int64_t elements, double* sums) {
  std::vector<float> e(4 * static_cast<std::size_t>(p.len));
  const std::int64_t rows = elements / p.len;
  for (std::int64_t r0 = 0; r0 < rows; r0 += 4) {
    const int nr = static_cast<int>(std::min<std::int64_t>(4, rows - r0));
    const float* er[4];
    double sum[4];
    q8smax::block_exps(p, static_cast<const std::uint8_t*>(x), r0, nr, p.avx2, e.data(), er, sum);
    std::copy(sum, sum + nr, sums + r0);
  }
}

}  // namespace svp::kernels::onednn
