#include "kernels/onednn/q8_gap.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace svp::kernels::onednn {

void q8_global_avg_pool(const void* x, const Q8Operand& qx, void* y, const Q8Operand& qy, std::int64_t n,
                        std::int64_t c, std::int64_t hw, bool nhwc) {
  // Dequantization table: 256 possible inputs, (float)(q − zp)·s each.
  float deq[256];
  for (int v = 0; v < 256; ++v) {
    const std::int32_t q = qx.dtype == model::DType::kInt8 ? static_cast<std::int8_t>(v) : v;
    deq[v] = static_cast<float>(q - qx.zp) * qx.scale;
  }
  const auto* px = static_cast<const std::uint8_t*>(x);
  std::vector<double> sum(static_cast<std::size_t>(c));
  const std::int64_t lo = qy.dtype == model::DType::kInt8 ? -128 : 0, hi = qy.dtype == model::DType::kInt8 ? 127 : 255;
  for (std::int64_t b = 0; b < n; ++b) {
    std::fill(sum.begin(), sum.end(), 0.0);
    const std::uint8_t* base = px + b * c * hw;
    if (nhwc) {
      for (std::int64_t s = 0; s < hw; ++s)
        for (std::int64_t ch = 0; ch < c; ++ch) sum[static_cast<std::size_t>(ch)] += deq[base[s * c + ch]];
    } else {
      for (std::int64_t ch = 0; ch < c; ++ch)
        for (std::int64_t s = 0; s < hw; ++s) sum[static_cast<std::size_t>(ch)] += deq[base[ch * hw + s]];
    }
    for (std::int64_t ch = 0; ch < c; ++ch) {
      const float mean = static_cast<float>(sum[static_cast<std::size_t>(ch)] / static_cast<double>(hw));
      // The reference's quantize_value: nearbyint(x / s) + zp in [lo, hi].
      const double r = static_cast<double>(std::rint(mean / qy.scale)) + qy.zp;
      const std::int64_t v = static_cast<std::int64_t>(std::min<double>(std::max<double>(r, lo), hi));
      if (qy.dtype == model::DType::kInt8) {
        static_cast<std::int8_t*>(y)[b * c + ch] = static_cast<std::int8_t>(v);
      } else {
        static_cast<std::uint8_t*>(y)[b * c + ch] = static_cast<std::uint8_t>(v);
      }
    }
  }
}

}  // namespace svp::kernels::onednn
