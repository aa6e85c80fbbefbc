// DFT (opset 17): input [..., signal, 1 (real) or 2 (complex)] along `axis` (default 1,
// not the last dim); dft_length (input 1) pads with zeros or truncates the signal;
// `inverse` uses exp(+i...) and divides by the length; `onesided` keeps the first
// length / 2 + 1 frequencies. Output [..., length or length / 2 + 1, 2]. Direct sums in
// double; float32 and float64.
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

}  // namespace

void add_dft_ops(std::vector<OpDef>& ops) { ops.push_back({"DFT", 1, 2, infer_dft, run_dft}); }

}  // namespace svp::kernels::detail
