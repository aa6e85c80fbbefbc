#include "compiler/compile.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "compiler/emit.h"
#include "compiler/first_execution.h"
#include "compiler/fusion_report.h"
#include "compiler/gear_constants.h"
#include "compiler/onnx_import.h"
#include "compiler/pipeline.h"
#include "compiler/quantize/quantize_stages.h"
#include "kernels/compiled_program.h"
#include "model/format.h"

namespace svp::compiler {
namespace {

using quant::quantize_mode;

// The import: the file parsed once; with several --dynamic_image_size gears, the model is
// imported at the others too, to find the constants that depend on the image size.
Result<Graph> import_model(const CompileOptions& options, std::vector<std::string>* log) {
  auto file = OnnxFile::read(options.model);
  if (!file.ok()) return file.status();
  if (options.dynamic_image_size.size() < 2) return std::move(*file).take(options);
  auto g = file->import(options);
  if (!g.ok()) return g.status();
  SVP_RETURN_IF_ERROR(generalize_gear_constants(
      *g, options,
      [&](std::int64_t h, std::int64_t w) {
        CompileOptions at = options;
        at.dynamic_image_size = {{h, w}};
        return file->import(at);
      },
      log));
  return g;
}

// Options that have no effect in this compile, said once in the log.
void note_idle_options(const CompileOptions& options, std::vector<std::string>* log) {
  if (options.compile_mode != "float") return;
  if (!options.high_precision_layer.empty()) {
    log->push_back("--high_precision_layer has no effect with --compile_mode=float (every layer is float)");
  }
  if (options.auto_mixed_precision > 0.0) {
    log->push_back("--auto_mixed_precision has no effect with --compile_mode=float (every layer is float)");
  }
}

// Emit, then the runtime's load-time plan once for the fusion report, then the image.
Status build_model(Graph& g, const CompileOptions& options, CompileResult* r) {
  // The image is written after the fusion report: the runtime's plan copies (reorders) the
  // weights, and that copy, the weights and the image side by side would be the peak.
  auto built = emit_consuming(g, options, /*image=*/false);
  if (!built.ok()) return built.status();
  r->log.push_back(fmt::format("emit: {} layers in {} segments, work_buf {} bytes, task_buf {} bytes, weights {} bytes",
                               built->program.layers.size(), built->program.segments.size(),
                               built->program.flags.work_buf_size, built->program.flags.task_buf_size,
                               built->weights.size()));
  r->model = std::move(*built);
  {
    // The runtime's load-time plan: the fusions it applies at load (reported, not
    // rewritten: fusion_report.h), and the model's first execution (first_execution.h).
    const model::Program& p = r->model.program;
    auto plan = kernels::CompiledProgram::compile(p, r->model.weights.data(), r->model.weights.size(),
                                                  kernels::CompileOptions{});
    if (!plan.ok()) return plan.status();
    const std::vector<FusionGroup> fusions = runtime_fusions(**plan);
    r->log.push_back(fmt::format("fusions at load: {} group(s): {}", fusions.size(), fusion_text(p, fusions)));
    const auto t0 = std::chrono::steady_clock::now();
    SVP_RETURN_IF_ERROR(first_execution(p, r->model.weights.data(), **plan, &r->log));
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    r->log.push_back(fmt::format(
        "first execution: {} layers ran on zero inputs through the runtime's kernels ({:.0f} ms)", p.layers.size(), ms));
  }
  return_free_memory();  // the plan's reordered weights
  r->model.image = model::write_model(r->model.program, r->model.weights.data(), r->model.weights.size());
  return Status::Ok();
}

}  // namespace

Result<CompileResult> compile(const CompileOptions& options, const std::vector<std::string>& unsupported_flags) {
  if (options.compile_mode != "float" && !quantize_mode(options.compile_mode)) {
    return Error(err::kInvalidParam, "--compile_mode={}: not one of 0, 1, 5, 6, float", options.compile_mode);
  }
  if (options.compile_mode != "float" && options.image_list.empty() && options.mode != 3) {
    return Error(err::kInvalidParam,
                 "--compile_mode={} ({}) quantizes with calibration data: give "
                 "--image_list=\"input:list.txt\" (one item per line: .npy, .bin or the numbers), or compile a float "
                 "model with --compile_mode=float{}",
                 options.compile_mode, quantize_mode(options.compile_mode)->what,
                 options.gfpq_param_file.empty()
                     ? ""
                     : " (with --gfpq_param_file too: the file has no encodings for the model's outputs, so svp_atc "
                       "still runs the data through the model)");
  }
  if (options.compile_mode == "float" && !options.export_qdq.empty()) {
    return Error(err::kInvalidParam,
                 "--export_qdq writes the quantization svp_atc chose, and --compile_mode=float quantizes nothing: use "
                 "--compile_mode=0, 1, 5 or 6, or leave the flag out");
  }
  if (options.compile_mode == "float" && !options.gfpq_param_file.empty()) {
    return Error(err::kInvalidParam,
                 "--gfpq_param_file gives quantization parameters, and --compile_mode=float quantizes nothing: "
                 "use --compile_mode=0, or leave the file out");
  }
  if (!options.gfpq_param_file.empty() && options.compile_mode != "0" && options.compile_mode != "float") {
    return Error(err::kFeatureUnsupported,
                 "--gfpq_param_file with --compile_mode={}: external parameters are implemented for A8W8 "
                 "(--compile_mode=0) only; leave the file out or compile A8W8",
                 options.compile_mode);
  }
  if (!unsupported_flags.empty()) {
    std::string list;
    for (const std::string& f : unsupported_flags) list += (list.empty() ? "--" : ", --") + f;
    return Error(err::kFeatureUnsupported, "{}: not implemented in svp_atc yet (the model would differ); leave {} out",
                 list, unsupported_flags.size() == 1 ? "it" : "them");
  }
  if (options.model.empty()) return Error(err::kInvalidParam, "--model is required (the ONNX file to compile)");
  std::vector<std::string> gear_log;
  auto g = import_model(options, &gear_log);
  if (!g.ok()) return g.status();
  auto r = compile_graph(std::move(*g), options);
  if (r.ok()) r->log.insert(r->log.begin() + std::min<std::size_t>(1, r->log.size()), gear_log.begin(), gear_log.end());
  return r;
}

Result<CompileResult> compile_graph(Graph graph, const CompileOptions& options) {
  CompileResult r;
  PassContext ctx;
  ctx.options = &options;
  ctx.result = &r;
  ctx.log.push_back(fmt::format("import: {} nodes, {} inputs, {} outputs (opset {})", graph.live_node_count(),
                                graph.inputs.size(), graph.outputs.size(), graph.opset));
  SVP_RETURN_IF_ERROR(dump_graph(graph, ctx, "import"));
  note_idle_options(options, &ctx.log);
  SVP_RETURN_IF_ERROR(run_pipeline(graph, ctx, default_pipeline()));
  r.log = std::move(ctx.log);
  SVP_RETURN_IF_ERROR(build_model(graph, options, &r));
  return r;
}

}  // namespace svp::compiler
