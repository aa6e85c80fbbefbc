#include "compiler/passes/check_kernels.h"

#include <algorithm>
#include <string>

#include "kernels/kernels.h"
#include "model/custom_op.h"

namespace svp::compiler {

Status check_kernels(const Graph& g, bool rknn_target, bool quantized) {
  const auto& ops = kernels::supported_ops();
  std::string missing;
  std::size_t count = 0;
  for (NodeId id : g.live_nodes()) {
    if (std::find(ops.begin(), ops.end(), g.node(id).op) != ops.end()) continue;
    if (model::is_custom_op(g.node(id).attrs)) {
      if (!rknn_target) {
        return Error(err::kFeatureUnsupported,
                     "{} is a custom operator (an ONNX node of a domain svp-acl does not define): only an RKNN target's "
                     "runtime computes custom operators (rknn_register_custom_ops); compile for an RKNN --soc_version "
                     "or replace the node",
                     g.describe(id));
      }
      if (quantized) {
        return Error(err::kFeatureUnsupported,
                     "{} is a custom operator: a model with custom operators compiles in float only (int8 calibration "
                     "would have to run the op, which only the application's rknn_register_custom_ops callbacks "
                     "compute); compile in float (--compile_mode=float, rknn_convert quantize: false)",
                     g.describe(id));
      }
      continue;  // the application computes it
    }
    if (++count <= 20) missing += "\n  " + g.describe(id);
  }
  if (count == 0) return Status::Ok();
  return Error(err::kParseModel,
               "{} node(s) use ops svp-acl has no kernel for (neither the NPU nor the AI-CPU can run them):{}{}\n"
               "docs/ops.md lists the supported ops; replace these ops in the model, or cut the model before them",
               count, missing, count > 20 ? "\n  ..." : "");
}

}  // namespace svp::compiler
