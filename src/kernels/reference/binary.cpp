// Element-wise ops of two or more inputs with numpy broadcasting, one template per kind:
//   arithmetic  Add Sub Mul Div Pow Mod BitShift, variadic Max Min Sum Mean;
//   comparison  Equal Greater Less GreaterOrEqual LessOrEqual (bool output);
//   logical     And Or Xor (bool);
// and PRelu (slope broadcast to X). Quantized tensors go through the generic int8 path
// (dequantize, compute in float, requantize). Integer arithmetic wraps like C unsigned
// arithmetic; division and Mod by zero give 0 (ONNX leaves them undefined; a trap would
// kill the process).
#include <cmath>
#include <string>
#include <type_traits>

#include "kernels/reference/ops.h"
#include "kernels/reference/typed.h"

namespace svp::kernels::detail {
namespace {

Result<std::vector<Shape>> infer_broadcast(const InferCtx& c) {
  Shape out = c.in[0];
  for (std::size_t i = 1; i < c.in.size(); ++i) {
    KN_ASSIGN(out, broadcast_shapes(c.op, out, c.in[i]));
  }
  return std::vector<Shape>{out};
}

// The slope's shape for broadcasting: a 1-D slope of C values that does not broadcast
// numpy-style to X (N, C, ...) is per channel, as opset-6 exporters (PyTorch) wrote it.
Shape prelu_slope_dims(const Shape& x, const Shape& slope) {
  if (slope.size() == 1 && x.size() > 2 && slope[0] == x[1] && slope[0] != x.back() && slope[0] != 1) {
    Shape s(x.size() - 1, 1);
    s[0] = slope[0];
    return s;
  }
  return slope;
}

Result<std::vector<Shape>> infer_prelu(const InferCtx& c) {
  KN_ASSIGN(Shape out, broadcast_shapes(c.op, c.in[0], prelu_slope_dims(c.in[0], c.in[1])));
  if (out != c.in[0]) {
    return Invalid(c.op, "slope shape {} does not broadcast to the input shape {}", shape_str(c.in[1]),
                   shape_str(c.in[0]));
  }
  return std::vector<Shape>{out};
}

bool any_quantized(const RunCtx& c) {
  for (const TensorView& t : c.in) {
    if (has_quant(t)) return true;
  }
  for (const TensorView& t : c.out) {
    if (has_quant(t)) return true;
  }
  return false;
}

// Integer arithmetic in the unsigned type of the same width: defined wrap-around.
template <typename T, typename F>
T wrapping(T a, T b, F f) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(f(static_cast<U>(a), static_cast<U>(b)));
}

// Each kind: the accepted types and f(a, b) on stored values (result of the output type).
struct AddOp {
  static constexpr unsigned kTypes = kNumericTypes;
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      return wrapping(a, b, [](auto x, auto y) { return x + y; });
    } else {
      return store<T>(load(a) + load(b));
    }
  }
};
struct SubOp {
  static constexpr unsigned kTypes = kNumericTypes;
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      return wrapping(a, b, [](auto x, auto y) { return x - y; });
    } else {
      return store<T>(load(a) - load(b));
    }
  }
};
struct MulOp {
  static constexpr unsigned kTypes = kNumericTypes;
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      // Promote unsigned narrow types past int so the product cannot overflow a signed int.
      return wrapping(a, b, [](auto x, auto y) { return static_cast<std::uint64_t>(x) * static_cast<std::uint64_t>(y); });
    } else {
      return store<T>(load(a) * load(b));
    }
  }
};
struct DivOp {
  static constexpr unsigned kTypes = kNumericTypes;
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<T>) {
        if (b == -1) return wrapping(T{0}, a, [](auto x, auto y) { return x - y; });  // MIN / -1 traps
      }
      return static_cast<T>(a / b);
    } else {
      return store<T>(load(a) / load(b));
    }
  }
};
// Mod: fmod = 0 takes the sign of the divisor (integers only), fmod = 1 the dividend's.
struct ModOp {
  static constexpr unsigned kTypes = kNumericTypes;
  bool fmod = false;
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<T>) {
        if (b == -1) return 0;
        const T r = static_cast<T>(a % b);
        if (!fmod && r != 0 && ((r < 0) != (b < 0))) return static_cast<T>(r + b);
        return r;
      } else {
        return static_cast<T>(a % b);
      }
    } else {
      return store<T>(std::fmod(load(a), load(b)));
    }
  }
};
struct MaxOp {
  static constexpr unsigned kTypes = kNumericTypes;
  template <typename T>
  T operator()(T a, T b) const {
    const auto x = load(a), y = load(b);
    if (is_nan(x)) return a;  // NaN propagates
    return is_nan(y) || y > x ? b : a;
  }
};
struct MinOp {
  static constexpr unsigned kTypes = kNumericTypes;
  template <typename T>
  T operator()(T a, T b) const {
    const auto x = load(a), y = load(b);
    if (is_nan(x)) return a;
    return is_nan(y) || y < x ? b : a;
  }
};
struct BitShiftOp {
  static constexpr unsigned kTypes = kUnsignedTypes;
  bool left = true;
  template <typename T>
  T operator()(T a, T b) const {
    if (b >= static_cast<T>(sizeof(T) * 8)) return 0;  // a C shift by the width or more is undefined
    const auto v = static_cast<std::uint64_t>(a);
    return static_cast<T>(left ? v << b : v >> b);
  }
};

