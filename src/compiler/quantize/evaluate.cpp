#include "compiler/quantize/evaluate.h"

#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "compiler/emit.h"
#include "compiler/first_execution.h"
#include "kernels/compiled_program.h"
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

struct CompiledEvaluator::State {
  const Graph* g = nullptr;
  BuiltModel model;
  std::unique_ptr<kernels::CompiledProgram> program;
  std::vector<ValueId> value_of;  // per program tensor: the graph value, or -1
  // The work buffer, kept from run to run (zeroed each time, as a fresh one was): the
  // accuracy analysis runs the same programs for every input, and a buffer allocated anew
  // each time came back as fresh pages to fault in.
  std::vector<std::uint64_t> work;
};

CompiledEvaluator::CompiledEvaluator(std::unique_ptr<State> s) : s_(std::move(s)) {}
CompiledEvaluator::~CompiledEvaluator() = default;

Result<std::unique_ptr<CompiledEvaluator>> CompiledEvaluator::create(const Graph& g, Mode mode) {
  auto s = std::make_unique<State>();
  s->g = &g;
  CompileOptions o;
  o.compile_mode = "float";
  auto built = emit_program(g, o);
  if (!built.ok()) return built.status();
  s->model = std::move(*built);
  kernels::CompileOptions ko;
  ko.fuse = mode == Mode::kAsExecuted;
  auto p = kernels::CompiledProgram::compile(s->model.program, s->model.weights.data(), s->model.weights.size(), ko);
  if (!p.ok()) return p.status();
  s->program = std::move(*p);
  std::map<std::string, ValueId> by_name;
  for (std::size_t v = 0; v < g.value_count(); ++v) {
    if (!g.value(static_cast<ValueId>(v)).dead) by_name[g.value(static_cast<ValueId>(v)).name] = static_cast<ValueId>(v);
  }
  for (const model::Tensor& t : s->model.program.tensors) {
    auto it = by_name.find(t.name);
    s->value_of.push_back(it == by_name.end() ? -1 : it->second);
  }
  return std::unique_ptr<CompiledEvaluator>(new CompiledEvaluator(std::move(s)));
}

Result<std::vector<kernels::OwnedTensor>> CompiledEvaluator::run(const std::vector<kernels::OwnedTensor>& inputs,
                                                                 const ValueObserver& observe) {
  const model::Program& p = s_->model.program;
  const std::vector<std::int32_t> ins = p.input_tensors();
  const std::vector<std::int32_t> outs = p.output_tensors();
  if (inputs.size() != ins.size()) {
    return Error(err::kInvalidParam, "the graph has {} inputs, {} given", ins.size(), inputs.size());
  }
  // 64-byte aligned work_buf, as the runtime allocates it.
  const std::size_t wb_words = static_cast<std::size_t>(p.flags.work_buf_size + 63) / 8 + 8;
  std::vector<std::uint64_t>& work = s_->work;
  work.assign(wb_words, 0);
  auto* wb = reinterpret_cast<std::uint8_t*>((reinterpret_cast<std::uintptr_t>(work.data()) + 63) & ~std::uintptr_t{63});
  std::vector<kernels::OwnedTensor> results;
  for (std::int32_t t : outs) {
    const model::Tensor& x = p.tensors[static_cast<std::size_t>(t)];
    results.emplace_back(x.dtype, x.dims);
    if (!x.quant.empty()) results.back().set_quant(x.quant);
  }
  std::vector<void*> in_data, out_data;
  for (std::size_t i = 0; i < ins.size(); ++i) {
    const model::Tensor& x = p.tensors[static_cast<std::size_t>(ins[i])];
    const model::TensorView& in = inputs[i].view();
    if (in.dtype != x.dtype || in.dims != x.dims) {
      return Error(err::kInvalidParam, "input \"{}\" must be {} of shape [{}]", x.name, model::dtype_name(x.dtype),
                   fmt::join(x.dims, ","));
    }
    in_data.push_back(in.data);
  }
  for (auto& r : results) out_data.push_back(r.view().data);
  const std::vector<void*> data = tensor_addresses(p, in_data, out_data, wb, s_->model.weights.data());
  for (std::size_t l = 0; l < p.layers.size(); ++l) {
    SVP_RETURN_IF_ERROR(s_->program->run_layer(l, data, kernels::RunArgs{}));
    if (!observe) continue;
    for (std::int32_t t : p.layers[l].outputs) {
      const ValueId v = s_->value_of[static_cast<std::size_t>(t)];
      if (v < 0) continue;
      auto bytes = s_->program->read_tensor(static_cast<std::size_t>(t), data);
      if (!bytes.ok()) continue;  // fused into the next layer (kAsExecuted only)
      model::TensorView view;
      view.dtype = p.tensors[static_cast<std::size_t>(t)].dtype;
      view.dims = p.tensors[static_cast<std::size_t>(t)].dims;
      view.data = bytes->data();
      const model::Quant& q = p.tensors[static_cast<std::size_t>(t)].quant;
      if (!q.empty()) view.quant = &q;
      observe(v, view);
    }
  }
  return results;
}

}  // namespace svp::compiler
