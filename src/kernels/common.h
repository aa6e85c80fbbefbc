// Helpers shared by the reference kernels: errors, attribute reading, shape and index
// math, broadcasting, quantization and the generic int8 path. Internal to src/kernels.
#pragma once

#include <fmt/format.h>

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/status.h"
#include "kernels/kernels.h"
#include "kernels/tensor_buffer.h"
#include "model/attrs.h"
#include "model/tensor.h"

namespace svp::kernels::detail {

using model::Quant;

// Largest element count any tensor may have (inputs, outputs, temporaries).
inline constexpr std::int64_t kMaxElements = std::int64_t{1} << 40;

// ---------------------------------------------------------------------------
// Errors. Every message starts with the op name.

template <typename... Args>
Status OpError(int code, const char* op, fmt::format_string<Args...> f, Args&&... args) {
  return Status(code, fmt::format("{}: {}", op, fmt::format(f, std::forward<Args>(args)...)));
}
// Bad values, shapes or combinations → kInvalidParam.
template <typename... Args>
Status Invalid(const char* op, fmt::format_string<Args...> f, Args&&... args) {
  return OpError(err::kInvalidParam, op, f, std::forward<Args>(args)...);
}
// Malformed attributes (wrong type, wrong number of values, unknown enum string, missing
// required attribute) → kParseModel.
template <typename... Args>
Status Malformed(const char* op, fmt::format_string<Args...> f, Args&&... args) {
  return OpError(err::kParseModel, op, f, std::forward<Args>(args)...);
}
// Unsupported element types → kUnsupportedDataType.
template <typename... Args>
Status BadType(const char* op, fmt::format_string<Args...> f, Args&&... args) {
  return OpError(err::kUnsupportedDataType, op, f, std::forward<Args>(args)...);
}

#define KN_CAT_INNER(a, b) a##b
#define KN_CAT(a, b) KN_CAT_INNER(a, b)
// Evaluates a Result-returning expression; returns its Status on failure, else assigns.
#define KN_ASSIGN(lhs, expr) KN_ASSIGN_IMPL(KN_CAT(kn_result_, __LINE__), lhs, expr)
#define KN_ASSIGN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                   \
  if (!tmp.ok()) return tmp.status();  \
  lhs = std::move(tmp.value())

// ---------------------------------------------------------------------------
// Shapes.

std::string shape_str(const Shape& s);
std::int64_t numel(const Shape& s);                    // of a validated shape
std::vector<std::int64_t> strides_of(const Shape& s);  // row-major, in elements
// Dims >= 0 and element count <= kMaxElements.
Status check_shape(const char* op, const std::string& what, const Shape& s);
// axis in [-rank, rank) (or [-rank, rank] with `inclusive`), normalised to >= 0.
Result<std::int64_t> norm_axis(const char* op, const char* attr, std::int64_t axis, std::int64_t rank,
                               bool inclusive = false);
// Distinct normalised axes.
Result<std::vector<std::int64_t>> norm_axes(const char* op, const char* attr, const std::vector<std::int64_t>& axes,
                                            std::int64_t rank);
// Numpy (multidirectional) broadcasting.
Result<Shape> broadcast_shapes(const char* op, const Shape& a, const Shape& b);
// Strides of `in` viewed with the rank and shape of `out` it broadcasts to (0 on
// broadcast dims). `in` must be broadcast-compatible with `out`.
std::vector<std::int64_t> broadcast_strides(const Shape& in, const Shape& out);
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }
inline std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// Visits every row of `shape` (the innermost dimension) with N strided operands: calls
// row(offsets, count, inner_strides) where offsets[k] is operand k's offset of the row's
// first element. Nothing is visited for an empty shape; a rank-0 shape is one row of 1.
template <std::size_t N, typename F>
void for_each_row(const Shape& shape, const std::array<const std::vector<std::int64_t>*, N>& strides,
                  std::array<std::int64_t, N> offsets, F&& row) {
  for (std::int64_t d : shape) {
    if (d == 0) return;
  }
  const std::size_t r = shape.size();
  std::array<std::int64_t, N> inner{};
  if (r == 0) {
    row(offsets, std::int64_t{1}, inner);
    return;
  }
  for (std::size_t k = 0; k < N; ++k) inner[k] = (*strides[k])[r - 1];
  std::vector<std::int64_t> idx(r - 1, 0);
  for (;;) {
    row(offsets, shape[r - 1], inner);
    std::size_t d = r - 1;
    for (; d > 0; --d) {
      const std::size_t a = d - 1;
      ++idx[a];
      for (std::size_t k = 0; k < N; ++k) offsets[k] += (*strides[k])[a];
      if (idx[a] < shape[a]) break;
      for (std::size_t k = 0; k < N; ++k) offsets[k] -= (*strides[k])[a] * shape[a];
      idx[a] = 0;
    }
    if (d == 0) return;
  }
}

