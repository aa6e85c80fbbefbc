// Quantized Add / Sub / Mul of two int8/uint8 tensors with numpy broadcasting (per-tensor
// encodings, any zero points), bit-exact with the reference's generic path (docs/kernels.md
// §3): each operand dequantized as (float)(q − zp)·s, the op in float, the result
// requantized as saturate(nearbyint(v / s_y) + zp_y). The reference dequantizes whole
// tensors into float buffers and walks the broadcast index by index; this kernel reads the
// bytes through 256-entry tables of the same float values and walks coalesced runs (an SE
// block's per-channel gate is one run of C or H·W elements per step).
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/onednn/q8_add.h"

namespace svp::kernels::onednn {

// kDiv only by a float32 constant operand b whose values are finite and non-zero (the
// caller checks): then no NaN can arise, whose requantization the kernel does not model.
enum class Q8BinaryOp { kAdd, kSub, kMul, kDiv };

// A float32 constant operand, which the reference's generic path leaves in float: a scalar
// (PP-LCNet's learnt affine steps: int8 × k + c) or a tensor broadcast like any operand
// (a Linear layer's bias after an int8 MatMul). q8_binary reads its float32 values through
// the operand's pointer; `value` is the first of them, or any finite value of the tensor's
// (q8_binary_applies only checks that it is finite: the caller checks them all).
inline Q8Operand q8_float_scalar(float value) { return {model::DType::kFloat32, value, 0}; }

// The kernel applies: int8/uint8 operands (or q8_float_scalar ones, all values finite) with scales
// positive and finite, and an int8/uint8 output (then no NaN can arise, whose rounding
// would differ).
bool q8_binary_applies(const Q8Operand& qa, const Q8Operand& qb, const Q8Operand& qy);

// y (dims_y) = a (dims_a) op b (dims_b); the input dims broadcast to dims_y (numpy rules,
// right-aligned). The caller has checked the shapes (the program's inferred ones). `relu`:
// a following Relu folded in, max(q, zp_y) (q8_add.h).
void q8_binary(Q8BinaryOp op, const void* a, const Q8Operand& qa, const std::vector<std::int64_t>& dims_a,
               const void* b, const Q8Operand& qb, const std::vector<std::int64_t>& dims_b, void* y,
               const Q8Operand& qy, const std::vector<std::int64_t>& dims_y, bool relu = false);

}  // namespace svp::kernels::onednn
