#include "kernels/reference/int_ops.h"

#include <limits>

namespace svp::kernels::detail {

bool int_path_applies(const TensorView& x, const TensorView& w, std::int64_t w_axis, const TensorView* bias,
                      const TensorView& y) {
  if (!is_quantized(x) || !is_per_tensor(x)) return false;
  if (!is_quantized(w)) return false;
  if (!is_per_tensor(w) && quant_axis(w) != w_axis) return false;
  if (!(y.dtype == DType::kFloat32 || (is_quantized(y) && is_per_tensor(y)))) return false;
  if (bias != nullptr && bias->dtype != DType::kInt32 && bias->dtype != DType::kFloat32) return false;
  return true;
}

Result<std::vector<std::int64_t>> bias_to_int(const char* op, const TensorView& b,
                                              const std::function<float(std::int64_t)>& bias_scale) {
  const std::int64_t n = b.elements();
  std::vector<std::int64_t> out(static_cast<std::size_t>(n));
  if (b.dtype == DType::kInt32) {
    const bool q = has_quant(b);
    std::vector<std::size_t> channel(static_cast<std::size_t>(n), 0);
    if (q && b.quant->scale.size() > 1) {
      // check_quant made the per-channel axis valid; find each element's channel.
      const std::int64_t axis = quant_axis(b);
      std::int64_t inner = 1;
      for (std::size_t d = static_cast<std::size_t>(axis) + 1; d < b.dims.size(); ++d) inner *= b.dims[d];
      const std::int64_t ch = b.dims[static_cast<std::size_t>(axis)];
      for (std::int64_t i = 0; i < n; ++i)
        channel[static_cast<std::size_t>(i)] = static_cast<std::size_t>((i / inner) % ch);
    }
    for (std::int64_t i = 0; i < n; ++i) {
      if (q) {
        const std::size_t c = channel[static_cast<std::size_t>(i)];
        if (zp_at(*b.quant, c) != 0) return Invalid(op, "the int32 bias must have zero point 0");
        const float want = bias_scale(i), got = scale_at(*b.quant, c);
        if (std::fabs(got - want) > 1e-3f * want) {
          return Invalid(op, "the int32 bias scale {} does not match input scale * weight scale = {}", got, want);
        }
      }
      out[static_cast<std::size_t>(i)] = b.as<const std::int32_t>()[i];
    }
    return out;
  }
  const float* v = b.as<const float>();
  for (std::int64_t i = 0; i < n; ++i) {
    out[static_cast<std::size_t>(i)] = round_saturate(v[i] / bias_scale(i), 0, std::numeric_limits<std::int32_t>::min(),
                                                      std::numeric_limits<std::int32_t>::max());
  }
  return out;
}

AccWriter::AccWriter(const TensorView& x, const std::function<float(std::int64_t)>& w_scale, std::int64_t channels,
                     const TensorView& y)
    : y_(y), to_float_(y.dtype == DType::kFloat32) {
  const float sx = x.quant->scale[0];
  for (std::int64_t c = 0; c < channels; ++c) {
    const float sw = w_scale(c);
    const float bs = sx * sw;
    bias_scale_.push_back(bs);
    scale_.push_back(to_float_ ? bs : requant_scale(sx, sw, y.quant->scale[0]));
  }
  if (!to_float_) {
    zp_ = zp_at(*y.quant, 0);
    lo_ = qmin(y.dtype);
    hi_ = qmax(y.dtype);
  }
}

Result<TensorView> with_quant(const char* op, const char* what, const TensorView& data, const TensorView* scale,
                              const TensorView* zero_point, std::int64_t axis, Quant* q) {
  if (!is_q8(data.dtype) || has_quant(data)) {
    return BadType(op, "{} must be plain int8 or uint8, got {}", what, type_desc(data));
  }
  const std::int64_t n = zero_point != nullptr ? zero_point->elements() : scale != nullptr ? scale->elements() : 1;
  *q = Quant{};
  for (std::int64_t i = 0; i < n; ++i) {
    float s = 1.0f;
    if (scale != nullptr) {
      if (scale->dtype != DType::kFloat32 || (scale->elements() != n && scale->elements() != 1)) {
        return Invalid(op, "the scale of {} must be float32 with 1 or {} values", what, n);
      }
      s = scale->as<const float>()[scale->elements() == 1 ? 0 : i];
    }
    q->scale.push_back(s);
    if (zero_point != nullptr) {
      if (zero_point->dtype != data.dtype) {
        return BadType(op, "the zero point of {} must be {}, got {}", what, model::dtype_name(data.dtype),
                       type_desc(*zero_point));
      }
      q->zero_point.push_back(static_cast<std::int32_t>(int_at(*zero_point, i)));
    }
  }
  q->axis = n > 1 ? static_cast<std::int32_t>(axis) : -1;
  TensorView v = data;
  v.quant = q;
  SVP_RETURN_IF_ERROR(check_quant(op, what, v));
  return v;
}

}  // namespace svp::kernels::detail
