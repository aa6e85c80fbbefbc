#include "compiler/quantize/evaluate.h"

#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kernels/kernels.h"

namespace svp::compiler {

Result<std::vector<kernels::OwnedTensor>> evaluate(const Graph& g, const std::vector<kernels::OwnedTensor>& inputs,
                                                   const ValueObserver& observe) {
  if (inputs.size() != g.inputs.size()) {
    return Error(err::kInvalidParam, "the graph has {} inputs, {} given", g.inputs.size(), inputs.size());
  }
  const std::vector<NodeId> order = g.live_nodes();
  // Last reader of every value (graph outputs live to the end).
  std::map<ValueId, std::size_t> last_use;
  for (std::size_t i = 0; i < order.size(); ++i) {
    for (ValueId v : g.node(order[i]).inputs) {
      if (v != kNoValue) last_use[v] = i;
    }
  }
  for (ValueId v : g.outputs) last_use[v] = order.size();
  std::map<ValueId, kernels::OwnedTensor> live;
  std::map<ValueId, const kernels::OwnedTensor*> given;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Value& v = g.value(g.inputs[i]);
    const model::TensorView& t = inputs[i].view();
    if (t.dtype != v.dtype || t.dims != v.shape) {
      return Error(err::kInvalidParam, "input \"{}\" must be {} of shape {}", v.name, model::dtype_name(v.dtype),
                   fmt::format("[{}]", fmt::join(v.shape, ",")));
    }
    given[g.inputs[i]] = &inputs[i];
  }
  auto view_of = [&](ValueId id) -> Result<model::TensorView> {
    if (auto it = live.find(id); it != live.end()) return it->second.view();
    if (auto it = given.find(id); it != given.end()) return it->second->view();
    const Value& v = g.value(id);
    if (v.is_constant()) return v.view();
    return Error(err::kInvalidParam, "value \"{}\" is read before it is computed", v.name);
  };
  for (std::size_t i = 0; i < order.size(); ++i) {
    const Node& n = g.node(order[i]);
    std::vector<model::TensorView> in;
    for (ValueId v : n.inputs) {
      if (v == kNoValue) {
        in.emplace_back();
        continue;
      }
      auto t = view_of(v);
      if (!t.ok()) return Error(t.status().code(), "{}: {}", g.describe(order[i]), t.status().message());
      in.push_back(*t);
    }
    std::vector<kernels::OwnedTensor> out;
    std::vector<model::TensorView> out_views;
    for (ValueId o : n.outputs) {
      const Value& v = g.value(o);
      out.emplace_back(v.dtype, v.shape);
      if (!v.quant.empty()) out.back().set_quant(v.quant);
    }
    for (const auto& t : out) out_views.push_back(t.view());
    const Status s = kernels::run_reference(n.op, n.attrs, in, out_views);
    if (!s.ok()) return Error(s.code(), "{}: {}", g.describe(order[i]), s.message());
    for (std::size_t k = 0; k < n.outputs.size(); ++k) {
      if (observe) observe(n.outputs[k], out[k].view());
      live[n.outputs[k]] = std::move(out[k]);
    }
    // Free what no later node reads.
    for (ValueId v : n.inputs) {
      if (v != kNoValue && last_use[v] == i) live.erase(v);
    }
    for (ValueId o : n.outputs) {
      if (!last_use.count(o)) live.erase(o);
    }
  }
  std::vector<kernels::OwnedTensor> result;
  for (ValueId o : g.outputs) {
    auto it = live.find(o);
    if (it == live.end()) return Error(err::kInvalidParam, "output \"{}\" was not computed", g.value(o).name);
    result.push_back(std::move(it->second));
  }
  return result;
}

}  // namespace svp::compiler
