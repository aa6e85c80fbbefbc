// ConvTranspose whose kernel equals its stride (no pads, no output_padding, dilation 1,
// group 1): every output pixel then receives exactly one kernel tap from exactly one input
// pixel, y(h·kH + i, w·kW + j, m) = Σ_c x(h, w, c)·W(c, m, i, j) (+ bias m). That is a 1×1
// Conv with kH·kW·M output channels, followed by a pixel shuffle that moves each input
// pixel's kH·kW·M results to their kH×kW output block. This is segmentation and DB text
// detection heads' 2×2 stride-2 upsampling (PP-OCR det ends with two of them).
//
// Why not oneDNN's deconvolution: its JIT kernel is slow for few output channels (PP-OCR
// det's last layer, 24 → 1 channel, 640×640: ~5 ms int8 and ~2 ms float) where a 1×1
// convolution is a plain GEMM. And the int8 case gets oneDNN's integer convolution (or
// int8_conv_avx2 without VNNI) instead of float sums with a 2^24 guard.
//
// Exactness: the 1×1 Conv sums the same products as the reference ConvTranspose for each
// output value (one tap per input channel) and requantizes through the same integer rule
// (make_conv's), so int8 outputs are the reference's bytes; float outputs differ only by
// summation order.
#pragma once

#include <memory>
#include <string>

#include "kernels/onednn/fast_op.h"

namespace svp::kernels::onednn {

// A FastOp on NHWC activations for such a ConvTranspose, float32 or quantized (make_conv's
// types), with `fusion`'s eltwise post-ops (no sum); null with *why for any other form.
std::unique_ptr<FastOp> make_deconv_as_conv(const model::Attrs& attrs, const TensorView& x, const TensorView& w,
                                            const TensorView* bias, const TensorView& y, const Fusion& fusion,
                                            int threads, std::string* why);

}  // namespace svp::kernels::onednn
