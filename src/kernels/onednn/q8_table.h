// Unary elementwise int8/uint8 ops (Relu, LeakyRelu, Sigmoid, Tanh, HardSigmoid,
// HardSwish, Erf) with one per-tensor encoding in and one out, as a 256-entry table computed
// once at load by the reference kernel itself on every possible input byte: exact by
// construction (each element's result depends on its byte alone), and at run time one
// lookup per element instead of the reference's per-call table or per-element integer
// dispatch.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "model/program.h"

namespace svp::kernels::onednn {

using Q8Table = std::array<std::uint8_t, 256>;

// The table of layer `l` (input x, output y), or false when the op is not one of the
// above, the encodings are not per-tensor int8/uint8, or the reference refuses it.
bool q8_table_for(const model::Layer& l, const model::Tensor& x, const model::Tensor& y, Q8Table* table);

// The table of `mul` = Mul(x, U(x)) given U's table `gate_lut` (U's output `gate` is Mul's
// input `gate_input`, x the other): the reference Mul on every byte of x beside U's byte for
// it. False when the encodings are not per-tensor int8/uint8 or the reference refuses.
bool q8_gated_table(const model::Layer& mul, std::size_t gate_input, const model::Tensor& x, const Q8Table& gate_lut,
                    const model::Tensor& gate, const model::Tensor& y, Q8Table* table);

// The table of a binary `l` (Add, Sub, Mul, Div, Pow) whose input 1 − var_input is a
// one-element constant `scalar` (any type the reference accepts: a float scalar of a
// learnt affine step, an int8 constant): each output byte is a function of x's byte, and
// the reference computes it for every byte. False when x or y is not per-tensor int8/uint8,
// the shapes differ or the reference refuses.
bool q8_scalar_table(const model::Layer& l, std::size_t var_input, const model::Tensor& x,
                     const model::TensorView& scalar, const model::Tensor& y, Q8Table* table);

// y[i] = table[x[i]] for n bytes (y may be x).
void q8_table_apply(const Q8Table& table, const void* x, void* y, std::int64_t n);

}  // namespace svp::kernels::onednn
