// The per-layer comparison of two dumps: every paired layer output's values, over every
// execution and batch item both dumps hold, concatenated in index order and compared with
// the metrics of metrics.h. With the quantized model run end to end these are "entire"
// figures: each layer's error includes what the layers before it passed on.
//
// The quantizer gives a layer whose only reader is a Relu the Relu's encoding [0, max]
// (src/compiler/quantize/quantize.cpp): the layer itself saturates negatives, which the
// Relu would discard anyway. Compared raw, such a pre-Relu output would look broken (LeNet's
// int8 /fc1/Gemm: cosine 0.54) though nothing is lost; so where the actual output is uint8
// with zero point 0, golden negatives are compared as 0 and the row says so.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "svp_compare/dump_dir.h"
#include "common/metrics.h"

namespace svp::compare {

struct LayerResult {
  std::size_t order = 0;     // 0-based position in the actual model's execution order
  std::string layer;         // the actual (quantized) model's layer
  std::string op;
  std::string golden_layer;  // the same name unless paired by tensor name
  std::string tensor;        // the golden tensor name
  std::string actual_dtype;  // as dumped (int8 / uint8 values were dequantized)
  std::size_t samples = 0;   // executions × batch items compared
  std::size_t elements = 0;  // per sample
  // The actual output is uint8 with zero point 0 (the quantizer's range [0, max]): it holds
  // no negatives by construction, so the golden's negatives were compared as 0 (below).
  bool golden_negatives_clamped = false;
  Metrics metrics;
};

// A paired layer output without values to compare, or a layer output without a partner.
struct LayerNote {
  std::string layer;
  std::string reason;
};

struct Comparison {
  std::vector<LayerResult> layers;  // in execution order
  std::vector<LayerNote> not_compared;
  std::vector<LayerNote> golden_unmatched;
  std::vector<LayerNote> actual_unmatched;
};

struct ComparisonResult {
  bool ok = false;
  std::string error;  // a file that could not be read, naming it (and the index line)
  Comparison comparison;
};

// `progress(done, total)` is called after each paired layer output (for the CLI's progress
// lines: large dumps take tens of seconds).
ComparisonResult CompareDumps(const DumpDir& golden, const DumpDir& actual,
                              const std::function<void(std::size_t done, std::size_t total)>& progress = {});

// Indices into `layers`, the worst first: lowest cosine (NaN, nothing finite to compare,
// counts as the lowest), then highest relative distance, then execution order.
std::vector<std::size_t> WorstFirst(const std::vector<LayerResult>& layers);

// The first layer in execution order whose cosine is below `threshold` (or NaN); -1: none.
long FirstBelowThreshold(const std::vector<LayerResult>& layers, double threshold);

}  // namespace svp::compare
