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

typedef float v4f __attribute__((vector_size(16)));
typedef std::int32_t v4i __attribute__((vector_size(16)));

// kernels::detail::dequantize_per_tensor's numbers, four lanes at a time: q − zp is an
// integer below 2^24 in magnitude, exact in int32 and in float alike, so converting it
// from int32 rather than int64 (which the baseline x86-64 does one at a time) changes
// nothing; the product is the same float multiplication.
template <typename T>
void dequantize_lanes(const T* q, std::size_t n, std::int32_t zp, float s, float* out) {
  const v4f scale = v4f{} + s;
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v4i v = v4i{q[i], q[i + 1], q[i + 2], q[i + 3]} - zp;
    const v4f f = __builtin_convertvector(v, v4f) * scale;
    std::memcpy(out + i, &f, sizeof f);
  }
  kernels::detail::dequantize_per_tensor(q + i, static_cast<std::int64_t>(n - i), zp, s, out + i);
}

void dequantize_into(const model::TensorView& t, const model::Quant& q, float* f) {
  const float s = q.scale[0];
  const std::int32_t zp = q.zero_point.empty() ? 0 : q.zero_point[0];
  const auto count = static_cast<std::size_t>(t.elements());
  if (t.dtype == DType::kInt8) dequantize_lanes(t.as<const std::int8_t>(), count, zp, s, f);
  if (t.dtype == DType::kUint8) dequantize_lanes(t.as<const std::uint8_t>(), count, zp, s, f);
  if (t.dtype == DType::kInt16) dequantize_lanes(t.as<const std::int16_t>(), count, zp, s, f);
}

// kernels::detail::quantize_per_tensor's numbers (saturate(rint(x / s) + zp), NaN as 0),
// four lanes at a time: the single view quantizes every layer's input for each analysed
// input, and the scalar loop was a tenth of the analysis. Exact, not approximate: the
// quotient is clamped to one step beyond the type's range (which saturates the same way),
// so that adding and subtracting 1.5·2^23 rounds it to an integer as rint does (ties to
// even, the default rounding mode) and the conversion to int is exact.
template <typename T>
void quantize_lanes(const float* x, std::size_t n, float s, std::int32_t zp, T* q) {
  const float lo = static_cast<float>(std::numeric_limits<T>::min() - zp);
  const float hi = static_cast<float>(std::numeric_limits<T>::max() - zp);
  const v4f below = v4f{} + (lo - 1.0f), above = v4f{} + (hi + 1.0f), low = v4f{} + lo, high = v4f{} + hi;
  const v4f magic = v4f{} + 12582912.0f, scale = v4f{} + s;
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    v4f y;
    std::memcpy(&y, x + i, sizeof y);
    y = y / scale;
    y = y == y ? y : v4f{};  // NaN quantizes as 0 does (to the zero point)
    y = y < below ? below : y;
    y = y > above ? above : y;
    v4f r = (y + magic) - magic;
    r = r < low ? low : r;
    r = r > high ? high : r;
    const v4i v = __builtin_convertvector(r, v4i) + zp;
    for (int k = 0; k < 4; ++k) q[i + static_cast<std::size_t>(k)] = static_cast<T>(v[k]);
  }
  const std::int64_t tmin = std::numeric_limits<T>::min(), tmax = std::numeric_limits<T>::max();
  for (; i < n; ++i) q[i] = static_cast<T>(kernels::detail::quantize_value(x[i], s, zp, tmin, tmax));
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
  const std::size_t n = x.size();
  if (like.dtype == DType::kInt8) quantize_lanes(x.data(), n, s, zp, t.data<std::int8_t>());
  if (like.dtype == DType::kUint8) quantize_lanes(x.data(), n, s, zp, t.data<std::uint8_t>());
  if (like.dtype == DType::kInt16) quantize_lanes(x.data(), n, s, zp, t.data<std::int16_t>());
  return t;
}

}  // namespace svp::compiler::quant
