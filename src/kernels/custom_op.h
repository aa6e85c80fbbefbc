// The kernels' side of custom operators (model/custom_op.h): a layer of a custom op runs
// through the CustomOps an execution was given (RunArgs::custom_ops), never a kernel of
// its own; without one the layer fails naming its op type.
#pragma once

#include <vector>

#include "common/status.h"
#include "model/program.h"
#include "model/tensor.h"

namespace svp::kernels {

class CustomOps {
 public:
  virtual ~CustomOps() = default;
  // Runs `layer` (a custom op) on `in`, writing `out` (dense, logical NCHW order). Called
  // from the thread running the layer; implementations must be safe for that.
  virtual Status run(const model::Layer& layer, const std::vector<model::TensorView>& in,
                     const std::vector<model::TensorView>& out) const = 0;
};

}  // namespace svp::kernels
