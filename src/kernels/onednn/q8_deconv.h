// Quantized ConvTranspose (int8/uint8 input per-tensor, int8 weights with zero point 0 per
// tensor or per output channel, group 1) bit-exact with the reference's integer path: the
// reference accumulates Σ (x − zp_x)·w exactly in int64 and requantizes through AccWriter
// (bias added after the int → float conversion, docs/kernels.md "Integer ops"). Here the
// same sums come from oneDNN's float32 deconvolution on the integers x − zp_x and w as
// floats: accepted only when max|x − zp_x| · Σ|w| of every output channel stays within
// 2^24, where every partial sum, in whatever order oneDNN adds, is an integer that float32
// holds exactly — so the accumulators are the reference's. Requantization then calls the
// reference's own requantize_acc.
#pragma once

#include <memory>
#include <string>

#include "kernels/onednn/fast_op.h"

namespace svp::kernels::onednn {

// A FastOp on NHWC activations (layer_impl "native"), or null with *why.
std::unique_ptr<FastOp> make_q8_deconv(const model::Attrs& attrs, const TensorView& x, const TensorView& w,
                                       const TensorView* bias, const TensorView& y, int threads, std::string* why);

}  // namespace svp::kernels::onednn
