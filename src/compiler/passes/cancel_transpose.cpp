#include "compiler/passes/cancel_transpose.h"

#include <cstddef>

namespace svp::compiler {

Status CancelTransposePass::run(Graph& g, PassContext&) {
  for (NodeId second : g.live_nodes()) {
    if (g.node(second).dead || g.node(second).op != "Transpose" || g.node(second).inputs.empty()) continue;
    const ValueId mid = g.node(second).inputs[0];
    const NodeId first = g.value(mid).producer;
    if (first < 0 || g.node(first).dead || g.node(first).op != "Transpose") continue;
    if (g.node(first).target == model::Target::kAiCpu || g.node(second).target == model::Target::kAiCpu) continue;
    const ValueId x = g.node(first).inputs[0];
    const std::size_t rank = g.value(x).shape.size();
    // An absent perm reverses the dims.
    std::vector<std::int64_t> reverse(rank);
    for (std::size_t i = 0; i < rank; ++i) reverse[i] = static_cast<std::int64_t>(rank - 1 - i);
    Result<std::vector<std::int64_t>> p1 = g.node(first).attrs.get_ints("perm", reverse);
    Result<std::vector<std::int64_t>> p2 = g.node(second).attrs.get_ints("perm", reverse);
    if (!p1.ok()) return Error(p1.status().code(), "{}: {}", g.describe(first), p1.status().message());
    if (!p2.ok()) return Error(p2.status().code(), "{}: {}", g.describe(second), p2.status().message());
    if (p1->size() != rank || p2->size() != rank) continue;
    // out[i] = mid[p2[i]] = x[p1[p2[i]]].
    std::vector<std::int64_t> q(rank);
    bool identity = true, valid = true;
    for (std::size_t i = 0; i < rank && valid; ++i) {
      const auto j = (*p2)[i];
      valid = j >= 0 && static_cast<std::size_t>(j) < rank;  // an invalid perm is left to the kernel's check
      q[i] = valid ? (*p1)[static_cast<std::size_t>(j)] : 0;
      identity = identity && q[i] == static_cast<std::int64_t>(i);
    }
    if (!valid) continue;
    const ValueId y = g.node(second).outputs[0];
    if (identity) {
      if (g.is_graph_output(y)) continue;
      g.replace_uses(y, x);
      g.remove_node(second);
    } else {
      g.node(second).inputs[0] = x;
      g.node(second).attrs.set("perm", q);
    }
    if (g.consumers(mid).empty() && !g.is_graph_output(mid)) g.remove_node(first);
  }
  return Status::Ok();
}

}  // namespace svp::compiler
