// A compiler pass: one small graph rewrite, testable alone. The pipeline (pipeline.h)
// runs the registered passes in the documented order, checks what each requires, logs what
// each did (nodes before/after and time) and can write the graph after each.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "compiler/graph.h"

namespace svp::compiler {

struct CompileOptions;
struct CompileResult;
namespace quant {
struct QuantizeState;
}

// What a pass may read besides the graph, and where it reports.
struct PassContext {
  const CompileOptions* options = nullptr;
  // Problems that do not stop the pass (mode 3, pre-check, collects them all).
  std::vector<std::string> warnings;
  // The compile log (svp_atc prints it at --log_level=1): what each pass did.
  std::vector<std::string> log;
  // Where passes leave what the compile returns besides the model (calibration_param.txt,
  // the layer accuracy report); null when run alone.
  CompileResult* result = nullptr;
  // What the quantization passes hand on to each other (quantize/quantize_stages.h);
  // created by the first of them.
  std::shared_ptr<quant::QuantizeState> quant;
  // --dump_graph: the number of the next file (NN_pass.dot / .onnx).
  int dumped = 0;
};

class Pass {
 public:
  virtual ~Pass() = default;
  virtual const char* name() const = 0;
  // Rewrites `g`; returns an error naming the node at fault (Graph::describe) and the way
  // out. A pass that changes nothing returns Ok.
  virtual Status run(Graph& g, PassContext& ctx) = 0;
};

}  // namespace svp::compiler
