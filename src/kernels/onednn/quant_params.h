// The integer-path parameters a oneDNN int8 primitive needs, derived exactly as the
// reference kernels derive them (docs/kernels.md, "Integer ops"): per-channel requant
// scales, the bias in int32, and the check that int32 accumulators cannot overflow (the
// reference accumulates in int64, oneDNN in int32).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/program.h"
#include "model/tensor.h"

namespace svp::kernels::onednn {

using model::TensorView;

struct IntParams {
  std::vector<float> scales;        // per output channel (one entry if all equal)
  std::vector<std::int32_t> bias;   // per output channel; empty = no bias
  std::int32_t zp_x = 0;
  std::int32_t zp_y = 0;            // 0 for a float32 output
};

// x: quantized int8/uint8 per-tensor; w: int8 with zero point 0, per-tensor or
// per-channel along `w_axis` (the output channels, `channels` of them); `w_k_stride`
// /`w_c_stride` locate element (c, k) of W at c·w_c_stride + k·w_k_stride for the
// K = reduction size values of channel c; y: int8/uint8 per-tensor or float32. Returns
// false with *why when the fast path cannot reproduce the reference. Says nothing about
// the CPU: oneDNN's int8 is exact only with exact_int8_isa() (runtime.h), elsewhere the
// callers use int8_conv_avx2.h.
bool int_params(const TensorView& x, const TensorView& w, std::int64_t w_axis, std::int64_t channels,
                std::int64_t k, std::int64_t w_c_stride, std::int64_t w_k_stride, const TensorView* bias,
                const TensorView& y, IntParams* out, std::string* why);

bool is_q8(const TensorView& t);  // int8/uint8 with per-tensor or per-channel Quant
// A planned tensor of int8/uint8 with one scale (what the native q8 kernels take).
bool per_tensor_q8(const model::Tensor& t);

}  // namespace svp::kernels::onednn
