// Unary element-wise ops: Relu, LeakyRelu, Sigmoid, Tanh, HardSigmoid, HardSwish, Clip.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/reference/ops.h"
#include "kernels/reference/typed.h"

namespace svp::kernels::detail {
namespace {


// Same shape; the float attributes are read here too so a malformed one fails at build time.
template <const char* const* kNames, std::size_t kCount>
Result<std::vector<Shape>> infer_same_float_attrs(const InferCtx& c) {
  for (std::size_t i = 0; i < kCount; ++i) {
    KN_ASSIGN(double v, c.attr().f(kNames[i], 0.0));
    (void)v;
  }
  return std::vector<Shape>{c.in[0]};
}
constexpr const char* kAlpha[] = {"alpha"};
constexpr const char* kAlphaBeta[] = {"alpha", "beta"};

template <typename F>
Status map_float(const RunCtx& c, F&& f) {
  SVP_RETURN_IF_ERROR(require_f32(c, {0}));
  const float* x = c.in[0].as<const float>();
  float* y = c.out[0].as<float>();
  const std::int64_t n = c.in[0].elements();
  for (std::int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
  return Status::Ok();
}

Status relu_float(const RunCtx& c) {
  return map_float(c, [](float v) { return v < 0.0f ? 0.0f : v; });
}

Status run_relu(const RunCtx& c) {
  if (is_quantized(c.in[0]) && same_encoding(c.in[0], c.out[0])) {
    // relu(s * (q - zp)) = s * (max(q, zp) - zp): clamp the integers at the zero point.
    const std::int64_t zp = zp_at(*c.in[0].quant, 0);
    const std::int64_t n = c.in[0].elements();
    for (std::int64_t i = 0; i < n; ++i) set_int(c.out[0], i, std::max(int_at(c.in[0], i), zp));
    return Status::Ok();
  }
  return run_via_float(c, relu_float);
}

Status leaky_relu_float(const RunCtx& c) {
  KN_ASSIGN(double alpha, c.attr().f("alpha", 0.01));
  const float a = static_cast<float>(alpha);
  return map_float(c, [a](float v) { return v < 0.0f ? a * v : v; });
}

Status sigmoid_float(const RunCtx& c) {
  return map_float(c, [](float v) { return 1.0f / (1.0f + std::exp(-v)); });
}

Status tanh_float(const RunCtx& c) {
  return map_float(c, [](float v) { return std::tanh(v); });
}

float clamp01(float v) { return std::min(1.0f, std::max(0.0f, v)); }

Status hard_sigmoid_float(const RunCtx& c) {
  KN_ASSIGN(double alpha, c.attr().f("alpha", 0.2));
  KN_ASSIGN(double beta, c.attr().f("beta", 0.5));
  const float a = static_cast<float>(alpha), b = static_cast<float>(beta);
  return map_float(c, [a, b](float v) { return clamp01(a * v + b); });
}

Status hard_swish_float(const RunCtx& c) {
  return map_float(c, [](float v) { return v * clamp01(v / 6.0f + 0.5f); });
}

// Clip bounds: inputs 1 and 2 (opset >= 11; scalars, absent = unbounded), else the
// attributes "min" and "max" (opset 6).
Result<std::pair<float, float>> clip_bounds(const RunCtx& c) {
  float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
  if (c.in.size() > 1) {
    for (std::size_t i = 1; i < c.in.size(); ++i) {
      if (!c.has(i)) continue;
      KN_ASSIGN(std::vector<float> v, read_floats(c.op, i == 1 ? "min" : "max", c.in[i]));
      (i == 1 ? lo : hi) = v[0];
    }
  } else {
    KN_ASSIGN(double a, c.attr().f("min", -std::numeric_limits<double>::infinity()));
    KN_ASSIGN(double b, c.attr().f("max", std::numeric_limits<double>::infinity()));
    lo = static_cast<float>(a);
    hi = static_cast<float>(b);
  }
  return std::make_pair(lo, hi);
}

Status clip_float(const RunCtx& c) {
  KN_ASSIGN(auto bounds, clip_bounds(c));
  const float lo = bounds.first, hi = bounds.second;
  // min(max(x, lo), hi): when lo > hi every value becomes hi (ONNX).
  return map_float(c, [lo, hi](float v) { return v != v ? v : std::min(std::max(v, lo), hi); });
}

Result<std::vector<Shape>> infer_clip(const InferCtx& c) {
  KN_ASSIGN(double lo, c.attr().f("min", 0.0));
  KN_ASSIGN(double hi, c.attr().f("max", 0.0));
  (void)lo;
  (void)hi;
  for (std::size_t i = 1; i < c.in.size(); ++i) {
    if (c.has(i) && numel(c.in[i]) != 1) {
      return Invalid(c.op, "input {} ({}) must be a scalar, got shape {}", i, i == 1 ? "min" : "max",
                     shape_str(c.in[i]));
    }
  }
  return std::vector<Shape>{c.in[0]};
}

Status run_leaky_relu(const RunCtx& c) { return run_unary_via_float(c, leaky_relu_float); }
Status run_sigmoid(const RunCtx& c) { return run_unary_via_float(c, sigmoid_float); }
Status run_tanh(const RunCtx& c) { return run_unary_via_float(c, tanh_float); }
Status run_hard_sigmoid(const RunCtx& c) { return run_unary_via_float(c, hard_sigmoid_float); }
Status run_hard_swish(const RunCtx& c) { return run_unary_via_float(c, hard_swish_float); }
// Unquantized tensors of any numeric type clamp in their own type (the bounds, inputs of
// the same type or the float attributes, saturated to it).
Status clip_typed(const RunCtx& c) {
  const TensorView &x = c.in[0], &y = c.out[0];
  if (x.dtype != y.dtype) return BadType(c.op, "input is {} but the output is {}", type_desc(x), type_desc(y));
  double lo = -std::numeric_limits<double>::infinity(), hi = std::numeric_limits<double>::infinity();
  if (c.in.size() > 1) {
    for (std::size_t i = 1; i < c.in.size(); ++i) {
      if (!c.has(i)) continue;
      if (c.in[i].dtype != x.dtype) {
        return BadType(c.op, "input {} is {} but input 0 is {}", i, type_desc(c.in[i]), type_desc(x));
      }
      (i == 1 ? lo : hi) = value_at(c.in[i], 0);
    }
  } else {
    KN_ASSIGN(lo, c.attr().f("min", lo));
    KN_ASSIGN(hi, c.attr().f("max", hi));
  }
  const bool ok = visit_types<kNumericTypes>(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    using C = calc_t<T>;
    const C l = load(from_double<T>(lo)), h = load(from_double<T>(hi));
    const T* xs = x.as<const T>();
    T* ys = y.as<T>();
    for (std::int64_t i = 0; i < x.elements(); ++i) {
      const C v = load(xs[i]);
      ys[i] = is_nan(v) ? xs[i] : store<T>(std::min(std::max(v, l), h));
    }
  });
  if (!ok) return bad_type(c.op, "input 0", x, kNumericTypes);
  return Status::Ok();
}

Status run_clip(const RunCtx& c) {
  for (const TensorView& t : c.in) {
    if (has_quant(t)) return run_via_float(c, clip_float);
  }
  if (has_quant(c.out[0])) return run_via_float(c, clip_float);
  return clip_typed(c);
}

}  // namespace

void add_eltwise_ops(std::vector<OpDef>& ops) {
  ops.push_back({"Relu", 1, 1, infer_same, run_relu});
  ops.push_back({"LeakyRelu", 1, 1, infer_same_float_attrs<kAlpha, 1>, run_leaky_relu});
  ops.push_back({"Sigmoid", 1, 1, infer_same, run_sigmoid});
  ops.push_back({"Tanh", 1, 1, infer_same, run_tanh});
  ops.push_back({"HardSigmoid", 1, 1, infer_same_float_attrs<kAlphaBeta, 2>, run_hard_sigmoid});
  ops.push_back({"HardSwish", 1, 1, infer_same, run_hard_swish});
  ops.push_back({"Clip", 1, 3, infer_clip, run_clip});
}

}  // namespace svp::kernels::detail
