#include "kernels/onednn/q8_add.h"

#include "kernels/onednn/q8_binary.h"

// GCC 12's AVX-512 intrinsics pass an undefined vector as the merge source of their
// masked builtins, which -Wmaybe-uninitialized reports falsely (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
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
  const std::int32_t r = static_cast<std::int32_t>(std::rint(v)) + qy.zp;  // rint: nearbyint's rounding, no fenv save/restore
  return std::min(std::max(r, lo), hi);
}

__attribute__((target("avx512f,avx512bw"))) std::int64_t add_avx512(const void* a, const Q8Operand& qa,
                                                                     const void* b, const Q8Operand& qb, void* y,
                                                                     const Q8Operand& qy, std::int32_t lo,
                                                                     std::int32_t hi, std::int64_t n) {
  const __m512i zpa = _mm512_set1_epi32(qa.zp), zpb = _mm512_set1_epi32(qb.zp), zpy = _mm512_set1_epi32(qy.zp);
  const __m512 sa = _mm512_set1_ps(qa.scale), sb = _mm512_set1_ps(qb.scale), sy = _mm512_set1_ps(qy.scale);
  const __m512 cmax = _mm512_set1_ps(kClamp), cmin = _mm512_set1_ps(-kClamp);
  const __m512i vlo = _mm512_set1_epi32(lo), vhi = _mm512_set1_epi32(hi);
  const bool a8 = qa.dtype == DType::kInt8, b8 = qb.dtype == DType::kInt8;
  const auto* pa = static_cast<const std::uint8_t*>(a);
  const auto* pb = static_cast<const std::uint8_t*>(b);
  auto* py = static_cast<std::uint8_t*>(y);
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i ra = _mm_loadu_si128(reinterpret_cast<const __m128i*>(pa + i));
    const __m128i rb = _mm_loadu_si128(reinterpret_cast<const __m128i*>(pb + i));
    const __m512i ia = a8 ? _mm512_cvtepi8_epi32(ra) : _mm512_cvtepu8_epi32(ra);
    const __m512i ib = b8 ? _mm512_cvtepi8_epi32(rb) : _mm512_cvtepu8_epi32(rb);
    // The *_round_ps forms: GCC contracts plain vector mul + add into an FMA (one
    // rounding instead of two), which would not be the reference's arithmetic.
    constexpr int kCur = _MM_FROUND_CUR_DIRECTION;
    const __m512 fa = _mm512_mul_round_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(ia, zpa)), sa, kCur);
    const __m512 fb = _mm512_mul_round_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(ib, zpb)), sb, kCur);
    __m512 v = _mm512_div_round_ps(_mm512_add_round_ps(fa, fb, kCur), sy, kCur);
    v = _mm512_min_ps(_mm512_max_ps(v, cmin), cmax);
    __m512i r = _mm512_add_epi32(_mm512_cvtps_epi32(v), zpy);  // MXCSR: nearest, ties to even
    r = _mm512_min_epi32(_mm512_max_epi32(r, vlo), vhi);
    // In range already: keeping the low byte of each lane is exact for int8 and uint8.
    _mm_storeu_si128(reinterpret_cast<__m128i*>(py + i), _mm512_cvtepi32_epi8(r));
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
  static const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  // AVX-512 for whole vectors (the machines oneDNN's int8 kernels target); the scalar
  // loop, which the tests also exercise through tails, for the rest and elsewhere.
  if (avx512) {
    i = add_avx512(a, qa, b, qb, y, qy, lo, hi, n);
  } else if (q8_binary_applies(qa, qb, qy)) {
    // AVX2 (or scalar) tables of the same float values, the same arithmetic (q8_binary.h):
    // the scalar loop below cost ~20 ns per element on AMD EPYC hosts without AVX-512.
    q8_binary(Q8BinaryOp::kAdd, a, qa, {n}, b, qb, {n}, y, qy, {n}, relu);
    return;
  }
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
