#include "compiler/passes/fold_pad.h"

#include <cmath>
#include <cstring>
#include <optional>

#include "compiler/passes/const_util.h"

namespace svp::compiler {
namespace {

// ONNX Pad's pads ([x0_begin, ..., x0_end, ...]) from input 1 (int64 constant) or the
// attribute of older opsets; nullopt when unknown.
std::optional<std::vector<std::int64_t>> pad_amounts(const Graph& g, const Node& pad) {
  if (pad.inputs.size() > 1 && pad.inputs[1] != kNoValue) {
    const Value& v = g.value(pad.inputs[1]);
    if (!v.is_constant() || v.dtype != model::DType::kInt64) return std::nullopt;
    std::vector<std::int64_t> p(v.data->size() / sizeof(std::int64_t));
    std::memcpy(p.data(), v.data->data(), p.size() * sizeof(std::int64_t));
    return p;
  }
  auto a = pad.attrs.get_ints("pads", {});
  if (!a.ok() || a->empty()) return std::nullopt;
  return *a;
}

// The pad value: input 2 (a float32 constant scalar) or the attribute "value", 0 by
// default; nullopt when not a known float.
std::optional<float> pad_value(const Graph& g, const Node& pad) {
  if (pad.inputs.size() > 2 && pad.inputs[2] != kNoValue) {
    if (!passes::float_const(g, pad.inputs[2])) return std::nullopt;
    const std::vector<float> v = passes::floats(g, pad.inputs[2]);
    if (v.size() != 1) return std::nullopt;
    return v[0];
  }
  auto a = pad.attrs.get_float("value", 0.0);
  if (!a.ok()) return std::nullopt;
  return static_cast<float>(*a);
}

bool all_zero(const std::vector<std::int64_t>& v) {
  for (std::int64_t x : v) {
    if (x != 0) return false;
  }
  return true;
}

}  // namespace

Status FoldPadPass::run(Graph& g, PassContext&) {
  for (NodeId pad_id : g.live_nodes()) {
    const Node& pad = g.node(pad_id);
    if (pad.op != "Pad" || pad.inputs.empty() || pad.outputs.size() != 1) continue;
    if (pad.inputs.size() > 3 && pad.inputs[3] != kNoValue) continue;  // axes (opset 18) not read
    auto mode = pad.attrs.get_string("mode", "constant");
    if (!mode.ok() || *mode != "constant") continue;
    const ValueId x = pad.inputs[0], y = pad.outputs[0];
    if (g.value(x).dtype != model::DType::kFloat32 || !g.value(x).quant.empty()) continue;
    const NodeId user_id = passes::sole_reader(g, y);
    if (user_id < 0 || !passes::both_free(g, pad_id, user_id)) continue;
    const Node& user = g.node(user_id);
    if (user.inputs.empty() || user.inputs[0] != y) continue;
    bool read_twice = false;  // the padded tensor also as another input (a Conv's weights)
    for (std::size_t i = 1; i < user.inputs.size(); ++i) read_twice = read_twice || user.inputs[i] == y;
    if (read_twice) continue;
    const std::size_t rank = g.value(x).shape.size();
    const auto pads = pad_amounts(g, pad);
    const auto value = pad_value(g, pad);
    if (rank < 3 || !pads || pads->size() != 2 * rank || !value) continue;
    const std::size_t sp = rank - 2;  // spatial dims
    std::vector<std::int64_t> begin(sp), end(sp);
    bool ok = (*pads)[0] == 0 && (*pads)[1] == 0 && (*pads)[rank] == 0 && (*pads)[rank + 1] == 0;
    for (std::size_t d = 0; d < sp; ++d) {
      begin[d] = (*pads)[2 + d];
      end[d] = (*pads)[rank + 2 + d];
      ok = ok && begin[d] >= 0 && end[d] >= 0;
    }
    if (!ok) continue;
    auto auto_pad = user.attrs.get_string("auto_pad", "NOTSET");
    if (!auto_pad.ok() || *auto_pad != "NOTSET") continue;
    auto own = user.attrs.get_ints("pads", std::vector<std::int64_t>(2 * sp, 0));
    if (!own.ok() || own->size() != 2 * sp) continue;
    std::vector<std::int64_t> merged(2 * sp);
    for (std::size_t d = 0; d < sp; ++d) {
      merged[d] = (*own)[d] + begin[d];
      merged[sp + d] = (*own)[sp + d] + end[d];
    }
    // Every window keeps an input element: dilation 1 and pads below the kernel.
    auto window_holds_input = [&]() {
      auto kernel = user.attrs.get_ints("kernel_shape", {});
      auto dil = user.attrs.get_ints("dilations", std::vector<std::int64_t>(sp, 1));
      if (!kernel.ok() || !dil.ok() || kernel->size() != sp || dil->size() != sp) return false;
      for (std::size_t d = 0; d < sp; ++d) {
        if ((*dil)[d] != 1 || merged[d] >= (*kernel)[d] || merged[sp + d] >= (*kernel)[d]) return false;
      }
      return true;
    };
    bool fold = false;
    if (user.op == "Conv") {
      fold = *value == 0.0f;
    } else if (user.op == "MaxPool") {
      // ceil_mode's extra last window could lie in the padding alone.
      auto ceil = user.attrs.get_int("ceil_mode", 0);
      fold = user.outputs.size() == 1 && std::isinf(*value) && *value < 0 && ceil.ok() && *ceil == 0 &&
             window_holds_input();
    } else if (user.op == "AveragePool") {
      auto ceil = user.attrs.get_int("ceil_mode", 0);
      auto counted = user.attrs.get_int("count_include_pad", 0);
      fold = *value == 0.0f && ceil.ok() && *ceil == 0 && counted.ok() && (*counted == 1 || all_zero(*own)) &&
             window_holds_input();
    }
    if (!fold) continue;
    Node& u = g.node(user_id);
    u.attrs.set("pads", merged);
    if (u.op == "AveragePool") u.attrs.set("count_include_pad", std::int64_t{1});
    u.inputs[0] = x;
    g.remove_node(pad_id);
    g.value(y).dead = true;
  }
  return Status::Ok();
}

}  // namespace svp::compiler
