// Resize (opset 11-19 input layout: X, roi, scales, sizes): nearest, linear and cubic on
// any dims. Coordinate arithmetic is float32, as in ONNX Runtime; with scales, the resized
// length in the coordinate transforms is input length × scale, unrounded (ONNX's
// definition). Nearest and the common bilinear case (last two dims) have direct loops;
// the rest (cubic, linear on other dims, tf_crop_and_resize) one separable N-D loop.
#include <algorithm>
#include <cmath>

#include "kernels/reference/move_requantized.h"
#include "kernels/reference/ops.h"

namespace svp::kernels::detail {
namespace {

enum class Mode { kNearest, kLinear, kCubic };
enum class Ctm { kHalfPixel, kPytorchHalfPixel, kAlignCorners, kAsymmetric, kTfHalfPixelForNn, kTfCropAndResize };
enum class Nearest { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil };

struct ResizeSetup {
  Mode mode = Mode::kNearest;
  Ctm ctm = Ctm::kHalfPixel;
  Nearest nearest = Nearest::kRoundPreferFloor;
  std::vector<float> scale;   // per dim, as used by the coordinate transform
  std::vector<float> length;  // per dim, the resized length the coordinate transforms use
  std::vector<float> roi;     // tf_crop_and_resize: starts then ends, per dim
  float cubic_a = -0.75f;
  bool exclude_outside = false;
  float extrapolation = 0.0f;
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
    s.mode = Mode::kCubic;
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
  } else if (ctm == "tf_half_pixel_for_nn") {
    s.ctm = Ctm::kTfHalfPixelForNn;
  } else if (ctm == "tf_crop_and_resize") {
    s.ctm = Ctm::kTfCropAndResize;
  } else if (ctm == "half_pixel_symmetric") {
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
  KN_ASSIGN(double cubic_a, a.f("cubic_coeff_a", -0.75));
  s.cubic_a = static_cast<float>(cubic_a);
  KN_ASSIGN(s.exclude_outside, a.flag("exclude_outside", false));
  KN_ASSIGN(double extrapolation, a.f("extrapolation_value", 0.0));
  s.extrapolation = static_cast<float>(extrapolation);
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
  for (std::int64_t d : in) s.length.push_back(static_cast<float>(d));
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
      s.length[d] = static_cast<float>(in[d]) * sc[i];
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
      s.length[d] = static_cast<float>(sz[i]);
    }
  }
  for (std::size_t d = 0; d < in.size(); ++d) {
    if (in[d] < 1) return Invalid(c.op, "input X has an empty dimension: {}", shape_str(in));
  }
  if (s.ctm == Ctm::kTfCropAndResize) {
    KN_ASSIGN(const TensorView* t, c.need_value(1, "roi"));
    KN_ASSIGN(std::vector<float> roi, read_floats(c.op, "roi", *t));
    if (roi.size() != 2 * axes.size()) {
      return Invalid(c.op, "roi has {} values for {} axes (starts then ends)", roi.size(), axes.size());
    }
    s.roi.assign(2 * in.size(), 0.0f);
    for (std::size_t d = 0; d < in.size(); ++d) s.roi[in.size() + d] = 1.0f;
    for (std::size_t i = 0; i < axes.size(); ++i) {
      s.roi[static_cast<std::size_t>(axes[i])] = roi[i];
      s.roi[in.size() + static_cast<std::size_t>(axes[i])] = roi[axes.size() + i];
    }
  }
  return s;
}

Result<std::vector<Shape>> infer_resize(const InferCtx& c) {
  KN_ASSIGN(ResizeSetup s, resize_setup(c));
  return std::vector<Shape>{s.out};
}

// The input coordinate of output index o along dim d (float arithmetic).
float source_coord(const ResizeSetup& s, std::size_t d, std::int64_t o, std::int64_t in_len) {
  const float x = static_cast<float>(o), scale = s.scale[d], len = s.length[d];
  switch (s.ctm) {
    case Ctm::kHalfPixel:
      return (x + 0.5f) / scale - 0.5f;
    case Ctm::kPytorchHalfPixel:
      return len > 1.0f ? (x + 0.5f) / scale - 0.5f : 0.0f;
    case Ctm::kAlignCorners:
      return len == 1.0f ? 0.0f : x * static_cast<float>(in_len - 1) / (len - 1.0f);
    case Ctm::kAsymmetric:
      return x / scale;
    case Ctm::kTfHalfPixelForNn:
      return (x + 0.5f) / scale;
    case Ctm::kTfCropAndResize: {
      const float start = s.roi[d], end = s.roi[s.out.size() + d], span = static_cast<float>(in_len - 1);
      return len > 1.0f ? start * span + x * (end - start) * span / (len - 1.0f) : 0.5f * (start + end) * span;
    }
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
    float x = source_coord(s, d, o, in_len);
    x = std::min(std::max(x, 0.0f), static_cast<float>(in_len - 1));
    const std::int64_t i0 = static_cast<std::int64_t>(x);
    const std::int64_t i1 = std::min(i0 + 1, in_len - 1);
    const float w1 = x - static_cast<float>(i0);
    taps.push_back({i0, i1, 1.0f - w1, w1});
  }
  return taps;
}

