// Exact int8 Conv and inner product for AVX2 CPUs without VNNI ("avx2_int8").
//
// oneDNN's int8 kernels are not exact there (runtime.h, exact_int8_isa): they add pairs of
// u8·s8 products in saturating int16 (vpmaddubsw) and halve signed weights. Here both
// operands are widened to int16 first — x − zp_x fits, |x − zp_x| ≤ 255 — and vpmaddwd adds
// pairs of int16·int16 products into int32, which cannot round or saturate for 8-bit
// operands. The accumulators are therefore the reference's (int_params has checked that
// no int32 sum can overflow), and requantization performs the reference's requantize_acc
// steps (eight lanes at a time, the same float operations in the same order, see
// int8_requant_row): outputs are bit-identical to the reference kernels.
//
// Layout: activations NHWC (the fast path's), one row of the implicit GEMM per output
// pixel; weights packed once at load into int16 tiles of 16 output channels. Padding taps
// contribute 0, i.e. read as zp_x, as in the reference.
#pragma once

#include <cstdint>
#include <memory>

#include "kernels/onednn/fast_op.h"
#include "kernels/onednn/quant_params.h"

namespace svp::kernels::onednn {

// A 2-D convolution on NHWC data; an inner product is the 1×1 case with one pixel per row
// of A (n = rows, c = K, m = N).
struct Int8ConvShape {
  std::int64_t n = 1, h = 1, w = 1, c = 0;  // input
  std::int64_t oh = 1, ow = 1, m = 0;       // output (m channels)
  std::int64_t kh = 1, kw = 1;
  std::int64_t sh = 1, sw = 1, dh = 1, dw = 1;  // strides, dilations (1 = dense)
  std::int64_t pt = 0, pl = 0;                  // top and left padding
  std::int64_t groups = 1;
};

// Weight element (output channel o, input channel ci of its group, ky, kx) is
// data[o·s_o + ci·s_c + ky·s_kh + kx·s_kw] (OIHW for Conv; Gemm's B either way round).
struct Int8Weights {
  const std::int8_t* data = nullptr;
  std::int64_t s_o = 0, s_c = 0, s_kh = 0, s_kw = 0;
};

// True when this CPU has AVX2 (the kernel's only requirement; checked at run time, the
// code is compiled for it with a target attribute so the library still runs without).
bool int8_avx2_available();

// Output encoding of Int8ConvAvx2's requantization (y: int8, uint8 or float32; lo/hi its
// range, unused for float32; relu folded as in make_int8_conv_avx2).
struct Int8Requant {
  model::DType y = model::DType::kInt8;
  bool relu = false;
  std::int32_t zp = 0;
  std::int64_t lo = 0, hi = 0;
};

// y[j] for n accumulators of consecutive output channels, v = (float)acc + bias: float32
// v·scale (0 for negatives under relu), else max(floor, requantize_acc(v, scale, zp, lo, hi))
// with floor = max(zp, lo) under relu. Eight lanes at a time in AVX2 (one float rounding per step, in the reference's
// order), bit-identical to the scalar loop, which handles the last n mod 8 values.
// Requires AVX2 (int8_avx2_available()); exposed for the kernel tests.
void int8_requant_row(const std::int32_t* acc, const float* bias, const float* scale, std::int64_t n,
                      const Int8Requant& q, void* y);

// x: int8 or uint8; y: int8, uint8 or float32. `relu` folds a following Relu (integer:
// max(q, zp_y), the same encoding; float32: max(v, 0)). Never fails (the caller has
// checked the shape and the parameters).
std::unique_ptr<FastOp> make_int8_conv_avx2(const Int8ConvShape& shape, const Int8Weights& w, const IntParams& ip,
                                            model::DType x, model::DType y, bool relu, int threads);

}  // namespace svp::kernels::onednn
