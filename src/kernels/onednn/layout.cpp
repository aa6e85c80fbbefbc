#include "kernels/onednn/layout.h"

#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace svp::kernels::onednn {
namespace {

#if defined(__x86_64__)
// One 8x8 block of 4-byte elements through registers: the scalar tile loop writes with a
// stride of `a` elements one value at a time, which made layout conversion the largest
// single cost of the accuracy report's observed runs (14 % on PP-OCR det). Shuffles move
// bits, so any 4-byte type (and NaN payloads) passes unchanged.
__attribute__((target("avx2"))) void block8x8(const std::uint32_t* s, std::int64_t ls, std::uint32_t* d,
                                              std::int64_t ld) {
  __m256 r[8], t[8];
  for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(reinterpret_cast<const float*>(s + k * ls));
  for (int k = 0; k < 8; k += 2) {
    t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
    t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
  }
  for (int k = 0; k < 8; k += 4) {
    r[k] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(1, 0, 1, 0));
    r[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(3, 2, 3, 2));
    r[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(1, 0, 1, 0));
    r[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int k = 0; k < 4; ++k) {
    _mm256_storeu_ps(reinterpret_cast<float*>(d + k * ld), _mm256_permute2f128_ps(r[k], r[k + 4], 0x20));
    _mm256_storeu_ps(reinterpret_cast<float*>(d + (k + 4) * ld), _mm256_permute2f128_ps(r[k], r[k + 4], 0x31));
  }
}

// One 16x16 block of bytes (SSE2, every x86-64): four rounds of interleaving row k with
// row k + 8 transpose it (each round halves the distance between a byte's row and column
// bits). The scalar loop moved one byte per store, the int8 models' layout conversions
// (PP-OCRv4 rec: 480 × 240 bytes before its AveragePool) ran about one byte a cycle.
void block16x16(const std::uint8_t* s, std::int64_t ls, std::uint8_t* d, std::int64_t ld) {
  __m128i r[16], t[16];
  for (int k = 0; k < 16; ++k) r[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + k * ls));
  for (int round = 0; round < 4; ++round) {
    for (int k = 0; k < 8; ++k) {
      t[2 * k] = _mm_unpacklo_epi8(r[k], r[k + 8]);
      t[2 * k + 1] = _mm_unpackhi_epi8(r[k], r[k + 8]);
    }
    for (int k = 0; k < 16; ++k) r[k] = t[k];
  }
  for (int k = 0; k < 16; ++k) _mm_storeu_si128(reinterpret_cast<__m128i*>(d + k * ld), r[k]);
}

bool has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}
#endif

// The part of one tile [x0, x1) x [y0, y1) of s[x][y] -> d[y][x] (row lengths b and a).
template <typename T>
void tile(const T* s, T* d, std::int64_t a, std::int64_t b, std::int64_t x0, std::int64_t x1, std::int64_t y0,
          std::int64_t y1) {
  std::int64_t xv = x0, yv = y0;  // where the vector blocks stop
#if defined(__x86_64__)
  if constexpr (sizeof(T) == 4) {
    if (has_avx2() && x1 - x0 >= 8 && y1 - y0 >= 8) {
      xv = x0 + (x1 - x0) / 8 * 8;
      yv = y0 + (y1 - y0) / 8 * 8;
      for (std::int64_t x = x0; x < xv; x += 8)
        for (std::int64_t y = y0; y < yv; y += 8) block8x8(s + x * b + y, b, d + y * a + x, a);
    }
  }
  if constexpr (sizeof(T) == 1) {
    if (x1 - x0 >= 16 && y1 - y0 >= 16) {
      xv = x0 + (x1 - x0) / 16 * 16;
      yv = y0 + (y1 - y0) / 16 * 16;
      for (std::int64_t x = x0; x < xv; x += 16)
        for (std::int64_t y = y0; y < yv; y += 16) block16x16(s + x * b + y, b, d + y * a + x, a);
    }
  }
#endif
  // What the blocks left: the rows below xv past yv, then every row from xv on.
  for (std::int64_t x = x0; x < xv; ++x)
    for (std::int64_t y = yv; y < y1; ++y) d[y * a + x] = s[x * b + y];
  for (std::int64_t x = xv; x < x1; ++x)
    for (std::int64_t y = y0; y < y1; ++y) d[y * a + x] = s[x * b + y];
}

