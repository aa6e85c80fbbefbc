#include "kernels/reference/spatial.h"

namespace svp::kernels::detail {

Result<AutoPad> read_auto_pad(const AttrReader& a) {
  KN_ASSIGN(std::string s, a.s("auto_pad", "NOTSET"));
  if (s == "NOTSET") return AutoPad::kNotSet;
  if (s == "SAME_UPPER") return AutoPad::kSameUpper;
  if (s == "SAME_LOWER") return AutoPad::kSameLower;
  if (s == "VALID") return AutoPad::kValid;
  return Malformed(a.op(), "attribute \"auto_pad\" has unknown value \"{}\"", s);
}

Status spatial_input(const char* op, const Shape& x, Window& w) {
  if (x.size() < 3 || x.size() > 5) {
    return Invalid(op, "input X must have rank 3 to 5 (N, C, 1 to 3 spatial dims), got shape {}", shape_str(x));
  }
  w.nsp = static_cast<int>(x.size()) - 2;
  for (int i = 0; i < w.nsp; ++i) w.in[3 - w.nsp + i] = x[2 + i];
  return Status::Ok();
}

Status read_window_attrs(const AttrReader& a, Window& w, AutoPad ap, bool has_dilations) {
  const char* op = a.op();
  const std::size_t n = static_cast<std::size_t>(w.nsp);
  const int off = 3 - w.nsp;
  KN_ASSIGN(std::vector<std::int64_t> strides, a.ints_n("strides", n, 1));
  std::vector<std::int64_t> dil(n, 1);
  if (has_dilations) {
    KN_ASSIGN(dil, a.ints_n("dilations", n, 1));
  }
  KN_ASSIGN(std::vector<std::int64_t> pads, a.ints_n("pads", 2 * n, 0));
  bool nonzero_pads = false;
  for (std::size_t i = 0; i < n; ++i) {
    if (strides[i] < 1) return Invalid(op, "attribute \"strides\" must be positive, got {}", strides[i]);
    if (dil[i] < 1) return Invalid(op, "attribute \"dilations\" must be positive, got {}", dil[i]);
    if (pads[i] < 0 || pads[i + n] < 0) return Invalid(op, "attribute \"pads\" must not be negative");
    if (strides[i] > (1 << 30) || dil[i] > (1 << 30) || pads[i] > (1 << 30) || pads[i + n] > (1 << 30)) {
      return Invalid(op, "attribute strides/dilations/pads value is too large");
    }
    if (w.k[off + i] - 1 > kMaxElements / dil[i] || w.in[off + i] - 1 > kMaxElements / strides[i]) {
      return Invalid(op, "kernel extent or strided input extent is too large");
    }
    nonzero_pads = nonzero_pads || pads[i] != 0 || pads[i + n] != 0;
    w.s[off + i] = strides[i];
    w.d[off + i] = dil[i];
    w.pb[off + i] = pads[i];
    w.pe[off + i] = pads[i + n];
  }
  if (ap != AutoPad::kNotSet && nonzero_pads) {
    return Malformed(op, "attribute \"pads\" cannot be used together with auto_pad");
  }
  KN_ASSIGN(std::vector<std::int64_t> ks, a.ints("kernel_shape", {}));
  if (a.has("kernel_shape")) {
    if (ks.size() != n) return Malformed(op, "attribute \"kernel_shape\" must have {} values, got {}", n, ks.size());
    for (std::size_t i = 0; i < n; ++i) {
      if (ks[i] != w.k[off + i]) {
        return Invalid(op, "attribute \"kernel_shape\" {} does not match the weight's kernel", shape_str(ks));
      }
    }
  }
  return Status::Ok();
}

Status forward_window(const char* op, Window& w, AutoPad ap, bool ceil_mode, bool pool) {
  for (int i = 3 - w.nsp; i < 3; ++i) {
    const std::int64_t eff = w.eff(i);
    if (ap == AutoPad::kSameUpper || ap == AutoPad::kSameLower) {
      w.out[i] = ceil_div(w.in[i], w.s[i]);
      const std::int64_t total = std::max<std::int64_t>(0, (w.out[i] - 1) * w.s[i] + eff - w.in[i]);
      w.pb[i] = ap == AutoPad::kSameUpper ? total / 2 : total - total / 2;
      w.pe[i] = total - w.pb[i];
      continue;
    }
    if (ap == AutoPad::kValid) w.pb[i] = w.pe[i] = 0;
    if (pool && (w.pb[i] >= eff || w.pe[i] >= eff)) {
      return Invalid(op, "pads must be smaller than the kernel extent {} (got {} and {})", eff, w.pb[i], w.pe[i]);
    }
    const std::int64_t span = w.in[i] + w.pb[i] + w.pe[i] - eff;
    if (span < 0) {
      return Invalid(op, "the padded input ({} + {} + {}) is smaller than the kernel extent {}", w.in[i], w.pb[i],
                     w.pe[i], eff);
    }
    if (ceil_mode) {
      w.out[i] = ceil_div(span, w.s[i]) + 1;
      // The last window must start inside the input or the leading padding.
      if ((w.out[i] - 1) * w.s[i] >= w.in[i] + w.pb[i]) --w.out[i];
    } else {
      w.out[i] = span / w.s[i] + 1;
    }
  }
  return Status::Ok();
}

}  // namespace svp::kernels::detail