// dst (dense, `shape`) = src[base + sum(idx * src_strides)], elements of `elem` bytes.
void gather_strided(void* dst, const void* src, std::size_t elem, std::int64_t base, const Shape& shape,
                    const std::vector<std::int64_t>& src_strides);

// y[o] over the shape (tables[0].size(), tables[1].size(), ...) = x[sum_d tables[d][o_d]],
// or `fill` (the element's bits, little-endian) when any tables[d][o_d] is negative.
void gather_tables(void* y, const void* x, std::size_t elem, const std::vector<std::vector<std::int64_t>>& tables,
                   std::uint64_t fill);

// Indices o in [0, out_len) with 0 <= o * stride + offset < in_len, as [lo, hi).
inline std::pair<std::int64_t, std::int64_t> valid_range(std::int64_t out_len, std::int64_t in_len, std::int64_t stride,
                                                         std::int64_t offset) {
  std::int64_t lo = offset >= 0 ? 0 : ceil_div(-offset, stride);
  std::int64_t hi = in_len - 1 - offset < 0 ? 0 : floor_div(in_len - 1 - offset, stride) + 1;
  if (hi > out_len) hi = out_len;
  if (lo > hi) lo = hi;
  return {lo, hi};
}

// ---------------------------------------------------------------------------
// Attributes (errors name the op).

class AttrReader {
 public:
  AttrReader(const char* op, const Attrs& a) : op_(op), a_(a) {}
  bool has(const char* name) const { return a_.has(name); }
  Result<std::int64_t> i(const char* name, std::int64_t def) const { return wrap(a_.get_int(name, def)); }
  Result<double> f(const char* name, double def) const { return wrap(a_.get_float(name, def)); }
  Result<std::string> s(const char* name, std::string def) const { return wrap(a_.get_string(name, std::move(def))); }
  Result<std::vector<std::int64_t>> ints(const char* name, std::vector<std::int64_t> def) const {
    return wrap(a_.get_ints(name, std::move(def)));
  }
  Result<std::vector<double>> floats(const char* name, std::vector<double> def) const {
    return wrap(a_.get_floats(name, std::move(def)));
  }
  // A 0/1 flag.
  Result<bool> flag(const char* name, bool def) const;
  // A list of exactly `n` values (default `def` repeated when absent).
  Result<std::vector<std::int64_t>> ints_n(const char* name, std::size_t n, std::int64_t def) const;
  const char* op() const { return op_; }

 private:
  template <typename T>
  Result<T> wrap(Result<T> r) const {
    if (r.ok()) return r;
    return Status(r.status().code(), fmt::format("{}: {}", op_, r.status().message()));
  }
  const char* op_;
  const Attrs& a_;
};

// ---------------------------------------------------------------------------
// Kernel contexts.

// infer_shapes' view of an op: input shapes and build-time constant values.
struct InferCtx {
  const char* op;
  const Attrs& attrs;
  const std::vector<Shape>& in;
  const std::vector<const TensorView*>& cin;
  std::size_t num_outputs = 0;  // the number of outputs when known (at run time), else 0

  // An optional input is present when it is in the list, has elements and is not the
  // absent marker (shape {} without a constant value).
  bool has(std::size_t i) const { return i < in.size() && numel(in[i]) > 0 && !(in[i].empty() && value(i) == nullptr); }
  const TensorView* value(std::size_t i) const { return i < cin.size() ? cin[i] : nullptr; }
  // The constant value of input i, or an error naming it when it is not known.
  Result<const TensorView*> need_value(std::size_t i, const char* what) const;
  AttrReader attr() const { return AttrReader(op, attrs); }
};

struct RunCtx {
  const char* op;
  const Attrs& attrs;
  const std::vector<TensorView>& in;
  const std::vector<TensorView>& out;

  // An optional input is present when it is in the list, has elements and data.
  bool has(std::size_t i) const { return i < in.size() && in[i].elements() > 0 && in[i].data != nullptr; }
  AttrReader attr() const { return AttrReader(op, attrs); }
};

// The run-time marker of an absent optional input: no data and shape {}.
inline bool is_absent_marker(const TensorView& t) { return t.data == nullptr && t.dims.empty(); }

