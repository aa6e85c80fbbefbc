// GridSample (opset 16, 4-D): X (N, C, H, W) sampled at the grid's (x, y) points in [-1, 1]
// → (N, C, H_out, W_out). mode bilinear | nearest | bicubic (Keys, A = -0.75);
// padding_mode zeros | border | reflection; align_corners maps ±1 to the corner pixels'
// centres (else to their outer edges). Coordinates in double; float32 data.
#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/reference/ops.h"

namespace svp::kernels::detail {
namespace {

enum class GsMode { kBilinear, kNearest, kBicubic };
enum class GsPad { kZeros, kBorder, kReflection };

struct GsSetup {
  GsMode mode = GsMode::kBilinear;
  GsPad pad = GsPad::kZeros;
  bool align = false;
};

Result<GsSetup> gs_setup(const InferCtx& c) {
  GsSetup s;
  KN_ASSIGN(std::string mode, c.attr().s("mode", "bilinear"));
  KN_ASSIGN(std::string pad, c.attr().s("padding_mode", "zeros"));
  KN_ASSIGN(s.align, c.attr().flag("align_corners", false));
  if (mode == "bilinear" || mode == "linear") {
    s.mode = GsMode::kBilinear;
  } else if (mode == "nearest") {
    s.mode = GsMode::kNearest;
  } else if (mode == "bicubic" || mode == "cubic") {
    s.mode = GsMode::kBicubic;
  } else {
    return Malformed(c.op, "attribute \"mode\" has unknown value \"{}\"", mode);
  }
  if (pad == "zeros") {
    s.pad = GsPad::kZeros;
  } else if (pad == "border") {
    s.pad = GsPad::kBorder;
  } else if (pad == "reflection") {
    s.pad = GsPad::kReflection;
  } else {
    return Malformed(c.op, "attribute \"padding_mode\" has unknown value \"{}\"", pad);
  }
  const Shape &x = c.in[0], &g = c.in[1];
  if (x.size() != 4) return Invalid(c.op, "input X must be 4-D (N, C, H, W), got {}", shape_str(x));
  if (g.size() != 4 || g[0] != x[0] || g[3] != 2) {
    return Invalid(c.op, "grid must have shape [{}, H_out, W_out, 2], got {}", x[0], shape_str(g));
  }
  return s;
}

Result<std::vector<Shape>> infer_grid_sample(const InferCtx& c) {
  KN_ASSIGN(GsSetup s, gs_setup(c));
  (void)s;
  return std::vector<Shape>{Shape{c.in[0][0], c.in[0][1], c.in[1][1], c.in[1][2]}};
}

// Folds v into [lo, hi] by reflecting at the bounds (any number of times).
double reflect(double v, double lo, double hi) {
  const double range = hi - lo;
  if (range <= 0) return lo;
  if (v < lo) {
    const double dx = lo - v;
    const auto n = static_cast<std::int64_t>(dx / range);
    const double r = dx - static_cast<double>(n) * range;
    return n % 2 == 0 ? lo + r : hi - r;
  }
  if (v > hi) {
    const double dx = v - hi;
    const auto n = static_cast<std::int64_t>(dx / range);
    const double r = dx - static_cast<double>(n) * range;
    return n % 2 == 0 ? hi - r : lo + r;
  }
  return v;
}

double cubic_weight(double d) {
  const double A = -0.75;
  d = std::fabs(d);
  if (d <= 1) return ((A + 2) * d - (A + 3)) * d * d + 1;
  if (d < 2) return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A;
  return 0;
}

Status grid_sample_float(const RunCtx& c) {
  SVP_RETURN_IF_ERROR(require_f32(c, {0, 1}));
  KN_ASSIGN(GsSetup s, with_infer_ctx(c, gs_setup));
  const Shape& xd = c.in[0].dims;
  const std::int64_t N = xd[0], C = xd[1], H = xd[2], W = xd[3];
  const std::int64_t Ho = c.in[1].dims[1], Wo = c.in[1].dims[2];
  const float* x = c.in[0].as<const float>();
  const float* grid = c.in[1].as<const float>();
  float* y = c.out[0].as<float>();
  // The bounds reflection folds coordinates into: pixel centres or outer edges.
  const double x_lo = s.align ? 0.0 : -0.5, x_hi = s.align ? W - 1.0 : W - 0.5;
  const double y_lo = s.align ? 0.0 : -0.5, y_hi = s.align ? H - 1.0 : H - 0.5;
  auto denorm = [&](double v, std::int64_t len) {
    return s.align ? (v + 1) / 2 * static_cast<double>(len - 1) : ((v + 1) * static_cast<double>(len) - 1) / 2;
  };
  for (std::int64_t n = 0; n < N; ++n) {
    for (std::int64_t ch = 0; ch < C; ++ch) {
      const float* plane = x + (n * C + ch) * H * W;
      auto pixel = [&](std::int64_t r, std::int64_t col) -> double {
        switch (s.pad) {
          case GsPad::kZeros:
            return (r < 0 || r >= H || col < 0 || col >= W) ? 0.0 : plane[r * W + col];
          case GsPad::kBorder:
            break;
          case GsPad::kReflection:
            col = static_cast<std::int64_t>(reflect(static_cast<double>(col), x_lo, x_hi));
            r = static_cast<std::int64_t>(reflect(static_cast<double>(r), y_lo, y_hi));
            break;
        }
        col = std::min(std::max<std::int64_t>(col, 0), W - 1);
        r = std::min(std::max<std::int64_t>(r, 0), H - 1);
        return plane[r * W + col];
      };
      for (std::int64_t i = 0; i < Ho; ++i) {
        for (std::int64_t j = 0; j < Wo; ++j) {
          const float* g = grid + ((n * Ho + i) * Wo + j) * 2;
          double gx = denorm(g[0], W), gy = denorm(g[1], H);
          if (!std::isfinite(gx) || !std::isfinite(gy)) {
            y[((n * C + ch) * Ho + i) * Wo + j] = 0.0f;
            continue;
          }
          if (s.pad == GsPad::kBorder) {
            gx = std::min(std::max(gx, 0.0), W - 1.0);
            gy = std::min(std::max(gy, 0.0), H - 1.0);
          } else if (s.pad == GsPad::kReflection) {
            gx = reflect(gx, x_lo, x_hi);
            gy = reflect(gy, y_lo, y_hi);
          }
          double v = 0;
          if (s.mode == GsMode::kNearest) {
            v = pixel(static_cast<std::int64_t>(std::nearbyint(gy)), static_cast<std::int64_t>(std::nearbyint(gx)));
          } else if (s.mode == GsMode::kBilinear) {
            const double fx = std::floor(gx), fy = std::floor(gy), tx = gx - fx, ty = gy - fy;
            const auto x0 = static_cast<std::int64_t>(fx), y0 = static_cast<std::int64_t>(fy);
            v = (1 - ty) * ((1 - tx) * pixel(y0, x0) + tx * pixel(y0, x0 + 1)) +
                ty * ((1 - tx) * pixel(y0 + 1, x0) + tx * pixel(y0 + 1, x0 + 1));
          } else {
            const double fx = std::floor(gx), fy = std::floor(gy);
            const auto x0 = static_cast<std::int64_t>(fx) - 1, y0 = static_cast<std::int64_t>(fy) - 1;
            for (int a = 0; a < 4; ++a) {
              const double wy = cubic_weight(gy - static_cast<double>(y0 + a));
              for (int b = 0; b < 4; ++b) {
                v += wy * cubic_weight(gx - static_cast<double>(x0 + b)) * pixel(y0 + a, x0 + b);
              }
            }
          }
          y[((n * C + ch) * Ho + i) * Wo + j] = static_cast<float>(v);
        }
      }
    }
  }
  return Status::Ok();
}

Status run_grid_sample(const RunCtx& c) { return run_via_float(c, grid_sample_float); }

}  // namespace

void add_grid_sample_ops(std::vector<OpDef>& ops) {
  ops.push_back({"GridSample", 2, 2, infer_grid_sample, run_grid_sample});
}

}  // namespace svp::kernels::detail