// Transposes [n][a][b] → [n][b][a] (NCHW → NHWC is a = C, b = H·W; the inverse swaps
// them). Tiled so both sides stay in cache; tiles of rows split across `threads` (explicit,
// never the ICV: a thread that has no business starting an OpenMP pool must not).
template <typename T>
void transpose(const T* src, T* dst, std::int64_t n, std::int64_t a, std::int64_t b, int threads) {
  constexpr std::int64_t kTile = 32;
  // Below ~256 KB a parallel region costs more than it saves.
  const bool parallel = threads > 1 && n * a * b * static_cast<std::int64_t>(sizeof(T)) >= (1 << 18);
  if (a <= 4) {
    // Few rows (an image's 3 channels): one sequential write stream, a read streams.
#pragma omp parallel for num_threads(threads) schedule(static) collapse(2) if (parallel)
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t y = 0; y < b; ++y)
        for (std::int64_t x = 0; x < a; ++x) dst[i * a * b + y * a + x] = src[i * a * b + x * b + y];
    return;
  }
  const std::int64_t b_tiles = (b + kTile - 1) / kTile;
#pragma omp parallel for num_threads(threads) schedule(static) collapse(2) if (parallel)
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t bt = 0; bt < b_tiles; ++bt) {
      const T* s = src + i * a * b;
      T* d = dst + i * a * b;
      const std::int64_t b0 = bt * kTile, b1 = b0 + kTile < b ? b0 + kTile : b;
      for (std::int64_t a0 = 0; a0 < a; a0 += kTile) {
        const std::int64_t a1 = a0 + kTile < a ? a0 + kTile : a;
        tile(s, d, a, b, a0, a1, b0, b1);
      }
    }
  }
}

void transpose_any(const void* src, void* dst, std::int64_t n, std::int64_t a, std::int64_t b, std::size_t elem,
                   int threads) {
  switch (elem) {
    case 1:
      transpose(static_cast<const std::uint8_t*>(src), static_cast<std::uint8_t*>(dst), n, a, b, threads);
      break;
    case 2:
      transpose(static_cast<const std::uint16_t*>(src), static_cast<std::uint16_t*>(dst), n, a, b, threads);
      break;
    case 4:
      transpose(static_cast<const std::uint32_t*>(src), static_cast<std::uint32_t*>(dst), n, a, b, threads);
      break;
    default:
      transpose(static_cast<const std::uint64_t*>(src), static_cast<std::uint64_t*>(dst), n, a, b, threads);
      break;
  }
}

}  // namespace

bool layout_matters(const std::vector<std::int64_t>& dims) {
  return dims.size() == 4 && dims[1] > 1 && dims[2] * dims[3] > 1;
}

void nchw_to_nhwc(const void* src, void* dst, const std::vector<std::int64_t>& d, std::size_t elem, int threads) {
  if (!layout_matters(d)) {
    std::memmove(dst, src, static_cast<std::size_t>(d[0] * d[1] * d[2] * d[3]) * elem);
    return;
  }
  transpose_any(src, dst, d[0], d[1], d[2] * d[3], elem, threads);
}

void nhwc_to_nchw(const void* src, void* dst, const std::vector<std::int64_t>& d, std::size_t elem, int threads) {
  if (!layout_matters(d)) {
    std::memmove(dst, src, static_cast<std::size_t>(d[0] * d[1] * d[2] * d[3]) * elem);
    return;
  }
  transpose_any(src, dst, d[0], d[2] * d[3], d[1], elem, threads);
}

}  // namespace svp::kernels::onednn
