// The conversions between an application's buffers and a model input or output:
// rknn_inputs_set's type, layout and quantization conversion (seed 001's affine formulas),
// rknn_outputs_get's dequantization.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "common/half.h"
#include "runtime/rknn_ctx.h"

namespace svp::runtime::rknn {
namespace {

// Reads element i of a dense buffer of model dtype `t` as a double.
double load(model::DType t, const std::uint8_t* p, std::size_t i) {
  switch (t) {
    case model::DType::kFloat32: { float v; std::memcpy(&v, p + 4 * i, 4); return v; }
    case model::DType::kFloat16: { std::uint16_t h; std::memcpy(&h, p + 2 * i, 2); return half_to_float(h); }
    case model::DType::kInt8: return static_cast<std::int8_t>(p[i]);
    case model::DType::kUint8:
    case model::DType::kBool: return p[i];
    case model::DType::kInt16: { std::int16_t v; std::memcpy(&v, p + 2 * i, 2); return v; }
    case model::DType::kUint16: { std::uint16_t v; std::memcpy(&v, p + 2 * i, 2); return v; }
    case model::DType::kInt32: { std::int32_t v; std::memcpy(&v, p + 4 * i, 4); return v; }
    case model::DType::kUint32: { std::uint32_t v; std::memcpy(&v, p + 4 * i, 4); return v; }
    case model::DType::kInt64: { std::int64_t v; std::memcpy(&v, p + 8 * i, 8); return static_cast<double>(v); }
    default: return 0.0;
  }
}

template <typename T>
T saturate(double v) {
  const double r = std::nearbyint(v);
  const double lo = static_cast<double>(std::numeric_limits<T>::lowest());
  const double hi = static_cast<double>(std::numeric_limits<T>::max());
  return static_cast<T>(std::min(hi, std::max(lo, std::isnan(r) ? 0.0 : r)));
}

// Writes `v` as element i of a dense buffer of model dtype `t` (integers round and saturate).
void store(model::DType t, std::uint8_t* p, std::size_t i, double v) {
  switch (t) {
    case model::DType::kFloat32: { const float f = static_cast<float>(v); std::memcpy(p + 4 * i, &f, 4); break; }
    case model::DType::kFloat16: { const auto h = float_to_half(static_cast<float>(v)); std::memcpy(p + 2 * i, &h, 2); break; }
    case model::DType::kInt8: { const auto q = saturate<std::int8_t>(v); std::memcpy(p + i, &q, 1); break; }
    case model::DType::kUint8: p[i] = saturate<std::uint8_t>(v); break;
    case model::DType::kBool: p[i] = v != 0.0 ? 1 : 0; break;
    case model::DType::kInt16: { const auto q = saturate<std::int16_t>(v); std::memcpy(p + 2 * i, &q, 2); break; }
    case model::DType::kUint16: { const auto q = saturate<std::uint16_t>(v); std::memcpy(p + 2 * i, &q, 2); break; }
    case model::DType::kInt32: { const auto q = saturate<std::int32_t>(v); std::memcpy(p + 4 * i, &q, 4); break; }
    case model::DType::kUint32: { const auto q = saturate<std::uint32_t>(v); std::memcpy(p + 4 * i, &q, 4); break; }
    case model::DType::kInt64: { const auto q = saturate<std::int64_t>(v); std::memcpy(p + 8 * i, &q, 8); break; }
    default: break;
  }
}

// The host-side type of rknn_input.type as a model dtype (only the converted ones; BFLOAT16,
// which no model tensor has, is read by load_host).
bool dtype_of(int rknn_type, model::DType* out) {
  switch (rknn_type) {
    case RKNN_TENSOR_FLOAT32: *out = model::DType::kFloat32; return true;
    case RKNN_TENSOR_FLOAT16: *out = model::DType::kFloat16; return true;
    case RKNN_TENSOR_INT8: *out = model::DType::kInt8; return true;
    case RKNN_TENSOR_UINT8: *out = model::DType::kUint8; return true;
    case RKNN_TENSOR_INT16: *out = model::DType::kInt16; return true;
    case RKNN_TENSOR_UINT16: *out = model::DType::kUint16; return true;
    case RKNN_TENSOR_INT32: *out = model::DType::kInt32; return true;
    case RKNN_TENSOR_UINT32: *out = model::DType::kUint32; return true;
    case RKNN_TENSOR_INT64: *out = model::DType::kInt64; return true;
    case RKNN_TENSOR_BOOL: *out = model::DType::kBool; return true;
    default: return false;
  }
}

// Reads element i of an application buffer of rknn type `type` (one dtype_of accepts or
// BFLOAT16).
double load_host(int type, model::DType t, const std::uint8_t* p, std::size_t i) {
  if (type == RKNN_TENSOR_BFLOAT16) {
    std::uint16_t b;
    std::memcpy(&b, p + 2 * i, 2);
    return bfloat16_to_float(b);
  }
  return load(t, p, i);
}

// The dense (model-order) bytes of `io` from its strided device buffer.
std::vector<std::uint8_t> read_dense(const Io& io) {
  const std::size_t es = model::dtype_size(io.desc.dtype);
  const std::uint64_t last = static_cast<std::uint64_t>(io.desc.dims.back());
  const std::uint64_t rows = last == 0 ? 0 : io.elems / last;
  std::vector<std::uint8_t> out(io.elems * es);
  const auto* src = static_cast<const std::uint8_t*>(io.buf);
  for (std::uint64_t r = 0; r < rows; ++r) std::memcpy(out.data() + r * last * es, src + r * io.desc.stride, last * es);
  return out;
}

void write_dense(const Io& io, const std::vector<std::uint8_t>& dense) {
  const std::size_t es = model::dtype_size(io.desc.dtype);
  const std::uint64_t last = static_cast<std::uint64_t>(io.desc.dims.back());
  const std::uint64_t rows = last == 0 ? 0 : io.elems / last;
  auto* dst = static_cast<std::uint8_t*>(io.buf);
  for (std::uint64_t r = 0; r < rows; ++r) std::memcpy(dst + r * io.desc.stride, dense.data() + r * last * es, last * es);
}

}  // namespace

std::size_t host_type_size(int type) {
  switch (type) {
    case RKNN_TENSOR_FLOAT32: return 4;
    case RKNN_TENSOR_FLOAT16:
    case RKNN_TENSOR_BFLOAT16: return 2;
    case RKNN_TENSOR_INT8:
    case RKNN_TENSOR_UINT8:
    case RKNN_TENSOR_BOOL: return 1;
    case RKNN_TENSOR_INT16:
    case RKNN_TENSOR_UINT16: return 2;
    case RKNN_TENSOR_INT32:
    case RKNN_TENSOR_UINT32: return 4;
    case RKNN_TENSOR_INT64: return 8;
    default: return 0;
  }
}

bool per_tensor_affine(const model::Quant& q) { return q.scale.size() == 1 && q.zero_point.size() == 1; }

int set_one(const char* fn, Io& io, const rknn_input& in) {
  // Read as the ints a C caller may have put there (any value; see raw_enum).
  const int type = raw_enum(in.type), format = raw_enum(in.fmt);
  const std::size_t model_es = model::dtype_size(io.desc.dtype);
  if (in.pass_through != 0 && io.int8_view) {
    if (in.size != io.elems) {
      return fail(fn, RKNN_ERR_INPUT_INVALID,
                  fmt::format("input {}: pass_through needs exactly {} bytes (INT8, the type RKNN_QUERY_INPUT_ATTR "
                              "reports, {} elements in model order), got {}",
                              in.index, io.elems, io.elems, in.size));
    }
    const auto* q = static_cast<const std::int8_t*>(in.buf);
    std::vector<std::uint8_t> dense(io.elems * sizeof(float));
    for (std::uint64_t i = 0; i < io.elems; ++i) {
      store(model::DType::kFloat32, dense.data(), i, (static_cast<double>(q[i]) - io.view_zp) * io.view_scale);
    }
    write_dense(io, dense);
    return RKNN_SUCC;
  }
  if (in.pass_through != 0) {
    const std::uint64_t want = io.elems * model_es;
    if (in.size != want) {
      return fail(fn, RKNN_ERR_INPUT_INVALID,
                  fmt::format("input {}: pass_through needs exactly {} bytes (the model's {} tensor, {} elements in "
                              "model order), got {}",
                              in.index, want, model::dtype_name(io.desc.dtype), io.elems, in.size));
    }
    const auto* p = static_cast<const std::uint8_t*>(in.buf);
    write_dense(io, std::vector<std::uint8_t>(p, p + want));
    return RKNN_SUCC;
  }
  model::DType src_t = model::DType::kFloat32;  // BFLOAT16: read as float by load_host
  if (type != RKNN_TENSOR_BFLOAT16 && !dtype_of(type, &src_t)) {
    if (type == RKNN_TENSOR_INT4) {
      return not_implemented(fn, fmt::format("input {}: buffers of type {}", in.index, type_name(type)));
    }
    return fail(fn, RKNN_ERR_INPUT_INVALID, fmt::format("input {}: type {} is not a tensor type", in.index, type));
  }
  if (format != RKNN_TENSOR_NCHW && format != RKNN_TENSOR_NHWC && format != RKNN_TENSOR_UNDEFINED) {
    return fail(fn, RKNN_ERR_INPUT_INVALID, fmt::format("input {}: fmt {} is not a tensor format", in.index, format));
  }
  const std::uint64_t want = io.elems * host_type_size(type);
  if (in.size != want) {
    return fail(fn, RKNN_ERR_INPUT_INVALID,
                fmt::format("input {}: size {} does not match {} elements of {} ({} bytes)", in.index, in.size, io.elems,
                            type_name(type), want));
  }
  const auto* src = static_cast<const std::uint8_t*>(in.buf);
  const auto& d = io.desc.dims;
  const bool nhwc = io.image && format == RKNN_TENSOR_NHWC;
  // Float buffers (FLOAT32, FLOAT16, BFLOAT16) are quantized into an integer model input.
  const bool float_src = src_t == model::DType::kFloat32 || src_t == model::DType::kFloat16;
  const bool model_float = io.desc.dtype == model::DType::kFloat32 || io.desc.dtype == model::DType::kFloat16;
  const bool quantize = !model_float && per_tensor_affine(io.quant) && float_src;
  const double scale = quantize ? io.quant.scale[0] : 1.0;
  const double zp = quantize ? io.quant.zero_point[0] : 0.0;
  std::vector<std::uint8_t> dense(io.elems * model_es);
  for (std::uint64_t i = 0; i < io.elems; ++i) {
    std::uint64_t s = i;  // index in the application's buffer of model-order element i
    if (nhwc) {
      const std::uint64_t C = static_cast<std::uint64_t>(d[1]), H = static_cast<std::uint64_t>(d[2]),
                          W = static_cast<std::uint64_t>(d[3]);
      const std::uint64_t w = i % W, h = (i / W) % H, ch = (i / (W * H)) % C, n = i / (W * H * C);
      s = ((n * H + h) * W + w) * C + ch;
    }
    double v = load_host(type, src_t, src, s);
    if (quantize) v = v / scale + zp;
    store(io.desc.dtype, dense.data(), i, v);
  }
  write_dense(io, dense);
  return RKNN_SUCC;
}

std::vector<std::uint8_t> output_bytes(const Io& io, bool want_float) {
  std::vector<std::uint8_t> dense = read_dense(io);
  if (io.int8_view && !want_float) {
    std::vector<std::uint8_t> out(io.elems);
    for (std::uint64_t i = 0; i < io.elems; ++i) {
      store(model::DType::kInt8, out.data(), i, load(model::DType::kFloat32, dense.data(), i) / io.view_scale + io.view_zp);
    }
    return out;
  }
  if (!want_float || io.desc.dtype == model::DType::kFloat32) return dense;
  const bool deq = per_tensor_affine(io.quant);
  std::vector<std::uint8_t> out(io.elems * sizeof(float));
  for (std::uint64_t i = 0; i < io.elems; ++i) {
    double v = load(io.desc.dtype, dense.data(), i);
    if (deq) v = (v - io.quant.zero_point[0]) * io.quant.scale[0];
    store(model::DType::kFloat32, out.data(), i, v);
  }
  return out;
}

std::vector<std::uint8_t> output_bytes_as(const Io& io, int type) {
  if (type != RKNN_TENSOR_FLOAT16 && type != RKNN_TENSOR_BFLOAT16) return output_bytes(io, type == RKNN_TENSOR_FLOAT32);
  const std::vector<std::uint8_t> f32 = output_bytes(io, true);
  std::vector<std::uint8_t> out(io.elems * 2);
  for (std::uint64_t i = 0; i < io.elems; ++i) {
    float v;
    std::memcpy(&v, f32.data() + 4 * i, 4);
    const std::uint16_t h = type == RKNN_TENSOR_FLOAT16 ? float_to_half(v) : float_to_bfloat16(v);
    std::memcpy(out.data() + 2 * i, &h, 2);
  }
  return out;
}

}  // namespace svp::runtime::rknn
