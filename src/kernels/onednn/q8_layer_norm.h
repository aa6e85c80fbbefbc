// Native int8 LayerNormalization ("native"), bit-exact with the reference's generic path
// (docs/kernels.md §3: dequantize, reference/norm.cpp's float LayerNormalization,
// requantize). Per row of `inner` values v = (float)(q − zp_x)·s_x the reference computes
//   mean = (Σ v in double) / inner
//   var  = (Σ ((double)v − mean)² in double, left to right) / inner
//   inv  = 1 / sqrt(var + epsilon)
//   y    = (float)(((double)v − mean) · inv · scale[k] + bias[k]),  requantized.
// The mean's sum is exact in double (every v is an integer multiple of one power of two
// and the row is short enough: q8_layer_norm_for checks the bound), so any order gives it:
// it is summed in vector lanes. The variance's sum rounds at every step, so it keeps the
// reference's order, but four rows run side by side, one per vector lane. The output step
// is the same double and float operations eight elements at a time, with no float buffers
// for the whole tensor and no per-element libm call.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/program.h"

namespace svp::kernels::onednn {

struct Q8LayerNorm {
  model::DType x = model::DType::kInt8, y = model::DType::kInt8;
  float sx = 1.0f, sy = 1.0f;
  std::int32_t zpx = 0, zpy = 0;
  std::int64_t inner = 0;  // values per row (the dims from axis on)
  double epsilon = 1e-5;   // as the reference reads the attribute
  // Scale and B as the reference sees them (dequantized when quantized, broadcast to the
  // normalised dims), widened to double as its arithmetic does.
  std::vector<double> scale, bias;
  bool avx2 = false;  // the vector loops (set when the CPU has AVX2; tests clear it)
};

// The plan for LayerNormalization layer `l` with input x, output y (the Y output only) and
// the constant inputs Scale and B (bias null when absent), or false (with the reason) when
// the reference would not take its generic path with per-tensor int8/uint8/int16 x and y.
bool q8_layer_norm_for(const model::Layer& l, const model::TensorView& x, const model::TensorView& scale,
                       const model::TensorView* bias, const model::TensorView& y, Q8LayerNorm* plan, std::string* why);

// y = LayerNormalization(x) for `rows` rows of plan.inner values; y may be x (the same
// bytes). Rows are split over up to `threads` OpenMP threads when there are enough.
void q8_layer_norm(const Q8LayerNorm& plan, const void* x, void* y, std::int64_t rows, int threads);

// Tests: the doubles q8_layer_norm computes per row — the mean and 1 / sqrt(var + epsilon) —
// which must be the reference's bit for bit (a rounding of the variance's sum rarely shows
// in an output byte).
void q8_layer_norm_stats(const Q8LayerNorm& plan, const void* x, std::int64_t rows, double* mean, double* inv);

}  // namespace svp::kernels::onednn
