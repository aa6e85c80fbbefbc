// --input_type / --output_type: the element types the application exchanges with the
// model, when they differ from the ONNX graph's (docs/compiler.md "I/O types").
//
// An input given another type (e.g. UINT8 camera data for a float graph) keeps its name
// and takes the requested type; a Cast at the start of the graph converts it to the type
// the graph computes in, value for value (no scaling: the vendor's feature-map
// conversion; AIPP is the way to normalise images). Outputs: FP32 (the float path's type)
// is accepted for every output; other output types need the quantization pipeline and are
// refused with err::kFeatureUnsupported rather than silently truncated.
#pragma once

#include "common/status.h"
#include "compiler/graph.h"
#include "compiler/options.h"

namespace svp::compiler {

// Errors: kInvalidParam naming an input or output the model does not have (with the list
// of those it has); kFeatureUnsupported for output types other than FP32.
Status apply_io_types(Graph& g, const CompileOptions& options);

}  // namespace svp::compiler
