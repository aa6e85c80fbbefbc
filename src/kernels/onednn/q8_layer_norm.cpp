#include "kernels/onednn/q8_layer_norm.h"

#include <immintrin.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/common.h"
#include "kernels/reference/typed.h"

namespace svp::kernels::onednn {

using model::DType;
using model::TensorView;

// Named: the unity build joins this file with others' helpers.
namespace q8ln {
namespace {

// |y / s_y| beyond this saturates any int8/uint8/int16 output whatever the zero point;
// clamping first keeps the float → int32 conversion in range (the reference saturates).
constexpr float kClamp = 1048576.f;
// Rows × values from which the rows are split over the kernel threads (a ViT-Ti layer has
// 197 × 192): below, a parallel region costs more than it saves.
constexpr std::int64_t kParallelElements = 16384;

// The reference's dequantized value of an input integer (dequantize_per_tensor).
inline float real(std::int32_t q, const Q8LayerNorm& p) { return static_cast<float>(q - p.zpx) * p.sx; }

// Mean and the variance's sum of one row, in the reference's order (the baseline path and
// the check of the vector one).
template <typename T>
void stats_scalar(const Q8LayerNorm& p, const T* x, double* mean, double* var_sum) {
  double m = 0, v = 0;
  for (std::int64_t i = 0; i < p.inner; ++i) m += real(x[i], p);
  m /= static_cast<double>(p.inner);
  for (std::int64_t i = 0; i < p.inner; ++i) {
    const double d = real(x[i], p) - m;
    v += d * d;
  }
  *mean = m;
  *var_sum = v;
}

// Output values [i0, inner) of one row: the reference's double expression rounded to
// float, then its requantization.
template <typename T, typename U>
void out_scalar(const Q8LayerNorm& p, const T* x, double mean, double inv, std::int64_t i0, U* y) {
  const std::int64_t lo = std::numeric_limits<U>::min(), hi = std::numeric_limits<U>::max();
  for (std::int64_t i = i0; i < p.inner; ++i) {
    const auto k = static_cast<std::size_t>(i);
    const auto f = static_cast<float>((real(x[i], p) - mean) * inv * p.scale[k] + p.bias[k]);
    y[i] = static_cast<U>(detail::quantize_value(f, p.sy, p.zpy, lo, hi));
  }
}

// The AVX2 loops. target("avx2") without "fma": GCC cannot contract a multiplication and
// an addition into one FMA (one rounding instead of the reference's two).
template <typename T>
__attribute__((target("avx2"))) inline __m128i load4(const T* p) {
  if constexpr (std::is_same_v<T, std::int16_t>) {
    return _mm_cvtepi16_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  } else {
    std::int32_t w;
    std::memcpy(&w, p, 4);
    const __m128i b = _mm_cvtsi32_si128(w);
    return std::is_same_v<T, std::int8_t> ? _mm_cvtepi8_epi32(b) : _mm_cvtepu8_epi32(b);
  }
}

template <typename T>
__attribute__((target("avx2"))) inline __m256i load8(const T* p) {
  if constexpr (std::is_same_v<T, std::int16_t>) {
    return _mm256_cvtepi16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  } else {
    const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
    return std::is_same_v<T, std::int8_t> ? _mm256_cvtepi8_epi32(b) : _mm256_cvtepu8_epi32(b);
  }
}

// The row's mean: its sum is exact in double (see the header), so lanes may add it in any
// order; the division is the reference's.
template <typename T>
__attribute__((target("avx2"))) double mean_avx2(const Q8LayerNorm& p, const T* x) {
  const __m256i zp = _mm256_set1_epi32(p.zpx);
  const __m256 sx = _mm256_set1_ps(p.sx);
  __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd();
  std::int64_t i = 0;
  for (; i + 8 <= p.inner; i += 8) {
    const __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(load8(x + i), zp)), sx);
    a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
    a1 = _mm256_add_pd(a1, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
  }
  double s[4];
  _mm256_storeu_pd(s, _mm256_add_pd(a0, a1));
  double sum = (s[0] + s[1]) + (s[2] + s[3]);
  for (; i < p.inner; ++i) sum += real(x[i], p);
  return sum / static_cast<double>(p.inner);
}

// The variance sums of four rows, one per lane: each lane adds its row's squares left to
// right as the reference does. Four columns of the four rows are squared row by row and
// transposed, so that each addition takes one column.
template <typename T>
__attribute__((target("avx2"))) void var_sums4_avx2(const Q8LayerNorm& p, const T* const* rows, const double* mean,
                                                    double* var_sum) {
  const __m128i zp = _mm_set1_epi32(p.zpx);
  const __m128 sx = _mm_set1_ps(p.sx);
  __m256d m[4];
  for (int r = 0; r < 4; ++r) m[r] = _mm256_set1_pd(mean[r]);
  __m256d acc = _mm256_setzero_pd();
  std::int64_t i = 0;
  for (; i + 4 <= p.inner; i += 4) {
    __m256d s[4];
    for (int r = 0; r < 4; ++r) {
      const __m128 v = _mm_mul_ps(_mm_cvtepi32_ps(_mm_sub_epi32(load4(rows[r] + i), zp)), sx);
      const __m256d d = _mm256_sub_pd(_mm256_cvtps_pd(v), m[r]);
      s[r] = _mm256_mul_pd(d, d);
    }
    const __m256d t0 = _mm256_unpacklo_pd(s[0], s[1]), t1 = _mm256_unpackhi_pd(s[0], s[1]);
    const __m256d t2 = _mm256_unpacklo_pd(s[2], s[3]), t3 = _mm256_unpackhi_pd(s[2], s[3]);
    acc = _mm256_add_pd(acc, _mm256_permute2f128_pd(t0, t2, 0x20));  // column i
    acc = _mm256_add_pd(acc, _mm256_permute2f128_pd(t1, t3, 0x20));  // i + 1
    acc = _mm256_add_pd(acc, _mm256_permute2f128_pd(t0, t2, 0x31));  // i + 2
    acc = _mm256_add_pd(acc, _mm256_permute2f128_pd(t1, t3, 0x31));  // i + 3
  }
  double a[4];
  _mm256_storeu_pd(a, acc);
  for (int r = 0; r < 4; ++r) {
    double v = a[r];
    for (std::int64_t j = i; j < p.inner; ++j) {
      const double d = real(rows[r][j], p) - mean[r];
      v += d * d;
    }
    var_sum[r] = v;
  }
}

// Output values of one row, eight at a time; returns how many it wrote (the rest go
// through out_scalar). The double steps, the rounding to float and quantize_per_tensor's
// steps (NaN to the zero point, saturation, ties to even under MXCSR) per lane.
template <typename T, typename U>
__attribute__((target("avx2"))) std::int64_t out_avx2(const Q8LayerNorm& p, const T* x, double mean, double inv, U* y) {
  const __m256i zpx = _mm256_set1_epi32(p.zpx), zpy = _mm256_set1_epi32(p.zpy);
  const __m256i lo = _mm256_set1_epi32(std::numeric_limits<U>::min());
  const __m256i hi = _mm256_set1_epi32(std::numeric_limits<U>::max());
  const __m256 sx = _mm256_set1_ps(p.sx), sy = _mm256_set1_ps(p.sy);
  const __m256 cmax = _mm256_set1_ps(kClamp), cmin = _mm256_set1_ps(-kClamp);
  const __m256d mv = _mm256_set1_pd(mean), iv = _mm256_set1_pd(inv);
  const double* scale = p.scale.data();
  const double* bias = p.bias.data();
  std::int64_t i = 0;
  for (; i + 8 <= p.inner; i += 8) {
    const __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(load8(x + i), zpx)), sx);
    __m256d d0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v)), mv);
    __m256d d1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)), mv);
    d0 = _mm256_add_pd(_mm256_mul_pd(_mm256_mul_pd(d0, iv), _mm256_loadu_pd(scale + i)), _mm256_loadu_pd(bias + i));
    d1 = _mm256_add_pd(_mm256_mul_pd(_mm256_mul_pd(d1, iv), _mm256_loadu_pd(scale + i + 4)),
                       _mm256_loadu_pd(bias + i + 4));
    __m256 f = _mm256_set_m128(_mm256_cvtpd_ps(d1), _mm256_cvtpd_ps(d0));
    f = _mm256_div_ps(f, sy);
    f = _mm256_and_ps(f, _mm256_cmp_ps(f, f, _CMP_ORD_Q));  // NaN quantizes as 0 does
    f = _mm256_min_ps(_mm256_max_ps(f, cmin), cmax);
    __m256i r = _mm256_add_epi32(_mm256_cvtps_epi32(f), zpy);
    r = _mm256_min_epi32(_mm256_max_epi32(r, lo), hi);
    // In range already: the saturating packs keep every value.
    const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
    if constexpr (std::is_same_v<U, std::int16_t>) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i), w);
    } else if constexpr (std::is_same_v<U, std::int8_t>) {
      _mm_storel_epi64(reinterpret_cast<__m128i*>(y + i), _mm_packs_epi16(w, w));
    } else {
      _mm_storel_epi64(reinterpret_cast<__m128i*>(y + i), _mm_packus_epi16(w, w));
    }
  }
  return i;
}

