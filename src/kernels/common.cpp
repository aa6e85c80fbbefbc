#include "kernels/common.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <memory>

#include "kernels/byte_lookup_vbmi.h"

namespace svp::kernels::detail {

std::string shape_str(const Shape& s) { return fmt::format("[{}]", fmt::join(s, ", ")); }

std::int64_t numel(const Shape& s) {
  std::int64_t n = 1;
  for (std::int64_t d : s) n *= d;
  return n;
}

std::vector<std::int64_t> strides_of(const Shape& s) {
  std::vector<std::int64_t> st(s.size(), 1);
  for (std::size_t i = s.size(); i > 1; --i) st[i - 2] = st[i - 1] * s[i - 1];
  return st;
}

Status check_shape(const char* op, const std::string& what, const Shape& s) {
  // The product of the non-zero dims is bounded too, so that every partial product of a
  // shape (also of an empty tensor) fits comfortably in int64.
  std::int64_t n = 1;
  for (std::int64_t d : s) {
    if (d < 0) return Invalid(op, "{} has a negative dimension: {}", what, shape_str(s));
    if (d == 0) continue;
    if (n > kMaxElements / d) return Invalid(op, "{} is too large: {}", what, shape_str(s));
    n *= d;
  }
  return Status::Ok();
}

Result<std::int64_t> norm_axis(const char* op, const char* attr, std::int64_t axis, std::int64_t rank, bool inclusive) {
  const std::int64_t hi = inclusive ? rank : rank - 1;
  if (axis < -rank || axis > hi) {
    return Invalid(op, "{} {} is out of range [{}, {}] for rank {}", attr, axis, -rank, hi, rank);
  }
  return axis < 0 ? axis + rank : axis;
}

Result<std::vector<std::int64_t>> norm_axes(const char* op, const char* attr, const std::vector<std::int64_t>& axes,
                                            std::int64_t rank) {
  std::vector<std::int64_t> out;
  std::vector<bool> seen(static_cast<std::size_t>(rank), false);
  for (std::int64_t a : axes) {
    KN_ASSIGN(std::int64_t n, norm_axis(op, attr, a, rank));
    if (seen[static_cast<std::size_t>(n)]) return Invalid(op, "{} repeats axis {}", attr, a);
    seen[static_cast<std::size_t>(n)] = true;
    out.push_back(n);
  }
  return out;
}

Result<Shape> broadcast_shapes(const char* op, const Shape& a, const Shape& b) {
  const std::size_t r = std::max(a.size(), b.size());
  Shape out(r);
  for (std::size_t i = 0; i < r; ++i) {
    const std::int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    const std::int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da == db || db == 1) {
      out[i] = da;
    } else if (da == 1) {
      out[i] = db;
    } else {
      return Invalid(op, "shapes {} and {} are not broadcast-compatible", shape_str(a), shape_str(b));
    }
  }
  return out;
}

std::vector<std::int64_t> broadcast_strides(const Shape& in, const Shape& out) {
  std::vector<std::int64_t> st(out.size(), 0);
  const std::vector<std::int64_t> own = strides_of(in);
  const std::size_t lead = out.size() - in.size();
  for (std::size_t i = 0; i < in.size(); ++i) st[lead + i] = in[i] == 1 ? 0 : own[i];
  return st;
}

void gather_strided(void* dst, const void* src, std::size_t elem, std::int64_t base, const Shape& shape,
                    const std::vector<std::int64_t>& src_strides) {
  const std::vector<std::int64_t> dst_strides = strides_of(shape);
  with_elem_type(elem, [&](auto tag) {
    using T = decltype(tag);
    T* d = static_cast<T*>(dst);
    const T* s = static_cast<const T*>(src);
    for_each_row<2>(shape, {&dst_strides, &src_strides}, {0, base},
                    [&](const std::array<std::int64_t, 2>& off, std::int64_t n, const std::array<std::int64_t, 2>& st) {
                      T* dp = d + off[0];
                      const T* sp = s + off[1];
                      if (st[1] == 1) {
                        std::memcpy(dp, sp, static_cast<std::size_t>(n) * sizeof(T));
                      } else {
                        for (std::int64_t i = 0; i < n; ++i) dp[i] = sp[i * st[1]];
                      }
                    });
  });
}

