// Per-layer accuracy of a quantized graph against the float graph it came from, on the
// calibration data (svp_atc --accuracy_report=1, docs/accuracy.md "Per layer at compile
// time"). Two views per layer, as RKNN's accuracy analysis gives them:
//   entire: the quantized graph run whole (errors accumulate through the layers);
//   single: the layer alone, fed the float graph's inputs quantized with its own input
//           encodings (the layer's own loss, isolated).
// Both compare the layer's first output, dequantized, with the float graph's; metrics are
// common/metrics.h's over all analysed batches. Where the output encoding is [0, max]
// (uint8, zero point 0) or the output's only reader is a Relu (whose range the encoding
// is: the producer may clip negatives, int16 being symmetric over it), both sides are
// compared clamped at 0 — what the Relu passes on — as svp_compare does. Whole graphs run
// on the runtime's compiled programs (fusion off, so every value is seen; the reference
// evaluation when a graph does not compile), single layers on the reference kernels; both
// compute int8/int16 exactly as the software NPU does. analyse_accuracy adds the model
// outputs (output_accuracy.h): the quantized model as the runtime executes it, and the
// float model's sensitivity to the rounding of its input.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "common/metrics.h"
#include "common/status.h"
#include "compiler/graph.h"
#include "compiler/quantize/calibration_data.h"
#include "compiler/quantize/output_accuracy.h"

namespace svp::compiler::quant {

struct LayerAccuracy {
  std::size_t order = 0;  // position in execution order
  NodeId node = -1;       // in both graphs
  std::string name;       // ONNX node name
  std::string op;
  bool quantized = false;  // reads or writes quantized values (else: single is not computed)
  compare::Metrics single;
  compare::Metrics entire;
};

// `float_graph` is a copy of the graph taken just before quantize_graph turned it into
// `quantized` (node ids are shared). Analyses the first `max_batches` batches of `data`.
// Errors: those of evaluating either graph (naming the node).
// `progress(done, total)` after each batch. Memory: one batch's float values, one
// accumulator per layer and the compiled programs (the graphs', and one per quantized
// layer for the single view: the quantized weights once more), whatever the number of
// batches.
Result<std::vector<LayerAccuracy>> analyse_layers(
    const Graph& float_graph, const Graph& quantized, const CalibrationSet& data, std::size_t max_batches = 4,
    const std::function<void(std::size_t done, std::size_t total)>& progress = {});

struct AccuracyReport {
  std::vector<LayerAccuracy> layers;
  std::vector<OutputAccuracy> outputs;  // one per graph output
  // Empty when the outputs were computed by the program the runtime compiles; else why
  // that program could not be built (the reference evaluation stood in).
  std::string executed_note;
};

// analyse_layers, and the model outputs (OutputAccuracy) over the same inputs: two more
// runs per input (the quantized model as executed, the float model on the rounded input).
// `quantized` should be placed (pipeline's placement pass): AI-CPU layers run as the
// runtime runs them. Errors: those of the runs, naming the run and the node.
Result<AccuracyReport> analyse_accuracy(const Graph& float_graph, const Graph& quantized, const CalibrationSet& data,
                                        std::size_t max_batches = 4,
                                        const std::function<void(std::size_t done, std::size_t total)>& progress = {});

// The CSV (one row per layer, worst single cosine first; float layers last) and the lines
// the log gets: the first layer in execution order whose single / entire cosine is below
// `threshold`.
std::string layer_accuracy_csv(const std::vector<LayerAccuracy>& layers);
// The same as one self-contained HTML page (common/layer_chart_html.h): both cosines per
// layer charted in execution order, the table worst first, the summary lines on top.
// `extra_lines` (output_accuracy_summary's) go under the summary.
std::string layer_accuracy_html(const std::vector<LayerAccuracy>& layers, const std::string& model,
                                double threshold = 0.99, const std::vector<std::string>& extra_lines = {});
std::vector<std::string> layer_accuracy_summary(const std::vector<LayerAccuracy>& layers, double threshold = 0.99);

}  // namespace svp::compiler::quant
