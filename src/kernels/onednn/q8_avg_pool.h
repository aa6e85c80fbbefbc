// Native int8 AveragePool (any window, pads, strides, dilations, count_include_pad),
// bit-exact with the reference's generic path (dequantize, the float AveragePool, requantize):
//   y = saturate(nearbyint((float)(Σ (double)((float)(q − zp_x)·s_x) / n) / s_y) + zp_y)
// with n the output element's divisor. Each term is a float multiple of ulp(s_x) below
// 2^9·s_x, so a window of under 2^20 taps sums exactly in double in any order (q8_gap.h
// makes the same argument); the kernel adds table values instead of dequantizing the whole
// input into a float buffer and requantizing a float output, which cost PP-OCRv4 rec's one
// AveragePool ~0.3 ms per inference.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/reference/spatial.h"
#include "model/program.h"

namespace svp::kernels::onednn {

struct Q8AvgPool {
  detail::AvgPoolGeometry g;
  std::vector<double> div;    // g.div as doubles (the mean's divisor)
  bool empty_windows = false;  // some window holds no input element (its mean is 0)
  double deq[256] = {};  // (float)(q − zp_x)·s_x of every byte, by the byte's value
  model::DType x = model::DType::kInt8, y = model::DType::kInt8;
  float sy = 1.0f;
  std::int32_t zpy = 0;
};

// The plan for AveragePool layer `l` with per-tensor int8/uint8 input x and output y, or
// false (then the reference runs it).
bool q8_avg_pool_for(const model::Layer& l, const model::Tensor& x, const model::Tensor& y, Q8AvgPool* plan);

// y = AveragePool(x) for planes (n·C + c) [plane_begin, plane_end), both NCHW (logical
// order); x and y must not overlap.
void q8_avg_pool(const Q8AvgPool& plan, const void* x, void* y, std::int64_t plane_begin, std::int64_t plane_end);

}  // namespace svp::kernels::onednn
