#include "compiler/compile.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>

#include <fmt/format.h>

#include "kernels/kernels.h"

#include "compiler/aipp/insert_op_apply.h"
#include "compiler/emit.h"
#include "compiler/fusion_report.h"
#include "compiler/gear_constants.h"
#include "compiler/graph_dot.h"
#include "compiler/onnx_import.h"
#include "compiler/pass.h"
#include "compiler/passes/cancel_reshape.h"
#include "compiler/passes/cancel_transpose.h"
#include "compiler/passes/fold_batchnorm.h"
#include "compiler/passes/fold_batchnorm_gemm.h"
#include "compiler/passes/fold_channel_affine.h"
#include "compiler/passes/fold_pad.h"
#include "compiler/passes/fuse_hardswish.h"
#include "compiler/passes/io_types.h"
#include "compiler/passes/placement.h"
#include "compiler/passes/remove_identity.h"
#include "compiler/passes/segmentation.h"
#include "compiler/quantize/calibration_data.h"
#include "compiler/quantize/layer_accuracy.h"
#include "compiler/quantize/mixed_precision.h"
#include "compiler/quantize/qdq.h"
#include "compiler/quantize/quantize.h"
#include "model/format.h"
#include "ops/op_def.h"

namespace svp::compiler {
namespace {

// --compile_mode 0, 1, 5, 6: what the quantizer does for each (docs/quantization.md).
struct QuantizeMode {
  const char* what;
  int activation_bits;
  bool cube_only;
};

const QuantizeMode* quantize_mode(const std::string& mode) {
  static const QuantizeMode a8w8{"A8W8", 8, false}, a16w8{"A16W8", 16, false},
      cube8{"A8W8 on the CUBE ops, fp16 elsewhere", 8, true}, cube16{"A16W8 on the CUBE ops, fp16 elsewhere", 16, true};
  if (mode == "0") return &a8w8;
  if (mode == "1") return &a16w8;
  if (mode == "5") return &cube8;
  if (mode == "6") return &cube16;
  return nullptr;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const std::string& x : v) out += (out.empty() ? "" : sep) + x;
  return out;
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
  auto g = import_onnx(options.model, options);
  if (!g.ok()) return g.status();
  // Resolution gears: constants folded at the first gear that other gears need otherwise.
  std::vector<std::string> gear_log;
  SVP_RETURN_IF_ERROR(generalize_gear_constants(
      *g, options,
      [&](std::int64_t h, std::int64_t w) {
        CompileOptions at = options;
        at.dynamic_image_size = {{h, w}};
        return import_onnx(options.model, at);
      },
      &gear_log));
  auto r = compile_graph(std::move(*g), options);
  if (r.ok()) r->log.insert(r->log.begin() + std::min<std::size_t>(1, r->log.size()), gear_log.begin(), gear_log.end());
  return r;
}

Result<CompileResult> compile_graph(Graph graph, const CompileOptions& options) {
  CompileResult r;
  Graph* g = &graph;
  // --dump_graph: the graph after every stage, as NN_stage.dot.
  int stage = 0;
  auto dump = [&](const std::string& name) -> Status {
    if (options.dump_graph.empty()) return Status::Ok();
    std::error_code ec;
    std::filesystem::create_directories(options.dump_graph, ec);
    const auto path = std::filesystem::path(options.dump_graph) / fmt::format("{:02d}_{}.dot", stage++, name);
    std::ofstream out(path);
    out << to_dot(*g, name);
    if (!out) return Error(err::kInvalidParam, "--dump_graph: cannot write {}", path.string());
    return Status::Ok();
  };
  SVP_RETURN_IF_ERROR(dump("import"));
  r.log.push_back(fmt::format("import: {} nodes, {} inputs, {} outputs (opset {})", g->live_node_count(),
                              g->inputs.size(), g->outputs.size(), g->opset));
  SVP_RETURN_IF_ERROR(aipp_conf::apply_insert_op_conf(options, *g, &r.log));  // --insert_op_conf
  // Before the passes, so that they leave the nodes the user placed alone.
  SVP_RETURN_IF_ERROR(force_to_cpu(*g, options.force_to_cpu));
  // The graph passes, in this order (docs/compiler.md "Passes").
  {
    RemoveIdentityPass remove_identity;
    FoldPadPass fold_pad;
    FuseHardSwishPass fuse_hardswish;
    FoldBatchNormPass fold_bn;
    FoldBatchNormGemmPass fold_bn_gemm;
    FoldChannelAffinePass fold_channel_affine;
    CancelTransposePass cancel_transpose;
    CancelReshapePass cancel_reshape;
    PassContext ctx;
    ctx.options = &options;
    // fold_channel_affine twice: before fold_batchnorm for a bias written as an Add between
    // a Conv and its BN (paddle2onnx's ConvTranspose), after it for a Mul after the BN.
    for (Pass* p : std::initializer_list<Pass*>{&remove_identity, &fold_pad, &fold_channel_affine, &fold_bn,
                                                &fold_bn_gemm, &fold_channel_affine, &fuse_hardswish,
                                                &cancel_transpose, &cancel_reshape}) {
      const std::size_t before = g->live_node_count();
      SVP_RETURN_IF_ERROR(p->run(*g, ctx));
      r.log.push_back(fmt::format("{}: {} → {} nodes", p->name(), before, g->live_node_count()));
      SVP_RETURN_IF_ERROR(dump(p->name()));
    }
    g->compact();
    SVP_RETURN_IF_ERROR(g->topo_sort());
  }
  if (!options.input_type.empty() || !options.output_type.empty()) {
    SVP_RETURN_IF_ERROR(apply_io_types(*g, options));
    r.log.push_back(fmt::format("io_types: {} input type(s) applied", options.input_type.size()));
    SVP_RETURN_IF_ERROR(dump("io_types"));
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
  if (options.compile_mode == "float" && !options.high_precision_layer.empty()) {
    r.log.push_back("--high_precision_layer has no effect with --compile_mode=float (every layer is float)");
  }
  if (options.compile_mode == "float" && options.auto_mixed_precision > 0.0) {
    r.log.push_back("--auto_mixed_precision has no effect with --compile_mode=float (every layer is float)");
  }
  if (const QuantizeMode* qmode = quantize_mode(options.compile_mode); qmode != nullptr && options.mode != 3) {
    const auto t0 = std::chrono::steady_clock::now();
    auto data = quant::load_calibration_data(*g, options.image_list);
    if (!data.ok()) return data.status();
    // --accuracy_inputs: read now, against the float graph's inputs, as the calibration data.
    std::optional<quant::CalibrationSet> analysed;
    if (!options.accuracy_inputs.empty()) {
      auto given = quant::load_calibration_data(*g, options.accuracy_inputs);
      if (!given.ok()) return Error(given.status().code(), "--accuracy_inputs: {}", given.status().message());
      analysed = std::move(*given);
    }
    quant::QuantizeOptions q;
    auto method = quant::method_from_name(!options.calibration.empty() ? options.calibration
                                          : options.quant_mode == 1   ? "mse"
                                                                      : "minmax");
    if (!method.ok()) return method.status();
    q.calibration.method = *method;
    q.conv_per_channel = options.weight_quant_per_channel;
    q.matmul_per_channel = options.matmul_per_channel;
    q.bias_correction = options.bias_correction;
    q.weight_search = options.quant_mode == 1;
    q.progress = options.calibration_progress;
    q.activation_bits = qmode->activation_bits;
    q.cube_only = qmode->cube_only;
    SVP_RETURN_IF_ERROR(quant::mark_high_precision(*g, options.high_precision_layer));
    // Encodings the model brings (QDQ pairs), then those of --gfpq_param_file (which win).
    // A8W8 only: the encodings are int8 (other modes keep QDQ pairs as the ops they are).
    quant::ResolvedParams external;
    auto qdq = options.compile_mode == "0" ? quant::absorb_qdq_pairs(*g, &external) : Result<std::size_t>(std::size_t{0});
    if (!qdq.ok()) return qdq.status();
    if (*qdq > 0) {
      r.log.push_back(fmt::format("QDQ: {} QuantizeLinear/DequantizeLinear pair(s) became the encodings of their "
                                  "tensors",
                                  *qdq));
    }
    if (!options.gfpq_param_file.empty()) {
      auto file = quant::read_calibration_param(options.gfpq_param_file);
      if (!file.ok()) return file.status();
      auto resolved = quant::resolve_external_params(*g, *file);
      if (!resolved.ok()) return resolved.status();
      external.encodings.insert(external.encodings.end(), resolved->encodings.begin(), resolved->encodings.end());
      external.weight_scales = std::move(resolved->weight_scales);
      external.layers = resolved->layers;
    }
    if (!external.encodings.empty() || !external.weight_scales.empty()) q.external = &external;
    // --accuracy_report compares with the graph as it is now (copies share the constants).
    const Graph float_graph = options.accuracy_report ? *g : Graph();
    auto rep = [&]() -> Result<quant::QuantizeReport> {
      if (options.auto_mixed_precision <= 0.0) return quant::quantize_graph(*g, *data, q);
      quant::MixedPrecisionOptions amp;
      amp.output_target = options.auto_mixed_precision;
      amp.layer_threshold = options.auto_mixed_precision_layer;
      amp.max_rounds = static_cast<std::size_t>(options.auto_mixed_precision_rounds);
      amp.to_float = options.auto_mixed_precision_float;
      auto mixed = quant::quantize_mixed_precision(*g, *data, q, amp);
      if (!mixed.ok()) return mixed.status();
      for (std::string& line : mixed->log) r.log.push_back(std::move(line));
      return std::move(mixed->quantize);
    }();
    if (!rep.ok()) return rep.status();
    if (options.accuracy_report) {
      auto layers = analysed ? quant::analyse_layers(float_graph, *g, *analysed, 0)
                             : quant::analyse_layers(float_graph, *g, *data);
      if (!layers.ok()) return layers.status();
      r.layer_accuracy_csv = quant::layer_accuracy_csv(*layers);
      r.layer_accuracy_html = quant::layer_accuracy_html(*layers, options.model);
      for (std::string& line : quant::layer_accuracy_summary(*layers)) r.log.push_back(std::move(line));
    }
    if (!options.gfpq_param_file.empty()) {
      r.log.push_back(fmt::format("--gfpq_param_file: {} layer(s), {} tensor encoding(s) and {} weight scale set(s) "
                                  "taken from {}",
                                  external.layers, rep->external_values, external.weight_scales.size(),
                                  options.gfpq_param_file));
    }
    // A8W8 only: the file format carries the int8 encodings --gfpq_param_file reads back.
    if (options.compile_mode == "0") r.calibration_param = quant::calibration_param_text(quant::external_params_of(*g));
    r.log.push_back(fmt::format(
        "quantize: {}, {} calibration, {} batch(es) of {} item(s): {} activations quantized ({} of them int16) and "
        "{} weights int8; layers: {} A16W8, {} fp16, {} kept float32; {} Quantize/DequantizeLinear at the edges, "
        "{} fp16 roundings, {} Clip(0, hi) run as Relu ({:.0f} ms)",
        qmode->what, quant::method_name(*method), rep->batches, data->items, rep->activations, rep->activations16,
        rep->weights, rep->a16_layers, rep->fp16_layers, rep->float_layers, rep->boundaries, rep->fp16_roundings,
        rep->clips_as_relu, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count()));
    if (options.bias_correction) {
      r.log.push_back(fmt::format("quantize: --bias_correction adjusted {} Conv bias(es)", rep->biases_corrected));
    }
    // The layers whose precision is not the mode's own (--high_precision_layer, --force_to_cpu, Cast).
    const quant::Precision usual = qmode->activation_bits == 16 ? quant::Precision::kA16W8 : quant::Precision::kA8W8;
    for (const quant::LayerPrecision& l : rep->layers) {
      const bool expected = l.precision == usual || (qmode->cube_only && l.precision == quant::Precision::kFp16 &&
                                                     !ops::is_quant_cube(l.op));
      if (!expected && ops::op_def(l.op).quant != ops::QuantRole::kFloatOnly) {
        r.log.push_back(fmt::format("quantize: layer \"{}\" ({}) is {}", l.name, l.op, quant::precision_name(l.precision)));
      }
    }
    SVP_RETURN_IF_ERROR(dump("quantize"));
  }
  const PlacementReport place = place_nodes(*g, *options.soc_version);
  SVP_RETURN_IF_ERROR(placement_error(place, *options.soc_version));
  r.log.push_back(fmt::format("placement: NPU {} nodes ({} MACs), AI-CPU {} nodes ({} MACs){}, {} group(s){}{}",
                              place.npu_nodes, place.npu_macs, place.aicpu_nodes, place.aicpu_macs,
                              options.force_to_cpu.empty()
                                  ? std::string()
                                  : fmt::format(" ({} forced by --force_to_cpu)", options.force_to_cpu.size()),
                              place.groups,
                              place.moved_to_aicpu ? fmt::format(", {} cheap node(s) joined their AI-CPU neighbours",
                                                                 place.moved_to_aicpu)
                                                   : std::string(),
                              place.cuts.empty() ? std::string() : "; cuts: " + join(place.cuts, ", ")));
  const SegmentReport seg = segment_by_cost(*g, options.max_segment_macs);
  r.log.push_back(fmt::format("segments: {} (bound {} MACs); the longest, from \"{}\", {} MACs of {} in all",
                              seg.segments, options.max_segment_macs, seg.longest_first_node, seg.longest_macs,
                              seg.total_macs));
  SVP_RETURN_IF_ERROR(dump("placement_and_segments"));
  // The image is written after the fusion report: the runtime's plan copies (reorders) the
  // weights, and that copy, the weights and the image side by side would be the peak.
  auto built = emit_consuming(*g, options, /*image=*/false);
  if (!built.ok()) return built.status();
  r.log.push_back(fmt::format("emit: {} layers in {} segments, work_buf {} bytes, task_buf {} bytes, weights {} bytes",
                              built->program.layers.size(), built->program.segments.size(),
                              built->program.flags.work_buf_size, built->program.flags.task_buf_size,
                              built->weights.size()));
  r.model = std::move(*built);
  // The fusions the runtime will apply at load (reported, not rewritten: fusion_report.h).
  auto fusions = runtime_fusions(r.model.program, r.model.weights.data(), r.model.weights.size());
  if (!fusions.ok()) return fusions.status();
  r.log.push_back(fmt::format("fusions at load: {} group(s): {}", fusions->size(),
                              fusion_text(r.model.program, *fusions)));
  return_free_memory();  // the plan's reordered weights
  r.model.image = model::write_model(r.model.program, r.model.weights.data(), r.model.weights.size());
  return r;
}

}  // namespace svp::compiler
