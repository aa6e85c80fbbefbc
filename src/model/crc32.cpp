#include "model/crc32.h"

#include <zlib.h>

#include <algorithm>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace svp::model {
namespace {

// zlib's crc32 (braided, several words per step): the tails, and the whole CRC on CPUs
// without carry-less multiplication.
std::uint32_t crc32_zlib(const std::uint8_t* p, std::size_t size, std::uint32_t crc) {
  uLong c = crc;
  while (size > 0) {
    const std::size_t n = std::min<std::size_t>(size, 1u << 30);  // zlib lengths are uInt
    c = ::crc32(c, p, static_cast<uInt>(n));
    p += n;
    size -= n;
  }
  return static_cast<std::uint32_t>(c);
}

#if defined(__x86_64__)
// CRC-32 by folding with carry-less multiplication (PCLMULQDQ), the method of Intel's
// "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ" white paper: four 128-bit
// lanes fold 64 bytes per step, then one lane, then a Barrett reduction to 32 bits. Every
// model load checksums the whole weights section: zlib does ~2 GB/s here, this ~10× that,
// which is a third of ResNet-18's load time. The constants are x^k mod P for the folding
// distances, bit-reflected (P = 0x104C11DB7), and mu = floor(x^64 / P). `state` is the
// CRC register (not inverted); `size` is a multiple of 16, at least 64.
#define SVP_PCLMUL __attribute__((target("pclmul,sse4.1")))

SVP_PCLMUL inline __m128i load16(const std::uint8_t* q) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(q)); }

// x·k_lo (low halves) ^ x·k_hi (high halves) ^ next: one lane moved forward by the distance
// k encodes, added to the data there.
SVP_PCLMUL inline __m128i fold(__m128i x, __m128i k, __m128i next) {
  return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)), next);
}

SVP_PCLMUL std::uint32_t fold_pclmul(std::uint32_t state, const std::uint8_t* p,
                                                                   std::size_t size) {
  const __m128i k1k2 = _mm_set_epi64x(0x1c6e41596, 0x154442bd4);  // 4×128+32 and 4×128-32 bits
  const __m128i k3k4 = _mm_set_epi64x(0x0ccaa009e, 0x1751997d0);  // 128+32 and 128-32 bits
  const __m128i k5 = _mm_set_epi64x(0, 0x163cd6124);              // 64 bits
  const __m128i poly_mu = _mm_set_epi64x(0x1f7011641, 0x1db710641);
  const __m128i mask32 = _mm_set_epi32(0, 0, 0, -1);
  __m128i x1 = _mm_xor_si128(load16(p), _mm_cvtsi32_si128(static_cast<int>(state)));
  __m128i x2 = load16(p + 16), x3 = load16(p + 32), x4 = load16(p + 48);
  p += 64;
  size -= 64;
  for (; size >= 64; size -= 64, p += 64) {
    x1 = fold(x1, k1k2, load16(p));
    x2 = fold(x2, k1k2, load16(p + 16));
    x3 = fold(x3, k1k2, load16(p + 32));
    x4 = fold(x4, k1k2, load16(p + 48));
  }
  x1 = fold(x1, k3k4, x2);
  x1 = fold(x1, k3k4, x3);
  x1 = fold(x1, k3k4, x4);
  for (; size >= 16; size -= 16, p += 16) x1 = fold(x1, k3k4, load16(p));
  // 128 → 64 bits (appending 32 zero bits), then 64 → 32.
  x1 = _mm_xor_si128(_mm_clmulepi64_si128(k3k4, x1, 0x01), _mm_srli_si128(x1, 8));
  x1 = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(x1, mask32), k5, 0x00), _mm_srli_si128(x1, 4));
  // Barrett reduction.
  __m128i t = _mm_clmulepi64_si128(_mm_and_si128(x1, mask32), poly_mu, 0x10);
  t = _mm_clmulepi64_si128(_mm_and_si128(t, mask32), poly_mu, 0x00);
  return static_cast<std::uint32_t>(_mm_extract_epi32(_mm_xor_si128(t, x1), 1));
}
#undef SVP_PCLMUL

bool has_pclmul() {
  static const bool yes = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
  return yes;
}
#endif

}  // namespace

std::uint32_t crc32(const void* data, std::size_t size, std::uint32_t crc) {
  const auto* p = static_cast<const std::uint8_t*>(data);
#if defined(__x86_64__)
  if (size >= 256 && has_pclmul()) {
    const std::size_t folded = size & ~std::size_t{15};
    crc = ~fold_pclmul(~crc, p, folded);
    p += folded;
    size -= folded;
  }
#endif
  return crc32_zlib(p, size, crc);
}

}  // namespace svp::model
