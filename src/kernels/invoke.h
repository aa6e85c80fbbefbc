// run_reference_owned: infer + allocate + run in one call, for code that evaluates an op
// on values it holds (constant folding, tools, tests).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kernels/kernels.h"
#include "kernels/tensor_buffer.h"

namespace svp::kernels {

struct OutputSpec {
  DType dtype = DType::kFloat32;
  std::optional<model::Quant> quant;
};

// Every input is passed to infer_shapes as a constant (an absent optional input is a
// default TensorView: no data, shape {}). Outputs beyond `outputs` are float32.
inline Result<std::vector<OwnedTensor>> run_reference_owned(const std::string& op, const Attrs& attrs,
                                                            const std::vector<TensorView>& inputs,
                                                            const std::vector<OutputSpec>& outputs = {}) {
  std::vector<Shape> shapes;
  std::vector<const TensorView*> values;
  for (const TensorView& t : inputs) {
    shapes.push_back(t.dims);
    values.push_back(t.data == nullptr && t.dims.empty() ? nullptr : &t);
  }
  Result<std::vector<Shape>> inferred = infer_shapes(op, attrs, shapes, values);
  if (!inferred.ok()) return inferred.status();
  std::vector<OwnedTensor> out;
  std::vector<TensorView> views;
  for (std::size_t i = 0; i < inferred->size(); ++i) {
    const OutputSpec spec = i < outputs.size() ? outputs[i] : OutputSpec{};
    out.emplace_back(spec.dtype, (*inferred)[i]);
    if (spec.quant) out.back().set_quant(*spec.quant);
  }
  for (const OwnedTensor& t : out) views.push_back(t.view());
  Status s = run_reference(op, attrs, inputs, views);
  if (!s.ok()) return s;
  return out;
}

}  // namespace svp::kernels
