// Transpose → Transpose becomes one Transpose with the composed permutation, or nothing
// when the composition is the identity (unless that would make a graph output alias a
// graph input). The first Transpose is removed once nothing else reads it.
#pragma once

#include "compiler/pass.h"

namespace svp::compiler {

class CancelTransposePass : public Pass {
 public:
  const char* name() const override { return "cancel_transpose"; }
  Status run(Graph& g, PassContext& ctx) override;
};

}  // namespace svp::compiler
