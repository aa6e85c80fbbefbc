#include "compiler/passes/fuse_hardswish.h"

#include "compiler/passes/const_util.h"

namespace svp::compiler {
namespace {

using passes::clip_range;
using passes::float_const;
using passes::floats;
using passes::release_if_unread;
using passes::sole_reader;

// The float scalar constant among a binary node's two inputs, and the other input.
bool hs_scalar_operand(const Graph& g, const Node& n, float* c, ValueId* other) {
  if (n.inputs.size() != 2 || n.outputs.size() != 1) return false;
  for (int k = 0; k < 2; ++k) {
    const ValueId v = n.inputs[static_cast<std::size_t>(k)];
    if (!float_const(g, v) || g.value(v).data->size() != sizeof(float)) continue;
    *c = floats(g, v)[0];
    *other = n.inputs[static_cast<std::size_t>(1 - k)];
    return true;
  }
  return false;
}

bool hs_float_node(const Graph& g, NodeId id, const char* op) {
  const Node& n = g.node(id);
  return n.op == op && n.target != model::Target::kAiCpu && n.outputs.size() == 1 &&
         g.value(n.outputs[0]).dtype == model::DType::kFloat32;
}

}  // namespace

Status FuseHardSwishPass::run(Graph& g, PassContext&) {
  for (NodeId add : g.live_nodes()) {
    if (g.node(add).dead || !hs_float_node(g, add, "Add")) continue;
    float three = 0;
    ValueId x = kNoValue;
    if (!hs_scalar_operand(g, g.node(add), &three, &x) || three != 3.0f) continue;
    if (g.value(x).shape != g.value(g.node(add).outputs[0]).shape) continue;
    const NodeId clip = sole_reader(g, g.node(add).outputs[0]);
    float lo = 0, hi = 0;
    if (clip < 0 || !hs_float_node(g, clip, "Clip") || !clip_range(g, g.node(clip), &lo, &hi) || lo != 0.0f ||
        hi != 6.0f)
      continue;
    const NodeId mul = sole_reader(g, g.node(clip).outputs[0]);
    if (mul < 0 || !hs_float_node(g, mul, "Mul")) continue;
    const Node& m = g.node(mul);
    const ValueId clipped = g.node(clip).outputs[0];
    if (m.inputs.size() != 2 || !((m.inputs[0] == x && m.inputs[1] == clipped) ||
                                  (m.inputs[1] == x && m.inputs[0] == clipped)))
      continue;
    // The last step: Div by 6, or Mul by 1/6 as float32 rounds it.
    const NodeId last = sole_reader(g, m.outputs[0]);
    if (last < 0) continue;
    float k = 0;
    ValueId through = kNoValue;
    const bool div6 = hs_float_node(g, last, "Div") && g.node(last).inputs.size() == 2 &&
                      g.node(last).inputs[0] == m.outputs[0] && hs_scalar_operand(g, g.node(last), &k, &through) &&
                      g.node(last).inputs[1] != m.outputs[0] && k == 6.0f;
    const bool mul6 = hs_float_node(g, last, "Mul") && hs_scalar_operand(g, g.node(last), &k, &through) &&
                      through == m.outputs[0] && k == 1.0f / 6.0f;
    if (!div6 && !mul6) continue;

    const ValueId y = g.node(last).outputs[0];
    std::vector<ValueId> constants;
    for (NodeId n : {add, clip, mul, last})
      for (ValueId v : g.node(n).inputs)
        if (v != kNoValue && g.value(v).is_constant()) constants.push_back(v);
    const ValueId inner[] = {g.node(add).outputs[0], clipped, m.outputs[0]};
    Node hs;
    hs.name = g.unique_name(g.node(last).name + "/hardswish");
    hs.op = "HardSwish";
    hs.inputs = {x};
    hs.outputs = {y};
    hs.origin = g.node(add).origin;
    for (NodeId n : {add, clip, mul, last}) g.remove_node(n);
    for (ValueId v : inner) g.value(v).dead = true;
    g.add_node(std::move(hs));
    for (ValueId v : constants) release_if_unread(g, v);
  }
  return Status::Ok();
}

}  // namespace svp::compiler
