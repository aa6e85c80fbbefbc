#include "compiler/quantize/weight_search.h"

#include <algorithm>
#include <cmath>

#include "compiler/quantize/calibration_param.h"

namespace svp::compiler::quant {

float search_weight_scale(const float* w, std::size_t runs, std::size_t stride, std::size_t length, float full_scale) {
  float chosen = full_scale;
  double best = -1.0;
  for (int step = 100; step >= 50; --step) {
    const float s = step == 100 ? full_scale : representable_scale(full_scale * static_cast<float>(step) / 100.0f);
    double e = 0.0;
    for (std::size_t r = 0; r < runs; ++r) {
      for (const float* x = w + r * stride; x != w + r * stride + length; ++x) {
        const double d = *x - std::clamp(std::nearbyint(*x / s), -127.0f, 127.0f) * s;
        e += d * d;
      }
    }
    if (best < 0.0 || e < best) {
      best = e;
      chosen = s;
    }
  }
  return chosen;
}

}  // namespace svp::compiler::quant
