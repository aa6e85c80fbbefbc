// Identity, and Dropout in inference (no training_mode, or a constant false one; its mask
// output unread), copy their input: the reader reads the input instead. When the copy is
// a graph output, the producer of the input writes the output itself (if the input has
// no other reader and is no graph output); a copy of a graph input or of a constant into
// a graph output stays (the model must still fill that output buffer).
#pragma once

#include "compiler/pass.h"

namespace svp::compiler {

class RemoveIdentityPass : public Pass {
 public:
  const char* name() const override { return "remove_identity"; }
  Status run(Graph& g, PassContext& ctx) override;
};

}  // namespace svp::compiler