// Runs f(InferCtx) for the inputs of a run: shapes from the views, every input a constant.
template <typename F>
auto with_infer_ctx(const RunCtx& c, F&& f) {
  std::vector<Shape> shapes;
  std::vector<const TensorView*> values;
  for (const TensorView& t : c.in) {
    shapes.push_back(t.dims);
    values.push_back(is_absent_marker(t) ? nullptr : &t);
  }
  InferCtx ic{c.op, c.attrs, shapes, values, c.out.size()};
  return f(ic);
}

// Integer values of a constant int64/int32 tensor of rank 0 or 1.
Result<std::vector<std::int64_t>> read_ints(const char* op, const char* what, const TensorView& t);
// Real values of a constant float32 tensor, or a quantized one (dequantized).
Result<std::vector<float>> read_floats(const char* op, const char* what, const TensorView& t);

// ---------------------------------------------------------------------------
// Element types and quantization.

inline bool is_q8(DType t) { return t == DType::kInt8 || t == DType::kUint8; }
inline bool has_quant(const TensorView& t) { return t.quant != nullptr && !t.quant->empty(); }
// A quantized int8/uint8 tensor with parameters.
inline bool is_quantized(const TensorView& t) { return is_q8(t.dtype) && has_quant(t); }
inline bool is_per_tensor(const TensorView& t) { return has_quant(t) && t.quant->scale.size() == 1; }
std::int64_t qmin(DType t);
std::int64_t qmax(DType t);
inline std::int32_t zp_at(const Quant& q, std::size_t c) {
  return q.zero_point.empty() ? 0 : q.zero_point[q.zero_point.size() == 1 ? 0 : c];
}
inline float scale_at(const Quant& q, std::size_t c) { return q.scale[q.scale.size() == 1 ? 0 : c]; }
// The dimension per-channel parameters index (normalised Quant.axis), -1 for per-tensor.
std::int64_t quant_axis(const TensorView& t);
// Scale entries finite and > 0, zero points in range, per-channel sizes match the axis.
Status check_quant(const char* op, const std::string& what, const TensorView& t);
// Same element type and, for quantized types, the same per-tensor scale and zero point.
bool same_encoding(const TensorView& a, const TensorView& b);

// The one float→integer rounding rule: saturate(nearbyint(x) + zp) in [lo, hi], with
// nearbyint under the default round-half-to-even mode; NaN maps to zp.
inline std::int64_t round_saturate(float x, std::int32_t zp, std::int64_t lo, std::int64_t hi) {
  if (std::isnan(x)) return std::min(std::max<std::int64_t>(zp, lo), hi);
  // rint rounds like nearbyint (the current mode: ties to even) but without saving and
  // restoring the floating-point environment, which made nearbyint the hot spot of
  // every int8 requantization.
  double v = static_cast<double>(std::rint(x)) + static_cast<double>(zp);
  if (v < static_cast<double>(lo)) return lo;
  if (v > static_cast<double>(hi)) return hi;
  return static_cast<std::int64_t>(v);
}
// QuantizeLinear / requantization of real values: saturate(nearbyint(x / s) + zp), x / s in float.
inline std::int64_t quantize_value(float x, float s, std::int32_t zp, std::int64_t lo, std::int64_t hi) {
  return round_saturate(x / s, zp, lo, hi);
}
// Per-tensor int8/uint8/int16 (T) loops without a per-element type dispatch: the generic
// int8 path of every op without an integer kernel, the model's input QuantizeLinear and
// output DequantizeLinear, and the compiler's calibration run through them. N lanes at a
// time — four in the baseline ISA (SSE2), sixteen where the CPU has AVX-512 — giving
// exactly the numbers of the scalar rule above (kernels_quant_test compares them on every
// edge): a libm rint call per element made the input QuantizeLinear of an int8 detector
// 20 % of its time, and four lanes left a DeepLabV3 output's DequantizeLinear of 1 M
// values at half a millisecond.
template <int N>
struct QLanes {
  typedef float F __attribute__((vector_size(4 * N)));
  typedef std::int32_t I __attribute__((vector_size(4 * N)));
};

// q − zp is an integer below 2^24 in magnitude, exact in int32 and in float alike, so
// converting it from int32 rather than int64 changes nothing; the product is the same
// float multiplication. Returns how many elements it did (a multiple of N).
template <int N, typename T>
__attribute__((always_inline)) inline std::int64_t dequantize_lanes(const T* q, std::int64_t n, std::int32_t zp,
                                                                    float scale, float* out) {
  using F = typename QLanes<N>::F;
  using I = typename QLanes<N>::I;
  const F s = F{} + scale;
  std::int64_t i = 0;
  for (; i + N <= n; i += N) {
    I v;
    for (int k = 0; k < N; ++k) v[k] = q[i + k];
    const F f = __builtin_convertvector(v - zp, F) * s;
    std::memcpy(out + i, &f, sizeof f);
  }
  return i;
}