void gather_tables(void* y, const void* x, std::size_t elem, const std::vector<std::vector<std::int64_t>>& tables,
                   std::uint64_t fill) {
  const std::size_t r = tables.size();
  for (const auto& t : tables) {
    if (t.empty()) return;
  }
  with_elem_type(elem, [&](auto tag) {
    using T = decltype(tag);
    T cv;
    std::memcpy(&cv, &fill, sizeof cv);
    const T* xs = static_cast<const T*>(x);
    T* ys = static_cast<T*>(y);
    if (r == 0) {
      ys[0] = xs[0];
      return;
    }
    const std::vector<std::int64_t>& last = tables[r - 1];
    const std::int64_t inner = static_cast<std::int64_t>(last.size());
    // The last table one run of consecutive elements (a nearest Resize or a Tile on NHWC
    // data: whole pixels of C values): rows are copied, not gathered element by element
    // (PP-OCRv4 det's ×2 upsamplings of 96 channels had cost 2.3 ms of its int8 neck).
    bool run = last[0] >= 0;
    for (std::int64_t o = 1; run && o < inner; ++o) run = last[static_cast<std::size_t>(o)] == last[0] + o;
    std::vector<std::size_t> idx(r - 1, 0);
    for (std::int64_t row = 0;; ++row) {
      std::int64_t base = 0;
      bool constant = false;
      for (std::size_t d = 0; d + 1 < r; ++d) {
        const std::int64_t v = tables[d][idx[d]];
        constant = constant || v < 0;
        base += v;
      }
      T* yr = ys + row * inner;
      if (run && !constant) {
        std::memcpy(yr, xs + base + last[0], static_cast<std::size_t>(inner) * sizeof(T));
      } else {
        for (std::int64_t o = 0; o < inner; ++o) {
          const std::int64_t v = last[static_cast<std::size_t>(o)];
          yr[o] = (constant || v < 0) ? cv : xs[base + v];
        }
      }
      std::size_t d = r - 1;
      for (; d > 0; --d) {
        if (++idx[d - 1] < tables[d - 1].size()) break;
        idx[d - 1] = 0;
      }
      if (d == 0) return;
    }
  });
}

Result<bool> AttrReader::flag(const char* name, bool def) const {
  KN_ASSIGN(std::int64_t v, i(name, def ? 1 : 0));
  if (v != 0 && v != 1) return Invalid(op_, "attribute \"{}\" must be 0 or 1, got {}", name, v);
  return v == 1;
}

Result<std::vector<std::int64_t>> AttrReader::ints_n(const char* name, std::size_t n, std::int64_t def) const {
  KN_ASSIGN(std::vector<std::int64_t> v, ints(name, std::vector<std::int64_t>(n, def)));
  if (v.size() != n) {
    return Malformed(op_, "attribute \"{}\" must have {} values, got {}", name, n, v.size());
  }
  return v;
}

Result<const TensorView*> InferCtx::need_value(std::size_t i, const char* what) const {
  const TensorView* t = value(i);
  if (t == nullptr) return Invalid(op, "input {} ({}) must be a constant known at build time", i, what);
  return t;
}

Result<std::vector<std::int64_t>> read_ints(const char* op, const char* what, const TensorView& t) {
  if (t.dims.size() > 1) return Invalid(op, "{} must be a scalar or 1-D, got shape {}", what, shape_str(t.dims));
  if (t.dtype != DType::kInt64 && t.dtype != DType::kInt32) {
    return BadType(op, "{} must be int64 or int32, got {}", what, model::dtype_name(t.dtype));
  }
  std::vector<std::int64_t> v(static_cast<std::size_t>(t.elements()));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = int_at(t, static_cast<std::int64_t>(i));
  return v;
}

