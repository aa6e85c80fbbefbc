#include "compiler/compile.h"

#include <algorithm>

#include <fmt/format.h>

#include "kernels/kernels.h"

#include "compiler/aipp/insert_op_apply.h"
#include "compiler/emit.h"
#include "compiler/onnx_import.h"
#include "compiler/pass.h"
#include "compiler/passes/cancel_reshape.h"
#include "compiler/passes/cancel_transpose.h"
#include "compiler/passes/fold_batchnorm.h"
#include "compiler/passes/segmentation.h"

namespace svp::compiler {

Result<CompileResult> compile(const CompileOptions& options, const std::vector<std::string>& unsupported_flags) {
  if (options.compile_mode != "float") {
    return Error(err::kFeatureUnsupported,
                 "--compile_mode={}{}: int8 quantization is not implemented in svp_atc yet; compile the float model "
                 "with --compile_mode=float",
                 options.compile_mode, options.compile_mode == "0" ? " (the vendor's default)" : "");
  }
  if (!unsupported_flags.empty()) {
    std::string list;
    for (const std::string& f : unsupported_flags) list += (list.empty() ? "--" : ", --") + f;
    return Error(err::kFeatureUnsupported, "{}: not implemented in svp_atc yet (the model would differ); leave {} out",
                 list, unsupported_flags.size() == 1 ? "it" : "them");
  }
  if (options.model.empty()) return Error(err::kInvalidParam, "--model is required (the ONNX file to compile)");
  CompileResult r;
  auto g = import_onnx(options.model, options);
  if (!g.ok()) return g.status();
  r.log.push_back(fmt::format("import: {} nodes, {} inputs, {} outputs (opset {})", g->live_node_count(),
                              g->inputs.size(), g->outputs.size(), g->opset));
  SVP_RETURN_IF_ERROR(aipp_conf::apply_insert_op_conf(options, *g, &r.log));  // --insert_op_conf
  // The graph passes, in this order (docs/compiler.md "Passes").
  {
    FoldBatchNormPass fold_bn;
    CancelTransposePass cancel_transpose;
    CancelReshapePass cancel_reshape;
    PassContext ctx;
    ctx.options = &options;
    for (Pass* p : std::initializer_list<Pass*>{&fold_bn, &cancel_transpose, &cancel_reshape}) {
      const std::size_t before = g->live_node_count();
      SVP_RETURN_IF_ERROR(p->run(*g, ctx));
      r.log.push_back(fmt::format("{}: {} → {} nodes", p->name(), before, g->live_node_count()));
    }
    g->compact();
    SVP_RETURN_IF_ERROR(g->topo_sort());
  }
  // Every node needs a kernel (the NPU core and the AI-CPU run the same reference
  // definitions): list every op that has none at once, not the first one.
  {
    const auto& ops = kernels::supported_ops();
    std::string missing;
    std::size_t count = 0;
    for (NodeId id : g->live_nodes()) {
      if (std::find(ops.begin(), ops.end(), g->node(id).op) != ops.end()) continue;
      if (++count <= 20) missing += "\n  " + g->describe(id);
    }
    if (count > 0) {
      return Error(err::kParseModel,
                   "{} node(s) use ops svp-acl has no kernel for (neither the NPU nor the AI-CPU can run them):{}{}\n"
                   "docs/ops.md lists the supported ops; replace these ops in the model, or cut the model before them",
                   count, missing, count > 20 ? "\n  ..." : "");
    }
  }
  const SegmentReport seg = segment_by_cost(*g, options.max_segment_macs);
  r.log.push_back(fmt::format("segments: {} (bound {} MACs); the longest, from \"{}\", {} MACs of {} in all",
                              seg.segments, options.max_segment_macs, seg.longest_first_node, seg.longest_macs,
                              seg.total_macs));
  auto built = emit(*g, options);
  if (!built.ok()) return built.status();
  r.log.push_back(fmt::format("emit: {} layers in {} segments, work_buf {} bytes, task_buf {} bytes, weights {} bytes",
                              built->program.layers.size(), built->program.segments.size(),
                              built->program.flags.work_buf_size, built->program.flags.task_buf_size,
                              built->weights.size()));
  r.model = std::move(*built);
  return r;
}

}  // namespace svp::compiler
