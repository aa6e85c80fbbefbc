// The quantization passes of the pipeline (pipeline.h), for --compile_mode 0, 1, 5 and 6
// outside pre-check (docs/quantization.md):
//
//   load_calibration  --image_list (and --accuracy_inputs), --high_precision_layer marks
//   absorb_qdq        A8W8: the model's QuantizeLinear/DequantizeLinear pairs → encodings
//   external_params   --gfpq_param_file → encodings and weight scales
//   calibrate         the float graph over the data, once (quantize.h calibrate())
//   quantize          precisions, types, boundaries, int8 weights — or, with
//                     --auto_mixed_precision, the rounds of mixed_precision.h on the same
//                     calibration
//   layer_accuracy    --accuracy_report: the float graph against the quantized one
//
// They hand on what they made through QuantizeState (PassContext::quant).
#pragma once

#include <chrono>
#include <optional>

#include "common/status.h"
#include "compiler/graph.h"
#include "compiler/options.h"
#include "compiler/pass.h"
#include "compiler/quantize/calibration_data.h"
#include "compiler/quantize/external_params.h"
#include "compiler/quantize/quantize.h"

namespace svp::compiler::quant {

// What --compile_mode 0, 1, 5, 6 ask of the quantizer.
struct QuantizeMode {
  const char* what;  // "A8W8", ...
  int activation_bits;
  bool cube_only;
};
// Null for "float" and for a mode that does not exist.
const QuantizeMode* quantize_mode(const std::string& compile_mode);
// True when the compile quantizes: a quantizing mode, not pre-check (--mode=3).
bool quantizes(const CompileOptions& options);

struct QuantizeState {
  const QuantizeMode* mode = nullptr;
  std::chrono::steady_clock::time_point start;  // the quantization's time in the log
  CalibrationSet data;
  std::optional<CalibrationSet> analysed;  // --accuracy_inputs
  QuantizeOptions options;
  ResolvedParams external;  // QDQ and --gfpq_param_file encodings
  Calibration calibration;
  Graph float_graph;  // --accuracy_report: the graph just before quantization
  QuantizeReport report;
};

Status load_calibration_pass(Graph& g, PassContext& ctx);
Status absorb_qdq_pass(Graph& g, PassContext& ctx);
Status external_params_pass(Graph& g, PassContext& ctx);
Status calibrate_pass(Graph& g, PassContext& ctx);
Status quantize_pass(Graph& g, PassContext& ctx);
Status layer_accuracy_pass(Graph& g, PassContext& ctx);

}  // namespace svp::compiler::quant
