// Bilinear resampling on the host (see image_ops.h for what each function is for).
#include "image_ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ocr {
namespace {

// The colour at (x, y) in pixel-centre coordinates, clamped at the borders.
void sample(const RgbImage& img, float x, float y, std::uint8_t* out) {
  x = std::clamp(x, 0.0f, float(img.width - 1));
  y = std::clamp(y, 0.0f, float(img.height - 1));
  const int x0 = int(x), y0 = int(y);
  const int x1 = std::min(x0 + 1, img.width - 1), y1 = std::min(y0 + 1, img.height - 1);
  const float fx = x - float(x0), fy = y - float(y0);
  const std::uint8_t* a = img.row(y0) + 3 * x0;
  const std::uint8_t* b = img.row(y0) + 3 * x1;
  const std::uint8_t* c = img.row(y1) + 3 * x0;
  const std::uint8_t* d = img.row(y1) + 3 * x1;
  for (int k = 0; k < 3; ++k) {
    const float top = float(a[k]) + (float(b[k]) - float(a[k])) * fx;
    const float bottom = float(c[k]) + (float(d[k]) - float(c[k])) * fx;
    out[k] = static_cast<std::uint8_t>(std::lround(top + (bottom - top) * fy));
  }
}

// `src` resized to w x h (pixel centres aligned, as OpenCV's INTER_LINEAR).
RgbImage resize(const RgbImage& src, int w, int h) {
  if (w == src.width && h == src.height) return src;
  RgbImage out(w, h);
  const float sx = float(src.width) / float(w), sy = float(src.height) / float(h);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) sample(src, (float(x) + 0.5f) * sx - 0.5f, (float(y) + 0.5f) * sy - 0.5f, out.row(y) + 3 * x);
  }
  return out;
}

}  // namespace

Letterbox letterbox_into(const RgbImage& page, int dst_w, int dst_h, std::uint8_t* dst, std::size_t stride) {
  Letterbox lb;
  lb.scale = std::min({1.0f, float(dst_w) / float(page.width), float(dst_h) / float(page.height)});
  lb.width = std::clamp(int(std::lround(float(page.width) * lb.scale)), 1, dst_w);
  lb.height = std::clamp(int(std::lround(float(page.height) * lb.scale)), 1, dst_h);
  const RgbImage fitted = resize(page, lb.width, lb.height);
  for (int y = 0; y < dst_h; ++y) {
    const std::uint8_t* src = fitted.row(std::min(y, lb.height - 1));
    std::uint8_t* row = dst + std::size_t(y) * stride;
    std::memcpy(row, src, std::size_t(lb.width) * 3);
    const std::uint8_t* edge = src + 3 * (lb.width - 1);
    for (int x = lb.width; x < dst_w; ++x) std::memcpy(row + 3 * x, edge, 3);
  }
  return lb;
}

RgbImage crop_box(const RgbImage& page, TextBox box, float height_scale, int out_h, int max_w) {
  box.half_h *= height_scale;
  const float aspect = box.height() > 0 ? box.width() / box.height() : 1.0f;
  const int out_w = std::clamp(int(std::ceil(float(out_h) * aspect)), 1, max_w);
  RgbImage out(out_w, out_h);
  const auto c = box.corners();
  const Point ex{(c[1].x - c[0].x) / float(out_w), (c[1].y - c[0].y) / float(out_w)};  // one output column
  const Point ey{(c[3].x - c[0].x) / float(out_h), (c[3].y - c[0].y) / float(out_h)};  // one output row
  for (int y = 0; y < out_h; ++y) {
    for (int x = 0; x < out_w; ++x) {
      // The centre of output pixel (x, y) in the box, in page pixel-centre coordinates.
      const float fx = float(x) + 0.5f, fy = float(y) + 0.5f;
      sample(page, c[0].x + fx * ex.x + fy * ey.x - 0.5f, c[0].y + fx * ex.y + fy * ey.y - 0.5f, out.row(y) + 3 * x);
    }
  }
  return out;
}

RgbImage rotate_180(const RgbImage& img) {
  RgbImage out(img.width, img.height);
  for (int y = 0; y < img.height; ++y) {
    const std::uint8_t* src = img.row(img.height - 1 - y);
    std::uint8_t* row = out.row(y);
    for (int x = 0; x < img.width; ++x) std::memcpy(row + 3 * x, src + 3 * (img.width - 1 - x), 3);
  }
  return out;
}

int place_line(const RgbImage& line, int dst_w, int out_h, std::uint8_t pad, std::uint8_t* dst, std::size_t stride) {
  const float aspect = float(line.width) / float(line.height);
  const int w = std::clamp(int(std::ceil(float(out_h) * aspect)), 1, dst_w);
  const RgbImage fitted = resize(line, w, out_h);
  for (int y = 0; y < out_h; ++y) {
    std::uint8_t* row = dst + std::size_t(y) * stride;
    std::memcpy(row, fitted.row(y), std::size_t(w) * 3);
    std::memset(row + 3 * w, pad, std::size_t(dst_w - w) * 3);
  }
  return w;
}

}  // namespace ocr
