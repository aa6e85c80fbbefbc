// The erf GELU as torch exports it — x / √2 → Erf → + 1 → · x → · 0.5 (Mul by 1/√2 for
// the Div, either operand order, the two Muls in either order) — recognised in a program
// so the planner can run it as one oneDNN eltwise_gelu_erf (five passes over the tensor
// on the reference's broadcast loops before).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/program.h"

namespace svp::kernels::onednn {

// The chain starting at layer `j` that computes GELU(x), every layer float32 with x's
// dims; x and the chain's intermediates must be work_buf tensors read only inside the
// chain (`readers[t]`: how many layers read t), so folding it loses nothing. Returns the
// number of layers (5) and the result tensor in *y, or 0.
std::size_t match_gelu_erf(const model::Program& p, const std::uint8_t* weights, const std::vector<int>& readers,
                           std::size_t j, std::int32_t x, std::int32_t* y);

}  // namespace svp::kernels::onednn
