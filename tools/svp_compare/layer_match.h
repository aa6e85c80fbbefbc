// Pairs the layers of a golden dump (the float model) with those of an actual dump (the
// quantized model) of the same inputs.
//
// A "layer output" is one (layer, output index) of a dump, seen in every execution and
// batch item. An actual output is paired with the golden output of the same layer name and
// index; failing that, with the golden output of the same tensor name, where the
// quantizer's renames are undone first (a quantized model output "logits" is the layer
// output "logits_int8", or "logits_int16" in the A16W8 modes; a float copy of a quantized
// value is "<name>_float"; both may carry
// the graph's "_<n>" uniqueness suffix). Each golden output is paired at most once, layer
// names first, so a DequantizeLinear the quantizer appended does not repeat the row of the
// layer it dequantizes. Inputs (dump_mode "input"/"all") are not compared: they are the
// previous layers' outputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "svp_compare/dump_index.h"

namespace svp::compare {

struct LayerOutput {
  std::string layer;
  std::string op;
  std::int64_t index = 0;
  std::string tensor;
  std::vector<std::size_t> entries;  // into the dump's entries, in index.jsonl order
};

// A dump's layer outputs in execution order (the order of their first index.jsonl line:
// every execution writes its layers in the order it runs them).
std::vector<LayerOutput> GroupLayerOutputs(const std::vector<DumpEntry>& entries);

// The tensor name before the quantizer's renames: "x_int8" / "x_int16" / "x_int8_3" / "x_float" → "x".
std::string UnquantizedTensorName(const std::string& tensor);

struct LayerPair {
  std::size_t golden = 0;  // into the golden LayerOutputs
  std::size_t actual = 0;  // into the actual LayerOutputs
  bool by_layer_name = true;
};

struct LayerMatch {
  std::vector<LayerPair> pairs;        // in the actual dump's execution order
  std::vector<std::size_t> golden_unmatched;
  std::vector<std::size_t> actual_unmatched;
  // (actual, golden): an actual output whose tensor is a golden output already paired, such
  // as the quantizer's DequantizeLinear of a model output; same values, no row of its own.
  std::vector<std::pair<std::size_t, std::size_t>> actual_repeats;
};

LayerMatch MatchLayers(const std::vector<LayerOutput>& golden, const std::vector<LayerOutput>& actual);

}  // namespace svp::compare