// The taps (input index, weight) of each output index along one dim for the separable
// loop; `outside` marks tf_crop_and_resize coordinates outside the input (their output
// elements take extrapolation_value). Zero-weight taps are dropped.
struct Taps {
  std::vector<std::vector<std::pair<std::int64_t, float>>> at;
  std::vector<bool> outside;
};

Taps dim_taps(const ResizeSetup& s, std::size_t d, std::int64_t in_len) {
  Taps t;
  const float hi = static_cast<float>(in_len - 1);
  auto clamp_index = [&](std::int64_t i) { return std::min(std::max<std::int64_t>(i, 0), in_len - 1); };
  for (std::int64_t o = 0; o < s.out[d]; ++o) {
    float x = source_coord(s, d, o, in_len);
    if (!std::isfinite(x)) x = 0.0f;  // a NaN roi: keep the index arithmetic defined
    x = std::min(std::max(x, -2.0f), hi + 2.0f);  // beyond the edges every tap reads the edge
    t.outside.push_back(s.ctm == Ctm::kTfCropAndResize && (x < 0.0f || x > hi));
    std::vector<std::pair<std::int64_t, float>> taps;
    if (s.mode == Mode::kNearest) {
      taps.emplace_back(nearest_index(s.nearest, x, in_len), 1.0f);
    } else if (s.mode == Mode::kLinear) {
      const float xc = std::min(std::max(x, 0.0f), hi);
      const auto i0 = static_cast<std::int64_t>(xc);
      const float w1 = xc - static_cast<float>(i0);
      taps.emplace_back(i0, 1.0f - w1);
      taps.emplace_back(clamp_index(i0 + 1), w1);
    } else {
      // Keys' cubic convolution with coefficient A over floor(x) - 1 .. floor(x) + 2; the
      // indices beyond the edges read the edge (or, with exclude_outside, weigh nothing
      // and the others are renormalised).
      const float fl = std::floor(x), tt = x - fl, A = s.cubic_a;
      const float u[4] = {tt + 1.0f, tt, 1.0f - tt, 2.0f - tt};
      float sum = 0.0f;
      for (int k = 0; k < 4; ++k) {
        const float v = u[k];
        const float w = (k == 1 || k == 2) ? ((A + 2.0f) * v - (A + 3.0f)) * v * v + 1.0f
                                           : ((A * v - 5.0f * A) * v + 8.0f * A) * v - 4.0f * A;
        const std::int64_t i = static_cast<std::int64_t>(fl) - 1 + k;
        if (s.exclude_outside && (i < 0 || i >= in_len)) continue;
        taps.emplace_back(clamp_index(i), w);
        sum += w;
      }
      if (s.exclude_outside && sum != 0.0f) {
        for (auto& tap : taps) tap.second /= sum;
      }
    }
    taps.erase(std::remove_if(taps.begin(), taps.end(), [](const auto& tap) { return tap.second == 0.0f; }),
               taps.end());
    if (taps.empty()) taps.emplace_back(clamp_index(static_cast<std::int64_t>(std::floor(x))), 0.0f);
    t.at.push_back(std::move(taps));
  }
  return t;
}

// y[o] = sum over the taps of every dim of the product of their weights times x (in double).
void resize_separable(const ResizeSetup& s, const Shape& in, const float* x, float* y) {
  const std::size_t r = in.size();
  std::vector<Taps> taps;
  for (std::size_t d = 0; d < r; ++d) taps.push_back(dim_taps(s, d, in[d]));
  const std::vector<std::int64_t> st = strides_of(in);
  const std::int64_t n = numel(s.out);
  std::vector<std::int64_t> o(r, 0);
  for (std::int64_t flat = 0; flat < n; ++flat) {
    bool outside = false;
    for (std::size_t d = 0; d < r; ++d) outside = outside || taps[d].outside[static_cast<std::size_t>(o[d])];
    if (outside) {
      y[flat] = s.extrapolation;
    } else {
      // Odometer over the taps of every dim.
      std::vector<std::size_t> k(r, 0);
      double acc = 0;
      for (;;) {
        double w = 1;
        std::int64_t off = 0;
        for (std::size_t d = 0; d < r; ++d) {
          const auto& tap = taps[d].at[static_cast<std::size_t>(o[d])][k[d]];
          w *= tap.second;
          off += tap.first * st[d];
        }
        acc += w * x[off];
        std::size_t d = r;
        for (; d > 0; --d) {
          if (++k[d - 1] < taps[d - 1].at[static_cast<std::size_t>(o[d - 1])].size()) break;
          k[d - 1] = 0;
        }
        if (d == 0) break;
      }
      y[flat] = static_cast<float>(acc);
    }
    for (std::size_t d = r; d > 0; --d) {
      if (++o[d - 1] < s.out[d - 1]) break;
      o[d - 1] = 0;
    }
  }
}

