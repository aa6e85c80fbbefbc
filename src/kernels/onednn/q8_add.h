// Quantized elementwise Add of two same-shape int8/uint8 tensors (optionally followed by
// Relu), bit-exact with the reference's generic path (docs/kernels.md §3):
//   y = saturate(nearbyint(((float)(a − zp_a)·s_a + (float)(b − zp_b)·s_b) / s_y) + zp_y)
// and Relu as max(y, zp_y). Layout-agnostic (elementwise), so it runs on NHWC data.
// oneDNN's binary primitive rescales differently (a·(s_a/s_y) + b·(s_b/s_y)), which is not
// the reference rule, hence this small vectorised kernel of our own.
#pragma once

#include <cstdint>

#include "model/tensor.h"

namespace svp::kernels::onednn {

struct Q8Operand {
  model::DType dtype;  // kInt8 or kUint8
  float scale;
  std::int32_t zp;
};

void q8_add(const void* a, const Q8Operand& qa, const void* b, const Q8Operand& qb, void* y, const Q8Operand& qy,
            bool relu, std::int64_t n);

}  // namespace svp::kernels::onednn
