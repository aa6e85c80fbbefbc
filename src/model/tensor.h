// Tensor types shared by the model IR, the kernels and the executor.
//
// Element types use the vendor's svp_acl_data_type numbering and layouts the vendor's
// svp_acl_format numbering, so descriptions can be reported through the C API unchanged.
// Inside the executor every tensor is dense and row-major in its logical (ONNX) shape:
// NCHW for 4-D activations unless a fast path converts internally.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace svp::model {

enum class DType : std::int32_t {
  kFloat32 = 0,  // SVP_ACL_FLOAT
  kFloat16 = 1,
  kInt8 = 2,
  kInt32 = 3,
  kUint8 = 4,
  kInt16 = 6,
  kUint16 = 7,
  kUint32 = 8,
  kInt64 = 9,
  kUint64 = 10,
  kFloat64 = 11,  // SVP_ACL_DOUBLE
  kBool = 12,     // one byte per element, 0 or 1 (ONNX's bool)
};

enum class Layout : std::int32_t {
  kNCHW = 0,  // SVP_ACL_FORMAT_NCHW
  kNHWC = 1,
  kND = 2,
};

// Bytes per element (all supported types are whole bytes).
std::size_t dtype_size(DType t);
const char* dtype_name(DType t);

// Affine quantization: real = scale * (q - zero_point). One entry = per-tensor; otherwise
// one entry per index of `axis` (per-channel, used for weights: axis 0 of a conv filter).
struct Quant {
  std::vector<float> scale;
  std::vector<std::int32_t> zero_point;
  std::int32_t axis = -1;

  bool empty() const { return scale.empty(); }
  bool per_channel() const { return scale.size() > 1; }
};

// A dense tensor in memory, as kernels see it. Non-owning.
struct TensorView {
  DType dtype = DType::kFloat32;
  std::vector<std::int64_t> dims;
  void* data = nullptr;
  const Quant* quant = nullptr;  // required for quantized int8/uint8 tensors

  std::int64_t elements() const;
  std::size_t bytes() const { return static_cast<std::size_t>(elements()) * dtype_size(dtype); }
  template <typename T>
  T* as() const {
    return static_cast<T*>(data);
  }
};

}  // namespace svp::model
