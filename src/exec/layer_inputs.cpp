#include "exec/layer_inputs.h"

#include <algorithm>

#include "kernels/kernels.h"

namespace svp::model {

Status check_required_inputs(const Program& p) {
  for (const Layer& l : p.layers) {
    // A second input on a single-input op passes the index checks and is silently ignored
    // by the kernel: a model that says more than its op reads is corrupt too.
    if (l.inputs.size() > kernels::max_inputs(l.op)) {
      return Error(err::kParseModel,
                   "layer \"{}\" ({}): {} inputs, but the op takes at most {}: the model is corrupt; compile it again",
                   l.name, l.op, l.inputs.size(), kernels::max_inputs(l.op));
    }
    const std::size_t required = std::min(kernels::required_inputs(l.op), l.inputs.size());
    for (std::size_t k = 0; k < required; ++k) {
      if (l.inputs[k] >= 0) continue;
      return Error(err::kParseModel,
                   "layer \"{}\" ({}): input {} is required by the op but the model gives none (tensor index {}): the "
                   "model is corrupt; compile it again",
                   l.name, l.op, k, l.inputs[k]);
    }
  }
  return Status::Ok();
}

}  // namespace svp::model
