#include "model/tensor.h"

namespace svp::model {

std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::kFloat32: case DType::kInt32: case DType::kUint32: return 4;
    case DType::kFloat16: case DType::kInt16: case DType::kUint16: return 2;
    case DType::kInt8: case DType::kUint8: case DType::kBool: return 1;
    case DType::kInt64: case DType::kUint64: case DType::kFloat64: return 8;
  }
  return 0;
}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::kFloat32: return "float32";
    case DType::kFloat16: return "float16";
    case DType::kInt8: return "int8";
    case DType::kInt32: return "int32";
    case DType::kUint8: return "uint8";
    case DType::kInt16: return "int16";
    case DType::kUint16: return "uint16";
    case DType::kUint32: return "uint32";
    case DType::kInt64: return "int64";
    case DType::kUint64: return "uint64";
    case DType::kFloat64: return "float64";
    case DType::kBool: return "bool";
  }
  return "?";
}

std::int64_t TensorView::elements() const {
  std::int64_t n = 1;
  for (std::int64_t d : dims) n *= d;
  return n;
}

}  // namespace svp::model
