// svp_atc --export_qdq=FILE (ours): a quantized graph written as a QDQ ONNX model, the form
// onnxruntime's static quantization, PyTorch's and TensorRT's exporters use. Every node that
// reads or writes quantized values gets DequantizeLinear on those inputs and QuantizeLinear
// on those outputs with the very scales and zero points the quantizer chose, and computes in
// float between them; int8 weights stay int8 behind a DequantizeLinear (per output channel
// where the quantizer chose that). onnxruntime then runs the same quantization — as an
// independent check of the software NPU's int8 kernels (same answers, not the same bytes:
// float accumulation versus the kernels' exact integer arithmetic) and as the int8 anchor of
// the speed comparison (its QDQ optimiser turns the pattern into its own integer kernels).
//
// What ONNX cannot say at the model's opset is written as the equivalent float arithmetic:
//  - int16 values (A16W8 layers): QuantizeLinear to int16 needs opset 21, so they stay float
//    tensors holding the rounded values, x -> Mul(1/scale) -> Round -> Clip(-32768, 32767)
//    -> Mul(scale) (zero point 0, as the quantizer chooses for int16);
//  - per-channel weights below opset 13 (DequantizeLinear has no axis before it): the
//    weights are written as the float values they stand for, (q - zero point) * scale.
// The graph's other ops keep the IR's op contract, so onnx_export.h's caveat applies: a
// node the importer rewrote to a later opset's form may be refused by onnxruntime.
#pragma once

#include <string>

#include "common/status.h"
#include "compiler/graph.h"

namespace svp::compiler {

// The serialized QDQ model of `quantized` (a graph after the quantize pass; a float graph
// gives back itself). err::kInternalError if protobuf cannot serialize it.
Result<std::string> qdq_onnx(const Graph& quantized, const std::string& doc);

}  // namespace svp::compiler
