#include "kernels/reference/typed.h"

#include <cstring>
#include <string>

namespace svp::kernels::detail {

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, bits = 0;
  if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else {  // subnormal: renormalise
      exp = 127 - 15 + 1;
      while ((man & 0x400u) == 0) {
        man <<= 1;
        --exp;
      }
      bits = sign | (exp << 23) | ((man & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (man << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
  }
  float f = 0;
  std::memcpy(&f, &bits, 4);
  return f;
}

std::uint16_t float_to_half(float f) {
  std::uint32_t x = 0;
  std::memcpy(&x, &f, 4);
  const std::uint16_t sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t exp = (x >> 23) & 0xffu;
  std::uint32_t man = x & 0x7fffffu;
  if (exp == 0xff) return static_cast<std::uint16_t>(sign | 0x7c00u | (man ? 0x200u : 0u));  // inf, NaN
  const int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return sign;  // below half the smallest subnormal
    man |= 0x800000u;
    const int shift = 14 - e;
    std::uint32_t h = man >> shift;
    const std::uint32_t rest = man & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (h & 1u))) ++h;
    return static_cast<std::uint16_t>(sign | h);
  }
  std::uint32_t h = (static_cast<std::uint32_t>(e) << 10) | (man >> 13);
  const std::uint32_t rest = man & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // may carry into the exponent: correct
  return static_cast<std::uint16_t>(sign | h);
}

unsigned type_category(DType t) {
  switch (t) {
    case DType::kFloat32: case DType::kFloat64: case DType::kFloat16: return kFloatTypes;
    case DType::kInt8: case DType::kInt16: case DType::kInt32: case DType::kInt64: return kSignedTypes;
    case DType::kUint8: case DType::kUint16: case DType::kUint32: case DType::kUint64: return kUnsignedTypes;
    case DType::kBool: return kBoolType;
  }
  return 0;
}

std::string type_set_desc(unsigned set) {
  std::string s;
  auto add = [&](const char* what) { s += (s.empty() ? "" : ", ") + std::string(what); };
  if (set & kFloatTypes) add("float32/float64/float16");
  if ((set & kIntTypes) == kIntTypes) {
    add("integer types");
  } else if (set & kSignedTypes) {
    add("signed integer types");
  } else if (set & kUnsignedTypes) {
    add("unsigned integer types");
  }
  if (set & kBoolType) add("bool");
  return s;
}

Status bad_type(const char* op, const char* what, const TensorView& t, unsigned set) {
  return BadType(op, "unsupported data type {} for {} (expected {})", type_desc(t), what, type_set_desc(set));
}

double value_at(const TensorView& t, std::int64_t i) {
  double v = 0;
  visit_types<kAllTypes>(t.dtype, [&](auto tag) {
    using T = decltype(tag);
    v = static_cast<double>(load(t.as<const T>()[i]));
  });
  return v;
}

void broadcast_copy(const TensorView& x, const TensorView& y) {
  gather_strided(y.data, x.data, model::dtype_size(x.dtype), 0, y.dims, broadcast_strides(x.dims, y.dims));
}

AxisSplit split_at(const Shape& s, std::int64_t axis) {
  AxisSplit a;
  for (std::size_t d = 0; d < s.size(); ++d) {
    const auto di = static_cast<std::int64_t>(d);
    if (di < axis) a.outer *= s[d];
    if (di == axis) a.len = s[d];
    if (di > axis) a.inner *= s[d];
  }
  return a;
}

}  // namespace svp::kernels::detail
