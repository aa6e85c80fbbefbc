#include "compiler/onnx_node_inference.h"

#include <exception>

#include "onnx/defs/schema.h"
#include "onnx/onnx_pb.h"
#include "onnx/shape_inference/implementation.h"

namespace svp::compiler {

std::int32_t onnx_type_of(model::DType t) {
  using model::DType;
  using onnx::TensorProto;
  switch (t) {
    case DType::kFloat32: return TensorProto::FLOAT;
    case DType::kFloat16: return TensorProto::FLOAT16;
    case DType::kInt8: return TensorProto::INT8;
    case DType::kInt16: return TensorProto::INT16;
    case DType::kInt32: return TensorProto::INT32;
    case DType::kInt64: return TensorProto::INT64;
    case DType::kUint64: return TensorProto::UINT64;
    case DType::kFloat64: return TensorProto::DOUBLE;
    case DType::kBool: return TensorProto::BOOL;
    case DType::kUint8: return TensorProto::UINT8;
    case DType::kUint16: return TensorProto::UINT16;
    case DType::kUint32: return TensorProto::UINT32;
  }
  return TensorProto::UNDEFINED;
}

NodeInference onnx_infer_node(const onnx::NodeProto& node, std::int64_t opset,
                              const std::vector<InferenceInput>& inputs) {
  NodeInference result;
  result.shapes.resize(static_cast<std::size_t>(node.output_size()));
  result.elem_types.assign(static_cast<std::size_t>(node.output_size()), 0);
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* imp = m.add_opset_import();
  imp->set_domain("");
  imp->set_version(opset);
  if (!node.domain().empty() && node.domain() != "ai.onnx") {
    // The training optimizers' domain, version 1 (the only other domain the importer reads).
    auto* other = m.add_opset_import();
    other->set_domain(node.domain());
    other->set_version(1);
  }
  auto* g = m.mutable_graph();
  g->set_name("node");
  *g->add_node() = node;
  for (const InferenceInput& in : inputs) {
    if (in.name.empty()) continue;
    auto* vi = g->add_input();
    vi->set_name(in.name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx_type_of(in.dtype));
    auto* shape = tt->mutable_shape();
    for (std::int64_t d : in.shape) shape->add_dim()->set_dim_value(d);
    if (in.data != nullptr) {
      auto* t = g->add_initializer();
      t->set_name(in.name);
      t->set_data_type(onnx_type_of(in.dtype));
      for (std::int64_t d : in.shape) t->add_dims(d);
      t->set_raw_data(in.data->data(), in.data->size());
    }
  }
  for (const std::string& o : node.output()) g->add_output()->set_name(o);
  try {
    onnx::ShapeInferenceOptions options(/*check_type=*/false, /*strict_mode=*/0, /*data_prop=*/true);
    onnx::shape_inference::InferShapes(m, onnx::OpSchemaRegistry::Instance(), options);
  } catch (...) {
    return result;  // nothing known: the importer reports the shape as unknown
  }
  auto fill = [&](const onnx::ValueInfoProto& vi) {
    for (int k = 0; k < node.output_size(); ++k) {
      if (node.output(k) != vi.name() || !vi.type().has_tensor_type()) continue;
      result.elem_types[static_cast<std::size_t>(k)] = vi.type().tensor_type().elem_type();
      if (!vi.type().tensor_type().has_shape()) continue;
      std::vector<std::int64_t> s;
      bool known = true;
      for (const auto& d : vi.type().tensor_type().shape().dim()) {
        known = known && d.has_dim_value() && d.dim_value() >= 0;
        s.push_back(d.dim_value());
      }
      if (known) result.shapes[static_cast<std::size_t>(k)] = std::move(s);
    }
  };
  for (const auto& vi : g->output()) fill(vi);
  for (const auto& vi : g->value_info()) fill(vi);
  return result;
}

}  // namespace svp::compiler
