// Runs a compiler Graph on the host with the reference kernels — the single definition of
// every op — and shows every value a node produces to an observer. Calibration collects
// activation ranges with it; accuracy analysis compares float and quantized graphs with it.
// Quantized values (int8 with a Quant) are computed as the kernels' integer rules say, so
// a quantized graph evaluates to what the software NPU computes.
#pragma once

#include <functional>
#include <vector>

#include "common/status.h"
#include "compiler/graph.h"
#include "kernels/tensor_buffer.h"

namespace svp::compiler {

// Called once per value produced, in execution order; the view is valid during the call.
using ValueObserver = std::function<void(ValueId, const model::TensorView&)>;

// `inputs`: one tensor per graph input, with its dtype and shape. Returns the graph
// outputs. Intermediates are freed after their last reader. Errors name the node and the
// kernel's complaint; err::kInvalidParam for inputs that do not fit the graph.
Result<std::vector<kernels::OwnedTensor>> evaluate(const Graph& g, const std::vector<kernels::OwnedTensor>& inputs,
                                                   const ValueObserver& observe = {});

}  // namespace svp::compiler
