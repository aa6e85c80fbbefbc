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

// True when `channels` fill at least 90 % of the kernel's 64-channel blocks. Requantization
// bounds the kernel (six float operations per 16 outputs against three vpdpbusd for a 3x3)
// and it runs on whole blocks: with a tenth of the lanes idle or more it lost to oneDNN
// (MobileNetV2's 32-, 96- and 144-channel layers 1.2–1.8× slower on one Xeon core).
bool q8_depthwise_fills_blocks(std::int64_t channels);

// The shape must be depthwise (groups = c = m), x int8 or uint8, y int8 or uint8; `relu`
// folds a following Relu as max(q, zp_y). Null when a requant scale is not finite or the
// channels do not fill the blocks (the caller then keeps its other paths); otherwise the
// caller has checked the shape and the parameters.
std::unique_ptr<FastOp> make_q8_depthwise(const Int8ConvShape& shape, const Int8Weights& w, const IntParams& ip,
                                          model::DType x, model::DType y, bool relu, int threads);

}  // namespace svp::kernels::onednn
