#include "compiler/quantize/single_layer.h"

#include <map>

namespace svp::compiler::quant {

SingleLayer::SingleLayer(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  alone_.name = n.name;
  alone_.opset = g.opset;
  Node copy = n;
  copy.inputs.clear();
  copy.outputs.clear();
  copy.starts_segment = false;
  std::map<ValueId, ValueId> mapped;  // an input read twice (Mul(x, x)) is one graph input
  const auto add = [&](ValueId v) {
    if (auto it = mapped.find(v); it != mapped.end()) return it->second;
    Value x = g.value(v);
    x.producer = -1;
    const ValueId nv = alone_.add_value(std::move(x));
    mapped[v] = nv;
    return nv;
  };
  for (ValueId v : n.inputs) {
    if (v == kNoValue) {
      copy.inputs.push_back(kNoValue);
      continue;
    }
    const bool fresh = mapped.count(v) == 0;
    copy.inputs.push_back(add(v));
    if (fresh && !g.value(v).is_constant()) alone_.inputs.push_back(copy.inputs.back());
  }
  for (ValueId o : n.outputs) {
    copy.outputs.push_back(add(o));
    alone_.outputs.push_back(copy.outputs.back());
  }
  alone_.add_node(std::move(copy));
  auto fast = CompiledEvaluator::create(alone_, CompiledEvaluator::Mode::kObservable);
  if (fast.ok()) fast_ = std::move(*fast);
}

Result<std::vector<kernels::OwnedTensor>> SingleLayer::run(const std::vector<kernels::OwnedTensor>& inputs) const {
  return fast_ ? fast_->run(inputs) : evaluate(alone_, inputs);
}

}  // namespace svp::compiler::quant