// The statistics of rows[0..nr) (the spare lanes of a last block repeat its last row):
// the reference's mean and 1 / sqrt(var + epsilon) of each.
template <typename T>
void block_stats(const Q8LayerNorm& p, const T* const* rows, int nr, double* mean, double* inv) {
  double var_sum[4];
  if (p.avx2) {
    for (int k = 0; k < 4; ++k) mean[k] = k < nr ? mean_avx2(p, rows[k]) : mean[nr - 1];
    var_sums4_avx2(p, rows, mean, var_sum);
  } else {
    for (int k = 0; k < nr; ++k) stats_scalar(p, rows[k], &mean[k], &var_sum[k]);
  }
  for (int k = 0; k < nr; ++k) {
    const double var = var_sum[k] / static_cast<double>(p.inner);
    inv[k] = 1.0 / std::sqrt(var + p.epsilon);
  }
}

// Rows [r0, r1), four at a time. A block's statistics are taken before any of its outputs
// are written, and a row's output overwrites only that row, so y may be x.
template <typename T, typename U>
void run_rows(const Q8LayerNorm& p, const T* x, U* y, std::int64_t r0, std::int64_t r1) {
  for (std::int64_t r = r0; r < r1; r += 4) {
    const int nr = static_cast<int>(std::min<std::int64_t>(4, r1 - r));
    const T* rows[4];
    for (int k = 0; k < 4; ++k) rows[k] = x + (r + std::min(k, nr - 1)) * p.inner;
    double mean[4], inv[4];
    block_stats(p, rows, nr, mean, inv);
    for (int k = 0; k < nr; ++k) {
      U* yr = y + (r + k) * p.inner;
      const std::int64_t done = p.avx2 ? out_avx2(p, rows[k], mean[k], inv[k], yr) : 0;
      out_scalar(p, rows[k], mean[k], inv[k], done, yr);
    }
  }
}

