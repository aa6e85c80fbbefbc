// DB post-processing (see db_postprocess.h). The steps follow PaddleOCR's DBPostProcess
// (threshold -> regions -> minimum-area rectangle -> mean score -> unclip -> size filter);
// the implementation is our own: regions are 8-connected components instead of OpenCV
// contours (the same outer shape), and the rectangle comes from rotating calipers over the
// region's convex hull.
#include "db_postprocess.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace ocr {
namespace {

float cross(Point o, Point a, Point b) { return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x); }

// Andrew's monotone chain; `pts` sorted by (x, y) here. Counter-clockwise, no repeats.
std::vector<Point> convex_hull(std::vector<Point> pts) {
  std::sort(pts.begin(), pts.end(), [](Point a, Point b) { return a.x < b.x || (a.x == b.x && a.y < b.y); });
  if (pts.size() < 3) return pts;
  std::vector<Point> hull(2 * pts.size());
  std::size_t k = 0;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    while (k >= 2 && cross(hull[k - 2], hull[k - 1], pts[i]) <= 0) --k;
    hull[k++] = pts[i];
  }
  for (std::size_t i = pts.size() - 1, lower = k + 1; i-- > 0;) {
    while (k >= lower && cross(hull[k - 2], hull[k - 1], pts[i]) <= 0) --k;
    hull[k++] = pts[i];
  }
  hull.resize(k - 1);
  return hull;
}

// The minimum-area rectangle enclosing `hull`: one of its sides lies on a hull edge, so
// try each edge direction. The result's u is the more horizontal side, pointing right.
TextBox min_area_rect(const std::vector<Point>& hull) {
  TextBox best;
  float best_area = std::numeric_limits<float>::max();
  const std::size_t n = hull.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Point a = hull[i], b = hull[(i + 1) % n];
    const float len = std::hypot(b.x - a.x, b.y - a.y);
    if (len == 0) continue;
    const Point u{(b.x - a.x) / len, (b.y - a.y) / len};
    const Point v{-u.y, u.x};
    float u0 = std::numeric_limits<float>::max(), u1 = -u0, v0 = u0, v1 = -u0;
    for (const Point& p : hull) {
      const float pu = p.x * u.x + p.y * u.y, pv = p.x * v.x + p.y * v.y;
      u0 = std::min(u0, pu), u1 = std::max(u1, pu), v0 = std::min(v0, pv), v1 = std::max(v1, pv);
    }
    const float area = (u1 - u0) * (v1 - v0);
    if (area < best_area) {
      best_area = area;
      const float cu = (u0 + u1) / 2, cv = (v0 + v1) / 2;
      best.centre = {cu * u.x + cv * v.x, cu * u.y + cv * v.y};
      best.u = u;
      best.half_w = (u1 - u0) / 2;
      best.half_h = (v1 - v0) / 2;
    }
  }
  if (n == 1) best.centre = hull[0];
  // Reading direction: the more horizontal pair of sides, pointing right.
  if (std::fabs(best.u.x) < std::fabs(best.u.y)) {
    best.u = {-best.u.y, best.u.x};
    std::swap(best.half_w, best.half_h);
  }
  if (best.u.x < 0) best.u = {-best.u.x, -best.u.y};
  return best;
}

// Mean of `prob` over the pixels whose centres lie inside `box` (PaddleOCR's "fast"
// score: the rectangle, not the region).
float mean_inside(const float* prob, int row_floats, int valid_w, int valid_h, const TextBox& box) {
  float x0 = box.centre.x, x1 = x0, y0 = box.centre.y, y1 = y0;
  for (const Point& c : box.corners()) {
    x0 = std::min(x0, c.x), x1 = std::max(x1, c.x), y0 = std::min(y0, c.y), y1 = std::max(y1, c.y);
  }
  const Point v{-box.u.y, box.u.x};
  double sum = 0;
  int count = 0;
  for (int y = std::max(0, int(y0)); y <= std::min(valid_h - 1, int(y1)); ++y) {
    for (int x = std::max(0, int(x0)); x <= std::min(valid_w - 1, int(x1)); ++x) {
      const float dx = float(x) + 0.5f - box.centre.x, dy = float(y) + 0.5f - box.centre.y;
      if (std::fabs(dx * box.u.x + dy * box.u.y) <= box.half_w + 1e-3f &&
          std::fabs(dx * v.x + dy * v.y) <= box.half_h + 1e-3f) {
        sum += prob[std::size_t(y) * row_floats + x];
        ++count;
      }
    }
  }
  return count ? float(sum / count) : 0.0f;
}

