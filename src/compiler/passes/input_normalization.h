// Input normalisation folded into the model: (x - mean) / std per channel, the way RKNN
// models take raw pixels and normalise inside (rknn-toolkit2's mean_values/std_values,
// which rknn_convert passes here; docs/rknn.md). The graph input keeps its name and shape;
// Sub and Div nodes between it and its readers apply the channel's mean and std, so
// calibration data and applications feed the raw values.
#pragma once

#include "common/status.h"
#include "compiler/graph.h"
#include "compiler/options.h"

namespace svp::compiler {

// Errors (err::kInvalidParam): more entries than the model has inputs; a mean/std list
// whose length is neither 1 nor the input's channel count (dim 1); a std of zero.
Status apply_input_normalization(Graph& g, const CompileOptions& options);

}  // namespace svp::compiler
