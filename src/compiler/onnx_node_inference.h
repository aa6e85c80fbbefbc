// ONNX's type and shape inference for one node whose inputs are static. The importer
// asks it for every node after the kernels' shape function has validated the node (ONNX
// 1.12's inference functions crash on some malformed nodes, e.g. a Conv whose input rank
// does not fit its weights, so they only see nodes already known to be consistent), and
// it is the only source of shapes for ops without an svp-acl kernel.
//
// Builds a one-node model (the node, its inputs with their static shapes, known input
// values as initializers) and runs onnx::shape_inference on it. Stateless; never throws.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "model/tensor.h"

namespace onnx {
class NodeProto;
}  // namespace onnx

namespace svp::compiler {

struct InferenceInput {
  std::string name;                              // "" = absent optional input
  model::DType dtype = model::DType::kFloat32;
  std::vector<std::int64_t> shape;
  const std::vector<std::uint8_t>* data = nullptr;  // known value, or null
};

struct NodeInference {
  // Per output of the node: the static shape ONNX infers (nullopt where it cannot tell)
  // and the ONNX element type (0 = unknown).
  std::vector<std::optional<std::vector<std::int64_t>>> shapes;
  std::vector<std::int32_t> elem_types;
};

NodeInference onnx_infer_node(const onnx::NodeProto& node, std::int64_t opset,
                              const std::vector<InferenceInput>& inputs);

// The ONNX TensorProto.DataType code of a model::DType.
std::int32_t onnx_type_of(model::DType t);

}  // namespace svp::compiler
