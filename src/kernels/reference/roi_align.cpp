// RoiAlign (opset 16): X (N, C, H, W), rois (R, 4) as [x1, y1, x2, y2] in input
// coordinates × spatial_scale, batch_indices (R) → (R, C, output_height, output_width).
// Each output bin averages (mode avg) or takes the maximum (mode max, of the weighted
// corner values, as ONNX Runtime defines it) of sampling_ratio² bilinear samples
// (sampling_ratio 0: ceil(roi size / output size) per axis). coordinate_transformation_mode
// half_pixel shifts the roi by -0.5; output_half_pixel (opset 10's behaviour) does not and
// makes rois at least 1 wide. Float32, coordinates in double.
#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/reference/ops.h"

namespace svp::kernels::detail {
namespace {

struct RoiSetup {
  std::int64_t oh = 1, ow = 1, sampling = 0;
  double scale = 1.0;
  bool max_mode = false, half_pixel = true;
};

Result<RoiSetup> roi_setup(const InferCtx& c) {
  const Shape &x = c.in[0], &rois = c.in[1], &bi = c.in[2];
  if (x.size() != 4) return Invalid(c.op, "input X must be 4-D (N, C, H, W), got {}", shape_str(x));
  if (rois.size() != 2 || rois[1] != 4) return Invalid(c.op, "rois must have shape [R, 4], got {}", shape_str(rois));
  if (bi != Shape{rois[0]}) return Invalid(c.op, "batch_indices must have shape [{}], got {}", rois[0], shape_str(bi));
  RoiSetup s;
  KN_ASSIGN(s.oh, c.attr().i("output_height", 1));
  KN_ASSIGN(s.ow, c.attr().i("output_width", 1));
  KN_ASSIGN(s.sampling, c.attr().i("sampling_ratio", 0));
  KN_ASSIGN(s.scale, c.attr().f("spatial_scale", 1.0));
  KN_ASSIGN(std::string mode, c.attr().s("mode", "avg"));
  KN_ASSIGN(std::string ctm, c.attr().s("coordinate_transformation_mode", "half_pixel"));
  if (s.oh < 1 || s.ow < 1 || s.oh > (1 << 20) || s.ow > (1 << 20)) {
    return Invalid(c.op, "output_height {} and output_width {} must be positive", s.oh, s.ow);
  }
  if (s.sampling < 0 || s.sampling > 1024) return Invalid(c.op, "sampling_ratio {} is invalid", s.sampling);
  if (mode != "avg" && mode != "max") return Malformed(c.op, "attribute \"mode\" must be avg or max, got \"{}\"", mode);
  if (ctm != "half_pixel" && ctm != "output_half_pixel") {
    return Malformed(c.op, "attribute \"coordinate_transformation_mode\" must be half_pixel or output_half_pixel");
  }
  s.max_mode = mode == "max";
  s.half_pixel = ctm == "half_pixel";
  return s;
}

Result<std::vector<Shape>> infer_roi_align(const InferCtx& c) {
  KN_ASSIGN(RoiSetup s, roi_setup(c));
  return std::vector<Shape>{Shape{c.in[1][0], c.in[0][1], s.oh, s.ow}};
}

Status roi_align_float(const RunCtx& c) {
  SVP_RETURN_IF_ERROR(require_f32(c, {0, 1}));
  const TensorView& bi = c.in[2];
  if (bi.dtype != DType::kInt64 && bi.dtype != DType::kInt32) {
    return BadType(c.op, "batch_indices must be int64 or int32, got {}", type_desc(bi));
  }
  KN_ASSIGN(RoiSetup s, with_infer_ctx(c, roi_setup));
  const Shape& xd = c.in[0].dims;
  const std::int64_t N = xd[0], C = xd[1], H = xd[2], W = xd[3], R = c.in[1].dims[0];
  const float* x = c.in[0].as<const float>();
  const float* rois = c.in[1].as<const float>();
  float* y = c.out[0].as<float>();
  const double offset = s.half_pixel ? 0.5 : 0.0;
  for (std::int64_t r = 0; r < R; ++r) {
    const std::int64_t b = int_at(bi, r);
    if (b < 0 || b >= N) return Invalid(c.op, "batch index {} of roi {} is outside [0, {})", b, r, N);
    const float* roi = rois + r * 4;
    const double x0 = roi[0] * s.scale - offset, y0 = roi[1] * s.scale - offset;
    double rw = roi[2] * s.scale - offset - x0, rh = roi[3] * s.scale - offset - y0;
    if (!s.half_pixel) {
      rw = std::max(rw, 1.0);
      rh = std::max(rh, 1.0);
    }
    if (!std::isfinite(x0) || !std::isfinite(y0) || !std::isfinite(rw) || !std::isfinite(rh)) {
      return Invalid(c.op, "roi {} has non-finite coordinates", r);
    }
    const double bh = rh / static_cast<double>(s.oh), bw = rw / static_cast<double>(s.ow);
    const auto gh = static_cast<std::int64_t>(s.sampling > 0 ? s.sampling : std::ceil(std::max(bh, 0.0)));
    const auto gw = static_cast<std::int64_t>(s.sampling > 0 ? s.sampling : std::ceil(std::max(bw, 0.0)));
    if (gh > 1024 || gw > 1024) return Invalid(c.op, "roi {} needs {}x{} samples per bin: too many", r, gh, gw);
    const double count = static_cast<double>(std::max<std::int64_t>(gh * gw, 1));
    for (std::int64_t ch = 0; ch < C; ++ch) {
      const float* plane = x + (b * C + ch) * H * W;
      for (std::int64_t ph = 0; ph < s.oh; ++ph) {
        for (std::int64_t pw = 0; pw < s.ow; ++pw) {
          double acc = 0;
          bool any = false;
          for (std::int64_t iy = 0; iy < gh; ++iy) {
            double yy = y0 + static_cast<double>(ph) * bh + (static_cast<double>(iy) + 0.5) * bh / static_cast<double>(gh);
            for (std::int64_t ix = 0; ix < gw; ++ix) {
              double xx =
                  x0 + static_cast<double>(pw) * bw + (static_cast<double>(ix) + 0.5) * bw / static_cast<double>(gw);
              double v = 0;
              if (!(yy < -1.0 || yy > static_cast<double>(H) || xx < -1.0 || xx > static_cast<double>(W))) {
                double ys = std::max(yy, 0.0), xs = std::max(xx, 0.0);
                auto yl = static_cast<std::int64_t>(ys), xl = static_cast<std::int64_t>(xs);
                std::int64_t yh = yl + 1, xh = xl + 1;
                if (yl >= H - 1) yh = yl = H - 1, ys = static_cast<double>(yl);
                if (xl >= W - 1) xh = xl = W - 1, xs = static_cast<double>(xl);
                const double ly = ys - static_cast<double>(yl), lx = xs - static_cast<double>(xl);
                const double w[4] = {(1 - ly) * (1 - lx), (1 - ly) * lx, ly * (1 - lx), ly * lx};
                const double p[4] = {plane[yl * W + xl], plane[yl * W + xh], plane[yh * W + xl], plane[yh * W + xh]};
                if (s.max_mode) {
                  v = std::max({w[0] * p[0], w[1] * p[1], w[2] * p[2], w[3] * p[3]});
                } else {
                  v = w[0] * p[0] + w[1] * p[1] + w[2] * p[2] + w[3] * p[3];
                }
              }
              acc = s.max_mode ? (any ? std::max(acc, v) : v) : acc + v;
              any = true;
            }
          }
          y[((r * C + ch) * s.oh + ph) * s.ow + pw] = static_cast<float>(s.max_mode ? acc : acc / count);
        }
      }
    }
  }
  return Status::Ok();
}

Status run_roi_align(const RunCtx& c) { return run_via_float(c, roi_align_float); }

}  // namespace

void add_roi_align_ops(std::vector<OpDef>& ops) {
  ops.push_back({"RoiAlign", 3, 3, infer_roi_align, run_roi_align});
}

}  // namespace svp::kernels::detail
