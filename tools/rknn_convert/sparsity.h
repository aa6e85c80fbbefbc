// configs.sparse_infer (seed 000 §5.11): which Conv layers of an ONNX model have the 4:2
// structured sparsity RK3576's NPU runs sparsely. On the board the flag makes those layers
// faster; the software NPU computes them densely with the same results, so here the check
// reports what the board would do (docs/rknn.md "sparse_infer").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace svp::rknn_convert {

struct ConvSparsity {
  std::string name;            // the Conv node's name (else its output's)
  std::int64_t in_channels = 0, out_channels = 0;
  std::string ratio;           // "50% (IC)", "50% (OC)" or "0%"
  std::string why_dense;       // for "0%": what the layer misses
};

// Every Conv with a constant float weight: 4:2 along the input direction when every 4
// consecutive input channels (at each output channel and kernel position) hold at most 2
// non-zero weights; along the output direction alike. Eligible only with group 1 and
// input and output channels multiples of 32 (the guide's table 5-12).
Result<std::vector<ConvSparsity>> conv_sparsity(const std::string& onnx_path);

}  // namespace svp::rknn_convert
