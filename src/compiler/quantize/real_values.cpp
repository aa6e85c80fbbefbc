#include "compiler/quantize/real_values.h"

#include <cstring>

#include "kernels/common.h"

namespace svp::compiler::quant {

using model::DType;

std::vector<float> as_floats(const model::TensorView& t) {
  const bool integer = t.quant != nullptr && !t.quant->empty() &&
                       (t.dtype == DType::kInt8 || t.dtype == DType::kUint8 || t.dtype == DType::kInt16);
  const auto n = static_cast<std::size_t>(t.elements());
  std::vector<float> f(n);
  if (t.dtype == DType::kFloat32) {
    std::memcpy(f.data(), t.data, n * sizeof(float));
  } else if (integer && t.quant->scale.size() == 1) {
    const float s = t.quant->scale[0];
    const std::int32_t zp = t.quant->zero_point.empty() ? 0 : t.quant->zero_point[0];
    const auto count = static_cast<std::int64_t>(n);
    if (t.dtype == DType::kInt8) kernels::detail::dequantize_per_tensor(t.as<const std::int8_t>(), count, zp, s, f.data());
    if (t.dtype == DType::kUint8) kernels::detail::dequantize_per_tensor(t.as<const std::uint8_t>(), count, zp, s, f.data());
    if (t.dtype == DType::kInt16) kernels::detail::dequantize_per_tensor(t.as<const std::int16_t>(), count, zp, s, f.data());
  } else {
    return {};
  }
  return f;
}

kernels::OwnedTensor quantize_like(const std::vector<float>& x, const std::vector<std::int64_t>& dims, const Value& like) {
  kernels::OwnedTensor t(like.dtype, dims);
  t.set_quant(like.quant);
  const float s = like.quant.scale[0];
  const std::int32_t zp = like.quant.zero_point.empty() ? 0 : like.quant.zero_point[0];
  const auto n = static_cast<std::int64_t>(x.size());
  if (like.dtype == DType::kInt8) kernels::detail::quantize_per_tensor(x.data(), n, s, zp, t.data<std::int8_t>());
  if (like.dtype == DType::kUint8) kernels::detail::quantize_per_tensor(x.data(), n, s, zp, t.data<std::uint8_t>());
  if (like.dtype == DType::kInt16) kernels::detail::quantize_per_tensor(x.data(), n, s, zp, t.data<std::int16_t>());
  return t;
}

}  // namespace svp::compiler::quant
