// --gfpq_param_file against a graph: which tensors and weights of the float graph take the
// file's encodings (what quantize_graph applies), and the file for a graph quantize_graph
// has quantized (svp_atc's calibration_param.txt).
#pragma once

#include <utility>
#include <vector>

#include "common/status.h"
#include "compiler/graph.h"
#include "compiler/quantize/calibration_param.h"

namespace svp::compiler::quant {

// What quantize_graph takes from the file, resolved against the float graph: layers kept
// float are marked keep_float; `encodings` fixes the encoding of each listed layer's
// activation inputs, `weight_scales` the scales of its weights. err::kInvalidParam naming
// the file position for an unknown layer, more inputs than the node has, or two layers
// giving one tensor different encodings (the software NPU keeps one encoding per tensor).
// quantize_graph checks the weight scale counts against the weights.
struct ResolvedParams {
  std::vector<std::pair<ValueId, Encoding>> encodings;
  std::vector<std::pair<NodeId, std::vector<float>>> weight_scales;
  std::size_t layers = 0;
};
Result<ResolvedParams> resolve_external_params(Graph& g, const ExternalParams& params);

// The layers of a graph quantize_graph has quantized: one per node that reads int8
// activations or weights (A8W8), one per node kept float (kFloat, so that reading the file
// back keeps it float). calibration_param_text() turns them into the file.
ExternalParams external_params_of(const Graph& g);

}  // namespace svp::compiler::quant
