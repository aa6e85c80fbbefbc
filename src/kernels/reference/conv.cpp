// Conv and ConvTranspose: direct loops over output planes with the valid index ranges
// precomputed per kernel tap, so the innermost loop has no bounds checks (and
// vectorises for stride 1). One template serves float32 (float accumulation) and the
// integer path (int32 operands, int64 accumulation).
#include <algorithm>

#include "kernels/reference/int_ops.h"
#include "kernels/reference/ops.h"
#include "kernels/reference/spatial.h"

namespace svp::kernels::detail {
namespace {

struct ConvSetup {
  Window w;
  std::int64_t N = 0, C = 0, M = 0, group = 1, Cg = 0, Mg = 0;
  bool transpose = false;
  Shape out_shape;
};

Status common_setup(const InferCtx& c, ConvSetup& g) {
  const char* op = c.op;
  const Shape& x = c.in[0];
  const Shape& wt = c.in[1];
  SVP_RETURN_IF_ERROR(spatial_input(op, x, g.w));
  if (wt.size() != x.size()) {
    return Invalid(op, "weight W must have the rank of X ({}), got shape {}", x.size(), shape_str(wt));
  }
  for (int i = 0; i < g.w.nsp; ++i) {
    if (x[2 + static_cast<std::size_t>(i)] < 1)
      return Invalid(op, "input X has an empty spatial dim: {}", shape_str(x));
    if (wt[2 + static_cast<std::size_t>(i)] < 1) return Invalid(op, "weight W has an empty kernel: {}", shape_str(wt));
    g.w.k[3 - g.w.nsp + i] = wt[2 + static_cast<std::size_t>(i)];
  }
  KN_ASSIGN(g.group, c.attr().i("group", 1));
  if (g.group < 1) return Invalid(op, "attribute \"group\" must be positive, got {}", g.group);
  g.N = x[0];
  g.C = x[1];
  if (g.C % g.group != 0) return Invalid(op, "input channels {} are not divisible by group {}", g.C, g.group);
  g.Cg = g.C / g.group;
  return Status::Ok();
}

Result<ConvSetup> conv_setup(const InferCtx& c) {
  ConvSetup g;
  SVP_RETURN_IF_ERROR(common_setup(c, g));
  const Shape& wt = c.in[1];
  g.M = wt[0];
  if (wt[1] != g.Cg) {
    return Invalid(c.op, "weight W {} must have C/group = {} input channels (C = {}, group = {})", shape_str(wt), g.Cg,
                   g.C, g.group);
  }
  if (g.M < 1 || g.M % g.group != 0) {
    return Invalid(c.op, "output channels {} must be positive and divisible by group {}", g.M, g.group);
  }
  g.Mg = g.M / g.group;
  if (c.has(2) && c.in[2] != Shape{g.M}) {
    return Invalid(c.op, "bias B must have shape [{}], got {}", g.M, shape_str(c.in[2]));
  }
  KN_ASSIGN(AutoPad ap, read_auto_pad(c.attr()));
  SVP_RETURN_IF_ERROR(read_window_attrs(c.attr(), g.w, ap));
  SVP_RETURN_IF_ERROR(forward_window(c.op, g.w, ap, false, false));
  g.out_shape = {g.N, g.M};
  for (int i = 3 - g.w.nsp; i < 3; ++i) g.out_shape.push_back(g.w.out[i]);
  return g;
}

Result<ConvSetup> conv_transpose_setup(const InferCtx& c) {
  ConvSetup g;
  g.transpose = true;
  SVP_RETURN_IF_ERROR(common_setup(c, g));
  const Shape& wt = c.in[1];
  if (wt[0] != g.C) return Invalid(c.op, "weight W {} must have C = {} input channels", shape_str(wt), g.C);
  if (wt[1] < 1) return Invalid(c.op, "weight W {} has no output channels", shape_str(wt));
  g.Mg = wt[1];
  g.M = g.Mg * g.group;
  if (c.has(2) && c.in[2] != Shape{g.M}) {
    return Invalid(c.op, "bias B must have shape [{}], got {}", g.M, shape_str(c.in[2]));
  }
  const AttrReader a = c.attr();
  KN_ASSIGN(AutoPad ap, read_auto_pad(a));
  Window& w = g.w;
  SVP_RETURN_IF_ERROR(read_window_attrs(a, w, ap));
  const std::size_t n = static_cast<std::size_t>(w.nsp);
  KN_ASSIGN(std::vector<std::int64_t> opad, a.ints_n("output_padding", n, 0));
  KN_ASSIGN(std::vector<std::int64_t> oshape, a.ints("output_shape", {}));
  if (!oshape.empty() && oshape.size() != n && oshape.size() != n + 2) {
    return Malformed(c.op, "attribute \"output_shape\" must have {} (or {}) values, got {}", n, n + 2, oshape.size());
  }
  if (oshape.size() == n + 2) oshape.erase(oshape.begin(), oshape.begin() + 2);
  for (std::size_t i = 0; i < n; ++i) {
    const int d = 3 - w.nsp + static_cast<int>(i);
    if (opad[i] < 0 || opad[i] > (1 << 30)) return Invalid(c.op, "attribute \"output_padding\" {} is invalid", opad[i]);
    const std::int64_t full = w.s[d] * (w.in[d] - 1) + opad[i] + w.eff(d);
    if (!oshape.empty()) {
      if (oshape[i] < 1) return Invalid(c.op, "attribute \"output_shape\" must be positive, got {}", oshape[i]);
      if (oshape[i] > (std::int64_t{1} << 30)) {
        return Invalid(c.op, "attribute \"output_shape\" {} is too large", oshape[i]);
      }
      // A negative total (output_shape beyond the full output) pads the output with
      // elements no input reaches; halves round down (ONNX's definition).
      const std::int64_t total = full - oshape[i];
      w.out[d] = oshape[i];
      w.pb[d] = ap == AutoPad::kSameUpper ? floor_div(total, 2) : total - floor_div(total, 2);
      w.pe[d] = total - w.pb[d];
    } else if (ap == AutoPad::kSameUpper || ap == AutoPad::kSameLower) {
      w.out[d] = w.in[d] * w.s[d];
      const std::int64_t total = std::max<std::int64_t>(0, full - w.out[d]);
      w.pb[d] = ap == AutoPad::kSameUpper ? total / 2 : total - total / 2;
      w.pe[d] = total - w.pb[d];
    } else {
      if (ap == AutoPad::kValid) w.pb[d] = w.pe[d] = 0;
      w.out[d] = full - w.pb[d] - w.pe[d];
      if (w.out[d] < 1) {
        return Invalid(c.op, "pads {} + {} leave no output (full output size {})", w.pb[d], w.pe[d], full);
      }
    }
  }
  g.out_shape = {g.N, g.M};
  for (int i = 3 - w.nsp; i < 3; ++i) g.out_shape.push_back(w.out[i]);
  return g;
}

Result<std::vector<Shape>> infer_conv(const InferCtx& c) {
  KN_ASSIGN(ConvSetup g, conv_setup(c));
  return std::vector<Shape>{g.out_shape};
}

Result<std::vector<Shape>> infer_conv_transpose(const InferCtx& c) {
  KN_ASSIGN(ConvSetup g, conv_transpose_setup(c));
  return std::vector<Shape>{g.out_shape};
}

// Walks the taps of a convolution window for one (input plane, weight slice) pair: for
// every kernel offset k and every position p along the first two spatial axes whose
// partner q = p * stride + k * dilation - pad is in range, calls
// row(tap, p0, p1, q0, q1, lo2, hi2, off2), where [lo2, hi2) are the valid positions along
// the last axis and q2 = p2 * stride2 + off2. A convolution walks output positions p
// (gathering inputs q); a transposed one walks input positions (scattering to outputs q).
template <class Row>
void for_each_tap(const Window& w, const Dim3& p_extent, const Dim3& q_extent, Row&& row) {
  for (std::int64_t k0 = 0; k0 < w.k[0]; ++k0) {
    const std::int64_t off0 = k0 * w.d[0] - w.pb[0];
    const auto [lo0, hi0] = valid_range(p_extent[0], q_extent[0], w.s[0], off0);
    for (std::int64_t k1 = 0; k1 < w.k[1]; ++k1) {
      const std::int64_t off1 = k1 * w.d[1] - w.pb[1];
      const auto [lo1, hi1] = valid_range(p_extent[1], q_extent[1], w.s[1], off1);
      for (std::int64_t k2 = 0; k2 < w.k[2]; ++k2) {
        const std::int64_t off2 = k2 * w.d[2] - w.pb[2];
        const auto [lo2, hi2] = valid_range(p_extent[2], q_extent[2], w.s[2], off2);
        const std::int64_t tap = (k0 * w.k[1] + k1) * w.k[2] + k2;
        for (std::int64_t p0 = lo0; p0 < hi0; ++p0) {
          for (std::int64_t p1 = lo1; p1 < hi1; ++p1) {
            row(tap, p0, p1, p0 * w.s[0] + off0, p1 * w.s[1] + off1, lo2, hi2, off2);
          }
        }
      }
    }
  }
}

// y[n, oc, o...] = bias[oc] + sum over ci, k of w * x, for X values of type T and
// accumulators of type A; bias may be null. y must hold N*M*out elements.
template <typename T, typename A>
void conv_forward(const ConvSetup& g, const T* x, const T* wt, const A* bias, A* y) {
  const Window& w = g.w;
  const std::int64_t isz = w.in_size(), osz = w.out_size(), ksz = w.k_size();
  const std::int64_t s2 = w.s[2];
  for (std::int64_t n = 0; n < g.N; ++n) {
    for (std::int64_t oc = 0; oc < g.M; ++oc) {
      A* yp = y + (n * g.M + oc) * osz;
      std::fill(yp, yp + osz, bias != nullptr ? bias[oc] : A{});
      const std::int64_t grp = oc / g.Mg;
      for (std::int64_t ci = 0; ci < g.Cg; ++ci) {
        const T* xp = x + (n * g.C + grp * g.Cg + ci) * isz;
        const T* wp = wt + (oc * g.Cg + ci) * ksz;
        for_each_tap(w, w.out, w.in, [&](std::int64_t tap, std::int64_t o0, std::int64_t o1, std::int64_t i0,
                                         std::int64_t i1, std::int64_t lo2, std::int64_t hi2, std::int64_t off2) {
          const A wv = static_cast<A>(wp[tap]);
          A* yr = yp + (o0 * w.out[1] + o1) * w.out[2];
          const T* xr = xp + (i0 * w.in[1] + i1) * w.in[2];
          if (s2 == 1) {
            for (std::int64_t o2 = lo2; o2 < hi2; ++o2) yr[o2] += wv * static_cast<A>(xr[o2 + off2]);
          } else {
            for (std::int64_t o2 = lo2; o2 < hi2; ++o2) yr[o2] += wv * static_cast<A>(xr[o2 * s2 + off2]);
          }
        });
      }
    }
  }
}

// ConvTranspose: every input element scatters x * w to o = i * stride + k * dilation - pad.
template <typename T, typename A>
void conv_transpose_forward(const ConvSetup& g, const T* x, const T* wt, const A* bias, A* y) {
  const Window& w = g.w;
  const std::int64_t isz = w.in_size(), osz = w.out_size(), ksz = w.k_size();
  const std::int64_t s2 = w.s[2];
  for (std::int64_t n = 0; n < g.N; ++n) {
    for (std::int64_t oc = 0; oc < g.M; ++oc) {
      A* yp = y + (n * g.M + oc) * osz;
      std::fill(yp, yp + osz, bias != nullptr ? bias[oc] : A{});
      const std::int64_t grp = oc / g.Mg, ml = oc % g.Mg;
      for (std::int64_t ci = 0; ci < g.Cg; ++ci) {
        const std::int64_t ic = grp * g.Cg + ci;
        const T* xp = x + (n * g.C + ic) * isz;
        const T* wp = wt + (ic * g.Mg + ml) * ksz;
        for_each_tap(w, w.in, w.out, [&](std::int64_t tap, std::int64_t i0, std::int64_t i1, std::int64_t o0,
                                         std::int64_t o1, std::int64_t lo2, std::int64_t hi2, std::int64_t off2) {
          const A wv = static_cast<A>(wp[tap]);
          A* yr = yp + (o0 * w.out[1] + o1) * w.out[2];
          const T* xr = xp + (i0 * w.in[1] + i1) * w.in[2];
          for (std::int64_t i2 = lo2; i2 < hi2; ++i2) yr[i2 * s2 + off2] += wv * static_cast<A>(xr[i2]);
        });
      }
    }
  }
}

Status run_conv_float(const RunCtx& c) {
  SVP_RETURN_IF_ERROR(require_f32(c, {0, 1, 2}));
  const bool tr = std::string(c.op) == "ConvTranspose";
  KN_ASSIGN(ConvSetup g, with_infer_ctx(c, tr ? conv_transpose_setup : conv_setup));
  const float* bias = c.has(2) ? c.in[2].as<const float>() : nullptr;
  if (tr) {
    conv_transpose_forward<float, float>(g, c.in[0].as<const float>(), c.in[1].as<const float>(), bias,
                                         c.out[0].as<float>());
  } else {
    conv_forward<float, float>(g, c.in[0].as<const float>(), c.in[1].as<const float>(), bias, c.out[0].as<float>());
  }
  return Status::Ok();
}

Status run_conv_any(const RunCtx& c, bool tr) {
  const TensorView* bias = c.has(2) ? &c.in[2] : nullptr;
  // Per-channel weight scales: Conv W axis 0 (M entries); ConvTranspose W axis 1
  // (M/group entries, output channel oc uses entry oc % (M/group)).
  const std::int64_t w_axis = tr ? 1 : 0;
  if (!int_path_applies(c.in[0], c.in[1], w_axis, bias, c.out[0])) return run_via_float(c, run_conv_float);

  KN_ASSIGN(ConvSetup g, with_infer_ctx(c, tr ? conv_transpose_setup : conv_setup));
  const Quant& wq = *c.in[1].quant;
  const auto w_scale = [&](std::int64_t oc) { return scale_at(wq, static_cast<std::size_t>(tr ? oc % g.Mg : oc)); };
  const AccWriter out(c.in[0], w_scale, g.M, c.out[0]);
  std::vector<std::int64_t> bq;
  if (bias != nullptr) {
    KN_ASSIGN(bq, bias_to_int(c.op, *bias, [&](std::int64_t oc) { return out.bias_scale(oc); }));
  }
  const std::vector<std::int32_t> xs = shifted_ints(c.in[0]);
  const std::vector<std::int32_t> ws = shifted_ints(c.in[1]);
  std::vector<std::int64_t> acc(static_cast<std::size_t>(c.out[0].elements()));
  // The bias joins after the int32 → float conversion (AccWriter), not in the sum.
  if (tr) {
    conv_transpose_forward<std::int32_t, std::int64_t>(g, xs.data(), ws.data(), nullptr, acc.data());
  } else {
    conv_forward<std::int32_t, std::int64_t>(g, xs.data(), ws.data(), nullptr, acc.data());
  }
  const std::int64_t osz = g.w.out_size();
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(acc.size()); ++i) {
    const std::int64_t oc = (i / osz) % g.M;
    out.put(i, acc[static_cast<std::size_t>(i)], oc, bias != nullptr ? bq[static_cast<std::size_t>(oc)] : 0);
  }
  return Status::Ok();
}

Status run_conv(const RunCtx& c) { return run_conv_any(c, false); }
Status run_conv_transpose(const RunCtx& c) { return run_conv_any(c, true); }

// ---------------------------------------------------------------------------
// ConvInteger (x, w, x_zero_point?, w_zero_point?) → int32, exact; QLinearConv (x, x_scale,
// x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B?) is Conv's integer path
// on operands carrying those parameters.

Result<std::vector<Shape>> infer_conv_integer(const InferCtx& c) { return with_inputs(c, {0, 1}, infer_conv); }
Result<std::vector<Shape>> infer_qlinear_conv(const InferCtx& c) { return with_inputs(c, {0, 3, 8}, infer_conv); }

Status run_conv_integer(const RunCtx& c) {
  const TensorView& y = c.out[0];
  if (y.dtype != DType::kInt32 || has_quant(y)) return BadType(c.op, "output must be int32, got {}", type_desc(y));
  Quant qx, qw;
  KN_ASSIGN(TensorView x, with_quant(c.op, "x", c.in[0], nullptr, c.has(2) ? &c.in[2] : nullptr, 1, &qx));
  KN_ASSIGN(TensorView w, with_quant(c.op, "w", c.in[1], nullptr, c.has(3) ? &c.in[3] : nullptr, 0, &qw));
  if (qx.scale.size() > 1) return Invalid(c.op, "x_zero_point must be a single value");
  KN_ASSIGN(ConvSetup g, with_infer_ctx(c, [](const InferCtx& ic) { return with_inputs(ic, {0, 1}, conv_setup); }));
  const std::vector<std::int32_t> xs = shifted_ints(x), ws = shifted_ints(w);
  std::vector<std::int64_t> acc(static_cast<std::size_t>(y.elements()));
  conv_forward<std::int32_t, std::int64_t>(g, xs.data(), ws.data(), nullptr, acc.data());
  for (std::size_t i = 0; i < acc.size(); ++i) y.as<std::int32_t>()[i] = saturate_i32(acc[i]);
  return Status::Ok();
}

Status run_qlinear_conv(const RunCtx& c) {
  Quant qx, qw, qy;
  KN_ASSIGN(TensorView x, with_quant(c.op, "x", c.in[0], &c.in[1], &c.in[2], 1, &qx));
  KN_ASSIGN(TensorView w, with_quant(c.op, "w", c.in[3], &c.in[4], &c.in[5], 0, &qw));
  KN_ASSIGN(TensorView y, with_quant(c.op, "y", c.out[0], &c.in[6], &c.in[7], 1, &qy));
  if (qx.scale.size() > 1 || qy.scale.size() > 1) return Invalid(c.op, "x and y quantization must be per-tensor");
  std::vector<TensorView> in{x, w};
  if (c.has(8)) in.push_back(c.in[8]);
  const std::vector<TensorView> out{y};
  return run_conv_any(RunCtx{c.op, c.attrs, in, out}, false);
}

}  // namespace

void add_conv_ops(std::vector<OpDef>& ops) {
  ops.push_back({"Conv", 2, 3, infer_conv, run_conv});
  ops.push_back({"ConvTranspose", 2, 3, infer_conv_transpose, run_conv_transpose});
  ops.push_back({"ConvInteger", 2, 4, infer_conv_integer, run_conv_integer});
  ops.push_back({"QLinearConv", 8, 9, infer_qlinear_conv, run_qlinear_conv});
}

}  // namespace svp::kernels::detail