Status check_same_types(const RunCtx& c, std::size_t n_in) {
  for (std::size_t i = 0; i < n_in; ++i) {
    if (c.in[i].dtype != c.out[0].dtype) {
      return BadType(c.op, "input {} is {} but the output is {} (the inputs and the output share one type)", i,
                     type_desc(c.in[i]), type_desc(c.out[0]));
    }
  }
  return Status::Ok();
}

// y = op(... op(op(x0, x1), x2) ...), every input broadcast to y.
template <typename Op>
Status fold_inputs(const RunCtx& c, const Op& op) {
  SVP_RETURN_IF_ERROR(check_same_types(c, c.in.size()));
  const TensorView& y = c.out[0];
  bool ok = visit_types<Op::kTypes>(y.dtype, [&](auto tag) {
    using T = decltype(tag);
    if (c.in.size() == 1) {
      broadcast_copy(c.in[0], y);
      return;
    }
    broadcast_apply<T, T, T>(c.in[0], c.in[1], y, op);
    for (std::size_t i = 2; i < c.in.size(); ++i) broadcast_apply<T, T, T>(y, c.in[i], y, op);
  });
  if (!ok) return bad_type(c.op, "the inputs", y, Op::kTypes);
  return Status::Ok();
}

template <typename Op>
Status run_fold(const RunCtx& c) {
  return fold_inputs(c, Op{});
}

Status run_mod(const RunCtx& c) {
  KN_ASSIGN(bool fmod, c.attr().flag("fmod", false));
  if (!fmod && (c.out[0].dtype == DType::kFloat32 || c.out[0].dtype == DType::kFloat64 ||
                c.out[0].dtype == DType::kFloat16)) {
    return Invalid(c.op, "attribute \"fmod\" must be 1 for floating-point inputs");
  }
  return fold_inputs(c, ModOp{fmod});
}

Status run_bitshift(const RunCtx& c) {
  KN_ASSIGN(std::string dir, c.attr().s("direction", ""));
  if (dir != "LEFT" && dir != "RIGHT") {
    return Malformed(c.op, "attribute \"direction\" must be \"LEFT\" or \"RIGHT\", got \"{}\"", dir);
  }
  return fold_inputs(c, BitShiftOp{dir == "LEFT"});
}

Status run_mean(const RunCtx& c) {
  const TensorView& y = c.out[0];
  if (!visit_types<kFloatTypes>(y.dtype, [](auto) {})) return bad_type(c.op, "the inputs", y, kFloatTypes);
  SVP_RETURN_IF_ERROR(fold_inputs(c, AddOp{}));
  const double n = static_cast<double>(c.in.size());
  visit_types<kFloatTypes>(y.dtype, [&](auto tag) {
    using T = decltype(tag);
    T* p = y.as<T>();
    for (std::int64_t i = 0; i < y.elements(); ++i) p[i] = store<T>(static_cast<double>(load(p[i])) / n);
  });
  return Status::Ok();
}

// The quantized-aware entry of an arithmetic op: dequantized through float when any
// tensor carries quantization parameters.
template <Status (*Run)(const RunCtx&)>
Status run_arith(const RunCtx& c) {
  return any_quantized(c) ? run_via_float(c, Run) : Run(c);
}

// Pow: the exponent may have another type than the base; computed in double, the result
// converted to the base's type (saturating for integers). The exponent is widened to double
// first, so the broadcast loop is instantiated per base type only (per base and exponent
// type pair it was a quarter of this library's reference-kernel code and compile time).
Status run_pow_typed(const RunCtx& c) {
  const TensorView &a = c.in[0], &b = c.in[1], &y = c.out[0];
  if (a.dtype != y.dtype) return BadType(c.op, "base is {} but the output is {}", type_desc(a), type_desc(y));
  if ((type_category(b.dtype) & kNumericTypes) == 0) {
    return bad_type(c.op, "the exponent", b, kNumericTypes);
  }
  std::vector<double> e(static_cast<std::size_t>(b.elements()));
  for (std::size_t i = 0; i < e.size(); ++i) e[i] = value_at(b, static_cast<std::int64_t>(i));
  const TensorView bd{DType::kFloat64, b.dims, e.data(), nullptr};
  const bool ok = visit_types<kNumericTypes>(y.dtype, [&](auto tag) {
    using T = decltype(tag);
    broadcast_apply<T, double, T>(a, bd, y, [](T x, double p) {
      const double r = std::pow(static_cast<double>(load(x)), p);
      if constexpr (is_floating_v<T>) {
        return store<T>(r);
      } else {
        return from_double<T>(r);
      }
    });
  });
  if (!ok) return bad_type(c.op, "the base", y, kNumericTypes);
  return Status::Ok();
}

