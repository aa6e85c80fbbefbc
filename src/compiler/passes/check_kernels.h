// Every node needs a kernel: the NPU core and the AI-CPU run the same reference
// definitions. Lists every op that has none at once (the first 20 nodes), not the first.
#pragma once

#include "common/status.h"
#include "compiler/graph.h"

namespace svp::compiler {

// err::kParseModel naming the nodes whose op has no kernel, with the way out. Custom
// operators (model/custom_op.h) need none, but only an RKNN target's runtime can compute
// them (rknn_register_custom_ops) and only in a float model (calibration would have to run
// them): `rknn_target` / `quantized` say which compile this is; err::kFeatureUnsupported
// otherwise.
Status check_kernels(const Graph& g, bool rknn_target, bool quantized);

}  // namespace svp::compiler
