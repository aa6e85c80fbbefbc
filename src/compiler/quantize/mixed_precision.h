// Automatic mixed precision (svp_atc --auto_mixed_precision=TARGET, ours; the vendor's ATC
// has no such mode — docs/quantization.md "Automatic mixed precision"): quantize, measure
// the model outputs' cosine similarity to the float graph on the calibration data, and
// while it is below TARGET raise the layers that are bad on their own one precision step
// and quantize again.
//
// The per-layer view is layer_accuracy.h's "single" cosine (the layer alone, fed float
// inputs quantized as it reads them): a layer below `layer_threshold` there loses accuracy
// by itself, not because of what came before it, so raising it is what helps. One step is
// what --high_precision_layer does (A8W8 → A16W8, A16W8 → float32) and then float32
// (Node::keep_float). Each round raises the worst quarter of the layers still below the
// threshold (at least one), so a model with many weak layers needs few rounds and one with
// a single culprit raises only it. When no layer is below the threshold but the target is
// not met, the loss is spread thinly over many layers (PP-OCRv4 det: every layer's single
// cosine is above 0.99): the threshold tightens tenfold (0.99 → 0.999 → ...) and the log
// says so. It stops when the target is met, when every quantized layer is exact alone
// (single cosine ≥ 0.999999) or float (the report says the target was not met), or after
// `max_rounds`; when the target is missed, the model is the best round's (highest output
// cosine), since raising a layer can also lower it.
//
// Each round quantizes the float graph afresh (calibration is deterministic, so the
// result is byte-identical for the same inputs) and analyses `batches` calibration
// batches with the reference kernels. Single-threaded; no state.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/status.h"
#include "compiler/graph.h"
#include "compiler/quantize/calibration_data.h"
#include "compiler/quantize/quantize.h"

namespace svp::compiler::quant {

struct MixedPrecisionOptions {
  double output_target = 0.99;    // min over the model outputs of their cosine to float
  double layer_threshold = 0.99;  // single cosine below which a layer is raised
  std::size_t max_rounds = 8;
  std::size_t batches = 4;  // calibration batches measured (the first ones)
  // Raise straight to float32 (float weights too) instead of one step at a time: where
  // int8 weights are what loses accuracy, A16W8 does not help.
  bool to_float = false;
};

struct RaisedLayer {
  std::string name;  // ONNX node name
  std::string op;
  double single_cosine = 0.0;  // when it was raised
  Precision to = Precision::kA16W8;
  std::size_t round = 0;  // 1-based
};

struct MixedPrecisionReport {
  QuantizeReport quantize;            // of the final quantization
  std::vector<double> output_cosine;  // after each quantization (round 0 = the plain one)
  std::vector<RaisedLayer> raised;    // in the order they were raised
  bool target_met = false;
  std::vector<std::string> log;  // one line per round and a conclusion
};

// `g`: the float graph, marked (--high_precision_layer, --force_to_cpu) as for
// quantize_graph; on success it is the quantized graph of the last round.
// Errors: those of quantize_graph and of evaluating either graph; err::kInvalidParam for a
// target or threshold outside (0, 1] or zero rounds. `calibration`: calibrate(g, data,
// quantize) when the caller has it already (the pipeline's calibrate pass); every round
// applies it (the float ranges do not depend on the precisions), so the float graph runs
// over the data once, not once per round.
Result<MixedPrecisionReport> quantize_mixed_precision(Graph& g, const CalibrationSet& data,
                                                      const QuantizeOptions& quantize,
                                                      const MixedPrecisionOptions& options,
                                                      const Calibration* calibration = nullptr);

}  // namespace svp::compiler::quant
