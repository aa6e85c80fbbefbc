// Native int8 Softmax along the last axis ("native"), bit-exact with the reference's
// generic path (docs/kernels.md §3: dequantize, the float Softmax, requantize). An input
// byte q stands for x = (float)(q − zp)·s, which grows with q, so a row's maximum is the
// value of its largest byte q_max and every exp(x − max) the reference evaluates is
// exp(x[q] − x[q_max]) of two bytes: a 256 × 256 table computed once at load with the same
// float subtraction and the same std::exp. The run then keeps the reference's remaining
// steps as they are — the row sum in double in ascending order (four rows side by side,
// one per vector lane), e / sum in double rounded to float, the requantization
// saturate(nearbyint(y / s_y) + zp_y) — without its per-element exp and without float
// buffers for the whole tensor.
#pragma once

#include <cstdint>
#include <vector>

#include "model/program.h"

namespace svp::kernels::onednn {

struct Q8Softmax {
  model::DType x = model::DType::kInt8, y = model::DType::kInt8;  // y may be kFloat32
  float sy = 1.0f;                                                  // y's encoding (int8/uint8)
  std::int32_t zpy = 0;
  std::int64_t len = 0;    // the last axis
  std::vector<float> exp;  // [byte of the row maximum][byte]; rows of bytes above it unused
  bool avx2 = false;       // the vector loops (set when the CPU has AVX2; tests clear it)
  // Rows of 1024 or more with an int8/uint8 output: the row sums of eight rows by gathers and
  // each row's output from a table of its 256 byte values (set when the CPU has AVX-512 F,
  // BW, VL and VBMI; tests clear it). Requires avx2.
  bool avx512 = false;
};

// The plan for Softmax layer `l` (input x, output y), or false when it is not a per-tensor
// int8/uint8 Softmax along the last axis with an int8/uint8 or float32 output.
bool q8_softmax_for(const model::Layer& l, const model::Tensor& x, const model::Tensor& y, Q8Softmax* plan);

// y = Softmax(x) for `elements` bytes (a multiple of len); y may be x. Large tensors are
// split by rows over `threads` OpenMP threads (the bytes do not depend on it).
void q8_softmax(const Q8Softmax& plan, const void* x, void* y, std::int64_t elements, int threads = 1);

// Tests: each row's Σ exp in double as q8_softmax adds it (four rows side by side), which
// must be the reference's bit for bit (a rounding there rarely changes an output byte).
void q8_softmax_row_sums(const Q8Softmax& plan, const void* x, std::int64_t elements, double* sums);

}  // namespace svp::kernels::onednn
