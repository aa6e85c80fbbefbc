#include "compiler/quantize/external_params.h"

#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>

namespace svp::compiler::quant {
namespace {

std::string display_name(const Node& n) { return n.origin.onnx_name.empty() ? n.name : n.origin.onnx_name; }

// The activation (non-constant) inputs of a node, in order.
std::vector<ValueId> activation_inputs(const Graph& g, const Node& n) {
  std::vector<ValueId> out;
  for (ValueId v : n.inputs) {
    if (v != kNoValue && !g.value(v).is_constant()) out.push_back(v);
  }
  return out;
}

bool is_int8(model::DType t) { return t == model::DType::kInt8 || t == model::DType::kUint8; }

}  // namespace

Result<ResolvedParams> resolve_external_params(Graph& g, const ExternalParams& params) {
  ResolvedParams out;
  std::map<ValueId, std::pair<Encoding, std::string>> fixed;  // value → encoding, the layer that set it
  for (const LayerParams& p : params.layers) {
    const std::vector<NodeId> nodes = g.nodes_named(p.name);
    if (nodes.empty()) {
      return Error(err::kInvalidParam,
                   "{}: layer \"{}\" is not a node of the model (ONNX node names; svp_atc --mode=1 lists them in "
                   "om.json)",
                   p.where, p.name);
    }
    ++out.layers;
    for (NodeId id : nodes) {
      Node& n = g.node(id);
      if (p.precision == CalcDataType::kFloat) {
        n.keep_float = true;
        continue;
      }
      const std::vector<ValueId> acts = activation_inputs(g, n);
      if (p.inputs.size() > acts.size()) {
        return Error(err::kInvalidParam, "{}: layer \"{}\" ({}) has {} activation input(s); the file gives {}",
                     p.where, p.name, n.op, acts.size(), p.inputs.size());
      }
      for (std::size_t k = 0; k < p.inputs.size(); ++k) {
        if (!p.inputs[k]) continue;
        const Encoding& e = *p.inputs[k];
        auto [it, fresh] = fixed.emplace(acts[k], std::make_pair(e, p.where));
        if (!fresh && (it->second.first.scale != e.scale || it->second.first.zero_point != e.zero_point)) {
          return Error(err::kInvalidParam,
                       "{}: layer \"{}\" gives tensor \"{}\" another encoding than {} did; the software NPU keeps one "
                       "encoding per tensor: give both readers the same scale and offset",
                       p.where, p.name, g.value(acts[k]).name, it->second.second);
        }
      }
      if (!p.weight_scale.empty()) out.weight_scales.emplace_back(id, p.weight_scale);
    }
  }
  for (const auto& [v, e] : fixed) out.encodings.emplace_back(v, e.first);
  return out;
}

ExternalParams external_params_of(const Graph& g) {
  ExternalParams out;
  for (NodeId id : g.live_nodes()) {
    const Node& n = g.node(id);
    // The boundaries quantization inserted are not layers of the user's model.
    if (n.op == "QuantizeLinear" || n.op == "DequantizeLinear") continue;
    const std::vector<ValueId> acts = activation_inputs(g, n);
    // Layers computed in float32: the file's F32, --force_to_cpu, and what quantization left
    // float (no int8 input or weight, and a float output).
    const bool float_layer = n.keep_float || n.target == model::Target::kAiCpu;
    const ValueId w = n.inputs.size() >= 2 ? n.inputs[1] : kNoValue;
    const bool weight = w != kNoValue && g.value(w).is_constant() && is_int8(g.value(w).dtype) && !g.value(w).quant.empty();
    bool int8_input = false, int16_input = false;
    for (ValueId v : acts) {
      int8_input = int8_input || (is_int8(g.value(v).dtype) && !g.value(v).quant.empty());
      int16_input = int16_input || g.value(v).dtype == model::DType::kInt16;
    }
    // A16W8 layers (--high_precision_layer in A8W8) are not written: the reader takes S8
    // only, and the flag given again raises them again.
    if (int16_input) continue;
    if (!float_layer && !int8_input && !weight) continue;
    LayerParams p;
    p.name = display_name(n);
    if (float_layer) {
      p.precision = CalcDataType::kFloat;
      out.layers.push_back(std::move(p));
      continue;
    }
    for (ValueId v : acts) {
      const Value& val = g.value(v);
      if (!is_int8(val.dtype) || val.quant.empty()) {
        p.inputs.emplace_back();
        continue;
      }
      Encoding e;
      e.scale = val.quant.scale[0];
      const std::int32_t zp = val.quant.zero_point.empty() ? 0 : val.quant.zero_point[0];
      // uint8 values are the [0, max] encoding: int8 zero point -128 (quantize.cpp).
      e.zero_point = val.dtype == model::DType::kUint8 ? zp - 128 : zp;
      p.inputs.emplace_back(e);
    }
    if (weight) p.weight_scale = g.value(w).quant.scale;
    out.layers.push_back(std::move(p));
  }
  return out;
}

}  // namespace svp::compiler::quant
