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
// compared clamped at 0 — what the Relu passes on — as svp_compare does. Both runs use the reference kernels, which
// compute int8/int16 exactly as the software NPU does.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "common/metrics.h"
#include "common/status.h"
#include "compiler/graph.h"
#include "compiler/quantize/calibration_data.h"

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
// `progress(done, total)` after each batch. Memory: one batch's float values and one
// accumulator per layer, whatever the number of batches.
Result<std::vector<LayerAccuracy>> analyse_layers(
    const Graph& float_graph, const Graph& quantized, const CalibrationSet& data, std::size_t max_batches = 4,
    const std::function<void(std::size_t done, std::size_t total)>& progress = {});

// The CSV (one row per layer, worst single cosine first; float layers last) and the lines
// the log gets: the first layer in execution order whose single / entire cosine is below
// `threshold`.
std::string layer_accuracy_csv(const std::vector<LayerAccuracy>& layers);
// The same as one self-contained HTML page (common/layer_chart_html.h): both cosines per
// layer charted in execution order, the table worst first, the summary lines on top.
std::string layer_accuracy_html(const std::vector<LayerAccuracy>& layers, const std::string& model,
                                double threshold = 0.99);
std::vector<std::string> layer_accuracy_summary(const std::vector<LayerAccuracy>& layers, double threshold = 0.99);

}  // namespace svp::compiler::quant
