// Element-type dispatch for the reference kernels' generic loops: one template per op
// family, instantiated for the element types the family accepts. Internal to src/kernels.
//
// float16 is stored as Half and computed in float; bool is stored as one byte and visited
// as std::uint8_t (0 or 1; any non-zero byte reads as true where a kernel tests it).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "common/half.h"
#include "kernels/common.h"

namespace svp::kernels::detail {

struct Half {
  std::uint16_t bits;
};

using svp::float_to_half;  // IEEE binary16 <-> binary32 (common/half.h)
using svp::half_to_float;

// The type a T is computed in.
template <typename T>
using calc_t = std::conditional_t<std::is_same_v<T, Half>, float, T>;

template <typename T>
inline calc_t<T> load(T v) {
  if constexpr (std::is_same_v<T, Half>) {
    return half_to_float(v.bits);
  } else {
    return v;
  }
}

// NaN test that compiles (to false) for integers.
template <typename C>
inline bool is_nan(C v) {
  if constexpr (std::is_floating_point_v<C>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

template <typename T>
inline constexpr bool is_floating_v = std::is_floating_point_v<T> || std::is_same_v<T, Half>;

// A double as a T: integers truncate toward zero and saturate at T's range, NaN → 0 (a
// C conversion of an out-of-range value would be undefined).
template <typename T>
inline T from_double(double v) {
  if constexpr (std::is_same_v<T, Half>) {
    return Half{float_to_half(static_cast<float>(v))};
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v);
  } else {
    if (std::isnan(v)) return T{0};
    const double t = std::trunc(v);
    if (t <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
    // max() of 64-bit types rounds up to 2^63 / 2^64 in double: compare with >=.
    if (t >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(t);
  }
}

// A computed value as a T: floats convert (Half rounds), integers wrap like a C conversion.
template <typename T, typename C>
inline T store(C v) {
  if constexpr (std::is_same_v<T, Half>) {
    return Half{float_to_half(static_cast<float>(v))};
  } else {
    return static_cast<T>(v);
  }
}

// Element type sets a family accepts.
enum TypeSet : unsigned {
  kFloatTypes = 1u,     // float32, float64, float16
  kSignedTypes = 2u,    // int8, int16, int32, int64
  kUnsignedTypes = 4u,  // uint8, uint16, uint32, uint64
  kBoolType = 8u,       // bool (visited as std::uint8_t)
  kIntTypes = kSignedTypes | kUnsignedTypes,
  kNumericTypes = kFloatTypes | kIntTypes,
  kAllTypes = kNumericTypes | kBoolType,
};

// Calls f(T{}) with the storage type of `t` when `t` is in kSet (f is instantiated for
// those types only); false otherwise.
template <unsigned kSet, typename F>
bool visit_types(DType t, F&& f) {
  constexpr bool fl = (kSet & kFloatTypes) != 0, si = (kSet & kSignedTypes) != 0, un = (kSet & kUnsignedTypes) != 0,
                 bo = (kSet & kBoolType) != 0;
  switch (t) {
    case DType::kFloat32: if constexpr (fl) { f(float{}); return true; } break;
    case DType::kFloat64: if constexpr (fl) { f(double{}); return true; } break;
    case DType::kFloat16: if constexpr (fl) { f(Half{}); return true; } break;
    case DType::kInt8: if constexpr (si) { f(std::int8_t{}); return true; } break;
    case DType::kInt16: if constexpr (si) { f(std::int16_t{}); return true; } break;
    case DType::kInt32: if constexpr (si) { f(std::int32_t{}); return true; } break;
    case DType::kInt64: if constexpr (si) { f(std::int64_t{}); return true; } break;
    case DType::kUint8: if constexpr (un) { f(std::uint8_t{}); return true; } break;
    case DType::kUint16: if constexpr (un) { f(std::uint16_t{}); return true; } break;
    case DType::kUint32: if constexpr (un) { f(std::uint32_t{}); return true; } break;
    case DType::kUint64: if constexpr (un) { f(std::uint64_t{}); return true; } break;
    case DType::kBool: if constexpr (bo) { f(std::uint8_t{}); return true; } break;
  }
  return false;
}

// The category bit of a type (0 for none).
unsigned type_category(DType t);

// visit_types with a set known at run time (f is instantiated for every type).
template <typename F>
bool visit_type(DType t, unsigned set, F&& f) {
  if ((type_category(t) & set) == 0) return false;
  return visit_types<kAllTypes>(t, std::forward<F>(f));
}

// "float, integer or bool types" and the like, for messages.
std::string type_set_desc(unsigned set);

// The kUnsupportedDataType error of a tensor outside `set`.
Status bad_type(const char* op, const char* what, const TensorView& t, unsigned set);

// Element i of any numeric or bool tensor as a double (int64 beyond 2^53 rounds).
double value_at(const TensorView& t, std::int64_t i);

// y[o] = f(a[ia], b[ib]) over y's shape with numpy broadcasting (a, b broadcast to y).
// `y` may be `a` itself (same data and shape): each element is read before it is written.
template <typename TA, typename TB, typename TY, typename F>
void broadcast_apply(const TensorView& a, const TensorView& b, const TensorView& y, F&& f) {
  const Shape& out = y.dims;
  const std::vector<std::int64_t> so = strides_of(out);
  const std::vector<std::int64_t> sa = broadcast_strides(a.dims, out);
  const std::vector<std::int64_t> sb = broadcast_strides(b.dims, out);
  const TA* ap = a.as<const TA>();
  const TB* bp = b.as<const TB>();
  TY* yp = y.as<TY>();
  // The common layouts get loops with unit or zero strides, which the compiler vectorises
  // (same shapes, a scalar operand, a per-channel operand along rows); the arithmetic is
  // the same element by element. `omp simd` because at -O2 GCC does not vectorise a loop
  // that needs a run-time aliasing check: y is a itself or apart (element i is read before
  // it is written), never a partial overlap, and every lane does the scalar loop's one
  // operation, so the bytes are the same (the residual Adds and the attention's Div by √d
  // of a transformer: ~4x faster).
  const std::int64_t total = y.elements();
  if (a.dims == out && (b.dims == out || b.elements() == 1)) {
    if (b.dims == out) {
#pragma omp simd
      for (std::int64_t i = 0; i < total; ++i) yp[i] = f(ap[i], bp[i]);
    } else {
      const TB bv = bp[0];
#pragma omp simd
      for (std::int64_t i = 0; i < total; ++i) yp[i] = f(ap[i], bv);
    }
    return;
  }
  // One operand full, the other one row broadcast over the outer dims ([.., C] against
  // [1, .., 1, C]: a per-channel operand of NHWC data): short rows would make the general
  // walk below pay its per-row cost for every pixel.
  const std::int64_t row = out.empty() ? 1 : out.back();
  auto is_row = [&](const TensorView& v, const std::vector<std::int64_t>& st) {
    return row > 1 && v.elements() == row && !st.empty() && st.back() == 1;
  };
  if (a.dims == out && is_row(b, sb)) {
    for (std::int64_t r = 0; r < total; r += row) {
#pragma omp simd
      for (std::int64_t i = 0; i < row; ++i) yp[r + i] = f(ap[r + i], bp[i]);
    }
    return;
  }
  if (b.dims == out && is_row(a, sa)) {
    for (std::int64_t r = 0; r < total; r += row) {
#pragma omp simd
      for (std::int64_t i = 0; i < row; ++i) yp[r + i] = f(ap[i], bp[r + i]);
    }
    return;
  }
  for_each_row<3>(out, {&so, &sa, &sb}, {0, 0, 0},
                  [&](const std::array<std::int64_t, 3>& off, std::int64_t n, const std::array<std::int64_t, 3>& st) {
                    TY* yr = yp + off[0];
                    const TA* ar = ap + off[1];
                    const TB* br = bp + off[2];
                    if (st[1] == 1 && st[2] == 1) {
                      for (std::int64_t i = 0; i < n; ++i) yr[i] = f(ar[i], br[i]);
                    } else if (st[1] == 1 && st[2] == 0) {
                      const TB bv = br[0];
                      for (std::int64_t i = 0; i < n; ++i) yr[i] = f(ar[i], bv);
                    } else if (st[1] == 0 && st[2] == 1) {
                      const TA av = ar[0];
                      for (std::int64_t i = 0; i < n; ++i) yr[i] = f(av, br[i]);
                    } else {
                      for (std::int64_t i = 0; i < n; ++i) yr[i] = f(ar[i * st[1]], br[i * st[2]]);
                    }
                  });
}

// Copies `x` broadcast to y's shape (Expand, and the first operand of variadic ops).
void broadcast_copy(const TensorView& x, const TensorView& y);

// The (outer, len, inner) split of a shape at `axis`.
struct AxisSplit {
  std::int64_t outer = 1, len = 1, inner = 1;
};
AxisSplit split_at(const Shape& s, std::int64_t axis);

}  // namespace svp::kernels::detail
