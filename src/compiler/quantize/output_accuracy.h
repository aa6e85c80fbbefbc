// The model's outputs in the accuracy report (svp_atc --accuracy_report, docs/accuracy.md
// "Per layer at compile time", docs/quantization.md "Input sensitivity"):
//   predicted output cosine: the quantized model run as the runtime executes it (the same
//     compiled program: fast paths, load-time fusions, AI-CPU layers on the reference
//     kernels) against the float model, per output over the analysed inputs;
//   input sensitivity: the float model's output on the input rounded to the quantized
//     model's int8/int16 input encoding against its output on the input itself. No int8
//     model can do better at the output than the rounding of its own input lets it, so a
//     low figure says the model (not the quantizer) is the limit.
#pragma once

#include <string>
#include <vector>

#include "common/metrics.h"
#include "compiler/graph.h"
#include "kernels/tensor_buffer.h"

namespace svp::compiler::quant {

struct OutputAccuracy {
  std::string name;            // the graph output's name
  compare::Metrics executed;   // the quantized model as executed against the float model
  // The float model on rounded inputs against it on the inputs; finite_pairs = 0 when no
  // input is rounded (every input is float-only or given as integers).
  compare::Metrics sensitivity;
};

// `inputs` (one per graph input of `quantized`) with each float input that a
// QuantizeLinear reads rounded to that encoding (quantized, then dequantized): what the
// quantized model sees of it. `rounded`: whether any input was. Integer and float-only
// inputs are copied as they are.
std::vector<kernels::OwnedTensor> round_to_input_encodings(const Graph& quantized,
                                                           const std::vector<kernels::OwnedTensor>& inputs,
                                                           bool* rounded);

// One log line per output: its predicted cosine and input sensitivity.
std::vector<std::string> output_accuracy_summary(const std::vector<OutputAccuracy>& outputs);

}  // namespace svp::compiler::quant
