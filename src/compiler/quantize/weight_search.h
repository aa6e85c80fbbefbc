// The weight half of --quant_mode=1 (our reading of the vendor's ARQ, whose algorithm is
// not published): a weight channel's int8 scale chosen for the least squared rounding
// error instead of max|w| / 127. Clipping a few outlying weights buys finer steps for all
// the others; for short channels (a few dozen weights) max|w| usually stays the best.
#pragma once

#include <cstddef>

namespace svp::compiler::quant {

// The channel's weights are `runs` runs of `length` floats, run r at w + r * stride.
// Tries full_scale · α for α = 1.00, 0.99, ... 0.50 (each a representable_scale, as the
// model stores it) and returns the one with the least Σ (w − s · clamp(round(w / s), ±127))²;
// full_scale itself on ties. Pure.
float search_weight_scale(const float* w, std::size_t runs, std::size_t stride, std::size_t length, float full_scale);

}  // namespace svp::compiler::quant
