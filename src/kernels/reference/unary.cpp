// Element-wise ops of one input, one template for all: the math functions (Exp, Log, the
// trigonometric and hyperbolic ones, Erf, rounding), the sign ops (Abs, Neg, Sign), the
// parametrised activations (Elu, Selu, Celu, ThresholdedRelu, Shrink, Softplus, Softsign),
// the predicates (IsNaN, IsInf → bool), Not and Identity. Computed in the input's own
// precision (float16 in float); quantized tensors through the generic int8 path.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "kernels/reference/ops.h"
#include "kernels/reference/typed.h"

namespace svp::kernels::detail {
namespace {

struct AttrSpec {
  const char* name;
  double def;
};

// Op structs: kTypes, kAttrs (float attributes, read into p[] in order) and f(x, p) on the
// computed type C (float for float32/float16, double for float64, the integer itself).
struct NoAttrs {
  static constexpr std::array<AttrSpec, 0> kAttrs{};
};

#define SVP_FLOAT_FN(Name, expr)                    \
  struct Name : NoAttrs {                           \
    static constexpr unsigned kTypes = kFloatTypes; \
    template <typename C>                           \
    C operator()(C x, const double*) const {        \
      return expr;                                  \
    }                                               \
  }
SVP_FLOAT_FN(ExpOp, std::exp(x));
SVP_FLOAT_FN(LogOp, std::log(x));
SVP_FLOAT_FN(SinOp, std::sin(x));
SVP_FLOAT_FN(CosOp, std::cos(x));
SVP_FLOAT_FN(TanOp, std::tan(x));
SVP_FLOAT_FN(AsinOp, std::asin(x));
SVP_FLOAT_FN(AcosOp, std::acos(x));
SVP_FLOAT_FN(AtanOp, std::atan(x));
SVP_FLOAT_FN(SinhOp, std::sinh(x));
SVP_FLOAT_FN(CoshOp, std::cosh(x));
SVP_FLOAT_FN(AsinhOp, std::asinh(x));
SVP_FLOAT_FN(AcoshOp, std::acosh(x));
SVP_FLOAT_FN(AtanhOp, std::atanh(x));
SVP_FLOAT_FN(ErfOp, std::erf(x));
SVP_FLOAT_FN(CeilOp, std::ceil(x));
SVP_FLOAT_FN(FloorOp, std::floor(x));
SVP_FLOAT_FN(RoundOp, std::nearbyint(x));  // halves to even under the default rounding mode
SVP_FLOAT_FN(ReciprocalOp, C(1) / x);
SVP_FLOAT_FN(SoftplusOp, x > C(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)));
SVP_FLOAT_FN(SoftsignOp, x / (C(1) + std::fabs(x)));
#undef SVP_FLOAT_FN

struct AbsOp : NoAttrs {
  static constexpr unsigned kTypes = kNumericTypes;
  template <typename C>
  C operator()(C x, const double*) const {
    if constexpr (std::is_unsigned_v<C>) {
      return x;
    } else if constexpr (std::is_integral_v<C>) {
      using U = std::make_unsigned_t<C>;
      return x < 0 ? static_cast<C>(U{0} - static_cast<U>(x)) : x;  // |MIN| wraps to MIN
    } else {
      return std::fabs(x);
    }
  }
};
struct NegOp : NoAttrs {
  static constexpr unsigned kTypes = kFloatTypes | kSignedTypes;
  template <typename C>
  C operator()(C x, const double*) const {
    if constexpr (std::is_integral_v<C>) {
      using U = std::make_unsigned_t<C>;
      return static_cast<C>(U{0} - static_cast<U>(x));
    } else {
      return -x;
    }
  }
};
struct SignOp : NoAttrs {
  static constexpr unsigned kTypes = kNumericTypes;
  template <typename C>
  C operator()(C x, const double*) const {
    if constexpr (std::is_unsigned_v<C>) {
      return static_cast<C>(x > 0 ? 1 : 0);
    } else {
      if (is_nan(x)) return x;
      return static_cast<C>(x > C(0) ? 1 : (x < C(0) ? -1 : 0));
    }
  }
};
struct EluOp {
  static constexpr unsigned kTypes = kFloatTypes;
  static constexpr std::array<AttrSpec, 1> kAttrs{{{"alpha", 1.0}}};
  template <typename C>
  C operator()(C x, const double* p) const {
    return x < C(0) ? static_cast<C>(p[0] * std::expm1(static_cast<double>(x))) : x;
  }
};
struct CeluOp {
  static constexpr unsigned kTypes = kFloatTypes;
  static constexpr std::array<AttrSpec, 1> kAttrs{{{"alpha", 1.0}}};
  template <typename C>
  C operator()(C x, const double* p) const {
    const double v = static_cast<double>(x);
    return static_cast<C>(std::max(0.0, v) + std::min(0.0, p[0] * std::expm1(v / p[0])));
  }
};
struct SeluOp {
  static constexpr unsigned kTypes = kFloatTypes;
  // ONNX's defaults, the float32 values of the constants of Klambauer et al.
  static constexpr std::array<AttrSpec, 2> kAttrs{
      {{"alpha", 1.67326319217681884765625}, {"gamma", 1.05070102214813232421875}}};
  template <typename C>
  C operator()(C x, const double* p) const {
    const double v = static_cast<double>(x);
    return static_cast<C>(v > 0.0 ? p[1] * v : p[1] * p[0] * std::expm1(v));
  }
};
struct ThresholdedReluOp {
  static constexpr unsigned kTypes = kFloatTypes;
  static constexpr std::array<AttrSpec, 1> kAttrs{{{"alpha", 1.0}}};
  template <typename C>
  C operator()(C x, const double* p) const {
    return static_cast<double>(x) > p[0] ? x : C(0);
  }
};
struct ShrinkOp {
  static constexpr unsigned kTypes = kNumericTypes;
  static constexpr std::array<AttrSpec, 2> kAttrs{{{"bias", 0.0}, {"lambd", 0.5}}};
  template <typename C>
  C operator()(C x, const double* p) const {
    const double v = static_cast<double>(x);
    if (v < -p[1]) return from_double<C>(v + p[0]);
    if (v > p[1]) return from_double<C>(v - p[0]);
    return C(0);
  }
};

template <typename Op>
Result<std::vector<double>> read_params(const AttrReader& a) {
  std::vector<double> p;
  for (const AttrSpec& s : Op::kAttrs) {
    KN_ASSIGN(double v, a.f(s.name, s.def));
    p.push_back(v);
  }
  return p;
}

template <typename Op>
Result<std::vector<Shape>> infer_unary(const InferCtx& c) {
  KN_ASSIGN(std::vector<double> p, read_params<Op>(c.attr()));
  if constexpr (std::is_same_v<Op, CeluOp>) {
    if (p[0] == 0.0) return Invalid(c.op, "attribute \"alpha\" must not be 0");
  }
  return std::vector<Shape>{c.in[0]};
}

template <typename Op>
Status unary_typed(const RunCtx& c) {
  const TensorView &x = c.in[0], &y = c.out[0];
  if (x.dtype != y.dtype) return BadType(c.op, "input is {} but the output is {}", type_desc(x), type_desc(y));
  KN_ASSIGN(std::vector<double> p, read_params<Op>(c.attr()));
  const bool ok = visit_types<Op::kTypes>(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* xs = x.as<const T>();
    T* ys = y.as<T>();
    const Op op{};
    for (std::int64_t i = 0; i < x.elements(); ++i) ys[i] = store<T>(op(load(xs[i]), p.data()));
  });
  if (!ok) return bad_type(c.op, "input 0", x, Op::kTypes);
  return Status::Ok();
}

