// The Reduce* ops (axes as attribute (opset 13) or input 1 (ReduceSum 13, the others 18),
// keepdims, noop_with_empty_axes) and ArgMax/ArgMin (axis, keepdims, select_last_index).
#include <cmath>
#include <limits>

#include "kernels/reference/ops.h"
#include "kernels/reference/typed.h"

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

// The reductions: an accumulator in double started at kInit, step(acc, x) per element and
// finish(acc, count) per output element. Max and Min propagate NaN.
struct SumR {
  static constexpr double kInit = 0.0;
  static double step(double a, double x) { return a + x; }
  static double finish(double a, double) { return a; }
};
struct MeanR : SumR {
  static double finish(double a, double n) { return a / n; }
};
struct MaxR {
  static constexpr double kInit = -std::numeric_limits<double>::infinity();
  static double step(double a, double x) { return (x > a || std::isnan(x)) && !std::isnan(a) ? x : a; }
  static double finish(double a, double) { return a; }
};
struct MinR {
  static constexpr double kInit = std::numeric_limits<double>::infinity();
  static double step(double a, double x) { return (x < a || std::isnan(x)) && !std::isnan(a) ? x : a; }
  static double finish(double a, double) { return a; }
};
struct ProdR {
  static constexpr double kInit = 1.0;
  static double step(double a, double x) { return a * x; }
  static double finish(double a, double) { return a; }
};
struct L1R : SumR {
  static double step(double a, double x) { return a + std::fabs(x); }
};
struct SumSquareR : SumR {
  static double step(double a, double x) { return a + x * x; }
};
struct L2R : SumSquareR {
  static double finish(double a, double) { return std::sqrt(a); }
};
struct LogSumR : SumR {
  static double finish(double a, double) { return std::log(a); }
};
struct LogSumExpR : SumR {
  static double step(double a, double x) { return a + std::exp(x); }
  static double finish(double a, double) { return std::log(a); }
};

// Every numeric type; integer results saturate (the accumulator is a double, so int64
// sums beyond 2^53 round).
template <typename R>
Status reduce_typed(const RunCtx& c) {
  const TensorView &x = c.in[0], &y = c.out[0];
  if (x.dtype != y.dtype) return BadType(c.op, "input is {} but the output is {}", type_desc(x), type_desc(y));
  KN_ASSIGN(ReduceSetup s, with_infer_ctx(c, reduce_setup));
  const std::int64_t n_out = numel(s.kept);
  const double count = n_out > 0 ? static_cast<double>(x.elements() / n_out) : 1.0;
  std::vector<double> acc(static_cast<std::size_t>(n_out), R::kInit);
  const bool ok = visit_types<kNumericTypes>(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* xs = x.as<const T>();
    for_each_reduced(x.dims, s, [&](std::int64_t i, std::int64_t o) {
      double& a = acc[static_cast<std::size_t>(o)];
      a = R::step(a, static_cast<double>(load(xs[i])));
    });
    T* ys = y.as<T>();
    for (std::int64_t o = 0; o < n_out; ++o) {
      const double v = R::finish(acc[static_cast<std::size_t>(o)], count);
      if constexpr (is_floating_v<T>) {
        ys[o] = store<T>(v);
      } else {
        ys[o] = from_double<T>(v);
      }
    }
  });
  if (!ok) return bad_type(c.op, "input 0", x, kNumericTypes);
  return Status::Ok();
}

template <typename R>
Status run_reduce(const RunCtx& c) {
  if (has_quant(c.in[0]) || has_quant(c.out[0])) return run_via_float(c, reduce_typed<R>);
  return reduce_typed<R>(c);
}

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
  return run_reduce<MaxR>(c);
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

// The first (or with select_last_index the last) index of the maximum (kMin: minimum),
// NaN values skipped (an all-NaN slice gives index 0, or the last index with
// select_last_index). Quantized inputs compare their dequantized values.
template <bool kMin>
Status run_arg(const RunCtx& c) {
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
  const bool ok = visit_types<kNumericTypes>(in[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* x = in[0].as<const T>();
    for (std::int64_t o = 0; o < s.outer; ++o) {
      for (std::int64_t i2 = 0; i2 < s.inner; ++i2) {
        const T* xp = x + o * s.len * s.inner + i2;
        std::int64_t best = -1;
        for (std::int64_t i = 0; i < s.len; ++i) {
          const auto v = load(xp[i * s.inner]);
          if (is_nan(v)) continue;
          const auto b = best < 0 ? v : load(xp[best * s.inner]);
          const bool better = kMin ? v < b : v > b;
          if (best < 0 || better || (s.last && v == b)) best = i;
        }
        set_int(y, o * s.inner + i2, best < 0 ? (s.last ? s.len - 1 : 0) : best);
      }
    }
  });
  if (!ok) return bad_type(c.op, "input 0", in[0], kNumericTypes);
  return Status::Ok();
}

}  // namespace

void add_reduce_ops(std::vector<OpDef>& ops) {
  ops.push_back({"ReduceMean", 1, 2, infer_reduce, run_reduce<MeanR>});
  ops.push_back({"ReduceMax", 1, 2, infer_reduce, run_reduce_max});
  ops.push_back({"ReduceMin", 1, 2, infer_reduce, run_reduce<MinR>});
  ops.push_back({"ReduceSum", 1, 2, infer_reduce, run_reduce<SumR>});
  ops.push_back({"ReduceProd", 1, 2, infer_reduce, run_reduce<ProdR>});
  ops.push_back({"ReduceL1", 1, 2, infer_reduce, run_reduce<L1R>});
  ops.push_back({"ReduceL2", 1, 2, infer_reduce, run_reduce<L2R>});
  ops.push_back({"ReduceSumSquare", 1, 2, infer_reduce, run_reduce<SumSquareR>});
  ops.push_back({"ReduceLogSum", 1, 2, infer_reduce, run_reduce<LogSumR>});
  ops.push_back({"ReduceLogSumExp", 1, 2, infer_reduce, run_reduce<LogSumExpR>});
  ops.push_back({"ArgMax", 1, 1, infer_argmax, run_arg<false>});
  ops.push_back({"ArgMin", 1, 1, infer_argmax, run_arg<true>});
}

}  // namespace svp::kernels::detail
