#include "compiler/quantize/real_values.h"

#include <cstring>
#include <limits>

#include "kernels/common.h"

namespace svp::compiler::quant {

using model::DType;

namespace {

// The integer types as_floats dequantizes (one scale), else null.
const model::Quant* one_scale_encoding(const model::TensorView& t) {
  const bool integer = t.quant != nullptr && !t.quant->empty() &&
                       (t.dtype == DType::kInt8 || t.dtype == DType::kUint8 || t.dtype == DType::kInt16);
  return integer && t.quant->scale.size() == 1 ? t.quant : nullptr;
}

void dequantize_into(const model::TensorView& t, const model::Quant& q, float* f) {
  const float s = q.scale[0];
  const std::int32_t zp = q.zero_point.empty() ? 0 : q.zero_point[0];
  const std::int64_t count = t.elements();
  if (t.dtype == DType::kInt8) kernels::detail::dequantize_per_tensor(t.as<const std::int8_t>(), count, zp, s, f);
  if (t.dtype == DType::kUint8) kernels::detail::dequantize_per_tensor(t.as<const std::uint8_t>(), count, zp, s, f);
  if (t.dtype == DType::kInt16) kernels::detail::dequantize_per_tensor(t.as<const std::int16_t>(), count, zp, s, f);
}

}  // namespace

std::vector<float> as_floats(const model::TensorView& t) {
  std::vector<float> f;
  const Floats r = real_values(t, &f);
  if (r.data != f.data()) f.assign(r.data, r.data + r.size);
  return f;
}

Floats real_values(const model::TensorView& t, std::vector<float>* scratch) {
  const auto n = static_cast<std::size_t>(t.elements());
  if (t.dtype == DType::kFloat32) return {t.as<const float>(), n};
  const model::Quant* q = one_scale_encoding(t);
  if (q == nullptr) return {};
  scratch->resize(n);
  dequantize_into(t, *q, scratch->data());
  return {scratch->data(), n};
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
