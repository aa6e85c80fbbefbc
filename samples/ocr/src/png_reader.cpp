// PNG decoding with libpng's simplified API (png_image_*, libpng >= 1.6): it converts every
// colour type and bit depth to the requested 8-bit RGB layout itself, and reports errors
// through a message buffer instead of longjmp.
#include <png.h>

#include <stdexcept>

#include "image.h"

namespace ocr {

RgbImage load_png(const std::string& path) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  if (png_image_begin_read_from_file(&png, path.c_str()) == 0) {
    throw std::runtime_error("cannot read PNG " + path + ": " + png.message);
  }
  png.format = PNG_FORMAT_RGB;
  if (png.width == 0 || png.height == 0 || png.width > 16384 || png.height > 16384) {
    png_image_free(&png);
    throw std::runtime_error("PNG " + path + ": unsupported size " + std::to_string(png.width) + "x" +
                             std::to_string(png.height));
  }
  // With background = nullptr libpng composites transparent pixels onto the buffer's
  // content: white, so a transparent page reads as paper.
  RgbImage img(static_cast<int>(png.width), static_cast<int>(png.height), 255);
  if (png_image_finish_read(&png, nullptr, img.pixels.data(), 0, nullptr) == 0) {
    const std::string msg = png.message;
    png_image_free(&png);
    throw std::runtime_error("cannot decode PNG " + path + ": " + msg);
  }
  return img;
}

}  // namespace ocr
