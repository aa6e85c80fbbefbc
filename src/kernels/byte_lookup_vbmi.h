// A 256-entry byte table applied to 64 bytes at once with AVX-512 VBMI, shared by the
// kernels that look bytes up (apply_byte_table in common.h, q8_gap). Callers check the CPU
// (avx512vbmi and avx512bw) and compile their callers with the same target.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace svp::kernels {

// The two-table byte permute covers 128 entries with an index's low 7 bits, so two of them
// cover the table and the index's top bit picks between them. `t` is the table as four
// 64-byte vectors.
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) inline __m512i lookup64(const __m512i* t, __m512i x) {
  const __m512i lo = _mm512_permutex2var_epi8(t[0], x, t[1]), hi = _mm512_permutex2var_epi8(t[2], x, t[3]);
  return _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), lo, hi);
}

}  // namespace svp::kernels
