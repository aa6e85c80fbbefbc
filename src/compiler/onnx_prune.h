// rknn-toolkit2's config(model_pruning=True) (seed 000 §5.8, docs/rknn.md): lossless
// pruning of an ONNX model before it is compiled. A Conv output channel whose weights and
// bias are all zero is identically zero; when that output reaches only Relu nodes and then
// Convs (group 1) as their data input, the channel is removed from the producer's weights
// and from the consumers' input channels, which changes no output.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace svp::compiler {

struct PruneStats {
  std::int64_t channels_removed = 0;
  std::int64_t weight_bytes_before = 0;  // all float initializers
  std::int64_t weight_bytes_removed = 0;
};

// Writes `in_path` pruned to `out_path` (written also when nothing was pruned).
Result<PruneStats> prune_onnx(const std::string& in_path, const std::string& out_path);

}  // namespace svp::compiler
