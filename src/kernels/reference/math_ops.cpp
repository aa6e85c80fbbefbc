// Sqrt and Cast between the IR's numeric types (Pow is with the broadcasting binary ops).
// Sqrt computes in float32 like every float op (quantized tensors through the generic path).
// Cast (and CastLike) between every numeric type and bool: float → integer truncates toward
// zero and saturates at the type's range (ONNX leaves out-of-range values undefined;
// saturating is what hardware converters do); integer → integer wraps as a C conversion
// does, like numpy's astype; to bool is "non-zero".
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/reference/ops.h"
#include "kernels/reference/typed.h"

namespace svp::kernels::detail {
namespace {


Status sqrt_float(const RunCtx& c) {
  SVP_RETURN_IF_ERROR(require_f32(c, {0}));
  const float* x = c.in[0].as<const float>();
  float* y = c.out[0].as<float>();
  const std::int64_t n = c.in[0].elements();
  for (std::int64_t i = 0; i < n; ++i) y[i] = std::sqrt(x[i]);
  return Status::Ok();
}
Status run_sqrt(const RunCtx& c) { return run_via_float(c, sqrt_float); }

// One element converted: to bool is "non-zero"; float → integer truncates and saturates
// (from_double); integer → integer wraps; anything → float converts (float16 rounds).
template <typename TO, typename FROM>
TO convert(FROM v) {
  const auto x = load(v);
  if constexpr (std::is_floating_point_v<calc_t<FROM>> && !is_floating_v<TO>) {
    return from_double<TO>(static_cast<double>(x));
  } else {
    return store<TO>(x);
  }
}

// The output type is the model's choice (the output view); "to" must agree with it when given.
// CastLike takes the type from its second input, which the model's output type carries too.
Status run_cast(const RunCtx& c) {
  const TensorView& x = c.in[0];
  const TensorView& y = c.out[0];
  if (has_quant(x) || has_quant(y)) return BadType(c.op, "Cast of quantized tensors is not supported");
  Status st = Status::Ok();
  const bool ok = visit_types<kAllTypes>(x.dtype, [&](auto tag_x) {
    using TX = decltype(tag_x);
    const bool ok_y = visit_types<kAllTypes>(y.dtype, [&](auto tag_y) {
      using TY = decltype(tag_y);
      const TX* xs = x.as<const TX>();
      TY* ys = y.as<TY>();
      const std::int64_t n = x.elements();
      if (y.dtype == DType::kBool) {
        for (std::int64_t i = 0; i < n; ++i) ys[i] = store<TY>(load(xs[i]) != calc_t<TX>(0) ? 1 : 0);
      } else {
        for (std::int64_t i = 0; i < n; ++i) ys[i] = convert<TY>(xs[i]);
      }
    });
    if (!ok_y) st = bad_type(c.op, "the output", y, kAllTypes);
  });
  if (!ok) return bad_type(c.op, "input 0", x, kAllTypes);
  return st;
}

}  // namespace

void add_math_ops(std::vector<OpDef>& ops) {
  ops.push_back({"Sqrt", 1, 1, infer_same, run_sqrt});
  ops.push_back({"Cast", 1, 1, infer_same, run_cast});
  ops.push_back({"CastLike", 2, 2, infer_same, run_cast});
}

}  // namespace svp::kernels::detail
