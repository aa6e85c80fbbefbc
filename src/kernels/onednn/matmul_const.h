// A float Linear layer: an activation seen as [M, K] (any leading dims flattened) times a
// constant B [K, N], with an optional bias of N values and elementwise post-ops (Relu, the
// erf GELU) — one oneDNN matmul primitive whose weights are reordered once, at load, into
// the layout it prefers. `onednn:sgemm` (dnnl_sgemm) packs B again on every call and
// leaves the bias Add and the activation to separate passes over the output.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/onednn/fast_op.h"

namespace svp::kernels::onednn {

// y[M, N] = post(x[M, K] × b[K, N] + bias[N]); `b` row-major float32 (its data is copied
// into the primitive's layout), `bias` null or N floats (copied). Null with *why when
// oneDNN offers no optimised implementation.
std::unique_ptr<FastOp> make_matmul_const(std::int64_t M, std::int64_t K, std::int64_t N, const float* b,
                                          const float* bias, const std::vector<PostEltwise>& post, int threads,
                                          std::string* why);

}  // namespace svp::kernels::onednn
