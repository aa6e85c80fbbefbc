// Exact int8/uint8 depthwise convolution (one input and one output channel per group) on
// AVX-512 VNNI, layer_impl "vnni_dw_int8".
//
// On one Xeon core oneDNN 2.6's brdgmm ran MobileNetV2's int8 depthwise layers at 0.70× their
// float time (its 1x1 layers at 0.34×); with a zero point ≠ 0 and pads the fast path also
// copies the input to pad it (conv.cpp). The layer is bound by requantization, not by its
// multiply-adds: six float operations per 16 outputs against three vpdpbusd for a 3x3.
// Here four kernel rows of 64 channels are interleaved byte by byte (each 32-bit lane holds
// one channel's four taps), once per input column of an output line, and every output pixel
// reuses the interleaved columns of its kernel window: one vpdpbusd per 16 channels × 4 taps.
// The interleave works within 128-bit lanes, so the accumulators hold the channels in a
// fixed permuted order; the weights, biases and scales are stored in that order, and the
// narrowing packs after requantization undo it.
//
// Arithmetic: the input is read as uint8 (int8 with its sign bit flipped, x + 128, the zero
// point likewise), the accumulator starts at −zx·Σw, and padding reads the zero point, so
// every sum is the reference's Σ w·(x − zx) in exact int32 (int_params bounds it). Where
// every channel's sum and bias stay within 2^24, the int32 bias starts the accumulator too:
// (float)acc + (float)bias is then the float of their exact integer sum.
// Requantization performs the reference's requantize_acc steps in its order, as
// int8_requant_row does: outputs are bit-identical to the reference kernels.
#pragma once

#include <memory>

#include "kernels/onednn/fast_op.h"
#include "kernels/onednn/int8_conv_avx2.h"
#include "kernels/onednn/quant_params.h"

namespace svp::kernels::onednn {

// True when the CPU has AVX-512 F, BW and VNNI (checked at run time; the code is compiled
// for them with target attributes).
bool q8_depthwise_available();

// Whether a depthwise layer should run here rather than on oneDNN 2.6 (measured on a Xeon,
// docs/kernels.md): its `channels` fill at least 90 % of the 64-channel blocks, and the
// kernel has at most 9 `taps`, or up to 4096 where oneDNN's path would first copy the input
// to pad it (`input_copied`: pads with a zero point or an int8 input, conv.cpp). The kernel
// is bound by requantization (six float operations per 16 outputs against three vpdpbusd
// for a 3x3), so partly empty blocks cost it what it gains (32 channels: 1.45× oneDNN's
// time), and 5x5 kernels were 5–20 % slower than oneDNN's primitive without that copy.
bool q8_depthwise_preferred(std::int64_t channels, std::int64_t taps, bool input_copied);

// The shape must be depthwise (groups = c = m), x int8 or uint8, y int8 or uint8; `relu`
// folds a following Relu as max(q, zp_y). Null when a requant scale is not finite (the caller
// then keeps its other paths); otherwise the caller has checked the shape and the parameters
// (any shape works; q8_depthwise_preferred says where it pays).
std::unique_ptr<FastOp> make_q8_depthwise(const Int8ConvShape& shape, const Int8Weights& w, const IntParams& ip,
                                          model::DType x, model::DType y, bool relu, int threads);

}  // namespace svp::kernels::onednn
