// The integer side of librknnrt's matmul library (docs/rknn.md "Matmul"): int8 and int4
// elements (int4 packed two per byte), the quantization parameters of A, B and C
// (rknn_matmul_set_quant_params: per layer, per channel, per group of K), and the product of
// every matmul type whose B is an integer type, computed exactly in integers (float16 A in
// double) and requantized once into C's type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "rknn/rknn_matmul_api.h"

namespace svp::runtime::rknn {

// Scales and zero points of one of A, B, C. Unset: per layer, scale 1, zero point 0 (the
// vendor's default).
struct MatmulQuant {
  std::vector<float> scale{1.0f};
  std::vector<std::int32_t> zp{0};
};

// Bytes of `count` elements of `type` (int4: two per byte, the last byte half used if odd).
std::size_t matmul_bytes(rknn_tensor_type type, std::size_t count);

// Element `i` of an int8 or int4 buffer. int4 element i sits in byte i/2, even i in the low
// nibble, odd i in the high one (the vendor demo's packing), sign-extended.
std::int32_t int_element(const std::uint8_t* data, rknn_tensor_type type, std::size_t i);
// Stores `v` (in the type's range) as element `i`.
void set_int_element(std::uint8_t* data, rknn_tensor_type type, std::size_t i, std::int32_t v);

// How many scales B's quantization takes: 1 per layer, N per channel, (K/group_size) x N per
// group (group g's scale of column n at g*N + n).
std::size_t b_quant_count(int b_quant_type, std::int64_t K, std::int64_t N, int group_size);

// One run's operands, row-major, and what C is.
struct QuantProduct {
  std::int64_t M = 0, K = 0, N = 0;
  rknn_tensor_type a = RKNN_TENSOR_INT8, c = RKNN_TENSOR_INT32;
  int b_quant_type = RKNN_QUANT_TYPE_PER_LAYER_SYM;
  int group_size = 0;
  const MatmulQuant* qa = nullptr;
  const MatmulQuant* qb = nullptr;
  const MatmulQuant* qc = nullptr;
};

// C (row-major M x N, bytes of c's type) = A x B for an integer B:
//   acc_g = sum over k in group g of (a - zpA) * (b - zpB[g,n])  (exact; float16 A in double,
//           zpA not applied to a float A)
//   integer C (INT32, INT16): sum of acc_g, saturated to C's range (scales do not apply);
//   otherwise real = sA * sum_g sB[g,n] * acc_g (double; sA 1 for a float A), then
//   INT8 C: round(real / sC) half away from zero, + zpC, saturated; FLOAT32 / FLOAT16 /
//   BFLOAT16 C: real rounded to float32, then to C's type (nearest even).
// `a_int` / `a_float`: A (row-major M x K) as integers or as float16 values (whichever p.a
// is); `b_t`: B's integers transposed, N x K row-major.
void quantized_product(const QuantProduct& p, const std::vector<std::int32_t>& a_int,
                       const std::vector<double>& a_float, const std::vector<std::int32_t>& b_t,
                       std::vector<std::uint8_t>* c);

}  // namespace svp::runtime::rknn
