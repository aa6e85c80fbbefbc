#include "compiler/qdq_export.h"

#include <cstring>
#include <map>
#include <utility>
#include <vector>

#include "compiler/onnx_export.h"

namespace svp::compiler {
namespace {

using model::DType;

bool narrow(DType t) { return t == DType::kInt8 || t == DType::kUint8; }

// Values the quantizer encoded. Integer tensors without an encoding (indices, shapes, raw
// integer inputs) are not quantized values and pass through untouched.
bool encoded(const Value& v) { return !v.quant.empty() && (narrow(v.dtype) || v.dtype == DType::kInt16); }

std::int32_t zero_point(const model::Quant& q, std::size_t i) {
  return i < q.zero_point.size() ? q.zero_point[i] : (q.zero_point.empty() ? 0 : q.zero_point[0]);
}

class QdqWriter {
 public:
  explicit QdqWriter(Graph& g) : g_(g) {}

  Status rewrite() {
    for (NodeId id : g_.live_nodes()) {
      const std::string op = g_.node(id).op;
      if (op == "QuantizeLinear" || op == "DequantizeLinear") {
        rewrite_boundary(id, op == "QuantizeLinear");
        continue;
      }
      bool touches = false;
      for (ValueId v : g_.node(id).inputs) touches |= v != kNoValue && encoded(g_.value(v));
      for (ValueId v : g_.node(id).outputs) touches |= encoded(g_.value(v));
      if (!touches) continue;
      for (std::size_t k = 0; k < g_.node(id).inputs.size(); ++k) {
        const ValueId v = g_.node(id).inputs[k];
        if (v == kNoValue || !encoded(g_.value(v))) continue;
        auto f = dequantized(v);
        if (!f.ok()) return f.status();
        g_.node(id).inputs[k] = *f;
      }
      for (std::size_t k = 0; k < g_.node(id).outputs.size(); ++k) {
        const ValueId o = g_.node(id).outputs[k];
        if (!encoded(g_.value(o))) continue;
        const ValueId raw = float_like(o, "_float");
        g_.node(id).outputs[k] = raw;
        g_.value(raw).producer = id;
        if (Status st = quantize_into(raw, o); !st.ok()) return st;
      }
    }
    expand_newer_ops();
    return g_.topo_sort();
  }

 private:
  // Ops the compiler's passes introduce beyond the model's declared opset, written as
  // their definitions: fuse_hardswish makes HardSwish (opset 14) out of x * HardSigmoid(x)
  // patterns in models of any opset.
  void expand_newer_ops() {
    if (g_.opset >= 14) return;
    for (NodeId id : g_.live_nodes()) {
      // Resize below opset 13 requires roi (the IR takes it as optional): an empty one.
      if (g_.node(id).op == "Resize" && g_.opset < 13 && g_.node(id).inputs.size() > 1 &&
          g_.node(id).inputs[1] == kNoValue) {
        g_.node(id).inputs[1] = constant(g_.node(id).name + "_roi", DType::kFloat32, {0}, std::vector<float>{});
      }
      if (g_.node(id).op != "HardSwish") continue;
      const ValueId x = g_.node(id).inputs[0];
      const ValueId y = g_.node(id).outputs[0];
      const ValueId gate = float_like(y, "_hardsigmoid");
      Node& n = g_.node(id);
      n.op = "HardSigmoid";
      n.attrs = {};
      n.attrs.set("alpha", 1.0 / 6.0);
      n.attrs.set("beta", 0.5);
      n.outputs = {gate};
      g_.value(gate).producer = id;
      g_.value(y).producer = add("Mul", {x, gate}, y);
    }
  }

  // A float value of `like`'s shape.
  ValueId float_like(ValueId like, const std::string& suffix) {
    Value f;
    f.name = g_.unique_name(g_.value(like).name + suffix);
    f.shape = g_.value(like).shape;
    return g_.add_value(std::move(f));
  }

