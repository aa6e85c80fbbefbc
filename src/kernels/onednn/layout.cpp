#include "kernels/onednn/layout.h"

#include <cstring>

namespace svp::kernels::onednn {
namespace {

// Transposes [n][a][b] → [n][b][a] (NCHW → NHWC is a = C, b = H·W; the inverse swaps
// them). Tiled so both sides stay in cache.
template <typename T>
void transpose(const T* src, T* dst, std::int64_t n, std::int64_t a, std::int64_t b) {
  constexpr std::int64_t kTile = 32;
  for (std::int64_t i = 0; i < n; ++i) {
    const T* s = src + i * a * b;
    T* d = dst + i * a * b;
    if (a <= 4) {
      // Few rows (an image's 3 channels): one sequential write stream, a read streams.
      for (std::int64_t y = 0; y < b; ++y)
        for (std::int64_t x = 0; x < a; ++x) d[y * a + x] = s[x * b + y];
      continue;
    }
    for (std::int64_t a0 = 0; a0 < a; a0 += kTile) {
      const std::int64_t a1 = a0 + kTile < a ? a0 + kTile : a;
      for (std::int64_t b0 = 0; b0 < b; b0 += kTile) {
        const std::int64_t b1 = b0 + kTile < b ? b0 + kTile : b;
        for (std::int64_t x = a0; x < a1; ++x)
          for (std::int64_t y = b0; y < b1; ++y) d[y * a + x] = s[x * b + y];
      }
    }
  }
}

void transpose_any(const void* src, void* dst, std::int64_t n, std::int64_t a, std::int64_t b, std::size_t elem) {
  switch (elem) {
    case 1:
      transpose(static_cast<const std::uint8_t*>(src), static_cast<std::uint8_t*>(dst), n, a, b);
      break;
    case 2:
      transpose(static_cast<const std::uint16_t*>(src), static_cast<std::uint16_t*>(dst), n, a, b);
      break;
    case 4:
      transpose(static_cast<const std::uint32_t*>(src), static_cast<std::uint32_t*>(dst), n, a, b);
      break;
    default:
      transpose(static_cast<const std::uint64_t*>(src), static_cast<std::uint64_t*>(dst), n, a, b);
      break;
  }
}

}  // namespace

bool layout_matters(const std::vector<std::int64_t>& dims) {
  return dims.size() == 4 && dims[1] > 1 && dims[2] * dims[3] > 1;
}

void nchw_to_nhwc(const void* src, void* dst, const std::vector<std::int64_t>& d, std::size_t elem) {
  if (!layout_matters(d)) {
    std::memmove(dst, src, static_cast<std::size_t>(d[0] * d[1] * d[2] * d[3]) * elem);
    return;
  }
  transpose_any(src, dst, d[0], d[1], d[2] * d[3], elem);
}

void nhwc_to_nchw(const void* src, void* dst, const std::vector<std::int64_t>& d, std::size_t elem) {
  if (!layout_matters(d)) {
    std::memmove(dst, src, static_cast<std::size_t>(d[0] * d[1] * d[2] * d[3]) * elem);
    return;
  }
  transpose_any(src, dst, d[0], d[2] * d[3], d[1], elem);
}

}  // namespace svp::kernels::onednn
