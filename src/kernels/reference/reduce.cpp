// ReduceMean, ReduceMax (axes as attribute (opset 13) or input 1 (opset 18), keepdims,
// noop_with_empty_axes) and ArgMax (axis, keepdims, select_last_index).
#include <limits>

#include "kernels/reference/ops.h"

namespace svp::kernels::detail {
namespace {

struct ReduceSetup {
  std::vector<bool> reduced;  // per input dim
  Shape kept;                 // output shape with reduced dims kept as 1
  Shape out;
};

Result<ReduceSetup> reduce_setup(const InferCtx& c) {
  const Shape& in = c.in[0];
  const std::int64_t r = static_cast<std::int64_t>(in.size());
  KN_ASSIGN(bool keepdims, c.attr().flag("keepdims", true));
  KN_ASSIGN(bool noop, c.attr().flag("noop_with_empty_axes", false));
  std::vector<std::int64_t> raw;
  if (c.has(1)) {
    KN_ASSIGN(const TensorView* t, c.need_value(1, "axes"));
    KN_ASSIGN(raw, read_ints(c.op, "axes", *t));
  } else {
    KN_ASSIGN(raw, c.attr().ints("axes", {}));
  }
  ReduceSetup s;
  s.reduced.assign(in.size(), false);
  if (raw.empty()) {
    if (!noop) s.reduced.assign(in.size(), true);
  } else {
    KN_ASSIGN(std::vector<std::int64_t> axes, norm_axes(c.op, "axes", raw, r));
    for (std::int64_t a : axes) s.reduced[static_cast<std::size_t>(a)] = true;
  }
  for (std::size_t d = 0; d < in.size(); ++d) {
    if (s.reduced[d] && in[d] == 0)
      return Invalid(c.op, "cannot reduce the empty dimension {} of {}", d, shape_str(in));
    s.kept.push_back(s.reduced[d] ? 1 : in[d]);
    if (!s.reduced[d] || keepdims) s.out.push_back(s.kept.back());
  }
  return s;
}

Result<std::vector<Shape>> infer_reduce(const InferCtx& c) {
  KN_ASSIGN(ReduceSetup s, reduce_setup(c));
  return std::vector<Shape>{s.out};
}

// Visits every input element with the offset of the output element it reduces into.
template <typename F>
void for_each_reduced(const Shape& in, const ReduceSetup& s, F&& f) {
  const std::vector<std::int64_t> si = strides_of(in);
  std::vector<std::int64_t> so = strides_of(s.kept);
  for (std::size_t d = 0; d < in.size(); ++d) {
    if (s.reduced[d]) so[d] = 0;
  }
  for_each_row<2>(in, {&si, &so}, {0, 0},
                  [&](const std::array<std::int64_t, 2>& off, std::int64_t n, const std::array<std::int64_t, 2>& st) {
                    for (std::int64_t i = 0; i < n; ++i) f(off[0] + i * st[0], off[1] + i * st[1]);
                  });
}

// Mean: sum in double, divided by the number of reduced elements.
Status reduce_mean_float(const RunCtx& c) {
  SVP_RETURN_IF_ERROR(require_f32(c, {0}));
  KN_ASSIGN(ReduceSetup s, with_infer_ctx(c, reduce_setup));
  const std::int64_t n_out = numel(s.kept);
  const std::int64_t count = n_out > 0 ? c.in[0].elements() / n_out : 1;
  std::vector<double> sum(static_cast<std::size_t>(n_out), 0.0);
  const float* x = c.in[0].as<const float>();
  for_each_reduced(c.in[0].dims, s, [&](std::int64_t i, std::int64_t o) { sum[static_cast<std::size_t>(o)] += x[i]; });
  float* y = c.out[0].as<float>();
  for (std::int64_t o = 0; o < n_out; ++o) y[o] = static_cast<float>(sum[static_cast<std::size_t>(o)] / count);
  return Status::Ok();
}

// Max: NaN propagates.
Status reduce_max_float(const RunCtx& c) {
  SVP_RETURN_IF_ERROR(require_f32(c, {0}));
  KN_ASSIGN(ReduceSetup s, with_infer_ctx(c, reduce_setup));
  float* y = c.out[0].as<float>();
  const std::int64_t n_out = numel(s.kept);
  for (std::int64_t o = 0; o < n_out; ++o) y[o] = -std::numeric_limits<float>::infinity();
  const float* x = c.in[0].as<const float>();
  for_each_reduced(c.in[0].dims, s, [&](std::int64_t i, std::int64_t o) {
    if (x[i] > y[o] || x[i] != x[i]) y[o] = x[i];
  });
  return Status::Ok();
}

Status run_reduce_mean(const RunCtx& c) { return run_via_float(c, reduce_mean_float); }

Status run_reduce_max(const RunCtx& c) {
  if (is_quantized(c.in[0]) && same_encoding(c.in[0], c.out[0])) {
    // Max commutes with a shared monotonic dequantization.
    KN_ASSIGN(ReduceSetup s, with_infer_ctx(c, reduce_setup));
    std::vector<std::int64_t> m(static_cast<std::size_t>(numel(s.kept)), std::numeric_limits<std::int64_t>::min());
    for_each_reduced(c.in[0].dims, s, [&](std::int64_t i, std::int64_t o) {
      m[static_cast<std::size_t>(o)] = std::max(m[static_cast<std::size_t>(o)], int_at(c.in[0], i));
    });
    for (std::size_t o = 0; o < m.size(); ++o) set_int(c.out[0], static_cast<std::int64_t>(o), m[o]);
    return Status::Ok();
  }
  return run_via_float(c, reduce_max_float);
}

// ---------------------------------------------------------------------------
// ArgMax

struct ArgMaxSetup {
  std::int64_t axis = 0, outer = 1, len = 0, inner = 1;
  bool last = false;
  Shape out;
};

Result<ArgMaxSetup> argmax_setup(const InferCtx& c) {
  const Shape& in = c.in[0];
  ArgMaxSetup s;
  KN_ASSIGN(std::int64_t axis, c.attr().i("axis", 0));
  KN_ASSIGN(s.axis, norm_axis(c.op, "attribute \"axis\"", axis, static_cast<std::int64_t>(in.size())));
  KN_ASSIGN(bool keepdims, c.attr().flag("keepdims", true));
  KN_ASSIGN(s.last, c.attr().flag("select_last_index", false));
  const std::size_t ax = static_cast<std::size_t>(s.axis);
  s.len = in[ax];
  if (s.len == 0) return Invalid(c.op, "cannot take the argmax of the empty dimension {}", s.axis);
  for (std::size_t d = 0; d < in.size(); ++d) {
    if (d < ax) s.outer *= in[d];
    if (d > ax) s.inner *= in[d];
    if (d != ax) {
      s.out.push_back(in[d]);
    } else if (keepdims) {
      s.out.push_back(1);
    }
  }
  return s;
}

Result<std::vector<Shape>> infer_argmax(const InferCtx& c) {
  KN_ASSIGN(ArgMaxSetup s, argmax_setup(c));
  return std::vector<Shape>{s.out};
}

// The first (or with select_last_index the last) index of the maximum, NaN values
// skipped (an all-NaN slice gives index 0, or the last index with select_last_index).
Status run_argmax(const RunCtx& c) {
  if (c.in[0].dtype == DType::kFloat32 || is_quantized(c.in[0])) {
    // The output is an index tensor: dequantize the input only.
    std::vector<TensorView> in = c.in;
    OwnedTensor tmp;
    if (is_quantized(c.in[0])) {
      tmp.reset(DType::kFloat32, c.in[0].dims);
      dequantize(c.in[0], tmp.data<float>());
      in[0] = tmp.view();
    }
    const RunCtx fc{c.op, c.attrs, in, c.out};
    const TensorView& y = c.out[0];
    if (y.dtype != DType::kInt64 && y.dtype != DType::kInt32) {
      return BadType(c.op, "output must be int64 (or int32), got {}", type_desc(y));
    }
    KN_ASSIGN(ArgMaxSetup s, with_infer_ctx(fc, argmax_setup));
    const float* x = in[0].as<const float>();
    for (std::int64_t o = 0; o < s.outer; ++o) {
      for (std::int64_t i2 = 0; i2 < s.inner; ++i2) {
        const float* xp = x + o * s.len * s.inner + i2;
        std::int64_t best = -1;
        for (std::int64_t i = 0; i < s.len; ++i) {
          const float v = xp[i * s.inner];
          if (v != v) continue;
          if (best < 0 || v > xp[best * s.inner] || (s.last && v == xp[best * s.inner])) best = i;
        }
        set_int(y, o * s.inner + i2, best < 0 ? (s.last ? s.len - 1 : 0) : best);
      }
    }
    return Status::Ok();
  }
  return BadType(c.op,
                 "unsupported data type {} for input 0 (expected float32, or int8/uint8 with quantization "
                 "parameters)",
                 type_desc(c.in[0]));
}

}  // namespace

void add_reduce_ops(std::vector<OpDef>& ops) {
  ops.push_back({"ReduceMean", 1, 2, infer_reduce, run_reduce_mean});
  ops.push_back({"ReduceMax", 1, 2, infer_reduce, run_reduce_max});
  ops.push_back({"ArgMax", 1, 1, infer_argmax, run_argmax});
}

}  // namespace svp::kernels::detail