// Nearest without tf_crop_and_resize moves elements: each output is one input element,
// whatever the element type.
void nearest_gather(const ResizeSetup& s, const TensorView& x, const TensorView& y) {
  const Shape& in = x.dims;
  const std::vector<std::int64_t> st = strides_of(in);
  std::vector<std::vector<std::int64_t>> tables(in.size());
  for (std::size_t d = 0; d < in.size(); ++d) {
    for (std::int64_t o = 0; o < s.out[d]; ++o) {
      const float v = source_coord(s, d, o, in[d]);
      tables[d].push_back(nearest_index(s.nearest, v, in[d]) * st[d]);
    }
  }
  gather_tables(y.data, x.data, model::dtype_size(x.dtype), tables, 0);
}

// An int8/uint8 nearest Resize in the output's encoding (move_requantized has converted
// the input when the encodings differ): bytes moved, as the movement ops move them.
Status resize_nearest_bytes(const RunCtx& c) {
  KN_ASSIGN(ResizeSetup s, with_infer_ctx(c, resize_setup));
  nearest_gather(s, c.in[0], c.out[0]);
  return Status::Ok();
}

Status resize_float(const RunCtx& c) {
  SVP_RETURN_IF_ERROR(require_f32(c, {0}));
  KN_ASSIGN(ResizeSetup s, with_infer_ctx(c, resize_setup));
  const Shape& in = c.in[0].dims;
  const std::size_t r = in.size();
  bool bilinear = s.mode == Mode::kLinear && s.ctm != Ctm::kTfCropAndResize;
  for (std::size_t d = 0; d + 2 < r; ++d) bilinear = bilinear && s.scale[d] == 1.0f && s.out[d] == in[d];
  const bool direct_nearest = s.mode == Mode::kNearest && s.ctm != Ctm::kTfCropAndResize;
  if (!bilinear && !direct_nearest) {
    resize_separable(s, in, c.in[0].as<const float>(), c.out[0].as<float>());
    return Status::Ok();
  }
  if (s.mode == Mode::kNearest) {
    nearest_gather(s, c.in[0], c.out[0]);
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
  // Each output is h.w0·top + h.w1·bottom with top = w.w0·r0[w.i0] + w.w1·r0[w.i1] (and
  // bottom from row r1). Rows interpolated along the width first — each input row a tap
  // reads, once — give the very same `top` and `bottom` values, and the vertical step is
  // then a contiguous loop the compiler vectorises: same operations in the same order,
  // same bits, several times fewer of them when upsampling (DeepLabV3's ×8 output Resize).
  std::vector<char> needed(static_cast<std::size_t>(ih), 0);
  for (const LinearTap& h : th) needed[static_cast<std::size_t>(h.i0)] = needed[static_cast<std::size_t>(h.i1)] = 1;
  std::vector<float> rows(static_cast<std::size_t>(ih * ow));
  for (std::int64_t p = 0; p < planes; ++p) {
    const float* xp = x + p * ih * iw;
    float* yp = y + p * oh * ow;
    for (std::int64_t k = 0; k < ih; ++k) {
      if (!needed[static_cast<std::size_t>(k)]) continue;
      const float* src = xp + k * iw;
      float* dst = rows.data() + k * ow;
      for (std::int64_t j = 0; j < ow; ++j) {
        const LinearTap& w = tw[static_cast<std::size_t>(j)];
        dst[j] = w.w0 * src[w.i0] + w.w1 * src[w.i1];
      }
    }
    for (std::int64_t i = 0; i < oh; ++i) {
      const LinearTap& h = th[static_cast<std::size_t>(i)];
      const float* top = rows.data() + h.i0 * ow;
      const float* bottom = rows.data() + h.i1 * ow;
      float* out = yp + i * ow;
      const float h0 = h.w0, h1 = h.w1;
      for (std::int64_t j = 0; j < ow; ++j) out[j] = h0 * top[j] + h1 * bottom[j];
    }
  }
  return Status::Ok();
}

// Every mode writes every output element (resize_float's three loops cover the output).
// Nearest on per-tensor int8/uint8 data (an FPN's ×2 upsampling) moves bytes: the generic
// path's quantize(dequantize(q)) of each moved byte, through move_requantized's table
// when the encodings differ (the movement ops' rule).
Status run_resize(const RunCtx& c) {
  const TensorView &x = c.in[0], &y = c.out[0];
  if (is_q8(x.dtype) && is_per_tensor(x) && is_q8(y.dtype) && is_per_tensor(y)) {
    auto s = with_infer_ctx(c, resize_setup);
    if (s.ok() && s->mode == Mode::kNearest && s->ctm != Ctm::kTfCropAndResize) {
      return same_encoding(x, y) ? resize_nearest_bytes(c) : move_requantized<resize_nearest_bytes>(c, 1);
    }
  }
  return run_via_float(c, resize_float, FloatOutputs::kWritesEveryOutput);
}

}  // namespace

void add_resize_ops(std::vector<OpDef>& ops) { ops.push_back({"Resize", 1, 4, infer_resize, run_resize}); }

}  // namespace svp::kernels::detail
