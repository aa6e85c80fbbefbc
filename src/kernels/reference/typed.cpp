#include "kernels/reference/typed.h"

#include <cstring>
#include <string>

namespace svp::kernels::detail {

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
