#include "compiler/quantize/qdq.h"

#include <cmath>
#include <cstring>
#include <set>
#include <vector>

namespace svp::compiler::quant {
namespace {

using model::DType;

// A per-tensor encoding from constant (scale, zero point) inputs; false when they are not
// scalars of the types QDQ uses.
bool constant_encoding(const Graph& g, const Node& n, Encoding* e, DType* zp_type) {
  if (n.inputs.size() < 2 || n.inputs[1] == kNoValue) return false;
  const Value& s = g.value(n.inputs[1]);
  if (!s.is_constant() || s.dtype != DType::kFloat32 || s.data->size() != sizeof(float)) return false;
  std::memcpy(&e->scale, s.data->data(), sizeof(float));
  std::int32_t zp = 0;
  *zp_type = DType::kUint8;  // ONNX: no zero point = uint8 0
  if (n.inputs.size() >= 3 && n.inputs[2] != kNoValue) {
    const Value& z = g.value(n.inputs[2]);
    if (!z.is_constant() || z.data->size() != 1) return false;
    if (z.dtype == DType::kUint8) {
      zp = (*z.data)[0];
    } else if (z.dtype == DType::kInt8) {
      zp = static_cast<std::int8_t>((*z.data)[0]);
      *zp_type = DType::kInt8;
    } else {
      return false;
    }
  }
  // The quantizer's encodings are int8: uint8 zero point z is int8 zero point z - 128.
  e->zero_point = *zp_type == DType::kUint8 ? zp - 128 : zp;
  e->lo = static_cast<float>(-128 - e->zero_point) * e->scale;
  e->hi = static_cast<float>(127 - e->zero_point) * e->scale;
  return true;
}

}  // namespace

Result<std::size_t> absorb_qdq_pairs(Graph& g, ResolvedParams* fixed) {
  std::set<ValueId> fixed_values;
  for (const auto& [v, e] : fixed->encodings) fixed_values.insert(v);
  std::size_t pairs = 0;
  for (NodeId id : g.live_nodes()) {
    const Node& q = g.node(id);
    if (q.op != "QuantizeLinear" || q.inputs.empty() || q.outputs.size() != 1) continue;
    const ValueId x = q.inputs[0];
    const ValueId qv = q.outputs[0];
    if (g.value(x).dtype != DType::kFloat32 || g.value(x).is_constant() || g.is_graph_output(qv)) continue;
    Encoding e;
    DType zp_type = DType::kUint8;
    if (!constant_encoding(g, q, &e, &zp_type)) continue;
    if (!std::isfinite(e.scale) || !(e.scale > 0.0f)) {
      return Error(err::kInvalidParam, "{}: scale {} is not a positive finite number", g.describe(id), e.scale);
    }
    const std::vector<NodeId> readers = g.consumers(qv);
    bool all_match = !readers.empty();
    for (NodeId r : readers) {
      Encoding er;
      DType zr = DType::kUint8;
      const Node& d = g.node(r);
      all_match = all_match && d.op == "DequantizeLinear" && !d.inputs.empty() && d.inputs[0] == qv &&
                  d.outputs.size() == 1 && !g.is_graph_output(d.outputs[0]) && constant_encoding(g, d, &er, &zr) && er.scale == e.scale && er.zero_point == e.zero_point &&
                  zr == zp_type;
    }
    if (!all_match) continue;
    for (NodeId r : readers) {
      const ValueId y = g.node(r).outputs[0];
      g.remove_node(r);
      g.replace_uses(y, x);
    }
    g.remove_node(id);
    if (fixed_values.insert(x).second) fixed->encodings.emplace_back(x, e);
    ++pairs;
  }
  SVP_RETURN_IF_ERROR(g.topo_sort());
  return pairs;
}

}  // namespace svp::compiler::quant