template <typename T>
void stats_all(const Q8LayerNorm& p, const void* x, std::int64_t rows, double* mean, double* inv) {
  const auto* in = static_cast<const T*>(x);
  for (std::int64_t r = 0; r < rows; r += 4) {
    const int nr = static_cast<int>(std::min<std::int64_t>(4, rows - r));
    const T* rp[4];
    for (int k = 0; k < 4; ++k) rp[k] = in + (r + std::min(k, nr - 1)) * p.inner;
    double m[4], v[4];
    block_stats(p, rp, nr, m, v);
    std::copy(m, m + nr, mean + r);
    std::copy(v, v + nr, inv + r);
  }
}

template <typename T, typename U>
void run_all(const Q8LayerNorm& p, const void* x, void* y, std::int64_t rows, int threads) {
  const auto* in = static_cast<const T*>(x);
  auto* out = static_cast<U*>(y);
  const std::int64_t blocks = (rows + 3) / 4;
  const auto nt = static_cast<int>(std::min<std::int64_t>(std::max(threads, 1), blocks));
  // No parallel region at all on one thread (the AI-CPU worker may run this layer: it
  // should not grow an OpenMP pool of its own for nothing).
  if (nt <= 1 || rows * p.inner < kParallelElements) {
    run_rows(p, in, out, 0, rows);
    return;
  }
  // Whole blocks per thread: the same rows in the same blocks as on one thread.
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int t = 0; t < nt; ++t) {
    const std::int64_t b0 = blocks * t / nt, b1 = blocks * (t + 1) / nt;
    run_rows(p, in, out, b0 * 4, std::min(rows, b1 * 4));
  }
}

template <typename T>
void dispatch_out(const Q8LayerNorm& p, const void* x, void* y, std::int64_t rows, int threads) {
  switch (p.y) {
    case DType::kInt8:
      return run_all<T, std::int8_t>(p, x, y, rows, threads);
    case DType::kUint8:
      return run_all<T, std::uint8_t>(p, x, y, rows, threads);
    default:
      return run_all<T, std::int16_t>(p, x, y, rows, threads);
  }
}

bool q16(const TensorView& t) {
  return (t.dtype == DType::kInt8 || t.dtype == DType::kUint8 || t.dtype == DType::kInt16) && t.quant != nullptr &&
         t.quant->scale.size() == 1 && t.quant->zero_point.size() <= 1;
}

