#include "compiler/quantize/quantize_stages.h"

#include <limits>

#include <fmt/format.h>

#include "compiler/compile.h"
#include "compiler/qdq_export.h"
#include "compiler/quantize/calibration_param.h"
#include "compiler/quantize/layer_accuracy.h"
#include "compiler/quantize/mixed_precision.h"
#include "compiler/quantize/qdq.h"
#include "ops/op_def.h"

namespace svp::compiler::quant {
namespace {

QuantizeState& state(PassContext& ctx) {
  if (!ctx.quant) ctx.quant = std::make_shared<QuantizeState>();
  return *ctx.quant;
}

// The quantizer's log lines: the summary, and each layer whose precision is not the
// mode's own (--high_precision_layer, --force_to_cpu, Cast).
void log_quantization(const QuantizeState& s, const CompileOptions& o, std::vector<std::string>* log) {
  const QuantizeReport& rep = s.report;
  log->push_back(fmt::format(
      "quantize: {}, {} calibration, {} batch(es) of {} item(s): {} activations quantized ({} of them int16) and "
      "{} weights int8; layers: {} A16W8, {} fp16, {} kept float32; {} Quantize/DequantizeLinear at the edges, "
      "{} fp16 roundings, {} Clip(0, hi) run as Relu ({:.0f} ms)",
      s.mode->what, method_name(s.options.calibration.method), rep.batches, s.data.items, rep.activations,
      rep.activations16, rep.weights, rep.a16_layers, rep.fp16_layers, rep.float_layers, rep.boundaries,
      rep.fp16_roundings, rep.clips_as_relu,
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s.start).count()));
  if (o.bias_correction) {
    log->push_back(fmt::format("quantize: --bias_correction adjusted {} Conv bias(es)", rep.biases_corrected));
  }
  const Precision usual = s.mode->activation_bits == 16 ? Precision::kA16W8 : Precision::kA8W8;
  for (const LayerPrecision& l : rep.layers) {
    const bool expected = l.precision == usual || (s.mode->cube_only && l.precision == Precision::kFp16 &&
                                                   !ops::is_quant_cube(l.op));
    if (!expected && ops::op_def(l.op).quant != ops::QuantRole::kFloatOnly) {
      log->push_back(fmt::format("quantize: layer \"{}\" ({}) is {}", l.name, l.op, precision_name(l.precision)));
    }
  }
}

}  // namespace

const QuantizeMode* quantize_mode(const std::string& mode) {
  static const QuantizeMode a8w8{"A8W8", 8, false}, a16w8{"A16W8", 16, false},
      cube8{"A8W8 on the CUBE ops, fp16 elsewhere", 8, true}, cube16{"A16W8 on the CUBE ops, fp16 elsewhere", 16, true};
  if (mode == "0") return &a8w8;
  if (mode == "1") return &a16w8;
  if (mode == "5") return &cube8;
  if (mode == "6") return &cube16;
  return nullptr;
}

bool quantizes(const CompileOptions& o) { return quantize_mode(o.compile_mode) != nullptr && o.mode != 3; }

Status load_calibration_pass(Graph& g, PassContext& ctx) {
  const CompileOptions& o = *ctx.options;
  QuantizeState& s = state(ctx);
  s.start = std::chrono::steady_clock::now();
  s.mode = quantize_mode(o.compile_mode);
  auto data = load_calibration_data(g, o.image_list);
  if (!data.ok()) return data.status();
  s.data = std::move(*data);
  // --accuracy_inputs: read now, against the float graph's inputs, as the calibration data.
  if (!o.accuracy_inputs.empty()) {
    auto given = load_calibration_data(g, o.accuracy_inputs);
    if (!given.ok()) return Error(given.status().code(), "--accuracy_inputs: {}", given.status().message());
    s.analysed = std::move(*given);
  }
  auto method = method_from_name(!o.calibration.empty() ? o.calibration : o.quant_mode == 1 ? "mse" : "minmax");
  if (!method.ok()) return method.status();
  QuantizeOptions& q = s.options;
  q.calibration.method = *method;
  q.conv_per_channel = o.weight_quant_per_channel;
  q.matmul_per_channel = o.matmul_per_channel;
  q.bias_correction = o.bias_correction;
  q.weight_search = o.quant_mode == 1;
  q.progress = o.calibration_progress;
  q.activation_bits = s.mode->activation_bits;
  q.cube_only = s.mode->cube_only;
  if (auto st = mark_high_precision(g, o.high_precision_layer); !st.ok()) return st;
  return mark_float_layers(g, o.float_layer);
}

// A8W8 only: the encodings are int8 (other modes keep QDQ pairs as the ops they are).
Status absorb_qdq_pass(Graph& g, PassContext& ctx) {
  auto qdq = absorb_qdq_pairs(g, &state(ctx).external);
  if (!qdq.ok()) return qdq.status();
  if (*qdq > 0) {
    ctx.log.push_back(
        fmt::format("QDQ: {} QuantizeLinear/DequantizeLinear pair(s) became the encodings of their tensors", *qdq));
  }
  return Status::Ok();
}

