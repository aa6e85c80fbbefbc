// A compiler pass: one small graph rewrite, testable alone. The pass manager
// (pipeline.h) runs them in the documented order, logs what each did (nodes before/after
// at --log_level=1) and can write the graph after each stage as Graphviz.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "compiler/graph.h"

namespace svp::compiler {

struct CompileOptions;

// What a pass may read besides the graph, and where it reports.
struct PassContext {
  const CompileOptions* options = nullptr;
  // Problems that do not stop the pass (mode 3, pre-check, collects them all).
  std::vector<std::string> warnings;
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