Result<std::vector<float>> read_floats(const char* op, const char* what, const TensorView& t) {
  std::vector<float> v(static_cast<std::size_t>(t.elements()));
  if (t.dtype == DType::kFloat32) {
    if (!v.empty()) std::memcpy(v.data(), t.data, v.size() * sizeof(float));
  } else if (has_quant(t) && (is_q8(t.dtype) || t.dtype == DType::kInt32)) {
    dequantize(t, v.data());
  } else {
    return BadType(op, "{} must be float32 or quantized, got {}", what, type_desc(t));
  }
  return v;
}

std::int64_t qmin(DType t) {
  switch (t) {
    case DType::kInt8:
      return -128;
    case DType::kUint8:
      return 0;
    case DType::kInt16:
      return std::numeric_limits<std::int16_t>::min();
    case DType::kUint16:
      return 0;
    default:
      return std::numeric_limits<std::int32_t>::min();
  }
}

std::int64_t qmax(DType t) {
  switch (t) {
    case DType::kInt8:
      return 127;
    case DType::kUint8:
      return 255;
    case DType::kInt16:
      return std::numeric_limits<std::int16_t>::max();
    case DType::kUint16:
      return std::numeric_limits<std::uint16_t>::max();
    default:
      return std::numeric_limits<std::int32_t>::max();
  }
}

std::int64_t quant_axis(const TensorView& t) {
  if (!has_quant(t) || t.quant->scale.size() == 1) return -1;
  const std::int64_t r = static_cast<std::int64_t>(t.dims.size());
  return t.quant->axis < 0 ? t.quant->axis + r : t.quant->axis;
}

Status check_quant(const char* op, const std::string& what, const TensorView& t) {
  if (!has_quant(t)) return Status::Ok();
  const Quant& q = *t.quant;
  for (float s : q.scale) {
    if (!(s > 0.0f) || !std::isfinite(s)) return Invalid(op, "{} has an invalid quantization scale {}", what, s);
  }
  if (!q.zero_point.empty() && q.zero_point.size() != q.scale.size()) {
    return Invalid(op, "{} has {} zero points for {} scales", what, q.zero_point.size(), q.scale.size());
  }
  if (is_q8(t.dtype)) {
    for (std::int32_t z : q.zero_point) {
      if (z < qmin(t.dtype) || z > qmax(t.dtype)) {
        return Invalid(op, "{} has zero point {} outside the {} range", what, z, model::dtype_name(t.dtype));
      }
    }
  }
  if (q.scale.size() > 1) {
    const std::int64_t r = static_cast<std::int64_t>(t.dims.size());
    const std::int64_t a = q.axis < 0 ? q.axis + r : q.axis;
    if (a < 0 || a >= r) return Invalid(op, "{} has quantization axis {} out of range for rank {}", what, q.axis, r);
    if (t.dims[static_cast<std::size_t>(a)] != static_cast<std::int64_t>(q.scale.size())) {
      return Invalid(op, "{} has {} per-channel scales for dimension {} of size {}", what, q.scale.size(), a,
                     t.dims[static_cast<std::size_t>(a)]);
    }
  }
  return Status::Ok();
}

bool same_encoding(const TensorView& a, const TensorView& b) {
  if (a.dtype != b.dtype) return false;
  const bool qa = has_quant(a), qb = has_quant(b);
  if (!qa && !qb) return true;
  if (!qa || !qb || a.quant->scale.size() != 1 || b.quant->scale.size() != 1) return false;
  return a.quant->scale[0] == b.quant->scale[0] && zp_at(*a.quant, 0) == zp_at(*b.quant, 0);
}

std::int64_t int_at(const TensorView& t, std::int64_t i) {
  switch (t.dtype) {
    case DType::kInt8:
      return t.as<const std::int8_t>()[i];
    case DType::kUint8:
      return t.as<const std::uint8_t>()[i];
    case DType::kInt16:
      return t.as<const std::int16_t>()[i];
    case DType::kUint16:
      return t.as<const std::uint16_t>()[i];
    case DType::kInt32:
      return t.as<const std::int32_t>()[i];
    case DType::kUint32:
      return t.as<const std::uint32_t>()[i];
    case DType::kInt64:
      return t.as<const std::int64_t>()[i];
    default:
      return 0;
  }
}

