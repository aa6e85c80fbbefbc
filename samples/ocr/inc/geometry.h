// Text boxes: rotated rectangles as the detector's post-processing finds them, with the
// corners in reading order.
#pragma once

#include <array>

namespace ocr {

struct Point {
  float x = 0;
  float y = 0;
};

// A rectangle of any orientation: centre, the unit vector of its reading direction `u`
// (the more horizontal pair of sides, pointing right) and half of its width along u and of
// its height along the perpendicular v = (-u.y, u.x), which points down.
struct TextBox {
  Point centre;
  Point u{1, 0};
  float half_w = 0;
  float half_h = 0;
  float score = 0;  // mean text probability inside the box (before unclipping)

  float width() const { return 2 * half_w; }
  float height() const { return 2 * half_h; }
  // Top-left, top-right, bottom-right, bottom-left.
  std::array<Point, 4> corners() const {
    const Point v{-u.y, u.x};
    auto at = [&](float a, float b) {
      return Point{centre.x + a * half_w * u.x + b * half_h * v.x, centre.y + a * half_w * u.y + b * half_h * v.y};
    };
    return {at(-1, -1), at(1, -1), at(1, 1), at(-1, 1)};
  }
};

}  // namespace ocr
