// Host images of the OCR sample: 8-bit RGB pixels, rows packed (3 bytes per pixel, no
// padding), and the geometric operations the pipeline needs on the host.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ocr {

struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> pixels;  // width * height * 3, R G B

  RgbImage() = default;
  RgbImage(int w, int h, std::uint8_t fill = 0) : width(w), height(h), pixels(std::size_t(w) * h * 3, fill) {}
  std::uint8_t* row(int y) { return pixels.data() + std::size_t(y) * width * 3; }
  const std::uint8_t* row(int y) const { return pixels.data() + std::size_t(y) * width * 3; }
};

// Decodes a PNG file (any bit depth and colour type: palette, grey and alpha are turned
// into 8-bit RGB; alpha is dropped). Throws std::runtime_error naming the file and what
// libpng said when the file is missing or not a readable PNG.
RgbImage load_png(const std::string& path);

}  // namespace ocr
