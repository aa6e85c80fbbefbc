// QDQ models (QuantizeLinear -> DequantizeLinear pairs on activations, as onnxruntime's
// static quantization, PyTorch's and TensorRT's exporters write them): with
// --compile_mode=0 the pairs become the encodings of the tensors they sit on, and the
// quantizer then uses those encodings instead of calibrating them, exactly as with
// --gfpq_param_file. The model's own scales and zero points are kept bit for bit.
// Weights arrive already dequantized: the importer folds DequantizeLinear of constants,
// and the quantizer requantizes them symmetric per channel (the same scale when the
// exporter's was max |w| / 127).
// With --compile_mode=float the pairs stay what they are in ONNX: float ops that round.
#pragma once

#include <cstddef>

#include "common/status.h"
#include "compiler/graph.h"
#include "compiler/quantize/external_params.h"

namespace svp::compiler::quant {

// Removes every QuantizeLinear whose readers are all DequantizeLinear with the same scale
// and zero point (per tensor, int8 or uint8, constant), rewiring the DequantizeLinear
// readers to the float input, and adds that input's encoding to `fixed` (first pair wins
// where a tensor has several). Pairs that write a graph output, and other QuantizeLinear
// nodes, stay.
// Returns the number of pairs absorbed. Errors: err::kInvalidParam naming the node for a
// scale that is not positive and finite.
Result<std::size_t> absorb_qdq_pairs(Graph& g, ResolvedParams* fixed);

}  // namespace svp::compiler::quant
