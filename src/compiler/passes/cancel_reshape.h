// Reshape → Reshape: the second reads the first's input directly when its target shape is
// a constant with no 0 entries (a 0 copies a dim of its own input, which would change),
// and the first is removed once nothing else reads it.
#pragma once

#include "compiler/pass.h"

namespace svp::compiler {

class CancelReshapePass : public Pass {
 public:
  const char* name() const override { return "cancel_reshape"; }
  Status run(Graph& g, PassContext& ctx) override;
};

}  // namespace svp::compiler