// saturate(rint(x / s) + zp), NaN to the zero point, exactly: the quotient is clamped to one
// step beyond the type's range (which saturates the same way), so that adding and
// subtracting 1.5·2^23 rounds it to an integer as rint does (ties to even, the default
// rounding mode) and the conversion to int is exact.
template <int N, typename T>
__attribute__((always_inline)) inline std::int64_t quantize_lanes(const float* x, std::int64_t n, float scale,
                                                                  std::int32_t zp, T* q) {
  using F = typename QLanes<N>::F;
  using I = typename QLanes<N>::I;
  const float lo = static_cast<float>(std::numeric_limits<T>::min() - zp);
  const float hi = static_cast<float>(std::numeric_limits<T>::max() - zp);
  const F below = F{} + (lo - 1.0f), above = F{} + (hi + 1.0f), low = F{} + lo, high = F{} + hi;
  const F magic = F{} + 12582912.0f, s = F{} + scale;
  std::int64_t i = 0;
  for (; i + N <= n; i += N) {
    F y;
    std::memcpy(&y, x + i, sizeof y);
    y = y / s;
    y = y == y ? y : F{};  // NaN quantizes as 0 does (to the zero point)
    y = y < below ? below : y;
    y = y > above ? above : y;
    F r = (y + magic) - magic;
    r = r < low ? low : r;
    r = r > high ? high : r;
    const I v = __builtin_convertvector(r, I) + zp;
    for (int k = 0; k < N; ++k) q[i + k] = static_cast<T>(v[k]);
  }
  return i;
}

// Sixteen stored values widened by one instruction (GCC builds the generic lanes' widening
// through the stack at this width). The masked forms with every lane set: GCC 12's plain
// conversions start from an "undefined" vector that -Wmaybe-uninitialized reports.
template <typename T>
__attribute__((target("avx512f"))) std::int64_t dequantize_avx512(const T* q, std::int64_t n, std::int32_t zp,
                                                                   float scale, float* out) {
  const __m512 s = _mm512_set1_ps(scale);
  const __m512i z = _mm512_set1_epi32(zp);
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512i v;
    if constexpr (std::is_same_v<T, std::int8_t>) {
      v = _mm512_maskz_cvtepi8_epi32(0xffff, _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + i)));
    } else if constexpr (std::is_same_v<T, std::uint8_t>) {
      v = _mm512_maskz_cvtepu8_epi32(0xffff, _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + i)));
    } else {
      static_assert(std::is_same_v<T, std::int16_t>, "int8, uint8 or int16");
      v = _mm512_maskz_cvtepi16_epi32(0xffff, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + i)));
    }
    _mm512_storeu_ps(out + i, _mm512_mul_ps(_mm512_maskz_cvtepi32_ps(0xffff, _mm512_sub_epi32(v, z)), s));
  }
  return i;
}

template <typename T>
__attribute__((target("avx512f"))) std::int64_t quantize_avx512(const float* x, std::int64_t n, float scale,
                                                                 std::int32_t zp, T* q) {
  return quantize_lanes<16>(x, n, scale, zp, q);
}

inline bool quant_lanes_avx512() {
  static const bool yes = __builtin_cpu_supports("avx512f");
  return yes;
}

template <typename T>
inline void dequantize_per_tensor(const T* q, std::int64_t n, std::int32_t zp, float scale, float* out) {
  std::int64_t i = quant_lanes_avx512() ? dequantize_avx512(q, n, zp, scale, out) : 0;
  i += dequantize_lanes<4>(q + i, n - i, zp, scale, out + i);
  for (; i < n; ++i) out[i] = static_cast<float>(static_cast<std::int64_t>(q[i]) - zp) * scale;
}

template <typename T>
inline void quantize_per_tensor(const float* x, std::int64_t n, float scale, std::int32_t zp, T* q) {
  std::int64_t i = quant_lanes_avx512() ? quantize_avx512(x, n, scale, zp, q) : 0;
  i += quantize_lanes<4>(x + i, n - i, scale, zp, q + i);
  const std::int64_t tmin = std::numeric_limits<T>::min(), tmax = std::numeric_limits<T>::max();
  for (; i < n; ++i) q[i] = static_cast<T>(quantize_value(x[i], scale, zp, tmin, tmax));
}

