// Float MatMul of two activations (or of a 3-D+ activation by constant weights, which the
// inner-product path does not take) through oneDNN's row-major sgemm, one call per batch
// matrix. Covers the batch layouts attention and sequence models use: each operand's
// batch dims either equal the output's or are all 1 (shared by every batch); other
// broadcasts stay on the reference kernel. Same numbers as the reference up to the order
// of the K-sum.
#pragma once

#include <cstdint>
#include <vector>

#include "common/status.h"

namespace svp::kernels::onednn {

struct SgemmMatMul {
  std::int64_t M = 0, K = 0, N = 0;
  std::int64_t batches = 1;
  bool a_shared = false, b_shared = false;  // one matrix for every batch
};

// The plan for A `a` × B `b` → `y` (logical dims), or false when it is not covered.
bool plan_sgemm_matmul(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b,
                       const std::vector<std::int64_t>& y, SgemmMatMul* plan);

// y = A × B for every batch, with `threads` OpenMP threads.
Status run_sgemm_matmul(const SgemmMatMul& plan, const float* a, const float* b, float* y, int threads);

}  // namespace svp::kernels::onednn
