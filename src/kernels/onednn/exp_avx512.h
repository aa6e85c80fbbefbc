// e^x sixteen lanes at a time, shared by the float kernels that need an exponential of
// their own (erf_f32, swish_f32). The including file silences GCC 12's false
// -Wmaybe-uninitialized on masked AVX-512 intrinsics before including it (erf_f32.cpp).
#pragma once

#include <immintrin.h>

namespace svp::kernels::onednn {

// e^x for x ≤ 0: x = n·ln2 + r with |r| ≤ ln2/2, e^r by its Taylor series to r^7
// (truncation below 1e-8 relative), 2^n through the exponent bits. Below -87 the result
// would be subnormal; it is e^-87 there instead, which the callers' results absorb (they
// scale it by at most a few units or add it to 1).
__attribute__((target("avx512f"))) inline __m512 exp_nonpositive(__m512 x) {
  x = _mm512_max_ps(x, _mm512_set1_ps(-87.0f));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  // ln2 split in a part exact in float and the rest, so r keeps its low bits.
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693145751953125f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.428606765330187e-06f), r);
  __m512 p = _mm512_set1_ps(1.0f / 5040);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 720));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  const __m512i bits = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23);
  return _mm512_mul_ps(p, _mm512_castsi512_ps(bits));
}

}  // namespace svp::kernels::onednn
