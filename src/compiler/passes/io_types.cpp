#include "compiler/passes/io_types.h"

#include "compiler/onnx_node_inference.h"

#include <fmt/format.h>

namespace svp::compiler {
namespace {

using model::DType;

std::string names_of(const Graph& g, const std::vector<ValueId>& ids) {
  std::string out;
  for (ValueId v : ids) out += (out.empty() ? "" : ", ") + g.value(v).name;
  return out;
}

}  // namespace

Status apply_io_types(Graph& g, const CompileOptions& options) {
  for (const auto& [name, dtype] : options.input_type) {
    std::size_t slot = g.inputs.size();
    for (std::size_t i = 0; i < g.inputs.size(); ++i) {
      if (g.value(g.inputs[i]).name == name) slot = i;
    }
    if (slot == g.inputs.size()) {
      return Error(err::kInvalidParam, "--input_type names \"{}\", which is not an input of the model (inputs: {})",
                   name, names_of(g, g.inputs));
    }
    const ValueId old_in = g.inputs[slot];
    if (g.value(old_in).dtype == dtype) continue;
    if (dtype == DType::kFloat16) {
      return Error(err::kFeatureUnsupported,
                   "--input_type={}:FP16: float16 model inputs are not implemented in svp_atc; give FP32 or an "
                   "integer type (UINT8, INT8, ...), which the model converts on input",
                   name);
    }
    // The application's input takes the name; the graph's value becomes the Cast's output.
    Value in;
    in.name = name;
    in.dtype = dtype;
    in.shape = g.value(old_in).shape;
    g.value(old_in).name = g.unique_name(name + "_as_" + model::dtype_name(g.value(old_in).dtype));
    const ValueId new_in = g.add_value(std::move(in));
    Node cast;
    cast.name = g.unique_name(name + "_input_cast");
    cast.op = "Cast";
    cast.attrs.set("to", static_cast<std::int64_t>(onnx_type_of(g.value(old_in).dtype)));
    cast.inputs = {new_in};
    cast.outputs = {old_in};
    g.add_node(std::move(cast));
    g.inputs[slot] = new_in;
  }
  for (const auto& [where, dtype] : options.output_type) {
    if (dtype == DType::kFloat32) continue;
    return Error(err::kFeatureUnsupported,
                 "--output_type={}{}: only FP32 outputs are implemented in svp_atc (int8 models dequantize "
                 "their outputs to FP32); leave --output_type out or give FP32",
                 where.empty() ? "" : where + ":", model::dtype_name(dtype));
  }
  return g.topo_sort();
}

}  // namespace svp::compiler