void set_int(const TensorView& t, std::int64_t i, std::int64_t v) {
  switch (t.dtype) {
    case DType::kInt8:
      t.as<std::int8_t>()[i] = static_cast<std::int8_t>(v);
      break;
    case DType::kUint8:
      t.as<std::uint8_t>()[i] = static_cast<std::uint8_t>(v);
      break;
    case DType::kInt16:
      t.as<std::int16_t>()[i] = static_cast<std::int16_t>(v);
      break;
    case DType::kUint16:
      t.as<std::uint16_t>()[i] = static_cast<std::uint16_t>(v);
      break;
    case DType::kInt32:
      t.as<std::int32_t>()[i] = static_cast<std::int32_t>(v);
      break;
    case DType::kInt64:
      t.as<std::int64_t>()[i] = v;
      break;
    default:
      break;
  }
}

namespace {

// Calls f(i, channel) for every element, channel being the index along the quant axis.
template <typename F>
void for_each_channel(const TensorView& t, F&& f) {
  const std::int64_t n = t.elements();
  const std::int64_t axis = quant_axis(t);
  if (axis < 0) {
    for (std::int64_t i = 0; i < n; ++i) f(i, std::size_t{0});
    return;
  }
  const std::int64_t ch = t.dims[static_cast<std::size_t>(axis)];
  std::int64_t inner = 1;
  for (std::size_t d = static_cast<std::size_t>(axis) + 1; d < t.dims.size(); ++d) inner *= t.dims[d];
  for (std::int64_t i = 0; i < n; ++i) f(i, static_cast<std::size_t>((i / inner) % ch));
}

}  // namespace

void dequantize(const TensorView& q, float* out) {
  const Quant& p = *q.quant;
  if (quant_axis(q) < 0 && (q.dtype == DType::kInt8 || q.dtype == DType::kUint8)) {
    if (q.dtype == DType::kInt8) {
      dequantize_per_tensor(q.as<const std::int8_t>(), q.elements(), zp_at(p, 0), scale_at(p, 0), out);
    } else {
      dequantize_per_tensor(q.as<const std::uint8_t>(), q.elements(), zp_at(p, 0), scale_at(p, 0), out);
    }
    return;
  }
  if (quant_axis(q) < 0 && q.dtype == DType::kInt16) {
    dequantize_per_tensor(q.as<const std::int16_t>(), q.elements(), zp_at(p, 0), scale_at(p, 0), out);
    return;
  }
  for_each_channel(q, [&](std::int64_t i, std::size_t c) {
    out[i] = static_cast<float>(int_at(q, i) - zp_at(p, c)) * scale_at(p, c);
  });
}

