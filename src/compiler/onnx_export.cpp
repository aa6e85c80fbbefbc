#include "compiler/onnx_export.h"

#include <cstring>
#include <variant>

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

namespace svp::compiler {
namespace {

using model::DType;

int onnx_type(DType t) {
  using T = onnx::TensorProto;
  switch (t) {
    case DType::kFloat32: return T::FLOAT;
    case DType::kFloat16: return T::FLOAT16;
    case DType::kInt8: return T::INT8;
    case DType::kUint8: return T::UINT8;
    case DType::kInt16: return T::INT16;
    case DType::kUint16: return T::UINT16;
    case DType::kInt32: return T::INT32;
    case DType::kUint32: return T::UINT32;
    case DType::kInt64: return T::INT64;
    case DType::kUint64: return T::UINT64;
    case DType::kFloat64: return T::DOUBLE;
    case DType::kBool: return T::BOOL;
  }
  return T::UNDEFINED;
}

void set_type(onnx::ValueInfoProto* vi, const Value& v) {
  vi->set_name(v.name);
  auto* tensor = vi->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx_type(v.dtype));
  auto* shape = tensor->mutable_shape();
  for (std::int64_t d : v.shape) shape->add_dim()->set_dim_value(d);
  if (v.quant.scale.size() > 1) vi->set_doc_string(fmt::format("quantized per axis {}", v.quant.axis));
}

void set_attr(onnx::AttributeProto* a, const std::string& name, const model::AttrValue& value) {
  using A = onnx::AttributeProto;
  a->set_name(name);
  if (const auto* i = std::get_if<std::int64_t>(&value)) {
    a->set_type(A::INT);
    a->set_i(*i);
  } else if (const auto* f = std::get_if<double>(&value)) {
    a->set_type(A::FLOAT);
    a->set_f(static_cast<float>(*f));
  } else if (const auto* s = std::get_if<std::string>(&value)) {
    a->set_type(A::STRING);
    a->set_s(*s);
  } else if (const auto* is = std::get_if<std::vector<std::int64_t>>(&value)) {
    a->set_type(A::INTS);
    for (std::int64_t x : *is) a->add_ints(x);
  } else if (const auto* fs = std::get_if<std::vector<double>>(&value)) {
    a->set_type(A::FLOATS);
    for (double x : *fs) a->add_floats(static_cast<float>(x));
  }
}

void add_initializer(onnx::GraphProto* g, const std::string& name, DType dtype,
                                   const std::vector<std::int64_t>& shape, const void* bytes, std::size_t size) {
  onnx::TensorProto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx_type(dtype));
  for (std::int64_t d : shape) t->add_dims(d);
  t->set_raw_data(bytes, size);
}

// graph.quantization_annotation for one quantized value, with its scale and zero point
// as initializers "<name>_scale" / "<name>_zero_point" (int32: one type for every width).
void annotate_quant(onnx::GraphProto* g, const Value& v) {
  const std::string scale = v.name + "_scale", zp = v.name + "_zero_point";
  const std::vector<std::int64_t> n = {static_cast<std::int64_t>(v.quant.scale.size())};
  add_initializer(g, scale, DType::kFloat32, n, v.quant.scale.data(), v.quant.scale.size() * sizeof(float));
  std::vector<std::int32_t> zps(v.quant.scale.size(), 0);
  for (std::size_t i = 0; i < zps.size() && i < v.quant.zero_point.size(); ++i) zps[i] = v.quant.zero_point[i];
  add_initializer(g, zp, DType::kInt32, n, zps.data(), zps.size() * sizeof(std::int32_t));
  auto* a = g->add_quantization_annotation();
  a->set_tensor_name(v.name);
  auto* s = a->add_quant_parameter_tensor_names();
  s->set_key("SCALE_TENSOR");
  s->set_value(scale);
  auto* z = a->add_quant_parameter_tensor_names();
  z->set_key("ZERO_POINT_TENSOR");
  z->set_value(zp);
}

void add_node(onnx::GraphProto* out, const Graph& g, const Node& n) {
  onnx::NodeProto* p = out->add_node();
  p->set_name(n.name);
  p->set_op_type(n.op);
  for (ValueId in : n.inputs) p->add_input(in == kNoValue ? std::string() : g.value(in).name);
  for (ValueId o : n.outputs) p->add_output(g.value(o).name);
  for (const auto& [name, value] : n.attrs.all()) set_attr(p->add_attribute(), name, value);
  std::string doc;
  if (n.target == model::Target::kAiCpu) doc = "target: AI-CPU";
  if (n.starts_segment) doc += std::string(doc.empty() ? "" : "; ") + "starts a segment";
  if (!doc.empty()) p->set_doc_string(doc);
}

}  // namespace

Result<std::string> to_onnx(const Graph& g, const std::string& doc) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("svp_atc");
  m.set_doc_string(doc);
  auto* opset = m.add_opset_import();
  opset->set_domain("");
  opset->set_version(g.opset > 0 ? g.opset : 17);
  onnx::GraphProto* out = m.mutable_graph();
  out->set_name(g.name);
  std::vector<bool> listed(g.value_count(), false);
  for (ValueId v : g.inputs) {
    set_type(out->add_input(), g.value(v));
    listed[static_cast<std::size_t>(v)] = true;
  }
  for (ValueId v : g.outputs) {
    set_type(out->add_output(), g.value(v));
    listed[static_cast<std::size_t>(v)] = true;
  }
  for (NodeId id : g.live_nodes()) {
    const Node& n = g.node(id);
    add_node(out, g, n);
    for (ValueId v : n.inputs) {
      if (v == kNoValue || listed[static_cast<std::size_t>(v)]) continue;
      listed[static_cast<std::size_t>(v)] = true;
      const Value& val = g.value(v);
      if (!val.is_constant()) continue;
      add_initializer(out, val.name, val.dtype, val.shape, val.data->data(), val.data->size());
      if (!val.quant.empty()) annotate_quant(out, val);
    }
    for (ValueId v : n.outputs) {
      if (listed[static_cast<std::size_t>(v)]) continue;
      listed[static_cast<std::size_t>(v)] = true;
      set_type(out->add_value_info(), g.value(v));
    }
  }
  for (ValueId v = 0; v < static_cast<ValueId>(g.value_count()); ++v) {
    const Value& val = g.value(v);
    if (!val.dead && !val.is_constant() && !val.quant.empty() && listed[static_cast<std::size_t>(v)]) {
      annotate_quant(out, val);
    }
  }
  std::string bytes;
  if (!m.SerializeToString(&bytes)) {
    return Error(err::kInternalError, "the graph does not serialize as ONNX (a model of 2 GiB or more?)");
  }
  return bytes;
}

}  // namespace svp::compiler
