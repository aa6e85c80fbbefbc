// One layer of a graph run alone on given inputs — the "single" view of the accuracy
// analysis (layer_accuracy.h) — on the runtime's kernels: the layer becomes a graph of its
// own (its non-constant inputs the graph inputs, its outputs the graph outputs), compiled
// once (CompiledEvaluator) and run for every analysed input. A layer that does not compile
// on its own runs on the reference kernels; both compute int8/int16 the same way.
#pragma once

#include <memory>
#include <vector>

#include "common/status.h"
#include "compiler/graph.h"
#include "compiler/quantize/evaluate.h"
#include "kernels/tensor_buffer.h"

namespace svp::compiler::quant {

class SingleLayer {
 public:
  // Layer `id` of `g` (g may be destroyed afterwards: the layer's values are copied,
  // constants shared).
  SingleLayer(const Graph& g, NodeId id);
  // `inputs`: one per non-constant input of the layer, in order (absent optional inputs
  // and constants excluded), with the dtype, shape and encoding the layer reads.
  Result<std::vector<kernels::OwnedTensor>> run(const std::vector<kernels::OwnedTensor>& inputs) const;

 private:
  Graph alone_;
  std::unique_ptr<CompiledEvaluator> fast_;  // null: the reference evaluation
};

}  // namespace svp::compiler::quant
