#include "compiler/quantize/output_accuracy.h"

#include <cstring>

#include <fmt/format.h>

#include "compiler/quantize/real_values.h"

namespace svp::compiler::quant {
namespace {

// The encoding the model quantizes graph input `v` to: the first QuantizeLinear reading it
// (the quantizer's boundary; int8 or int16, one scale), or null.
const Value* input_encoding(const Graph& g, ValueId v) {
  for (NodeId c : g.consumers(v)) {
    const Node& n = g.node(c);
    if (n.op != "QuantizeLinear" || n.outputs.empty()) continue;
    const Value& q = g.value(n.outputs[0]);
    if (q.quant.scale.size() == 1) return &q;
  }
  return nullptr;
}

}  // namespace

std::vector<kernels::OwnedTensor> round_to_input_encodings(const Graph& quantized,
                                                           const std::vector<kernels::OwnedTensor>& inputs,
                                                           bool* rounded) {
  *rounded = false;
  std::vector<kernels::OwnedTensor> out;
  out.reserve(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const model::TensorView& t = inputs[i].view();
    const Value* enc = i < quantized.inputs.size() && t.dtype == model::DType::kFloat32
                           ? input_encoding(quantized, quantized.inputs[i])
                           : nullptr;
    if (enc == nullptr) {
      kernels::OwnedTensor copy(t.dtype, t.dims);
      std::memcpy(copy.view().data, t.data, t.bytes());
      if (t.quant != nullptr) copy.set_quant(*t.quant);
      out.push_back(std::move(copy));
      continue;
    }
    const std::vector<float> x(t.as<const float>(), t.as<const float>() + t.elements());
    const kernels::OwnedTensor q = quantize_like(x, t.dims, *enc);
    out.push_back(kernels::OwnedTensor::f32(t.dims, as_floats(q.view())));
    *rounded = true;
  }
  return out;
}

std::vector<std::string> output_accuracy_summary(const std::vector<OutputAccuracy>& outputs) {
  std::vector<std::string> lines;
  for (const OutputAccuracy& o : outputs) {
    const std::string sensitivity =
        o.sensitivity.finite_pairs == 0
            ? std::string("no input is rounded (float or integer inputs)")
            : fmt::format("{:.4f} (the float model on its input rounded to the int8 input encoding)",
                          o.sensitivity.cosine);
    lines.push_back(fmt::format("accuracy: output \"{}\": predicted output cosine {:.4f} (the quantized model as "
                                "executed against the float model); input sensitivity {}",
                                o.name, o.executed.cosine, sensitivity));
  }
  return lines;
}

}  // namespace svp::compiler::quant
