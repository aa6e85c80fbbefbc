// The compiler driver: import → passes → emit, as svp_atc runs it (docs/compiler.md).
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "compiler/builder.h"
#include "compiler/graph.h"
#include "compiler/options.h"

namespace svp::compiler {

struct CompileResult {
  BuiltModel model;
  std::vector<std::string> log;  // what each stage did (svp_atc prints it at --log_level=1)
  // Quantized compiles: the encodings chosen, as --gfpq_param_file reads them (svp_atc
  // writes it beside the model as <name>_calibration_param.txt). Empty for float models.
  std::string calibration_param;
  // --export_qdq: the quantized graph as a serialized QDQ ONNX model; empty otherwise.
  std::string qdq_onnx;
  // Why qdq_onnx is empty although asked for (CompileOptions::export_qdq_optional).
  std::string qdq_error;
  // --accuracy_report: per-layer accuracy as CSV (quant/layer_accuracy.h); empty otherwise.
  std::string layer_accuracy_csv;
  std::string layer_accuracy_html;  // the same as a page with a chart (svp_atc writes both)
  // --accuracy_report, per graph output (quant/output_accuracy.h): the cosine of the
  // quantized model as the runtime executes it against the float model, and the float
  // model's input sensitivity (NaN when no input is rounded to an integer encoding).
  struct OutputAccuracy {
    std::string name;
    double predicted_cosine = 0.0;
    double input_sensitivity = 0.0;
  };
  std::vector<OutputAccuracy> output_accuracy;
  std::vector<std::string> accuracy_summary;  // the report's summary lines (also in `log`)
};

// Compiles options.model. Errors: what the importer and the passes report, and
// err::kFeatureUnsupported for a request this build cannot honour (int8 compile modes,
// other unsupported flags) — never a silently different model.
Result<CompileResult> compile(const CompileOptions& options, const std::vector<std::string>& unsupported_flags = {});

// The stages after import (passes, placement, segments, emit) on an imported graph: what
// compile() runs on the file's graph, and what the importer's fuzz target reaches.
Result<CompileResult> compile_graph(Graph graph, const CompileOptions& options);

}  // namespace svp::compiler