template <typename Op>
Status run_unary(const RunCtx& c) {
  // Each element from its own value: a per-tensor int8 tensor goes through a 256-entry table.
  if (has_quant(c.in[0]) || has_quant(c.out[0])) return run_unary_via_float(c, unary_typed<Op>);
  return unary_typed<Op>(c);
}


// IsNaN, IsInf (detect_negative, detect_positive): float input, bool output.
template <bool kInf>
Status run_predicate(const RunCtx& c) {
  const TensorView &x = c.in[0], &y = c.out[0];
  if (y.dtype != DType::kBool) return BadType(c.op, "output must be bool, got {}", type_desc(y));
  KN_ASSIGN(bool neg, c.attr().flag("detect_negative", true));
  KN_ASSIGN(bool pos, c.attr().flag("detect_positive", true));
  std::uint8_t* ys = y.as<std::uint8_t>();
  const bool ok = visit_types<kFloatTypes>(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* xs = x.as<const T>();
    for (std::int64_t i = 0; i < x.elements(); ++i) {
      const auto v = load(xs[i]);
      const bool hit = kInf ? (std::isinf(v) && ((v > 0 && pos) || (v < 0 && neg))) : std::isnan(v);
      ys[i] = hit ? 1 : 0;
    }
  });
  if (!ok) return bad_type(c.op, "input 0", x, kFloatTypes);
  return Status::Ok();
}

