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
  p.exp.assign(256 * 256, 0.0f);
  for (int m = 0; m < 256; ++m)
    for (int r = 0; r <= m; ++r) p.exp[static_cast<std::size_t>(m * 256 + r)] = std::exp(v[r] - v[m]);
  *plan = std::move(p);
  return true;
}

void q8_softmax(const Q8Softmax& p, const void* x, void* y, std::int64_t elements) {
  const bool is_signed = p.x == DType::kInt8, float_out = p.y == DType::kFloat32;
  const std::int64_t lo = float_out ? 0 : detail::qmin(p.y), hi = float_out ? 0 : detail::qmax(p.y);
  const auto* in = static_cast<const std::uint8_t*>(x);
  auto* out = static_cast<std::uint8_t*>(y);
  std::vector<float> e(static_cast<std::size_t>(p.len));
  static const bool avx2 = __builtin_cpu_supports("avx2");
  for (std::int64_t row = 0; row < elements; row += p.len) {
    const std::uint8_t* xr = in + row;
    int m = 0;
    for (std::int64_t i = 0; i < p.len; ++i) m = std::max(m, rank_of(xr[i], is_signed));
    const float* t = p.exp.data() + static_cast<std::size_t>(m) * 256;
    double sum = 0;
    for (std::int64_t i = 0; i < p.len; ++i) {
      e[static_cast<std::size_t>(i)] = t[rank_of(xr[i], is_signed)];
      sum += e[static_cast<std::size_t>(i)];
    }
    if (float_out) {
      float* yf = static_cast<float*>(y) + row;
      const std::int64_t done = avx2 ? q8smax::divide_avx2(e.data(), sum, p.len, yf) : 0;
      for (std::int64_t i = done; i < p.len; ++i) yf[i] = static_cast<float>(e[static_cast<std::size_t>(i)] / sum);
      continue;
    }
    std::uint8_t* yr = out + row;
    const std::int64_t done = avx2 ? q8smax::requant_avx2(e.data(), sum, p.sy, p.zpy, static_cast<std::int32_t>(lo),
                                                          static_cast<std::int32_t>(hi), p.len, yr)
                                   : 0;
    for (std::int64_t i = done; i < p.len; ++i) {
      const float s = static_cast<float>(e[static_cast<std::size_t>(i)] / sum);
      yr[i] = static_cast<std::uint8_t>(detail::quantize_value(s, p.sy, p.zpy, lo, hi));
    }
  }
}

}  // namespace svp::kernels::onednn
