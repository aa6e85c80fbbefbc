// The compiler's graph as an ONNX model (--dump_graph writes one after every pass, beside
// the Graphviz file): for looking at in Netron, and for running in onnxruntime while the
// nodes keep their ONNX form.
//
// Nodes keep their op, attributes and names; constants become initializers; every value
// gets its element type and static shape (value_info). What ONNX has no field for goes in
// doc_string: a node's target and segment start, a value's per-axis quantization axis.
// Quantized values (int8/uint8/int16 with scales) are annotated the ONNX way
// (graph.quantization_annotation, with SCALE_TENSOR / ZERO_POINT_TENSOR initializers).
// The opset declared is the imported model's; nodes the importer rewrote to the IR's op
// contract (docs/kernels.md) may carry attributes of a later opset, and inserted
// attributes (Split's num_outputs below opset 18) stay, so the ONNX checker may refuse
// such a dump. Deterministic: the same graph gives the same bytes.
#pragma once

#include <string>

#include "common/status.h"
#include "compiler/graph.h"

namespace svp::compiler {

// The serialized onnx.ModelProto. err::kInternalError if protobuf cannot serialize it
// (a model of 2 GiB or more).
Result<std::string> to_onnx(const Graph& g, const std::string& doc);

}  // namespace svp::compiler
