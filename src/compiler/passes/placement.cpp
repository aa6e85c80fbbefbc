#include "compiler/passes/placement.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "compiler/passes/segmentation.h"
#include "model/custom_op.h"

namespace svp::compiler {
namespace {

using model::Target;

bool is_data(const Graph& g, ValueId v) { return v != kNoValue && !g.value(v).is_constant(); }

// Where `target` runs node `id`, its operands' ranks checked against the target's limits.
target::Support node_support(const Graph& g, NodeId id, const target::DeviceProfile& target) {
  const Node& n = g.node(id);
  std::vector<std::size_t> ranks;
  for (ValueId v : n.inputs) {
    if (v != kNoValue) ranks.push_back(g.value(v).shape.size());
  }
  return target::op_support(target, n.op, ranks);
}

}  // namespace

bool npu_op(const Graph& g, NodeId id, const target::DeviceProfile& target) {
  return node_support(g, id, target) == target::Support::kNpu;
}

std::string npu_placement_rule(const std::string& op, const target::DeviceProfile& target) {
  return target::op_support_rule(target, op);
}

Status force_to_cpu(Graph& g, const std::vector<std::string>& names) {
  for (const std::string& want : names) {
    const std::vector<NodeId> found = g.nodes_named(want);
    for (NodeId id : found) g.node(id).target = Target::kAiCpu;
    if (found.empty()) {
      return Error(err::kInvalidParam,
                   "--force_to_cpu names \"{}\", which is not a node of the model (ONNX node names; "
                   "svp_atc --mode=1 lists them in om.json)",
                   want);
    }
  }
  return Status::Ok();
}

Status placement_error(const PlacementReport& r, const target::DeviceProfile& target) {
  if (r.refused.empty()) return Status::Ok();
  return Error(err::kFeatureUnsupported,
               "{} node(s) use ops that {} supports neither on its NPU nor on its CPU: {} (docs/ops.md lists "
               "each target's ops; replace them in the model or choose another --soc_version)",
               r.refused.size(), target.name, fmt::join(r.refused, ", "));
}

PlacementReport place_nodes(Graph& g, const target::DeviceProfile& target) {
  PlacementReport r;
  const std::vector<NodeId> order = g.live_nodes();
  for (NodeId id : order) {
    Node& n = g.node(id);
    if (model::is_custom_op(n.attrs)) {
      n.target = Target::kAiCpu;  // the application's callbacks run on the CPU
      continue;
    }
    const target::Support where = node_support(g, id, target);
    if (n.target != Target::kAiCpu && where != target::Support::kNpu) n.target = Target::kAiCpu;
    if (where == target::Support::kRefused) r.refused.push_back(fmt::format("\"{}\" ({})", n.name, n.op));
  }
  // Step 3: islands of cheap NPU nodes between AI-CPU nodes move to the AI-CPU. Each
  // value's readers are listed once (Graph::consumers scans every node: a 20k-node chain
  // spent 4 s here).
  std::vector<std::vector<NodeId>> readers(g.value_count());
  for (NodeId id : order) {
    for (ValueId v : g.node(id).inputs) {
      if (v == kNoValue) continue;
      auto& list = readers[static_cast<std::size_t>(v)];
      if (list.empty() || list.back() != id) list.push_back(id);
    }
  }
  for (bool moved = true; moved;) {
    moved = false;
    for (NodeId id : order) {
      Node& n = g.node(id);
      if (n.target != Target::kNpu || node_macs(g, id) > 0) continue;
      bool neighbour = false, all_cpu = true;
      for (ValueId v : n.inputs) {
        if (!is_data(g, v) || g.value(v).producer < 0) continue;
        neighbour = true;
        all_cpu = all_cpu && g.node(g.value(v).producer).target == Target::kAiCpu;
      }
      for (ValueId v : n.outputs) {
        for (NodeId c : readers[static_cast<std::size_t>(v)]) {
          neighbour = true;
          all_cpu = all_cpu && g.node(c).target == Target::kAiCpu;
        }
      }
      if (neighbour && all_cpu) {
        n.target = Target::kAiCpu;
        ++r.moved_to_aicpu;
        moved = true;
      }
    }
  }
  Target last = Target::kNpu;
  bool first = true;
  for (NodeId id : order) {
    const Node& n = g.node(id);
    const std::uint64_t macs = node_macs(g, id);
    if (n.target == Target::kNpu) {
      ++r.npu_nodes;
      r.npu_macs += macs;
    } else {
      ++r.aicpu_nodes;
      r.aicpu_macs += macs;
    }
    if (first || n.target != last) ++r.groups;
    first = false;
    last = n.target;
    for (ValueId v : n.inputs) {
      if (!is_data(g, v) || g.value(v).producer < 0) continue;
      const Node& p = g.node(g.value(v).producer);
      if (p.target != n.target) r.cuts.push_back(fmt::format("{} -> {}", p.name, n.name));
    }
  }
  std::sort(r.cuts.begin(), r.cuts.end());
  r.cuts.erase(std::unique(r.cuts.begin(), r.cuts.end()), r.cuts.end());
  return r;
}

}  // namespace svp::compiler
