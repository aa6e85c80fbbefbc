#include "compiler/passes/cancel_reshape.h"

#include <cstring>

namespace svp::compiler {
namespace {

// True when `shape` is a constant int64 tensor without 0 entries.
bool shape_without_zero(const Graph& g, ValueId shape) {
  if (shape == kNoValue || !g.value(shape).is_constant() || g.value(shape).dtype != model::DType::kInt64) return false;
  const auto& bytes = *g.value(shape).data;
  for (std::size_t i = 0; i + sizeof(std::int64_t) <= bytes.size(); i += sizeof(std::int64_t)) {
    std::int64_t d = 0;
    std::memcpy(&d, bytes.data() + i, sizeof d);
    if (d == 0) return false;
  }
  return true;
}

}  // namespace

Status CancelReshapePass::run(Graph& g, PassContext&) {
  for (NodeId second : g.live_nodes()) {
    const Node& s = g.node(second);
    if (s.dead || s.op != "Reshape" || s.inputs.size() < 2 || !shape_without_zero(g, s.inputs[1])) continue;
    const ValueId mid = s.inputs[0];
    const NodeId first = g.value(mid).producer;
    if (first < 0 || g.node(first).dead || g.node(first).op != "Reshape") continue;
    if (g.node(first).target == model::Target::kAiCpu || s.target == model::Target::kAiCpu) continue;  // forced
    g.node(second).inputs[0] = g.node(first).inputs[0];
    if (g.consumers(mid).empty() && !g.is_graph_output(mid)) g.remove_node(first);
  }
  return Status::Ok();
}

}  // namespace svp::compiler
