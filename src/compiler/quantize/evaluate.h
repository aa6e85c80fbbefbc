// Runs a compiler Graph on the host with the reference kernels — the single definition of
// every op — and shows every value a node produces to an observer. Calibration collects
// activation ranges with it; accuracy analysis compares float and quantized graphs with it.
// Quantized values (int8 with a Quant) are computed as the kernels' integer rules say, so
// a quantized graph evaluates to what the software NPU computes.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "common/status.h"
#include "compiler/graph.h"
#include "kernels/tensor_buffer.h"

namespace svp::compiler {

// Called once per value produced, in execution order; the view is valid during the call.
using ValueObserver = std::function<void(ValueId, const model::TensorView&)>;

// `inputs`: one tensor per graph input, with its dtype and shape. Returns the graph
// outputs. Intermediates are freed after their last reader. Errors name the node and the
// kernel's complaint; err::kInvalidParam for inputs that do not fit the graph.
Result<std::vector<kernels::OwnedTensor>> evaluate(const Graph& g, const std::vector<kernels::OwnedTensor>& inputs,
                                                   const ValueObserver& observe = {});

// The same graph prepared once for repeated runs through the runtime's CompiledProgram
// (oneDNN fast paths, layer fusion off so that every value is materialised): an order of
// magnitude faster than evaluate() on real models, the choice for calibration and the
// accuracy analysis. Values are matched to the emitted model's tensors by name; the
// observer sees the values a layer writes right after it ran, quantized ones with their
// Quant. Thread-compatible (one run at a time: the work buffer is kept between runs); the
// graph must outlive it.
class CompiledEvaluator {
 public:
  // kObservable: fusion off, every value materialised for the observer. kAsExecuted: the
  // program the runtime compiles at load (its fusions on, acl.json's default of one
  // kernel thread), so the outputs are the executed model's; the observer sees only what
  // the runtime materialises.
  enum class Mode { kObservable, kAsExecuted };
  // Errors: those of emitting or compiling the graph (callers fall back to evaluate()).
  static Result<std::unique_ptr<CompiledEvaluator>> create(const Graph& g, Mode mode = Mode::kObservable);
  ~CompiledEvaluator();
  Result<std::vector<kernels::OwnedTensor>> run(const std::vector<kernels::OwnedTensor>& inputs,
                                                const ValueObserver& observe = {});

 private:
  struct State;
  explicit CompiledEvaluator(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

}  // namespace svp::compiler
