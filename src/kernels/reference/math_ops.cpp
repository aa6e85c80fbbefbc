// Sqrt and Cast between the IR's numeric types (Pow is with the broadcasting binary ops).
// Sqrt computes in float32 like every float op (quantized tensors through the generic path).
// Cast: float → integer truncates toward zero and saturates at the type's range (ONNX
// leaves out-of-range values undefined; saturating is what hardware converters do);
// integer → integer wraps as a C conversion does, like numpy's astype.
#include <cmath>
#include <limits>

#include "kernels/reference/ops.h"

namespace svp::kernels::detail {
namespace {

Result<std::vector<Shape>> infer_same(const InferCtx& c) { return std::vector<Shape>{c.in[0]}; }

Status sqrt_float(const RunCtx& c) {
  SVP_RETURN_IF_ERROR(require_f32(c, {0}));
  const float* x = c.in[0].as<const float>();
  float* y = c.out[0].as<float>();
  const std::int64_t n = c.in[0].elements();
  for (std::int64_t i = 0; i < n; ++i) y[i] = std::sqrt(x[i]);
  return Status::Ok();
}
Status run_sqrt(const RunCtx& c) { return run_via_float(c, sqrt_float); }

bool is_float(DType t) { return t == DType::kFloat32; }

// [min, max] of an integer type.
std::pair<std::int64_t, std::int64_t> int_range(DType t) {
  switch (t) {
    case DType::kInt8: return {-128, 127};
    case DType::kUint8: return {0, 255};
    case DType::kInt16: return {-32768, 32767};
    case DType::kUint16: return {0, 65535};
    case DType::kInt32: return {std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()};
    case DType::kUint32: return {0, std::numeric_limits<std::uint32_t>::max()};
    default: return {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()};
  }
}

// Element i of an integer tensor of any width (C conversion: wraps).
void set_any_int(const TensorView& t, std::int64_t i, std::int64_t v) {
  switch (t.dtype) {
    case DType::kInt8: t.as<std::int8_t>()[i] = static_cast<std::int8_t>(v); break;
    case DType::kUint8: t.as<std::uint8_t>()[i] = static_cast<std::uint8_t>(v); break;
    case DType::kInt16: t.as<std::int16_t>()[i] = static_cast<std::int16_t>(v); break;
    case DType::kUint16: t.as<std::uint16_t>()[i] = static_cast<std::uint16_t>(v); break;
    case DType::kInt32: t.as<std::int32_t>()[i] = static_cast<std::int32_t>(v); break;
    case DType::kUint32: t.as<std::uint32_t>()[i] = static_cast<std::uint32_t>(v); break;
    default: t.as<std::int64_t>()[i] = v; break;
  }
}
bool is_int(DType t) {
  return t == DType::kInt8 || t == DType::kUint8 || t == DType::kInt16 || t == DType::kUint16 || t == DType::kInt32 ||
         t == DType::kUint32 || t == DType::kInt64;
}

// The output type is the model's choice (the output view); "to" must agree with it when given.
Status run_cast(const RunCtx& c) {
  const TensorView& x = c.in[0];
  const TensorView& y = c.out[0];
  if (has_quant(x) || has_quant(y)) return BadType(c.op, "Cast of quantized tensors is not supported");
  if (!(is_float(x.dtype) || is_int(x.dtype)) || !(is_float(y.dtype) || is_int(y.dtype))) {
    return BadType(c.op, "Cast from {} to {} is not supported (float32 and integer types)", type_desc(x),
                   type_desc(y));
  }
  const std::int64_t n = x.elements();
  for (std::int64_t i = 0; i < n; ++i) {
    if (is_float(x.dtype) && is_float(y.dtype)) {
      y.as<float>()[i] = x.as<const float>()[i];
    } else if (is_int(x.dtype) && is_float(y.dtype)) {
      y.as<float>()[i] = static_cast<float>(int_at(x, i));
    } else if (is_float(x.dtype)) {
      const double v = std::trunc(static_cast<double>(x.as<const float>()[i]));
      const auto [lo, hi] = int_range(y.dtype);
      // 2^63 is not an int64: saturate through the comparison, not the conversion.
      std::int64_t q = 0;
      if (std::isnan(v)) {
        q = 0;
      } else if (v <= static_cast<double>(lo)) {
        q = lo;
      } else if (v >= static_cast<double>(hi)) {
        q = hi;
      } else {
        q = static_cast<std::int64_t>(v);
      }
      set_any_int(y, i, q);
    } else {
      set_any_int(y, i, int_at(x, i));
    }
  }
  return Status::Ok();
}

}  // namespace

void add_math_ops(std::vector<OpDef>& ops) {
  ops.push_back({"Sqrt", 1, 1, infer_same, run_sqrt});
  ops.push_back({"Cast", 1, 1, infer_same, run_cast});
}

}  // namespace svp::kernels::detail