  template <typename T>
  ValueId constant(const std::string& base, DType dtype, std::vector<std::int64_t> shape, const std::vector<T>& values) {
    auto data = std::make_shared<std::vector<std::uint8_t>>(values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(data->data(), values.data(), data->size());
    return g_.add_constant(g_.unique_name(base), dtype, std::move(shape), std::move(data));
  }

  NodeId add(const std::string& op, std::vector<ValueId> inputs, ValueId output, model::Attrs attrs = {}) {
    Node n;
    n.name = g_.unique_name(g_.value(output).name + "_" + op);
    n.op = op;
    n.inputs = std::move(inputs);
    n.outputs = {output};
    n.attrs = std::move(attrs);
    return g_.add_node(std::move(n));
  }

  // The scale and zero point inputs of a QuantizeLinear/DequantizeLinear for `v`'s encoding:
  // scalars per tensor, vectors along the axis per channel (zero point of v's type).
  std::pair<ValueId, ValueId> encoding_inputs(const Value& v, const std::string& base) {
    const model::Quant q = v.quant;
    const std::vector<std::int64_t> shape =
        q.per_channel() ? std::vector<std::int64_t>{static_cast<std::int64_t>(q.scale.size())} : std::vector<std::int64_t>{};
    const ValueId s = constant(base + "_s", DType::kFloat32, shape, q.scale);
    if (v.dtype == DType::kUint8) {
      std::vector<std::uint8_t> zp(q.scale.size());
      for (std::size_t i = 0; i < zp.size(); ++i) zp[i] = static_cast<std::uint8_t>(zero_point(q, i));
      return {s, constant(base + "_zp", DType::kUint8, shape, zp)};
    }
    std::vector<std::int8_t> zp(q.scale.size());
    for (std::size_t i = 0; i < zp.size(); ++i) zp[i] = static_cast<std::int8_t>(zero_point(q, i));
    return {s, constant(base + "_zp", DType::kInt8, shape, zp)};
  }

  model::Attrs axis_attr(const Value& v) const {
    model::Attrs a;
    if (v.quant.per_channel()) a.set("axis", static_cast<std::int64_t>(v.quant.axis < 0 ? 1 : v.quant.axis));
    return a;
  }

  // The float value a node reads in place of quantized `v` (one per value, shared by readers).
  Result<ValueId> dequantized(ValueId v) {
    if (auto it = float_of_.find(v); it != float_of_.end()) return it->second;
    const Value val = g_.value(v);  // a copy: adding values may move the graph's
    ValueId f = kNoValue;
    const bool per_axis_ok = !val.quant.per_channel() || g_.opset >= 13;
    if (val.is_constant() && !narrow(val.dtype)) {
      f = materialised(val);
    } else if (val.is_constant() && !per_axis_ok) {
      // Per channel below opset 13: DequantizeLinear with scale 1 gives the integers as
      // floats exactly, and a Mul broadcasts the channel scales over the axis. Writing the
      // products as a float weight instead would invite onnxruntime's optimiser to
      // requantize that weight per tensor (see ort_run.mjs --as-written).
      const ValueId ints = float_like(v, "_ints");
      const ValueId one = constant(val.name + "_dq_s", DType::kFloat32, {}, std::vector<float>{1.0f});
      const ValueId zero = constant(val.name + "_dq_zp", val.dtype, {}, std::vector<std::int8_t>{0});
      add("DequantizeLinear", {v, one, zero}, ints);
      const int axis = val.quant.axis < 0 ? 0 : val.quant.axis;
      std::vector<std::int64_t> shape(val.shape.size() - static_cast<std::size_t>(axis), 1);
      shape[0] = static_cast<std::int64_t>(val.quant.scale.size());
      const std::vector<float>& scales = val.quant.scale;
      ValueId centred = ints;  // q - zero point: weights are symmetric, but say it in full
      bool any_zp = false;
      for (std::size_t c = 0; c < scales.size(); ++c) any_zp |= zero_point(val.quant, c) != 0;
      if (any_zp) {
        std::vector<float> zps(scales.size());
        for (std::size_t c = 0; c < zps.size(); ++c) zps[c] = static_cast<float>(zero_point(val.quant, c));
        centred = float_like(v, "_centred");
        add("Sub", {ints, constant(val.name + "_dq_zps", DType::kFloat32, shape, zps)}, centred);
      }
      f = float_like(v, "_dequantized");
      add("Mul", {centred, constant(val.name + "_dq_scales", DType::kFloat32, shape, scales)}, f);
    } else if (!narrow(val.dtype)) {
      // An int16 value that no node of this graph produces (a graph input): its float
      // meaning by plain arithmetic, (x - zero point) * scale.
      f = float_like(v, "_dequantized");
      ValueId x = float_like(v, "_as_float");
      model::Attrs to;
      to.set("to", static_cast<std::int64_t>(1));  // onnx FLOAT
      add("Cast", {v}, x, to);
      const ValueId scale = constant(val.name + "_dq_s", DType::kFloat32, {}, std::vector<float>{val.quant.scale[0]});
      if (zero_point(val.quant, 0) != 0) {
        const ValueId shifted = float_like(v, "_shifted");
        add("Sub", {x, constant(val.name + "_dq_zp", DType::kFloat32, {}, std::vector<float>{static_cast<float>(zero_point(val.quant, 0))})},
            shifted);
        x = shifted;
      }
      add("Mul", {x, scale}, f);
    } else if (!per_axis_ok) {
      return Error(err::kFeatureUnsupported,
                   "--export_qdq: \"{}\" is quantized per channel, which DequantizeLinear takes from opset 13; the model "
                   "declares opset {}",
                   val.name, g_.opset);
    } else {
      f = float_like(v, "_dequantized");
      const auto [s, zp] = encoding_inputs(val, val.name + "_dq");
      add("DequantizeLinear", {v, s, zp}, f, axis_attr(val));
    }
    float_of_.emplace(v, f);
    return f;
  }

  // A float constant holding the values a quantized constant stands for.
  ValueId materialised(const Value& val) {
    std::int64_t n = 1;
    for (std::int64_t d : val.shape) n *= d;
    const std::int64_t channels = static_cast<std::int64_t>(val.quant.scale.size());
    const int axis = val.quant.axis < 0 ? 0 : val.quant.axis;
    std::int64_t inner = 1;
    for (std::size_t d = static_cast<std::size_t>(axis) + 1; d < val.shape.size(); ++d) inner *= val.shape[d];
    std::vector<float> out(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      const std::size_t c = channels > 1 ? static_cast<std::size_t>((i / inner) % channels) : 0;
      std::int32_t q = 0;
      const std::uint8_t* p = val.data->data();
      if (val.dtype == DType::kInt8) q = reinterpret_cast<const std::int8_t*>(p)[i];
      if (val.dtype == DType::kUint8) q = p[i];
      if (val.dtype == DType::kInt16) {
        std::int16_t h = 0;
        std::memcpy(&h, p + 2 * i, 2);
        q = h;
      }
      out[static_cast<std::size_t>(i)] = static_cast<float>(q - zero_point(val.quant, c)) * val.quant.scale[c];
    }
    return constant(val.name + "_float", DType::kFloat32, val.shape, out);
  }

  // `o` becomes what float `raw` quantizes to: QuantizeLinear for int8/uint8; for int16 `o`
  // turns into a float tensor holding the rounded values (see the header).
  Status quantize_into(ValueId raw, ValueId o) {
    const Value val = g_.value(o);
    if (narrow(val.dtype)) {
      if (val.quant.per_channel() && g_.opset < 13) {
        return Error(err::kFeatureUnsupported,
                     "--export_qdq: \"{}\" is quantized per channel, which QuantizeLinear takes from opset 13; the "
                     "model declares opset {}",
                     val.name, g_.opset);
      }
      const auto [s, zp] = encoding_inputs(val, val.name + "_q");
      const NodeId q = add("QuantizeLinear", {raw, s, zp}, o, axis_attr(val));
      g_.value(o).producer = q;
      return Status::Ok();
    }
    const float scale = val.quant.scale[0];
    const float zp = static_cast<float>(zero_point(val.quant, 0));
    auto scalar = [&](const std::string& suffix, float x) {
      return constant(val.name + suffix, DType::kFloat32, {}, std::vector<float>{x});
    };
    ValueId x = float_like(o, "_scaled");
    add("Div", {raw, scalar("_fq_s", scale)}, x);
    const ValueId rounded = float_like(o, "_rounded");
    add("Round", {x}, rounded);  // half to even, as QuantizeLinear rounds
    x = rounded;
    if (zp != 0.0f) {
      const ValueId shifted = float_like(o, "_shifted");
      add("Add", {x, scalar("_fq_zp", zp)}, shifted);
      x = shifted;
    }
    const ValueId clipped = float_like(o, "_clipped");
    if (g_.opset >= 11) {
      add("Clip", {x, scalar("_fq_lo", -32768.0f), scalar("_fq_hi", 32767.0f)}, clipped);
    } else {
      model::Attrs a;
      a.set("min", -32768.0);
      a.set("max", 32767.0);
      add("Clip", {x}, clipped, a);
    }
    x = clipped;
    if (zp != 0.0f) {
      const ValueId back = float_like(o, "_unshifted");
      add("Sub", {x, scalar("_fq_zp2", zp)}, back);
      x = back;
    }
    Value& out = g_.value(o);
    out.dtype = DType::kFloat32;
    out.quant = {};
    const NodeId m = add("Mul", {x, scalar("_fq_s2", scale)}, o);
    g_.value(o).producer = m;
    return Status::Ok();
  }

  // The quantizer's own boundaries: int8/uint8 ones are already QDQ; int16 ones become
  // the float arithmetic above (QuantizeLinear) or nothing at all (DequantizeLinear of a
  // value that is float by now).
  void rewrite_boundary(NodeId id, bool quantize) {
    Node& n = g_.node(id);
    if (quantize) {
      const ValueId o = n.outputs[0];
      if (narrow(g_.value(o).dtype) || !encoded(g_.value(o))) return;
      const ValueId raw = float_like(o, "_float");
      Node& q = g_.node(id);
      q.op = "Identity";
      q.inputs.resize(1);
      q.attrs = {};
      q.outputs = {raw};
      g_.value(raw).producer = id;
      (void)quantize_into(raw, o);  // int16: cannot fail
      return;
    }
    if (g_.value(n.inputs[0]).dtype != DType::kFloat32) return;  // still integer: a real DQ
    n.op = "Identity";
    n.inputs.resize(1);
    n.attrs = {};
  }

  Graph& g_;
  std::map<ValueId, ValueId> float_of_;
};

}  // namespace

Result<std::string> qdq_onnx(const Graph& quantized, const std::string& doc) {
  // The model is written at its own opset, whose ops keep their semantics there; below 10
  // ONNX has no QuantizeLinear / DequantizeLinear, and a file using them would not load.
  if (quantized.opset < 10) {
    return Error(err::kFeatureUnsupported,
                 "--export_qdq: the model declares opset {}, and QuantizeLinear / DequantizeLinear exist from opset "
                 "10; export the model at opset 10 or later (e.g. with ONNX's version converter) to get its QDQ form",
                 quantized.opset);
  }
  Graph g = quantized;  // constants are shared, not copied
  QdqWriter writer(g);
  if (Status st = writer.rewrite(); !st.ok()) return st;
  return to_onnx(g, doc);
}

}  // namespace svp::compiler
