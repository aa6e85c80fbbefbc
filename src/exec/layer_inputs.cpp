#include "exec/layer_inputs.h"

#include <algorithm>

#include "kernels/kernels.h"

namespace svp::model {

Status check_required_inputs(const Program& p) {
  for (const Layer& l : p.layers) {
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