Status run_not(const RunCtx& c) {
  if (c.in[0].dtype != DType::kBool || c.out[0].dtype != DType::kBool) {
    return BadType(c.op, "input and output must be bool, got {} and {}", type_desc(c.in[0]), type_desc(c.out[0]));
  }
  const std::uint8_t* x = c.in[0].as<const std::uint8_t>();
  std::uint8_t* y = c.out[0].as<std::uint8_t>();
  for (std::int64_t i = 0; i < c.in[0].elements(); ++i) y[i] = x[i] != 0 ? 0 : 1;
  return Status::Ok();
}

Status run_identity(const RunCtx& c) {
  if (!same_encoding(c.in[0], c.out[0])) {
    return BadType(c.op, "input is {} but the output is {}", type_desc(c.in[0]), type_desc(c.out[0]));
  }
  if (c.in[0].bytes() > 0) std::memcpy(c.out[0].data, c.in[0].data, c.in[0].bytes());
  return Status::Ok();
}

template <typename Op>
OpDef unary(const char* name) {
  return {name, 1, 1, infer_unary<Op>, run_unary<Op>};
}

}  // namespace

void add_unary_ops(std::vector<OpDef>& ops) {
  ops.push_back(unary<ExpOp>("Exp"));
  ops.push_back(unary<LogOp>("Log"));
  ops.push_back(unary<SinOp>("Sin"));
  ops.push_back(unary<CosOp>("Cos"));
  ops.push_back(unary<TanOp>("Tan"));
  ops.push_back(unary<AsinOp>("Asin"));
  ops.push_back(unary<AcosOp>("Acos"));
  ops.push_back(unary<AtanOp>("Atan"));
  ops.push_back(unary<SinhOp>("Sinh"));
  ops.push_back(unary<CoshOp>("Cosh"));
  ops.push_back(unary<AsinhOp>("Asinh"));
  ops.push_back(unary<AcoshOp>("Acosh"));
  ops.push_back(unary<AtanhOp>("Atanh"));
  ops.push_back(unary<ErfOp>("Erf"));
  ops.push_back(unary<CeilOp>("Ceil"));
  ops.push_back(unary<FloorOp>("Floor"));
  ops.push_back(unary<RoundOp>("Round"));
  ops.push_back(unary<ReciprocalOp>("Reciprocal"));
  ops.push_back(unary<SoftplusOp>("Softplus"));
  ops.push_back(unary<SoftsignOp>("Softsign"));
  ops.push_back(unary<AbsOp>("Abs"));
  ops.push_back(unary<NegOp>("Neg"));
  ops.push_back(unary<SignOp>("Sign"));
  ops.push_back(unary<EluOp>("Elu"));
  ops.push_back(unary<CeluOp>("Celu"));
  ops.push_back(unary<SeluOp>("Selu"));
  ops.push_back(unary<ThresholdedReluOp>("ThresholdedRelu"));
  ops.push_back(unary<ShrinkOp>("Shrink"));
  ops.push_back({"IsNaN", 1, 1, infer_same, run_predicate<false>});
  ops.push_back({"IsInf", 1, 1, infer_same, run_predicate<true>});
  ops.push_back({"Not", 1, 1, infer_same, run_not});
  ops.push_back({"Identity", 1, 1, infer_same, run_identity});
}

}  // namespace svp::kernels::detail
