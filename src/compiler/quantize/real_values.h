// Values of the accuracy analysis as real numbers and back: a tensor (float32, or integers
// with one per-tensor encoding) as floats, and float data stored as a quantized value
// stores it. Shared by the per-layer and the model-output analyses.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/graph.h"
#include "kernels/tensor_buffer.h"

namespace svp::compiler::quant {

// float32 as is, int8/uint8/int16 with one scale dequantized; other types (and per-channel
// encodings) empty.
std::vector<float> as_floats(const model::TensorView& t);

// A tensor's values as floats without a copy where it is float32 already. Read-only; valid
// while the tensor and the scratch vector behind it are.
struct Floats {
  const float* data = nullptr;
  std::size_t size = 0;
};
// as_floats(t) (the same numbers), float32 read in place and integers dequantized into
// `scratch`, whose capacity is reused: the accuracy analysis converts every value of every
// layer for each input, and fresh vectors for them cost more in page faults than the
// conversion itself.
Floats real_values(const model::TensorView& t, std::vector<float>* scratch);

// `x` (float) stored as the quantized value `like` describes (int8, uint8 or int16 with one
// scale: the caller checks).
kernels::OwnedTensor quantize_like(const std::vector<float>& x, const std::vector<std::int64_t>& dims, const Value& like);

}  // namespace svp::compiler::quant