// Reading order: by the top edge; boxes whose tops are within 10 pixels are one line,
// ordered left to right (PaddleOCR's sorted_boxes uses the same 10-pixel rule).
std::vector<TextBox> in_reading_order(std::vector<TextBox> boxes) {
  auto top = [](const TextBox& b) {
    float t = b.centre.y;
    for (const Point& c : b.corners()) t = std::min(t, c.y);
    return t;
  };
  std::sort(boxes.begin(), boxes.end(), [&](const TextBox& a, const TextBox& b) { return top(a) < top(b); });
  for (std::size_t i = 1; i < boxes.size(); ++i) {
    for (std::size_t j = i; j > 0 && std::fabs(top(boxes[j]) - top(boxes[j - 1])) < 10 &&
                            boxes[j].centre.x < boxes[j - 1].centre.x;
         --j) {
      std::swap(boxes[j], boxes[j - 1]);
    }
  }
  return boxes;
}

}  // namespace

std::vector<TextBox> db_boxes(const float* prob, int map_w, int map_h, int row_floats, int valid_w, int valid_h,
                              float scale, const DbParams& params) {
  valid_w = std::min(valid_w, map_w);
  valid_h = std::min(valid_h, map_h);
  // Label 8-connected components of the thresholded map with a stack-based flood fill;
  // for each, keep the leftmost and rightmost pixel of every row: their hull is the hull of
  // the whole region.
  std::vector<std::int32_t> label(std::size_t(valid_w) * valid_h, -1);
  auto text = [&](int x, int y) { return prob[std::size_t(y) * row_floats + x] > params.threshold; };
  std::vector<TextBox> boxes;
  std::vector<std::pair<int, int>> stack;
  int regions = 0;
  for (int y = 0; y < valid_h; ++y) {
    for (int x = 0; x < valid_w; ++x) {
      if (label[std::size_t(y) * valid_w + x] >= 0 || !text(x, y)) continue;
      if (regions++ == params.max_candidates) return in_reading_order(std::move(boxes));
      std::vector<int> lo(valid_h, valid_w), hi(valid_h, -1);
      stack.assign(1, {x, y});
      label[std::size_t(y) * valid_w + x] = regions;
      while (!stack.empty()) {
        const auto [px, py] = stack.back();
        stack.pop_back();
        lo[py] = std::min(lo[py], px), hi[py] = std::max(hi[py], px);
        for (int dy = -1; dy <= 1; ++dy) {
          for (int dx = -1; dx <= 1; ++dx) {
            const int nx = px + dx, ny = py + dy;
            if (nx < 0 || ny < 0 || nx >= valid_w || ny >= valid_h) continue;
            std::int32_t& l = label[std::size_t(ny) * valid_w + nx];
            if (l >= 0 || !text(nx, ny)) continue;
            l = regions;
            stack.emplace_back(nx, ny);
          }
        }
      }
      std::vector<Point> pts;
      for (int r = 0; r < valid_h; ++r) {
        if (hi[r] < 0) continue;
        pts.push_back({float(lo[r]) + 0.5f, float(r) + 0.5f});
        pts.push_back({float(hi[r]) + 0.5f, float(r) + 0.5f});
      }
      TextBox box = min_area_rect(convex_hull(std::move(pts)));
      if (std::min(box.width(), box.height()) < params.min_size) continue;
      box.score = mean_inside(prob, row_floats, valid_w, valid_h, box);
      if (box.score < params.box_threshold) continue;
      // Unclip: PaddleOCR offsets the polygon by d = area * ratio / perimeter (pyclipper,
      // round joins) and takes the minimum-area rectangle again; for a rectangle that is
      // the rectangle grown by d on every side.
      const float d = box.width() * box.height() * params.unclip_ratio / (2 * (box.width() + box.height()));
      box.half_w += d;
      box.half_h += d;
      if (std::min(box.width(), box.height()) < params.min_size + 2) continue;
      // To page coordinates. A box grown past the page edge is kept as it is: cropping
      // repeats the edge pixels there (as PaddleOCR's crop does with BORDER_REPLICATE).
      box.centre = {box.centre.x / scale, box.centre.y / scale};
      box.half_w /= scale;
      box.half_h /= scale;
      boxes.push_back(box);
    }
  }
  return in_reading_order(std::move(boxes));
}

}  // namespace ocr
