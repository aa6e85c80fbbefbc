#include "kernels/onednn/q8_add.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>

namespace svp::kernels::onednn {
namespace {

using model::DType;

// |x / s_y| beyond this saturates any int8/uint8 output whatever the zero point; clamping
// first keeps the float → int32 conversion in range (it returns INT_MIN otherwise).
constexpr float kClamp = 1048576.f;

inline float load1(const void* p, std::int64_t i, DType t) {
  return t == DType::kInt8 ? static_cast<float>(static_cast<const std::int8_t*>(p)[i])
                           : static_cast<float>(static_cast<const std::uint8_t*>(p)[i]);
}

// One element, written exactly as the reference evaluates it (see the header).
inline std::int32_t one(const void* a, const Q8Operand& qa, const void* b, const Q8Operand& qb, const Q8Operand& qy,
                        std::int32_t lo, std::int32_t hi, std::int64_t i) {
  const float ra = static_cast<float>(static_cast<std::int32_t>(load1(a, i, qa.dtype)) - qa.zp) * qa.scale;
  const float rb = static_cast<float>(static_cast<std::int32_t>(load1(b, i, qb.dtype)) - qb.zp) * qb.scale;
  float v = (ra + rb) / qy.scale;
  v = std::min(std::max(v, -kClamp), kClamp);
  const std::int32_t r = static_cast<std::int32_t>(std::nearbyint(v)) + qy.zp;
  return std::min(std::max(r, lo), hi);
}

__attribute__((target("avx2"))) std::int64_t add_avx2(const void* a, const Q8Operand& qa, const void* b,
                                                      const Q8Operand& qb, void* y, const Q8Operand& qy,
                                                      std::int32_t lo, std::int32_t hi, std::int64_t n) {
  const __m256i zpa = _mm256_set1_epi32(qa.zp), zpb = _mm256_set1_epi32(qb.zp), zpy = _mm256_set1_epi32(qy.zp);
  const __m256 sa = _mm256_set1_ps(qa.scale), sb = _mm256_set1_ps(qb.scale), sy = _mm256_set1_ps(qy.scale);
  const __m256 cmax = _mm256_set1_ps(kClamp), cmin = _mm256_set1_ps(-kClamp);
  const __m256i vlo = _mm256_set1_epi32(lo), vhi = _mm256_set1_epi32(hi);
  const auto* pa = static_cast<const std::uint8_t*>(a);
  const auto* pb = static_cast<const std::uint8_t*>(b);
  auto* py = static_cast<std::uint8_t*>(y);
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i ra = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(pa + i));
    const __m128i rb = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(pb + i));
    const __m256i ia = qa.dtype == DType::kInt8 ? _mm256_cvtepi8_epi32(ra) : _mm256_cvtepu8_epi32(ra);
    const __m256i ib = qb.dtype == DType::kInt8 ? _mm256_cvtepi8_epi32(rb) : _mm256_cvtepu8_epi32(rb);
    const __m256 fa = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(ia, zpa)), sa);
    const __m256 fb = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(ib, zpb)), sb);
    __m256 v = _mm256_div_ps(_mm256_add_ps(fa, fb), sy);
    v = _mm256_min_ps(_mm256_max_ps(v, cmin), cmax);
    // cvtps2dq rounds with MXCSR: to nearest, ties to even (as nearbyint by default).
    __m256i r = _mm256_add_epi32(_mm256_cvtps_epi32(v), zpy);
    r = _mm256_min_epi32(_mm256_max_epi32(r, vlo), vhi);
    const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
    const __m128i bytes = qy.dtype == DType::kInt8 ? _mm_packs_epi16(w, w) : _mm_packus_epi16(w, w);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(py + i), bytes);
  }
  return i;
}

}  // namespace

void q8_add(const void* a, const Q8Operand& qa, const void* b, const Q8Operand& qb, void* y, const Q8Operand& qy,
            bool relu, std::int64_t n) {
  std::int32_t lo = qy.dtype == DType::kInt8 ? -128 : 0;
  const std::int32_t hi = qy.dtype == DType::kInt8 ? 127 : 255;
  // Relu with the output's encoding: max(q, zp_y), i.e. a higher lower bound.
  if (relu) lo = std::max(lo, qy.zp);
  std::int64_t i = 0;
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) i = add_avx2(a, qa, b, qb, y, qy, lo, hi, n);
  for (; i < n; ++i) {
    const std::int32_t v = one(a, qa, b, qb, qy, lo, hi, i);
    if (qy.dtype == DType::kInt8) {
      static_cast<std::int8_t*>(y)[i] = static_cast<std::int8_t>(v);
    } else {
      static_cast<std::uint8_t*>(y)[i] = static_cast<std::uint8_t>(v);
    }
  }
}

}  // namespace svp::kernels::onednn
