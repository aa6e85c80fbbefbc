// Quantized GlobalAveragePool on NCHW or NHWC int8/uint8 data, bit-exact with the
// reference's generic path (dequantize, double sum per plane, mean cast to float,
// requantize):
//   y = saturate(nearbyint((float)(Σ (double)((float)(q − zp_x)·s_x) / HW) / s_y) + zp_y)
// The double sum is exact in any order (every term is a float multiple of ulp(s_x) below
// 2^9·s_x, so HW < 2^20 terms need under 53 bits), which lets the NHWC loop accumulate
// channel vectors instead of planes. oneDNN averages integers directly (another rule).
#pragma once

#include <cstdint>

#include "kernels/onednn/q8_add.h"

namespace svp::kernels::onednn {

inline constexpr std::int64_t kQ8GapMaxSpatial = std::int64_t{1} << 20;

void q8_global_avg_pool(const void* x, const Q8Operand& qx, void* y, const Q8Operand& qy, std::int64_t n,
                        std::int64_t c, std::int64_t hw, bool nhwc);

}  // namespace svp::kernels::onednn
