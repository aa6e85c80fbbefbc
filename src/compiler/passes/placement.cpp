#include "compiler/passes/placement.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "compiler/passes/segmentation.h"

namespace svp::compiler {
namespace {

using model::Target;

// The ops the vendor's SVP NPU runs in hardware (its ATC operator specification), among
// those svp-acl has kernels for. Everything else runs on the AI-CPU.
const std::set<std::string>& npu_ops() {
  static const std::set<std::string> ops = {
      // cube
      "Conv", "ConvTranspose", "Gemm", "MatMul",
      // pools and normalisation
      "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "BatchNormalization", "InstanceNormalization",
      "LRN", "Softmax", "ReduceMean", "ReduceMax", "ArgMax",
      // element-wise
      "Add", "Sub", "Mul", "Div", "Pow", "Sqrt", "Max", "Min", "Abs", "Exp", "Relu", "LeakyRelu", "PRelu", "Sigmoid",
      "Tanh", "HardSigmoid", "HardSwish", "Clip", "Elu", "Softplus",
      // data layout
      "Concat", "Reshape", "Flatten", "Transpose", "Squeeze", "Unsqueeze", "Slice", "Split", "Pad", "Resize",
      "Identity", "Dropout", "DepthToSpace", "SpaceToDepth",
      // type conversion (the NPU's input and output converters; --input_type inserts it)
      "Cast",
      // recurrent layers and (de)quantization at the model's edges
      "LSTM", "GRU", "RNN", "QuantizeLinear", "DequantizeLinear"};
  return ops;
}

bool is_data(const Graph& g, ValueId v) { return v != kNoValue && !g.value(v).is_constant(); }

}  // namespace

bool npu_op(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  if (!npu_ops().count(n.op)) return false;
  if (n.op == "MatMul") {
    // The vendor's MatMul runs on the NPU up to 4-D operands, beyond that on the CPU.
    for (ValueId v : n.inputs) {
      if (v != kNoValue && g.value(v).shape.size() > 4) return false;
    }
  }
  return true;
}

std::string npu_placement_rule(const std::string& op) {
  if (!npu_ops().count(op)) return "AI-CPU";
  if (op == "MatMul") return "NPU up to 4-D operands, else AI-CPU";
  return "NPU";
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

PlacementReport place_nodes(Graph& g) {
  PlacementReport r;
  const std::vector<NodeId> order = g.live_nodes();
  for (NodeId id : order) {
    Node& n = g.node(id);
    if (n.target != Target::kAiCpu && !npu_op(g, id)) n.target = Target::kAiCpu;
  }
  // Step 3: islands of cheap NPU nodes between AI-CPU nodes move to the AI-CPU.
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
        for (NodeId c : g.consumers(v)) {
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
