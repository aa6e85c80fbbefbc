// Resize (opset 11-19 input layout: X, roi, scales, sizes): nearest on any dims, linear
// (bilinear) on the last two dims. Coordinate arithmetic is float32, as in ONNX Runtime.
#include <cmath>

#include "kernels/reference/ops.h"

namespace svp::kernels::detail {
namespace {

enum class Mode { kNearest, kLinear };
enum class Ctm { kHalfPixel, kPytorchHalfPixel, kAlignCorners, kAsymmetric };
enum class Nearest { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil };

struct ResizeSetup {
  Mode mode = Mode::kNearest;
  Ctm ctm = Ctm::kHalfPixel;
  Nearest nearest = Nearest::kRoundPreferFloor;
  std::vector<float> scale;  // per dim, as used by the coordinate transform
  Shape out;
};

Result<ResizeSetup> resize_setup(const InferCtx& c) {
  const Shape& in = c.in[0];
  const std::int64_t r = static_cast<std::int64_t>(in.size());
  if (r < 1) return Invalid(c.op, "input X must have rank >= 1");
  const AttrReader a = c.attr();
  ResizeSetup s;
  KN_ASSIGN(std::string mode, a.s("mode", "nearest"));
  if (mode == "nearest") {
    s.mode = Mode::kNearest;
  } else if (mode == "linear") {
    s.mode = Mode::kLinear;
  } else if (mode == "cubic") {
    return Invalid(c.op, "mode \"cubic\" is not supported");
  } else {
    return Malformed(c.op, "attribute \"mode\" has unknown value \"{}\"", mode);
  }
  KN_ASSIGN(std::string ctm, a.s("coordinate_transformation_mode", "half_pixel"));
  if (ctm == "half_pixel") {
    s.ctm = Ctm::kHalfPixel;
  } else if (ctm == "pytorch_half_pixel") {
    s.ctm = Ctm::kPytorchHalfPixel;
  } else if (ctm == "align_corners") {
    s.ctm = Ctm::kAlignCorners;
  } else if (ctm == "asymmetric") {
    s.ctm = Ctm::kAsymmetric;
  } else if (ctm == "tf_crop_and_resize" || ctm == "half_pixel_symmetric" || ctm == "tf_half_pixel_for_nn") {
    return Invalid(c.op, "coordinate_transformation_mode \"{}\" is not supported", ctm);
  } else {
    return Malformed(c.op, "attribute \"coordinate_transformation_mode\" has unknown value \"{}\"", ctm);
  }
  KN_ASSIGN(std::string nm, a.s("nearest_mode", "round_prefer_floor"));
  if (nm == "round_prefer_floor") {
    s.nearest = Nearest::kRoundPreferFloor;
  } else if (nm == "round_prefer_ceil") {
    s.nearest = Nearest::kRoundPreferCeil;
  } else if (nm == "floor") {
    s.nearest = Nearest::kFloor;
  } else if (nm == "ceil") {
    s.nearest = Nearest::kCeil;
  } else {
    return Malformed(c.op, "attribute \"nearest_mode\" has unknown value \"{}\"", nm);
  }
  KN_ASSIGN(std::int64_t antialias, a.i("antialias", 0));
  if (antialias != 0) return Invalid(c.op, "antialias is not supported");
  KN_ASSIGN(std::string policy, a.s("keep_aspect_ratio_policy", "stretch"));
  if (policy != "stretch") return Invalid(c.op, "keep_aspect_ratio_policy \"{}\" is not supported", policy);

  std::vector<std::int64_t> axes;
  if (a.has("axes")) {
    KN_ASSIGN(std::vector<std::int64_t> raw, a.ints("axes", {}));
    KN_ASSIGN(axes, norm_axes(c.op, "attribute \"axes\"", raw, r));
  } else {
    for (std::int64_t i = 0; i < r; ++i) axes.push_back(i);
  }
  const bool has_scales = c.has(2), has_sizes = c.has(3);
  if (has_scales == has_sizes)
    return Invalid(c.op, "exactly one of scales (input 2) and sizes (input 3) must be given");
  s.scale.assign(in.size(), 1.0f);
  s.out = in;
  if (has_scales) {
    KN_ASSIGN(const TensorView* t, c.need_value(2, "scales"));
    KN_ASSIGN(std::vector<float> sc, read_floats(c.op, "scales", *t));
    if (sc.size() != axes.size()) return Invalid(c.op, "scales has {} values for {} axes", sc.size(), axes.size());
    for (std::size_t i = 0; i < axes.size(); ++i) {
      const std::size_t d = static_cast<std::size_t>(axes[i]);
      if (!(sc[i] > 0.0f) || !std::isfinite(sc[i])) return Invalid(c.op, "scale {} must be positive", sc[i]);
      const double o = std::floor(static_cast<double>(in[d]) * static_cast<double>(sc[i]));
      if (o < 1 || o > static_cast<double>(kMaxElements)) {
        return Invalid(c.op, "scale {} gives output size {} for dimension {} of size {}", sc[i], o, d, in[d]);
      }
      s.out[d] = static_cast<std::int64_t>(o);
      s.scale[d] = sc[i];
    }
  } else {
    KN_ASSIGN(const TensorView* t, c.need_value(3, "sizes"));
    KN_ASSIGN(std::vector<std::int64_t> sz, read_ints(c.op, "sizes", *t));
    if (sz.size() != axes.size()) return Invalid(c.op, "sizes has {} values for {} axes", sz.size(), axes.size());
    for (std::size_t i = 0; i < axes.size(); ++i) {
      const std::size_t d = static_cast<std::size_t>(axes[i]);
      if (sz[i] < 1 || sz[i] > kMaxElements) return Invalid(c.op, "size {} must be positive", sz[i]);
      s.out[d] = sz[i];
      s.scale[d] = static_cast<float>(sz[i]) / static_cast<float>(in[d]);
    }
  }
  for (std::size_t d = 0; d < in.size(); ++d) {
    if (in[d] < 1) return Invalid(c.op, "input X has an empty dimension: {}", shape_str(in));
    if (s.mode == Mode::kLinear && d + 2 < in.size() && (s.scale[d] != 1.0f || s.out[d] != in[d])) {
      return Invalid(c.op, "linear mode resizes only the last two dims (dim {} has scale {})", d, s.scale[d]);
    }
  }
  return s;
}

Result<std::vector<Shape>> infer_resize(const InferCtx& c) {
  KN_ASSIGN(ResizeSetup s, resize_setup(c));
  return std::vector<Shape>{s.out};
}

// The input coordinate of output index o (float arithmetic).
float source_coord(Ctm m, std::int64_t o, float scale, std::int64_t in_len, std::int64_t out_len) {
  const float x = static_cast<float>(o);
  switch (m) {
    case Ctm::kHalfPixel:
      return (x + 0.5f) / scale - 0.5f;
    case Ctm::kPytorchHalfPixel:
      return out_len > 1 ? (x + 0.5f) / scale - 0.5f : 0.0f;
    case Ctm::kAlignCorners:
      return out_len == 1 ? 0.0f : x * static_cast<float>(in_len - 1) / static_cast<float>(out_len - 1);
    case Ctm::kAsymmetric:
      return x / scale;
  }
  return 0.0f;
}

std::int64_t nearest_index(Nearest m, float x, std::int64_t in_len) {
  float r = 0;
  switch (m) {
    case Nearest::kRoundPreferFloor:
      r = (x - std::floor(x) == 0.5f) ? std::floor(x) : std::round(x);
      break;
    case Nearest::kRoundPreferCeil:
      r = (x - std::floor(x) == 0.5f) ? std::ceil(x) : std::round(x);
      break;
    case Nearest::kFloor:
      r = std::floor(x);
      break;
    case Nearest::kCeil:
      r = std::ceil(x);
      break;
  }
  if (!(r > 0.0f)) return 0;
  if (r >= static_cast<float>(in_len - 1)) return in_len - 1;
  return static_cast<std::int64_t>(r);
}

struct LinearTap {
  std::int64_t i0, i1;
  float w0, w1;
};

std::vector<LinearTap> linear_taps(const ResizeSetup& s, std::size_t d, std::int64_t in_len) {
  std::vector<LinearTap> taps;
  const std::int64_t out_len = s.out[d];
  for (std::int64_t o = 0; o < out_len; ++o) {
    float x = source_coord(s.ctm, o, s.scale[d], in_len, out_len);
    x = std::min(std::max(x, 0.0f), static_cast<float>(in_len - 1));
    const std::int64_t i0 = static_cast<std::int64_t>(x);
    const std::int64_t i1 = std::min(i0 + 1, in_len - 1);
    const float w1 = x - static_cast<float>(i0);
    taps.push_back({i0, i1, 1.0f - w1, w1});
  }
  return taps;
}

Status resize_float(const RunCtx& c) {
  SVP_RETURN_IF_ERROR(require_f32(c, {0}));
  KN_ASSIGN(ResizeSetup s, with_infer_ctx(c, resize_setup));
  const Shape& in = c.in[0].dims;
  const std::size_t r = in.size();
  if (s.mode == Mode::kNearest) {
    const std::vector<std::int64_t> st = strides_of(in);
    std::vector<std::vector<std::int64_t>> tables(r);
    for (std::size_t d = 0; d < r; ++d) {
      for (std::int64_t o = 0; o < s.out[d]; ++o) {
        const float x = source_coord(s.ctm, o, s.scale[d], in[d], s.out[d]);
        tables[d].push_back(nearest_index(s.nearest, x, in[d]) * st[d]);
      }
    }
    gather_tables(c.out[0].data, c.in[0].data, sizeof(float), tables, 0);
    return Status::Ok();
  }
  // Bilinear over the last two dims (a rank-1 input is one row).
  const std::int64_t ih = r >= 2 ? in[r - 2] : 1, iw = in[r - 1];
  const std::vector<LinearTap> th = r >= 2 ? linear_taps(s, r - 2, ih) : std::vector<LinearTap>{{0, 0, 1.0f, 0.0f}};
  const std::vector<LinearTap> tw = linear_taps(s, r - 1, iw);
  const std::int64_t planes = numel(in) / (ih * iw);
  const float* x = c.in[0].as<const float>();
  float* y = c.out[0].as<float>();
  const std::int64_t oh = static_cast<std::int64_t>(th.size()), ow = static_cast<std::int64_t>(tw.size());
  for (std::int64_t p = 0; p < planes; ++p) {
    const float* xp = x + p * ih * iw;
    float* yp = y + p * oh * ow;
    for (std::int64_t i = 0; i < oh; ++i) {
      const LinearTap& h = th[static_cast<std::size_t>(i)];
      const float* r0 = xp + h.i0 * iw;
      const float* r1 = xp + h.i1 * iw;
      for (std::int64_t j = 0; j < ow; ++j) {
        const LinearTap& w = tw[static_cast<std::size_t>(j)];
        const float top = w.w0 * r0[w.i0] + w.w1 * r0[w.i1];
        const float bottom = w.w0 * r1[w.i0] + w.w1 * r1[w.i1];
        yp[i * ow + j] = h.w0 * top + h.w1 * bottom;
      }
    }
  }
  return Status::Ok();
}

Status run_resize(const RunCtx& c) { return run_via_float(c, resize_float); }

}  // namespace

void add_resize_ops(std::vector<OpDef>& ops) { ops.push_back({"Resize", 1, 4, infer_resize, run_resize}); }

}  // namespace svp::kernels::detail