// Integer ops: scale_c = (float)s_x * (float)s_w[c] / (float)s_y, evaluated in float in that order.
inline float requant_scale(float sx, float sw, float sy) {
  const float t = sx * sw;
  return t / sy;
}
// Integer ops: y = saturate(nearbyint(v * scale_c + (float)zp_y)) with
// v = (float)acc32 + (float)bias_q (docs/kernels.md). Every step is one float32 operation
// in this order, which is what oneDNN's int8 kernels do (the fast paths match bit for
// bit): the zero point is added before rounding (ties to even are not invariant under
// adding an odd zero point) and the bias after the int → float conversion.
inline std::int64_t requantize_acc(float v, float scale, std::int32_t zp, std::int64_t lo, std::int64_t hi) {
  const float prod = v * scale;
  const float shifted = prod + static_cast<float>(zp);
  return round_saturate(shifted, 0, lo, hi);
}
inline std::int32_t saturate_i32(std::int64_t v) {
  if (v > std::numeric_limits<std::int32_t>::max()) return std::numeric_limits<std::int32_t>::max();
  if (v < std::numeric_limits<std::int32_t>::min()) return std::numeric_limits<std::int32_t>::min();
  return static_cast<std::int32_t>(v);
}

// out[i] = table[in[i]] for n bytes (in and out may be the same buffer). 64 bytes a step
// with AVX-512 VBMI: a byte loop costs about a cycle per element, which made a table layer
// cost as much as the convolution before it on small maps (PP-OCR cls's HardSwish) and the
// re-encoding of a Concat's inputs a millisecond on PP-OCRv4 det's neck.
void apply_byte_table(const std::uint8_t* table, const std::uint8_t* in, std::uint8_t* out, std::int64_t n);

// Integer element i of an int8/uint8/int16/uint16/int32/uint32/int64 tensor.
std::int64_t int_at(const TensorView& t, std::int64_t i);
// Writes an already saturated integer into an int8/uint8/int16/uint16/int32/int64 tensor.
void set_int(const TensorView& t, std::int64_t i, std::int64_t v);

// real = scale * (q - zp) for every element of a quantized int8/uint8/int16/int32 tensor.
void dequantize(const TensorView& q, float* out);
// q = saturate(nearbyint(x / scale) + zp) for every element (x / scale in float).
void quantize(const float* x, const TensorView& q);
// q - zp for every element of a quantized tensor (exact integers).
std::vector<std::int32_t> shifted_ints(const TensorView& q);

// The generic int8 path: dequantizes every input that carries quantization parameters
// (int8/uint8/int16/int32 with a Quant; int16 is A16W8's activation type) to float32, runs `float_run` on float views and
// requantizes each quantized output. Other tensors are passed through unchanged, so
// float_run still rejects types it cannot handle. The float outputs start zeroed, as a
// kernel may leave parts of them alone; kWritesEveryOutput skips that for kernels that
// write every element (a 4 MB fill was a sixth of an int8 DeepLabV3 output Resize).
enum class FloatOutputs { kZeroed, kWritesEveryOutput };
Status run_via_float(const RunCtx& c, Status (*float_run)(const RunCtx&),
                     FloatOutputs outputs = FloatOutputs::kZeroed);
// The same for an elementwise op of one input (Sigmoid, HardSwish, ...; `float_run` must
// compute each element from that element alone): an int8/uint8 input and output with one
// encoding each take the op through a 256-entry table — run_via_float on every input code
// once, then a lookup per element — which gives run_via_float's bytes (each element's
// result depends on its code only) without its per-element float work.
Status run_unary_via_float(const RunCtx& c, Status (*float_run)(const RunCtx&));
// kUnsupportedDataType unless the listed inputs (when present) and all outputs are float32.
Status require_f32(const RunCtx& c, std::initializer_list<std::size_t> inputs);
// Describes a tensor's element type for messages ("int8 without quantization parameters").
std::string type_desc(const TensorView& t);
// As type_desc plus the quantization parameters ("int8 (scale 0.05, zero point -3)",
// "int8 (per-channel, 16 scales)"), for messages about two encodings of one type.
std::string encoding_desc(const TensorView& t);

// Calls f(T{}) with the unsigned integer type of the given element size (1, 2, 4 or 8).
template <typename F>
void with_elem_type(std::size_t elem, F&& f) {
  switch (elem) {
    case 1:
      f(std::uint8_t{});
      break;
    case 2:
      f(std::uint16_t{});
      break;
    case 4:
      f(std::uint32_t{});
      break;
    default:
      f(std::uint64_t{});
      break;
  }
}

}  // namespace svp::kernels::detail
