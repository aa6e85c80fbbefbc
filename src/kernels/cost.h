// The cost of a layer in multiply-accumulates (MACs) of the NPU's cube unit, by the op
// table's MacRule (src/ops): convolution, transposed convolution, fully connected (Gemm,
// MatMul), their integer ONNX forms and the recurrent cells. Other ops count 0: a board's TFLOPS rating counts the cube unit only, so svp_acl_query_status's
// throughput and the compiler's segment costs use the same measure.
//
// Shapes are the layer's static input/output shapes; a shape that does not fit the op
// (an invalid program) costs 0 rather than failing: callers validated the program already.
#pragma once

#include <cstdint>
#include <vector>

#include "model/program.h"

namespace svp::kernels {

std::uint64_t layer_macs(const model::Layer& layer, const std::vector<std::vector<std::int64_t>>& input_shapes,
                         const std::vector<std::vector<std::int64_t>>& output_shapes);

// MACs of layer `index` of a program, from its tensors' shapes.
std::uint64_t layer_macs(const model::Program& program, std::size_t index);
// MACs of each segment of a program (one batch item).
std::vector<std::uint64_t> segment_macs(const model::Program& program);

}  // namespace svp::kernels
