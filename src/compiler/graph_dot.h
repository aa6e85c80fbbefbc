// The compiler's graph as Graphviz text (--dump_graph writes one file per stage): a box per
// node (name, op; AI-CPU nodes shaded), an edge per value read (name, dtype, shape;
// int8 values with their scale), graph inputs and outputs as ellipses. Deterministic.
#pragma once

#include <string>

#include "compiler/graph.h"

namespace svp::compiler {

std::string to_dot(const Graph& g, const std::string& title);

}  // namespace svp::compiler
