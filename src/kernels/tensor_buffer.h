// OwnedTensor: a TensorView together with the memory and quantization it points to.
//
// Used by the reference kernels for temporaries (the dequantized copies of the generic
// int8 path) and handy wherever a tensor must be built from values (tests, tools).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "model/tensor.h"

namespace svp::kernels {

class OwnedTensor {
 public:
  OwnedTensor() = default;
  OwnedTensor(model::DType dtype, std::vector<std::int64_t> dims) { reset(dtype, std::move(dims)); }

  // Zero-initialised storage for `dims` elements of `dtype` (drops any quantization).
  void reset(model::DType dtype, std::vector<std::int64_t> dims) {
    view_.dtype = dtype;
    view_.dims = std::move(dims);
    std::int64_t n = 1;
    for (std::int64_t d : view_.dims) n *= d < 0 ? 0 : d;
    storage_.assign(static_cast<std::size_t>(n) * model::dtype_size(dtype) / sizeof(std::uint64_t) + 1, 0);
    view_.data = storage_.data();
    quant_.reset();
    view_.quant = nullptr;
  }

  void set_quant(model::Quant q) {
    quant_ = std::make_unique<model::Quant>(std::move(q));
    view_.quant = quant_.get();
  }

  template <typename T>
  static OwnedTensor from(model::DType dtype, std::vector<std::int64_t> dims, const std::vector<T>& values) {
    OwnedTensor t(dtype, std::move(dims));
    const std::size_t n = std::min(values.size() * sizeof(T), t.view_.bytes());
    if (n > 0) std::memcpy(t.view_.data, values.data(), n);
    return t;
  }
  static OwnedTensor f32(std::vector<std::int64_t> dims, const std::vector<float>& v) {
    return from(model::DType::kFloat32, std::move(dims), v);
  }
  static OwnedTensor i64(std::vector<std::int64_t> dims, const std::vector<std::int64_t>& v) {
    return from(model::DType::kInt64, std::move(dims), v);
  }
  // A quantized int8/uint8 tensor from its integer values (given as int32).
  static OwnedTensor q8(model::DType dtype, std::vector<std::int64_t> dims, const std::vector<std::int32_t>& v,
                        model::Quant q) {
    OwnedTensor t(dtype, std::move(dims));
    for (std::size_t i = 0; i < v.size() && i < t.view_.bytes(); ++i) {
      if (dtype == model::DType::kInt8) {
        t.view_.as<std::int8_t>()[i] = static_cast<std::int8_t>(v[i]);
      } else {
        t.view_.as<std::uint8_t>()[i] = static_cast<std::uint8_t>(v[i]);
      }
    }
    t.set_quant(std::move(q));
    return t;
  }

  const model::TensorView& view() const { return view_; }
  model::TensorView& view() { return view_; }
  std::int64_t elements() const { return view_.elements(); }
  template <typename T>
  T* data() const {
    return view_.as<T>();
  }
  template <typename T>
  std::vector<T> values() const {
    const T* p = data<T>();
    return std::vector<T>(p, p + elements());
  }

 private:
  std::vector<std::uint64_t> storage_;  // 8-byte aligned for every element type
  std::unique_ptr<model::Quant> quant_;
  model::TensorView view_;
};

}  // namespace svp::kernels
