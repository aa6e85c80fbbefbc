// DFT (opset 17): input [..., signal, 1 (real) or 2 (complex)] along `axis` (default 1,
// not the last dim); dft_length (input 1) pads with zeros or truncates the signal;
// `inverse` uses exp(+i...) and divides by the length; `onesided` keeps the first
// length / 2 + 1 frequencies. Output [..., length or length / 2 + 1, 2]. Direct sums in
// double; float32 and float64.
//
// STFT (opset 17): signal [batch, length, 1 or 2]; frame_step (input 1) and frame_length
// (input 3) are build-time constants (they give the output's shape). Frame f is the
// window_length samples from f * frame_step (zeros past the signal's end) times the window
// (input 2; ones when absent), transformed by a DFT of frame_length points (pads or
// truncates, as DFT's dft_length). frame_length defaults to the window's length, else the
// signal's. frames = 1 + (length - frame_length) / frame_step; output
// [batch, frames, frame_length (or frame_length / 2 + 1 when `onesided`, the default), 2].
#include <algorithm>
#include <cmath>

#include "kernels/reference/ops.h"
#include "kernels/reference/typed.h"

namespace svp::kernels::detail {
namespace {

struct DftSetup {
  std::int64_t axis = 1, length = 0, out_len = 0;
  bool inverse = false, onesided = false;
  Shape out;
};

Result<DftSetup> dft_setup(const InferCtx& c) {
  const Shape& x = c.in[0];
  const auto r = static_cast<std::int64_t>(x.size());
  if (r < 2 || (x.back() != 1 && x.back() != 2)) {
    return Invalid(c.op, "input must be [..., signal, 1 or 2], got {}", shape_str(x));
  }
  DftSetup s;
  KN_ASSIGN(std::int64_t axis, c.attr().i("axis", 1));
  KN_ASSIGN(s.axis, norm_axis(c.op, "attribute \"axis\"", axis, r - 1));
  KN_ASSIGN(s.inverse, c.attr().flag("inverse", false));
  KN_ASSIGN(s.onesided, c.attr().flag("onesided", false));
  if (s.inverse && s.onesided) return Invalid(c.op, "inverse and onesided together are not supported");
  s.length = x[static_cast<std::size_t>(s.axis)];
  if (c.has(1)) {
    KN_ASSIGN(const TensorView* t, c.need_value(1, "dft_length"));
    KN_ASSIGN(std::vector<std::int64_t> v, read_ints(c.op, "dft_length", *t));
    if (v.size() != 1 || v[0] < 1 || v[0] > (std::int64_t{1} << 30)) {
      return Invalid(c.op, "dft_length must be one positive value");
    }
    s.length = v[0];
  }
  if (s.length < 1) return Invalid(c.op, "the signal is empty");
  s.out_len = s.onesided ? s.length / 2 + 1 : s.length;
  s.out = x;
  s.out[static_cast<std::size_t>(s.axis)] = s.out_len;
  s.out.back() = 2;
  return s;
}

Result<std::vector<Shape>> infer_dft(const InferCtx& c) {
  KN_ASSIGN(DftSetup s, dft_setup(c));
  return std::vector<Shape>{s.out};
}

Status run_dft(const RunCtx& c) {
  const TensorView &x = c.in[0], &y = c.out[0];
  if (x.dtype != y.dtype || has_quant(x)) {
    return BadType(c.op, "input is {} but the output is {}", type_desc(x), type_desc(y));
  }
  KN_ASSIGN(DftSetup s, with_infer_ctx(c, dft_setup));
  const std::int64_t comp = x.dims.back();
  const AxisSplit in = split_at(Shape(x.dims.begin(), x.dims.end() - 1), s.axis);
  const double sign = s.inverse ? 1.0 : -1.0, pi = std::acos(-1.0);
  const bool ok = visit_types<kFloatTypes>(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* xs = x.as<const T>();
    T* ys = y.as<T>();
    for (std::int64_t o = 0; o < in.outer; ++o) {
      for (std::int64_t i = 0; i < in.inner; ++i) {
        for (std::int64_t k = 0; k < s.out_len; ++k) {
          double re = 0, im = 0;
          for (std::int64_t n = 0; n < std::min(in.len, s.length); ++n) {
            const T* e = xs + ((o * in.len + n) * in.inner + i) * comp;
            const double xr = static_cast<double>(load(e[0])), xi = comp == 2 ? static_cast<double>(load(e[1])) : 0.0;
            // The angle reduced modulo the length first: exact for large k * n.
            const double a = sign * 2 * pi * static_cast<double>((k * n) % s.length) / static_cast<double>(s.length);
            re += xr * std::cos(a) - xi * std::sin(a);
            im += xr * std::sin(a) + xi * std::cos(a);
          }
          if (s.inverse) {
            re /= static_cast<double>(s.length);
            im /= static_cast<double>(s.length);
          }
          T* out = ys + ((o * s.out_len + k) * in.inner + i) * 2;
          out[0] = store<T>(re);
          out[1] = store<T>(im);
        }
      }
    }
  });
  if (!ok) return bad_type(c.op, "input 0", x, kFloatTypes);
  return Status::Ok();
}

struct StftSetup {
  std::int64_t step = 0, frame_length = 0, window_length = 0, frames = 0, bins = 0;
  Shape out;
};

Result<StftSetup> stft_setup(const InferCtx& c) {
  const Shape& x = c.in[0];
  if (x.size() != 3 || (x[2] != 1 && x[2] != 2)) {
    return Invalid(c.op, "signal must be [batch, length, 1 or 2], got {}", shape_str(x));
  }
  StftSetup s;
  KN_ASSIGN(const TensorView* step, c.need_value(1, "frame_step"));
  KN_ASSIGN(std::vector<std::int64_t> sv, read_ints(c.op, "frame_step", *step));
  if (sv.size() != 1 || sv[0] < 1) return Invalid(c.op, "frame_step must be one positive value");
  s.step = sv[0];
  s.frame_length = x[1];
  if (c.has(2)) {
    if (c.in[2].size() != 1) return Invalid(c.op, "window must be 1-D, got {}", shape_str(c.in[2]));
    s.frame_length = c.in[2][0];
  }
  s.window_length = s.frame_length;
  if (c.has(3)) {
    KN_ASSIGN(const TensorView* fl, c.need_value(3, "frame_length"));
    KN_ASSIGN(std::vector<std::int64_t> fv, read_ints(c.op, "frame_length", *fl));
    if (fv.size() != 1 || fv[0] < 1 || fv[0] > (std::int64_t{1} << 30)) {
      return Invalid(c.op, "frame_length must be one positive value");
    }
    s.frame_length = fv[0];
    if (!c.has(2)) s.window_length = s.frame_length;
  }
  if (s.frame_length > x[1]) {
    return Invalid(c.op, "frame_length {} is longer than the signal ({})", s.frame_length, x[1]);
  }
  KN_ASSIGN(const bool onesided, c.attr().flag("onesided", true));
  s.frames = 1 + (x[1] - s.frame_length) / s.step;
  s.bins = onesided ? s.frame_length / 2 + 1 : s.frame_length;
  s.out = {x[0], s.frames, s.bins, 2};
  return s;
}

Result<std::vector<Shape>> infer_stft(const InferCtx& c) {
  KN_ASSIGN(StftSetup s, stft_setup(c));
  return std::vector<Shape>{s.out};
}

Status run_stft(const RunCtx& c) {
  const TensorView &x = c.in[0], &y = c.out[0];
  if (x.dtype != y.dtype || has_quant(x) || (c.has(2) && c.in[2].dtype != x.dtype)) {
    return BadType(c.op, "signal is {}, the window and the output must be the same", type_desc(x));
  }
  KN_ASSIGN(StftSetup s, with_infer_ctx(c, stft_setup));
  const std::int64_t len = x.dims[1], comp = x.dims[2];
  const double pi = std::acos(-1.0);
  const bool ok = visit_types<kFloatTypes>(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* xs = x.as<const T>();
    const T* ws = c.has(2) ? c.in[2].as<const T>() : nullptr;
    T* ys = y.as<T>();
    std::vector<double> re(static_cast<std::size_t>(s.window_length)), im(re.size());
    for (std::int64_t b = 0; b < x.dims[0]; ++b) {
      for (std::int64_t f = 0; f < s.frames; ++f) {
        // The windowed frame, zero past the signal's end.
        for (std::int64_t n = 0; n < s.window_length; ++n) {
          const std::int64_t at = f * s.step + n;
          const double w = ws ? static_cast<double>(load(ws[n])) : 1.0;
          const T* e = xs + (b * len + at) * comp;
          const auto un = static_cast<std::size_t>(n);
          re[un] = at < len ? w * static_cast<double>(load(e[0])) : 0.0;
          im[un] = at < len && comp == 2 ? w * static_cast<double>(load(e[1])) : 0.0;
        }
        for (std::int64_t k = 0; k < s.bins; ++k) {
          double sr = 0, si = 0;
          for (std::int64_t n = 0; n < std::min(s.window_length, s.frame_length); ++n) {
            const double a = -2 * pi * static_cast<double>((k * n) % s.frame_length) /
                             static_cast<double>(s.frame_length);
            const auto un = static_cast<std::size_t>(n);
            sr += re[un] * std::cos(a) - im[un] * std::sin(a);
            si += re[un] * std::sin(a) + im[un] * std::cos(a);
          }
          T* out = ys + ((b * s.frames + f) * s.bins + k) * 2;
          out[0] = store<T>(sr);
          out[1] = store<T>(si);
        }
      }
    }
  });
  if (!ok) return bad_type(c.op, "signal", x, kFloatTypes);
  return Status::Ok();
}

}  // namespace

void add_dft_ops(std::vector<OpDef>& ops) {
  ops.push_back({"DFT", 1, 2, infer_dft, run_dft});
  ops.push_back({"STFT", 2, 4, infer_stft, run_stft});
}

}  // namespace svp::kernels::detail