std::vector<std::int32_t> shifted_ints(const TensorView& q) {
  std::vector<std::int32_t> out(static_cast<std::size_t>(q.elements()));
  const Quant& p = *q.quant;
  auto typed = [&](auto tag) {
    using T = decltype(tag);
    const T* v = q.as<const T>();
    for_each_channel(q, [&](std::int64_t i, std::size_t c) {
      out[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(v[i]) - zp_at(p, c);
    });
  };
  if (q.dtype == DType::kInt8) {
    typed(std::int8_t{});
    return out;
  }
  if (q.dtype == DType::kInt16) {
    typed(std::int16_t{});
    return out;
  }
  if (q.dtype == DType::kUint8) {
    typed(std::uint8_t{});
    return out;
  }
  for_each_channel(q, [&](std::int64_t i, std::size_t c) {
    out[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(int_at(q, i) - zp_at(p, c));
  });
  return out;
}

void quantize(const float* x, const TensorView& q) {
  const Quant& p = *q.quant;
  if (quant_axis(q) < 0 && (q.dtype == DType::kInt8 || q.dtype == DType::kUint8)) {
    if (q.dtype == DType::kInt8) {
      quantize_per_tensor(x, q.elements(), scale_at(p, 0), zp_at(p, 0), q.as<std::int8_t>());
    } else {
      quantize_per_tensor(x, q.elements(), scale_at(p, 0), zp_at(p, 0), q.as<std::uint8_t>());
    }
    return;
  }
  if (quant_axis(q) < 0 && q.dtype == DType::kInt16) {
    quantize_per_tensor(x, q.elements(), scale_at(p, 0), zp_at(p, 0), q.as<std::int16_t>());
    return;
  }
  const std::int64_t lo = qmin(q.dtype), hi = qmax(q.dtype);
  for_each_channel(q, [&](std::int64_t i, std::size_t c) {
    set_int(q, i, quantize_value(x[i], scale_at(p, c), zp_at(p, c), lo, hi));
  });
}

std::string type_desc(const TensorView& t) {
  if (is_q8(t.dtype) && !has_quant(t)) {
    return fmt::format("{} without quantization parameters", model::dtype_name(t.dtype));
  }
  return model::dtype_name(t.dtype);
}

std::string encoding_desc(const TensorView& t) {
  if (!has_quant(t)) return type_desc(t);
  if (t.quant->scale.size() != 1) {
    return fmt::format("{} (per-channel, {} scales)", model::dtype_name(t.dtype), t.quant->scale.size());
  }
  return fmt::format("{} (scale {:g}, zero point {})", model::dtype_name(t.dtype), t.quant->scale[0], zp_at(*t.quant, 0));
}

Status require_f32(const RunCtx& c, std::initializer_list<std::size_t> inputs) {
  for (std::size_t i : inputs) {
    if (i < c.in.size() && c.in[i].dtype != DType::kFloat32 && (i == 0 || c.has(i))) {
      return BadType(c.op,
                     "unsupported data type {} for input {} (expected float32, or int8/uint8 with quantization "
                     "parameters)",
                     type_desc(c.in[i]), i);
    }
  }
  for (std::size_t i = 0; i < c.out.size(); ++i) {
    if (c.out[i].dtype != DType::kFloat32) {
      return BadType(c.op,
                     "unsupported data type {} for output {} (expected float32, or int8/uint8 with quantization "
                     "parameters)",
                     type_desc(c.out[i]), i);
    }
  }
  return Status::Ok();
}

namespace {

// Float copies of quantized operands live in per-thread buffers reused from call to call:
// a fresh multi-megabyte buffer per layer is an mmap, a page fault per 4 KiB on first
// touch and an munmap, which cost more than the arithmetic (an int8 Clip over a
// 96×112×112 map took ~1 ms that way). A thread keeps the largest buffers it needed.
std::vector<std::vector<float>>& float_buffer_pool() {
  thread_local std::vector<std::vector<float>> pool;
  return pool;
}

std::vector<float> take_float_buffer(std::size_t n) {
  auto& pool = float_buffer_pool();
  std::vector<float> b;
  if (!pool.empty()) {
    b = std::move(pool.back());
    pool.pop_back();
  }
  if (b.size() < n) b.resize(n);
  return b;
}

// Gives the buffers back to the pool however the call ends.
struct FloatBuffers {
  std::vector<std::vector<float>> held;
  ~FloatBuffers() {
    for (auto& b : held) float_buffer_pool().push_back(std::move(b));
  }
  float* take(std::size_t n) {
    held.push_back(take_float_buffer(n));
    return held.back().data();
  }
};

}  // namespace

Status run_via_float(const RunCtx& c, Status (*float_run)(const RunCtx&), FloatOutputs outputs) {
  auto convertible = [](const TensorView& t) {
    return (is_q8(t.dtype) || t.dtype == DType::kInt16 || t.dtype == DType::kInt32) && has_quant(t);
  };
  FloatBuffers buffers;
  std::vector<TensorView> in = c.in, out = c.out;
  auto float_view = [&](const TensorView& t) {
    TensorView v;
    v.dtype = DType::kFloat32;
    v.dims = t.dims;
    v.data = buffers.take(static_cast<std::size_t>(std::max<std::int64_t>(t.elements(), 1)));
    return v;
  };
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (!convertible(in[i])) continue;
    TensorView f = float_view(in[i]);
    dequantize(in[i], f.as<float>());
    in[i] = f;
  }
  std::vector<std::size_t> requant;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!convertible(out[i])) continue;
    out[i] = float_view(out[i]);
    // Zeroed as a fresh buffer was: a kernel may leave parts of an output to be zero.
    if (outputs == FloatOutputs::kZeroed) std::fill(out[i].as<float>(), out[i].as<float>() + out[i].elements(), 0.0f);
    requant.push_back(i);
  }
  SVP_RETURN_IF_ERROR(float_run(RunCtx{c.op, c.attrs, in, out}));
  for (std::size_t i : requant) quantize(out[i].as<float>(), c.out[i]);
  return Status::Ok();
}