// After absorb_qdq: the file's encodings win over the model's.
Status external_params_pass(Graph& g, PassContext& ctx) {
  ResolvedParams& external = state(ctx).external;
  auto file = read_calibration_param(ctx.options->gfpq_param_file);
  if (!file.ok()) return file.status();
  auto resolved = resolve_external_params(g, *file);
  if (!resolved.ok()) return resolved.status();
  external.encodings.insert(external.encodings.end(), resolved->encodings.begin(), resolved->encodings.end());
  external.weight_scales = std::move(resolved->weight_scales);
  external.layers = resolved->layers;
  return Status::Ok();
}

Status calibrate_pass(Graph& g, PassContext& ctx) {
  QuantizeState& s = state(ctx);
  auto cal = calibrate(g, s.data, s.options);
  if (!cal.ok()) return cal.status();
  s.calibration = std::move(*cal);
  return Status::Ok();
}

Status quantize_pass(Graph& g, PassContext& ctx) {
  const CompileOptions& o = *ctx.options;
  QuantizeState& s = state(ctx);
  if (!s.external.encodings.empty() || !s.external.weight_scales.empty()) s.options.external = &s.external;
  // --accuracy_report compares with the graph as it is now (copies share the constants).
  if (o.accuracy_report) s.float_graph = g;
  if (o.auto_mixed_precision <= 0.0) {
    auto rep = apply_quantization(g, s.calibration, s.options);
    if (!rep.ok()) return rep.status();
    s.report = std::move(*rep);
  } else {
    MixedPrecisionOptions amp;
    amp.output_target = o.auto_mixed_precision;
    amp.layer_threshold = o.auto_mixed_precision_layer;
    amp.max_rounds = static_cast<std::size_t>(o.auto_mixed_precision_rounds);
    amp.to_float = o.auto_mixed_precision_float;
    auto mixed = quantize_mixed_precision(g, s.data, s.options, amp, &s.calibration);
    if (!mixed.ok()) return mixed.status();
    for (std::string& line : mixed->log) ctx.log.push_back(std::move(line));
    s.report = std::move(mixed->quantize);
  }
  if (!o.gfpq_param_file.empty()) {
    ctx.log.push_back(fmt::format("--gfpq_param_file: {} layer(s), {} tensor encoding(s) and {} weight scale set(s) "
                                  "taken from {}",
                                  s.external.layers, s.report.external_values, s.external.weight_scales.size(),
                                  o.gfpq_param_file));
  }
  // A8W8 only: the file format carries the int8 encodings --gfpq_param_file reads back.
  if (o.compile_mode == "0" && ctx.result != nullptr) {
    ctx.result->calibration_param = calibration_param_text(external_params_of(g));
  }
  if (!o.export_qdq.empty() && ctx.result != nullptr) {
    auto qdq = qdq_onnx(g, "svp_atc --export_qdq: " + o.command_line);
    if (qdq.ok()) {
      ctx.result->qdq_onnx = std::move(*qdq);
    } else if (o.export_qdq_optional) {
      ctx.result->qdq_error = qdq.status().message();
    } else {
      return qdq.status();
    }
  }
  log_quantization(s, o, &ctx.log);
  return Status::Ok();
}

Status layer_accuracy_pass(Graph& g, PassContext& ctx) {
  QuantizeState& s = state(ctx);
  const auto& progress = ctx.options->accuracy_progress;
  auto report = s.analysed ? analyse_accuracy(s.float_graph, g, *s.analysed, 0, progress)
                           : analyse_accuracy(s.float_graph, g, s.data, 4, progress);
  if (!report.ok()) return report.status();
  std::vector<std::string> summary = layer_accuracy_summary(report->layers);
  std::vector<std::string> outputs = output_accuracy_summary(report->outputs);
  if (!report->executed_note.empty()) {
    outputs.push_back("accuracy: the outputs were predicted with the reference kernels: the runtime's program "
                      "could not be built (" + report->executed_note + ")");
  }
  summary.insert(summary.end(), outputs.begin(), outputs.end());
  if (ctx.result != nullptr) {
    ctx.result->layer_accuracy_csv = layer_accuracy_csv(report->layers);
    ctx.result->layer_accuracy_html = layer_accuracy_html(report->layers, ctx.options->model, 0.99, outputs);
    for (const OutputAccuracy& o : report->outputs) {
      const double nan = std::numeric_limits<double>::quiet_NaN();
      ctx.result->output_accuracy.push_back(
          {o.name, o.executed.cosine, o.sensitivity.finite_pairs == 0 ? nan : o.sensitivity.cosine});
    }
    ctx.result->accuracy_summary = summary;
  }
  for (std::string& line : summary) ctx.log.push_back(std::move(line));
  s.float_graph = Graph();
  return Status::Ok();
}

}  // namespace svp::compiler::quant
