// HardSwish written out as arithmetic, x · clip(x + 3, 0, 6) / 6 (Add, Clip, Mul, Div, or
// a Mul by 1/6 in place of the Div), becomes one HardSwish node. Exporters emit that chain
// for opsets before 14 (PaddlePaddle's paddle2onnx does it throughout PP-OCRv4). As four
// nodes each reads and writes the whole feature map; as one it is also a post-op the
// runtime fuses into the Conv before it. Rounding differs from the chain by at most an
// ulp or two (x/6 + 0.5 against (x + 3)/6).
#pragma once

#include "compiler/pass.h"

namespace svp::compiler {

class FuseHardSwishPass : public Pass {
 public:
  const char* name() const override { return "fuse_hardswish"; }
  Status run(Graph& g, PassContext& ctx) override;
};

}  // namespace svp::compiler