Status run_unary_via_float(const RunCtx& c, Status (*float_run)(const RunCtx&)) {
  const auto per_tensor_q8 = [](const TensorView& t) {
    return is_q8(t.dtype) && has_quant(t) && t.quant->scale.size() == 1;
  };
  // Below a few table sizes the table costs more than it saves.
  constexpr std::int64_t kTableFrom = 1024;
  if (c.in.size() != 1 || c.out.size() != 1 || !per_tensor_q8(c.in[0]) || !per_tensor_q8(c.out[0]) ||
      c.in[0].elements() != c.out[0].elements() || c.in[0].elements() < kTableFrom) {
    return run_via_float(c, float_run);
  }
  const bool in_signed = c.in[0].dtype == DType::kInt8;
  std::uint8_t codes[256], table[256];
  for (int k = 0; k < 256; ++k) codes[k] = static_cast<std::uint8_t>(in_signed ? k - 128 : k);  // code order
  std::vector<TensorView> x = {c.in[0]}, y = {c.out[0]};
  x[0].dims = {256};
  x[0].data = codes;
  y[0].dims = {256};
  y[0].data = table;
  SVP_RETURN_IF_ERROR(run_via_float(RunCtx{c.op, c.attrs, x, y}, float_run));
  const auto* in = static_cast<const std::uint8_t*>(c.in[0].data);
  auto* out = static_cast<std::uint8_t*>(c.out[0].data);
  const std::int64_t n = c.in[0].elements();
  const std::uint8_t flip = in_signed ? 0x80 : 0x00;  // int8 code q sits at q + 128
  for (std::int64_t i = 0; i < n; ++i) out[i] = table[in[i] ^ flip];
  return Status::Ok();
}

namespace {

__attribute__((target("avx512f,avx512bw,avx512vbmi"))) void apply_byte_table_vbmi(const std::uint8_t* table,
                                                                                  const std::uint8_t* in,
                                                                                  std::uint8_t* out, std::int64_t n) {
  __m512i t[4];
  for (int k = 0; k < 4; ++k) t[k] = _mm512_loadu_si512(table + 64 * k);
  std::int64_t i = 0;
  for (; i + 64 <= n; i += 64) _mm512_storeu_si512(out + i, lookup64(t, _mm512_loadu_si512(in + i)));
  if (i < n) {
    const __mmask64 m = (1ull << (n - i)) - 1;  // n - i < 64
    _mm512_mask_storeu_epi8(out + i, m, lookup64(t, _mm512_maskz_loadu_epi8(m, in + i)));
  }
}

}  // namespace

void apply_byte_table(const std::uint8_t* table, const std::uint8_t* in, std::uint8_t* out, std::int64_t n) {
  static const bool vbmi = __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw");
  if (vbmi) return apply_byte_table_vbmi(table, in, out, n);
  for (std::int64_t i = 0; i < n; ++i) out[i] = table[in[i]];
}

}  // namespace svp::kernels::detail
