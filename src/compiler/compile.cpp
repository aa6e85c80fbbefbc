#include "compiler/compile.h"

#include <fmt/format.h>

#include "compiler/emit.h"
#include "compiler/onnx_import.h"

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
