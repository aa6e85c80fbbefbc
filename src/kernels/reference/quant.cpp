// QuantizeLinear and DequantizeLinear (opset 13: per-tensor and per-axis), and
// DynamicQuantizeLinear.
#include <algorithm>

#include "kernels/reference/ops.h"

namespace svp::kernels::detail {
namespace {

// Scale / zero-point inputs (1 and 2): a single value (per-tensor) or a 1-D tensor with
// one value per index of `axis` (per-axis).
Result<std::vector<Shape>> infer_qdq(const InferCtx& c) {
  const Shape& x = c.in[0];
  KN_ASSIGN(std::int64_t block, c.attr().i("block_size", 0));
  if (block != 0) return Invalid(c.op, "blocked quantization (block_size) is not supported");
  if (c.has(1)) {
    const Shape& s = c.in[1];
    if (numel(s) != 1) {
      KN_ASSIGN(std::int64_t axis, c.attr().i("axis", 1));
      KN_ASSIGN(axis, norm_axis(c.op, "attribute \"axis\"", axis, static_cast<std::int64_t>(x.size())));
      if (s.size() != 1 || s[0] != x[static_cast<std::size_t>(axis)]) {
        return Invalid(c.op, "scale shape {} must be a scalar or [{}] (axis {} of {})", shape_str(s),
                       x[static_cast<std::size_t>(axis)], axis, shape_str(x));
      }
    }
    if (c.has(2) && c.in[2] != s && !(numel(c.in[2]) == 1 && numel(s) == 1)) {
      return Invalid(c.op, "zero point shape {} must match the scale shape {}", shape_str(c.in[2]), shape_str(s));
    }
  } else if (c.has(2)) {
    return Invalid(c.op, "a zero point is given without a scale");
  }
  return std::vector<Shape>{x};
}

struct QParams {
  std::vector<float> scale;
  std::vector<std::int32_t> zp;
  std::int64_t axis = -1;  // -1: per-tensor
};

// From inputs 1 and 2, or (when input 1 is absent) from `fallback`'s quantization.
Result<QParams> qparams(const RunCtx& c, const TensorView& fallback, DType int_type) {
  QParams p;
  const TensorView& x = c.in[0];
  if (c.has(1)) {
    const TensorView& s = c.in[1];
    if (s.dtype != DType::kFloat32) return BadType(c.op, "scale must be float32, got {}", type_desc(s));
    p.scale.assign(s.as<const float>(), s.as<const float>() + s.elements());
    for (float v : p.scale) {
      if (!(v > 0.0f) || !std::isfinite(v)) return Invalid(c.op, "scale {} must be positive and finite", v);
    }
    if (p.scale.size() > 1) {
      KN_ASSIGN(std::int64_t axis, c.attr().i("axis", 1));
      KN_ASSIGN(p.axis, norm_axis(c.op, "attribute \"axis\"", axis, static_cast<std::int64_t>(x.dims.size())));
    }
    if (c.has(2)) {
      const TensorView& z = c.in[2];
      if (z.dtype != int_type) {
        return BadType(c.op, "zero point type {} does not match {}", type_desc(z), model::dtype_name(int_type));
      }
      for (std::int64_t i = 0; i < z.elements(); ++i) p.zp.push_back(static_cast<std::int32_t>(int_at(z, i)));
    }
  } else if (has_quant(fallback)) {
    p.scale = fallback.quant->scale;
    p.zp = fallback.quant->zero_point;
    p.axis = quant_axis(fallback);
  } else {
    return Invalid(c.op, "needs a scale (input 1)");
  }
  if (p.zp.empty()) p.zp.assign(p.scale.size(), 0);
  if (int_type == DType::kInt32) {
    for (std::int32_t z : p.zp) {
      if (z != 0) return Invalid(c.op, "int32 values must have zero point 0");
    }
  }
  return p;
}

template <typename F>
void for_each_param(const TensorView& x, const QParams& p, F&& f) {
  const std::int64_t n = x.elements();
  if (p.axis < 0) {
    for (std::int64_t i = 0; i < n; ++i) f(i, p.scale[0], p.zp[0]);
    return;
  }
  std::int64_t inner = 1;
  for (std::size_t d = static_cast<std::size_t>(p.axis) + 1; d < x.dims.size(); ++d) inner *= x.dims[d];
  const std::int64_t ch = x.dims[static_cast<std::size_t>(p.axis)];
  for (std::int64_t i = 0; i < n; ++i) {
    const std::size_t k = static_cast<std::size_t>((i / inner) % ch);
    f(i, p.scale[k], p.zp[k]);
  }
}

// y = saturate(nearbyint(x / scale) + zero_point), x / scale in float, ties to even.
Status run_quantize(const RunCtx& c) {
  const TensorView& x = c.in[0];
  const TensorView& y = c.out[0];
  if (x.dtype != DType::kFloat32) return BadType(c.op, "input must be float32, got {}", type_desc(x));
  // int16 as ONNX opset 21 allows: A16W8's activations (--compile_mode=1, 6).
  if (!is_q8(y.dtype) && y.dtype != DType::kInt16) {
    return BadType(c.op, "output must be int8, uint8 or int16, got {}", type_desc(y));
  }
  KN_ASSIGN(QParams p, qparams(c, y, y.dtype));
  const std::int64_t lo = qmin(y.dtype), hi = qmax(y.dtype);
  for (std::int32_t z : p.zp) {
    if (z < lo || z > hi) return Invalid(c.op, "zero point {} is outside the {} range", z, model::dtype_name(y.dtype));
  }
  const float* xp = x.as<const float>();
  if (p.axis < 0) {
    if (y.dtype == DType::kInt8) {
      quantize_per_tensor(xp, x.elements(), p.scale[0], p.zp[0], y.as<std::int8_t>());
    } else if (y.dtype == DType::kInt16) {
      quantize_per_tensor(xp, x.elements(), p.scale[0], p.zp[0], y.as<std::int16_t>());
    } else {
      quantize_per_tensor(xp, x.elements(), p.scale[0], p.zp[0], y.as<std::uint8_t>());
    }
    return Status::Ok();
  }
  for_each_param(x, p,
                 [&](std::int64_t i, float s, std::int32_t z) { set_int(y, i, quantize_value(xp[i], s, z, lo, hi)); });
  return Status::Ok();
}

// y = (x - zero_point) * scale, in float.
Status run_dequantize(const RunCtx& c) {
  const TensorView& x = c.in[0];
  const TensorView& y = c.out[0];
  if (!is_q8(x.dtype) && x.dtype != DType::kInt16 && x.dtype != DType::kInt32) {
    return BadType(c.op, "input must be int8, uint8, int16 or int32, got {}", type_desc(x));
  }
  if (y.dtype != DType::kFloat32) return BadType(c.op, "output must be float32, got {}", type_desc(y));
  KN_ASSIGN(QParams p, qparams(c, x, x.dtype));
  float* yp = y.as<float>();
  if (p.axis < 0 && x.dtype == DType::kInt8) {
    dequantize_per_tensor(x.as<const std::int8_t>(), x.elements(), p.zp[0], p.scale[0], yp);
    return Status::Ok();
  }
  if (p.axis < 0 && x.dtype == DType::kUint8) {
    dequantize_per_tensor(x.as<const std::uint8_t>(), x.elements(), p.zp[0], p.scale[0], yp);
    return Status::Ok();
  }
  if (p.axis < 0 && x.dtype == DType::kInt16) {
    dequantize_per_tensor(x.as<const std::int16_t>(), x.elements(), p.zp[0], p.scale[0], yp);
    return Status::Ok();
  }
  for_each_param(x, p,
                 [&](std::int64_t i, float s, std::int32_t z) { yp[i] = static_cast<float>(int_at(x, i) - z) * s; });
  return Status::Ok();
}

// DynamicQuantizeLinear: uint8 with a scale and zero point from the data's range widened
// to include 0: scale = (max - min) / 255, zero point = saturate(round(-min / scale)), y =
// saturate(round(x / scale) + zero point), rounding halves to even.
Result<std::vector<Shape>> infer_dynamic_quantize(const InferCtx& c) {
  return std::vector<Shape>{c.in[0], Shape{}, Shape{}};
}

Status run_dynamic_quantize(const RunCtx& c) {
  SVP_RETURN_IF_ERROR(require_f32(RunCtx{c.op, c.attrs, c.in, {c.out[1]}}, {0}));
  for (std::size_t i : {std::size_t{0}, std::size_t{2}}) {
    if (c.out[i].dtype != DType::kUint8 || has_quant(c.out[i])) {
      return BadType(c.op, "output {} must be plain uint8, got {}", i, type_desc(c.out[i]));
    }
  }
  const float* x = c.in[0].as<const float>();
  const std::int64_t n = c.in[0].elements();
  float lo = 0.0f, hi = 0.0f;
  for (std::int64_t i = 0; i < n; ++i) {
    lo = std::min(lo, x[i]);
    hi = std::max(hi, x[i]);
  }
  const float scale = (hi - lo) / 255.0f;
  const std::int64_t zp = scale > 0.0f ? round_saturate(-lo / scale, 0, 0, 255) : 0;
  auto* y = c.out[0].as<std::uint8_t>();
  for (std::int64_t i = 0; i < n; ++i) {
    y[i] = static_cast<std::uint8_t>(scale > 0.0f ? round_saturate(x[i] / scale, static_cast<std::int32_t>(zp), 0, 255)
                                                  : zp);
  }
  c.out[1].as<float>()[0] = scale;
  c.out[2].as<std::uint8_t>()[0] = static_cast<std::uint8_t>(zp);
  return Status::Ok();
}

}  // namespace

void add_quant_ops(std::vector<OpDef>& ops) {
  ops.push_back({"QuantizeLinear", 1, 3, infer_qdq, run_quantize});
  ops.push_back({"DequantizeLinear", 1, 3, infer_qdq, run_dequantize});
  ops.push_back({"DynamicQuantizeLinear", 1, 1, infer_dynamic_quantize, run_dynamic_quantize});
}

}  // namespace svp::kernels::detail
