// Every node needs a kernel: the NPU core and the AI-CPU run the same reference
// definitions. Lists every op that has none at once (the first 20 nodes), not the first.
#pragma once

#include "common/status.h"
#include "compiler/graph.h"

namespace svp::compiler {

// err::kParseModel naming the nodes whose op has no kernel, with the way out.
Status check_kernels(const Graph& g);

}  // namespace svp::compiler
