#include "kernels/onednn/layout.h"

#include <cstring>

namespace svp::kernels::onednn {
namespace {

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
        for (std::int64_t x = a0; x < a1; ++x)
          for (std::int64_t y = b0; y < b1; ++y) d[y * a + x] = s[x * b + y];
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
