#include "compiler/passes/check_kernels.h"

#include <algorithm>
#include <string>

#include "kernels/kernels.h"
#include "model/custom_op.h"

namespace svp::compiler {

Status check_kernels(const Graph& g) {
  const auto& ops = kernels::supported_ops();
  std::string missing;
  std::size_t count = 0;
  for (NodeId id : g.live_nodes()) {
    if (std::find(ops.begin(), ops.end(), g.node(id).op) != ops.end()) continue;
    if (model::is_custom_op(g.node(id).attrs)) continue;  // the application computes it
    if (++count <= 20) missing += "\n  " + g.describe(id);
  }
  if (count == 0) return Status::Ok();
  return Error(err::kParseModel,
               "{} node(s) use ops svp-acl has no kernel for (neither the NPU nor the AI-CPU can run them):{}{}\n"
               "docs/ops.md lists the supported ops; replace these ops in the model, or cut the model before them",
               count, missing, count > 20 ? "\n  ..." : "");
}

}  // namespace svp::compiler
