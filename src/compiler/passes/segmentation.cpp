#include "compiler/passes/segmentation.h"

#include "kernels/cost.h"

namespace svp::compiler {

std::uint64_t node_macs(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  model::Layer layer;
  layer.op = n.op;
  layer.attrs = n.attrs;
  std::vector<std::vector<std::int64_t>> in, out;
  for (ValueId v : n.inputs) in.push_back(v == kNoValue ? std::vector<std::int64_t>{} : g.value(v).shape);
  for (ValueId v : n.outputs) out.push_back(g.value(v).shape);
  return kernels::layer_macs(layer, in, out);
}

SegmentReport segment_by_cost(Graph& g, std::uint64_t max_macs) {
  SegmentReport r;
  std::uint64_t current = 0;
  NodeId first = -1;
  model::Target target = model::Target::kNpu;
  auto close = [&] {
    if (first < 0) return;
    ++r.segments;
    if (r.segments == 1 || current > r.longest_macs) {
      r.longest_macs = current;
      r.longest_first_node = g.node(first).name;
    }
  };
  for (NodeId id : g.live_nodes()) {
    Node& n = g.node(id);
    const std::uint64_t macs = node_macs(g, id);
    r.total_macs += macs;
    // Free nodes (activations, data movement) stay with their producer: they never start one.
    const bool start = first < 0 || n.target != target || (macs > 0 && current > 0 && current + macs > max_macs);
    if (start) {
      close();
      current = 0;
      first = id;
      target = n.target;
    }
    n.starts_segment = start;
    current += macs;
  }
  close();
  return r;
}

}  // namespace svp::compiler
