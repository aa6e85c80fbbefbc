#include "compiler/passes/remove_identity.h"

#include <cstdint>

#include "compiler/passes/const_util.h"

namespace svp::compiler {
namespace {

// Dropout is a copy unless it trains (training_mode, input 2, true or not a constant:
// then it draws a random mask) or its mask (output 1) is read.
bool inference_dropout(const Graph& g, const Node& n) {
  if (n.inputs.size() > 2 && n.inputs[2] != kNoValue) {
    const Value& t = g.value(n.inputs[2]);
    if (!t.is_constant() || t.data->empty()) return false;
    for (std::uint8_t b : *t.data) {
      if (b != 0) return false;
    }
  }
  if (n.outputs.size() > 1 && (g.is_graph_output(n.outputs[1]) || !g.consumers(n.outputs[1]).empty())) return false;
  return true;
}

}  // namespace

Status RemoveIdentityPass::run(Graph& g, PassContext&) {
  for (NodeId id : g.live_nodes()) {
    const Node& n = g.node(id);
    if (n.target == model::Target::kAiCpu || n.inputs.empty() || n.inputs[0] == kNoValue || n.outputs.empty()) continue;
    if (n.op != "Identity" && !(n.op == "Dropout" && inference_dropout(g, n))) continue;
    const ValueId x = n.inputs[0], y = n.outputs[0];
    if (g.value(x).dtype != g.value(y).dtype || g.value(x).shape != g.value(y).shape) continue;
    if (!g.is_graph_output(y)) {
      g.remove_node(id);
      g.replace_uses(y, x);
      g.value(y).dead = true;
      continue;
    }
    // y is a graph output: the producer of x writes it directly.
    const NodeId p = g.value(x).producer;
    if (p < 0 || g.is_graph_output(x) || g.consumers(x).size() != 1) continue;
    g.remove_node(id);
    for (ValueId& o : g.node(p).outputs) {
      if (o == x) o = y;
    }
    g.value(y).producer = p;
    g.value(x).dead = true;
  }
  return Status::Ok();
}

}  // namespace svp::compiler
