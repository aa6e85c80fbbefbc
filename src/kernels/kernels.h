// Kernels: one reference implementation per supported op (the definition of its
// semantics), later joined by oneDNN fast paths checked against it.
//
// Ops use ONNX names and ONNX semantics on dense row-major tensors in their logical
// shape (NCHW for 4-D activations). Quantized tensors (int8/uint8 with a Quant) follow the
// integer rules documented in docs/kernels.md.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "model/attrs.h"
#include "model/tensor.h"

namespace svp::kernels {

using model::Attrs;
using model::DType;
using model::TensorView;
using Shape = std::vector<std::int64_t>;

// Output shapes of `op` for the given input shapes (and, where an op needs them, input
// values known at build time, e.g. Reshape's shape input: pass them in `const_inputs`,
// null where unknown). Errors name the op and the offending attribute or shape.
Result<std::vector<Shape>> infer_shapes(const std::string& op, const Attrs& attrs, const std::vector<Shape>& inputs,
                                        const std::vector<const TensorView*>& const_inputs = {});

// Runs the reference kernel. `outputs` must be allocated with the inferred shapes and the
// output dtypes/quantization chosen by the model. Thread-compatible: no global state.
Status run_reference(const std::string& op, const Attrs& attrs, const std::vector<TensorView>& inputs,
                     const std::vector<TensorView>& outputs);

// The ops run_reference supports.
const std::vector<std::string>& supported_ops();

// How many leading inputs of `op` must be present (a variadic op: all of them, given as
// SIZE_MAX); 0 for an op run_reference does not know. Inputs from there on are optional.
std::size_t required_inputs(const std::string& op);
// How many inputs `op` takes at most (SIZE_MAX: variadic, or an op run_reference does not
// know).
std::size_t max_inputs(const std::string& op);

}  // namespace svp::kernels
