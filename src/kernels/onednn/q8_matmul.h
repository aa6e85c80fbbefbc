// Native int8 MatMul ("native"): the reference's integer rule (docs/kernels.md, "Integer
// ops") for the MatMuls the inner product does not take — two quantized activations
// (attention's Q·Kᵀ and A·V) and 3-D+ activations by weights — and the Gemms it declines
// (activation zero points other than 0, which oneDNN 2.6's inner product lacks), with any
// zero points.
//
// Why floats: the operands are brought to the integers x − zp (|x − zp| ≤ 255) as float32
// and multiplied by oneDNN's sgemm. Every product and every partial sum is then an integer
// below 2^24 in magnitude, which float32 holds exactly, so the sums are the reference's
// accumulators whatever order sgemm adds them in (and whatever the thread count). Long
// reductions are split along K into blocks that keep that bound (at load: max|a − zp_a|
// times the largest |b − zp_b| of each row of a constant B, or max|b − zp_b| of an
// activation B, summed over the block ≤ 2^24); the blocks' exact sums are added in int32,
// which cannot overflow (max|a − zp_a| · Σ_k |b − zp_b| < 2^31 is checked too), so they are
// the reference's saturate_int32 of its int64 sum.
//
// On CPUs with AVX-512 VNNI (where oneDNN's int8 gemm sums exactly) and B with one zero point, the
// product runs instead through oneDNN's u8·s8 → s32 gemm, which takes the zero points as
// offsets: int8 A and uint8 B are re-biased by 128 (x ^ 0x80, zero point moved alike) into
// its u8 / s8 operands, and the int32 sums are exact (no overflow: the bound above).
// On CPUs with AMX it runs through oneDNN's matmul primitive instead: oneDNN 2.6's gemm
// function then takes an AMX path that repacks both operands on every call and was 3–8×
// slower than the primitive on these shapes (attention's per-head products, the Linear
// layers; bench numbers in docs/kernels.md). The primitive takes no offsets: it gives the
// raw Σ a·b, and the offsets' terms (ao·Σ_k b, bo·Σ_k a, K·ao·bo) are subtracted after it, in
// int32 with wrap-around, which gives the exact sum because that sum fits in int32. Requantization is
// int8_requant_row, the reference's requantize_acc steps. Bit-exact with the reference by construction.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/onednn/fast_op.h"
#include "kernels/onednn/int8_conv_avx2.h"
#include "kernels/onednn/sgemm_matmul.h"
#include "model/attrs.h"
#include "model/tensor.h"

namespace svp::kernels::onednn {

struct Q8MatMul {
  SgemmMatMul mm;
  model::DType a = model::DType::kInt8, b = model::DType::kInt8;
  std::int32_t zp_a = 0;
  std::vector<std::int32_t> zp_b;     // per column of B (N)
  std::vector<float> b_const;         // B − zp_b as float32 when B is a constant
  std::vector<float> scale, bias;     // per column, as int8_requant_row takes them
  std::vector<std::int64_t> k_split;  // block starts along K, then K
  bool b_is_const = false;
  // oneDNN's integer gemm (VNNI): operands re-biased into u8 A / s8 B, offsets ao / bo.
  bool int_gemm = false;
  bool a_flip = false, b_flip = false;
  std::uint8_t ao = 0;
  std::int8_t bo = 0;
  std::vector<std::int8_t> b_s8;  // a constant B for it
  std::vector<std::int32_t> b_colsum;  // Σ_k B[k][n] of a constant B, per batch of B
  // oneDNN's matmul primitive for the raw sums (AMX CPUs), B packed into it when constant.
  std::shared_ptr<const FastOp> prim;
  // A few rows of A by a constant int8 B (a classifier's last Gemm): our own VNNI
  // matrix-vector kernel instead of the gemm, which repacks all of B on every call. B is
  // packed in blocks of 16 columns × 4 rows of K (vpdpbusd's operand), zero-padded.
  bool gemv = false;
  std::int64_t gemv_n16 = 0, gemv_k4 = 0;  // 16-column blocks, 4-row groups of K
  std::vector<std::int8_t> b_vnni;
  Int8Requant rq;
};

// A `a` × B `b` → `y` (logical views; b.data set when B is a constant). False with *why
// when the reference would not take its integer path or the float sums could round.
// `threads`: the kernel threads run_q8_matmul will be given (a primitive is made for them).
bool plan_q8_matmul(const model::TensorView& a, const model::TensorView& b, const model::TensorView& y, bool b_is_const,
                    int threads, Q8MatMul* plan, std::string* why);

// Gemm A [M, K] × constant B (transB either way) + constant C (absent, or a vector of N:
// float32, or int32 with the reference's scale check) → y, with transA 0, alpha 1 and
// (without C or) beta 1: the reference Gemm's integer path.
bool plan_q8_gemm(const model::Attrs& attrs, const model::TensorView& a, const model::TensorView& b,
                  const model::TensorView* c, const model::TensorView& y, int threads, Q8MatMul* plan,
                  std::string* why);

// Sends a plan's integer gemm through oneDNN's matmul primitive (what planning does on AMX
// CPUs; tests do it on every CPU). False, the plan unchanged, when the plan has no integer
// gemm, uses the matrix-vector kernel, or oneDNN offers no such primitive.
bool use_int_matmul_primitive(Q8MatMul* plan, int threads);

// y = the reference MatMul (or Gemm) of a and b (b ignored when the plan holds a constant B).
Status run_q8_matmul(const Q8MatMul& plan, const void* a, const void* b, void* y, int threads);

}  // namespace svp::kernels::onednn
