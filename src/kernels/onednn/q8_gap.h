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

// What the sums need of the input's encoding, prepared once (at load) rather than per call:
// the dequantization table and, where the CPU has AVX-512 VBMI and the scale is a normal
// float, its exact split into a linear part and byte tables (q8_gap.cpp).
struct Q8GapInput {
  float deq[256];      // (float)(q − zp)·s of every byte
  bool split = false;  // the vector path applies
  // The split's correction e per byte: one table of e − e_base where its range spans at most
  // 256 values (most scales), else two of its low byte and high byte (signed).
  bool two_tables = false;
  alignas(64) std::uint8_t lo[256];
  alignas(64) std::uint8_t hi[256];
  std::int32_t e_base = 0;
  std::uint8_t flip = 0;
  std::int32_t offset = 0;
  double s = 0, u = 0;
};

Q8GapInput q8_gap_input(const Q8Operand& qx);

// Σ over each channel's plane of (double)((float)(q − zp_x)·s_x), exactly (the first step
// above) into sum[0..c).
void q8_gap_channel_sums(const void* x, const Q8GapInput& qx, std::int64_t c, std::int64_t hw, bool nhwc,
                         double* sum);

void q8_global_avg_pool(const void* x, const Q8GapInput& qx, void* y, const Q8Operand& qy, std::int64_t n,
                        std::int64_t c, std::int64_t hw, bool nhwc);

}  // namespace svp::kernels::onednn
