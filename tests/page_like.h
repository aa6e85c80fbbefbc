// A page-like picture for the PP-OCR tests, normalised as PP-OCR expects
// ((v/255 - mean)/std): white paper with dark word-shaped blocks on lines, so the
// detector's probability map is not all zeros (on noise it is ~1e-6 everywhere, where a
// cosine says nothing). `shift` moves the text (distinct calibration pictures).
#pragma once

#include <cstdint>
#include <vector>

namespace svp::test {

inline std::vector<float> page_like(std::int64_t h, std::int64_t w, std::int64_t shift = 0) {
  const float mean[3] = {0.485f, 0.456f, 0.406f}, stdv[3] = {0.229f, 0.224f, 0.225f};
  std::vector<float> x(static_cast<std::size_t>(3 * h * w));
  for (std::int64_t c = 0; c < 3; ++c) {
    for (std::int64_t y = 0; y < h; ++y) {
      for (std::int64_t i = 0; i < w; ++i) {
        const std::int64_t yy = y + shift, ii = i + 3 * shift;
        const bool line = (yy % 40) >= 14 && (yy % 40) < 26;
        const bool glyph = ((ii / 6) % 5) != 4 && ((ii / 37) % 7) != 6 && i > 16 && i < w - 16;
        const float v = line && glyph && ((i + y) % 3 != 0) ? 0.1f : 0.95f;
        x[static_cast<std::size_t>((c * h + y) * w + i)] = (v - mean[c]) / stdv[c];
      }
    }
  }
  return x;
}

}  // namespace svp::test