// A parameter input as the generic path hands it to the float kernel (dequantized when it
// carries quantization parameters) and as the kernel expands it (broadcast to `norm`).
bool expanded(const TensorView& t, const Shape& norm, std::int64_t inner, std::vector<double>* out) {
  if (t.data == nullptr) return false;
  std::vector<float> f(static_cast<std::size_t>(std::max<std::int64_t>(t.elements(), 1)));
  if (t.dtype == DType::kFloat32) {
    std::memcpy(f.data(), t.data, static_cast<std::size_t>(t.elements()) * sizeof(float));
  } else if ((detail::is_q8(t.dtype) || t.dtype == DType::kInt16 || t.dtype == DType::kInt32) && detail::has_quant(t)) {
    detail::dequantize(t, f.data());
  } else {
    return false;
  }
  auto b = detail::broadcast_shapes("LayerNormalization", norm, t.dims);
  if (!b.ok() || b.value() != norm) return false;
  std::vector<float> e(static_cast<std::size_t>(inner));
  TensorView src{DType::kFloat32, t.dims, f.data(), nullptr}, dst{DType::kFloat32, norm, e.data(), nullptr};
  detail::broadcast_copy(src, dst);
  out->assign(e.begin(), e.end());
  return true;
}

}  // namespace
}  // namespace q8ln

bool q8_layer_norm_for(const model::Layer& l, const TensorView& x, const TensorView& scale, const TensorView* bias,
                       const TensorView& y, Q8LayerNorm* plan, std::string* why) {
  if (l.op != "LayerNormalization" || l.outputs.size() != 1) return *why = "not LayerNormalization's Y alone", false;
  if (!q8ln::q16(x) || !q8ln::q16(y)) return *why = "not per-tensor int8/uint8/int16 in and out", false;
  if (x.dims != y.dims || x.dims.empty() || x.elements() <= 0) return *why = "shapes", false;
  const detail::AttrReader r(l.op.c_str(), l.attrs);
  auto axis = r.i("axis", -1);
  auto eps = r.f("epsilon", 1e-5);
  const auto rank = static_cast<std::int64_t>(x.dims.size());
  if (!axis.ok() || !eps.ok() || !(eps.value() >= 0.0)) return *why = "attributes", false;
  const std::int64_t a = axis.value() < 0 ? axis.value() + rank : axis.value();
  if (a < 0 || a >= rank) return *why = "axis", false;
  Q8LayerNorm p;
  p.x = x.dtype;
  p.y = y.dtype;
  p.sx = x.quant->scale[0];
  p.sy = y.quant->scale[0];
  p.zpx = detail::zp_at(*x.quant, 0);
  p.zpy = detail::zp_at(*y.quant, 0);
  p.epsilon = eps.value();
  const Shape norm(x.dims.begin() + a, x.dims.end());
  p.inner = 1;
  for (std::int64_t d : norm) p.inner *= d;
  // The mean's sum is exact (in the reference's order and in any other): with 2^e the
  // largest power of two ≤ s_x (a normal float) and |q − zp_x| ≤ K, every value is 0 or at
  // least s_x in magnitude, hence an integer multiple of u = 2^(e−23), and below
  // K·2^(e+1) = K·2^24·u; a partial sum of inner values stays below inner·K·2^24·u, within
  // double's 53 bits while inner·K < 2^28.
  const std::int64_t k = std::max<std::int64_t>(detail::qmax(x.dtype) - p.zpx, p.zpx - detail::qmin(x.dtype));
  if (p.inner * k >= (std::int64_t{1} << 28)) return *why = "rows too long for an exact mean", false;
  if (!(p.sx >= FLT_MIN) || !std::isfinite(p.sx * static_cast<float>(k)) || !(p.sy > 0.f) || !std::isfinite(p.sy))
    return *why = "scales", false;
  if (!q8ln::expanded(scale, norm, p.inner, &p.scale)) return *why = "Scale", false;
  if (bias == nullptr) {
    p.bias.assign(static_cast<std::size_t>(p.inner), 0.0);
  } else if (!q8ln::expanded(*bias, norm, p.inner, &p.bias)) {
    return *why = "B", false;
  }
  p.avx2 = __builtin_cpu_supports("avx2");
  *plan = std::move(p);
  return true;
}

void q8_layer_norm(const Q8LayerNorm& p, const void* x, void* y, std::int64_t rows, int threads) {
  switch (p.x) {
    case DType::kInt8:
      return q8ln::dispatch_out<std::int8_t>(p, x, y, rows, threads);
    case DType::kUint8:
      return q8ln::dispatch_out<std::uint8_t>(p, x, y, rows, threads);
    default:
      return q8ln::dispatch_out<std::int16_t>(p, x, y, rows, threads);
  }
}

void q8_layer_norm_stats(const Q8LayerNorm& p, const void* x, std::int64_t rows, double* mean, double* inv) {
  switch (p.x) {
    case DType::kInt8:
      return q8ln::stats_all<std::int8_t>(p, x, rows, mean, inv);
    case DType::kUint8:
      return q8ln::stats_all<std::uint8_t>(p, x, rows, mean, inv);
    default:
      return q8ln::stats_all<std::int16_t>(p, x, rows, mean, inv);
  }
}

}  // namespace svp::kernels::onednn