// Comparisons: inputs of one type, a bool output.
template <typename Cmp>
Status run_compare(const RunCtx& c) {
  const TensorView &a = c.in[0], &b = c.in[1], &y = c.out[0];
  if (a.dtype != b.dtype) return BadType(c.op, "inputs of different types: {} and {}", type_desc(a), type_desc(b));
  if (y.dtype != DType::kBool) return BadType(c.op, "output must be bool, got {}", type_desc(y));
  if (has_quant(a) || has_quant(b)) {
    if (!same_encoding(a, b)) return BadType(c.op, "quantized inputs must share their scale and zero point");
  }
  const bool ok = visit_types<kAllTypes>(a.dtype, [&](auto tag) {
    using T = decltype(tag);
    broadcast_apply<T, T, std::uint8_t>(a, b, y, [](T x, T z) {
      return static_cast<std::uint8_t>(Cmp{}(load(x), load(z)) ? 1 : 0);
    });
  });
  if (!ok) return bad_type(c.op, "the inputs", a, kAllTypes);
  return Status::Ok();
}
struct CmpEq {
  template <typename C>
  bool operator()(C a, C b) const { return a == b; }
};
struct CmpGt {
  template <typename C>
  bool operator()(C a, C b) const { return a > b; }
};
struct CmpLt {
  template <typename C>
  bool operator()(C a, C b) const { return a < b; }
};
struct CmpGe {
  template <typename C>
  bool operator()(C a, C b) const { return a >= b; }
};
struct CmpLe {
  template <typename C>
  bool operator()(C a, C b) const { return a <= b; }
};

template <typename Logic>
Status run_logical(const RunCtx& c) {
  for (const TensorView* t : {&c.in[0], &c.in[1], &c.out[0]}) {
    if (t->dtype != DType::kBool) return BadType(c.op, "inputs and output must be bool, got {}", type_desc(*t));
  }
  broadcast_apply<std::uint8_t, std::uint8_t, std::uint8_t>(c.in[0], c.in[1], c.out[0], [](std::uint8_t a, std::uint8_t b) {
    return static_cast<std::uint8_t>(Logic{}(a != 0, b != 0) ? 1 : 0);
  });
  return Status::Ok();
}
struct LogicAnd {
  bool operator()(bool a, bool b) const { return a && b; }
};
struct LogicOr {
  bool operator()(bool a, bool b) const { return a || b; }
};
struct LogicXor {
  bool operator()(bool a, bool b) const { return a != b; }
};

Status prelu_float(const RunCtx& c) {
  SVP_RETURN_IF_ERROR(require_f32(c, {0, 1}));
  TensorView slope = c.in[1];
  slope.dims = prelu_slope_dims(c.in[0].dims, slope.dims);
  broadcast_apply<float, float, float>(c.in[0], slope, c.out[0],
                                       [](float x, float slope) { return x < 0.0f ? slope * x : x; });
  return Status::Ok();
}
Status run_prelu(const RunCtx& c) { return run_via_float(c, prelu_float); }

}  // namespace

void add_binary_ops(std::vector<OpDef>& ops) {
  ops.push_back({"Add", 2, 2, infer_broadcast, run_arith<run_fold<AddOp>>});
  ops.push_back({"Sub", 2, 2, infer_broadcast, run_arith<run_fold<SubOp>>});
  ops.push_back({"Mul", 2, 2, infer_broadcast, run_arith<run_fold<MulOp>>});
  ops.push_back({"Div", 2, 2, infer_broadcast, run_arith<run_fold<DivOp>>});
  ops.push_back({"Pow", 2, 2, infer_broadcast, run_arith<run_pow_typed>});
  ops.push_back({"Mod", 2, 2, infer_broadcast, run_arith<run_mod>});
  ops.push_back({"BitShift", 2, 2, infer_broadcast, run_bitshift});
  ops.push_back({"Max", 1, kVariadic, infer_broadcast, run_arith<run_fold<MaxOp>>});
  ops.push_back({"Min", 1, kVariadic, infer_broadcast, run_arith<run_fold<MinOp>>});
  ops.push_back({"Sum", 1, kVariadic, infer_broadcast, run_arith<run_fold<AddOp>>});
  ops.push_back({"Mean", 1, kVariadic, infer_broadcast, run_arith<run_mean>});
  ops.push_back({"Equal", 2, 2, infer_broadcast, run_compare<CmpEq>});
  ops.push_back({"Greater", 2, 2, infer_broadcast, run_compare<CmpGt>});
  ops.push_back({"Less", 2, 2, infer_broadcast, run_compare<CmpLt>});
  ops.push_back({"GreaterOrEqual", 2, 2, infer_broadcast, run_compare<CmpGe>});
  ops.push_back({"LessOrEqual", 2, 2, infer_broadcast, run_compare<CmpLe>});
  ops.push_back({"And", 2, 2, infer_broadcast, run_logical<LogicAnd>});
  ops.push_back({"Or", 2, 2, infer_broadcast, run_logical<LogicOr>});
  ops.push_back({"Xor", 2, 2, infer_broadcast, run_logical<LogicXor>});
  ops.push_back({"PRelu", 2, 2, infer_prelu, run_prelu});
}

}  // namespace svp::kernels::detail
