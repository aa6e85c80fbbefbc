// A constant-mode Pad of the spatial dims only (N and C unpadded, pads >= 0) whose output
// feeds one node alone is folded into that node's own padding where the result is exactly
// the same:
//  * Conv, pad value 0: the Conv's zero padding is the same zeros;
//  * MaxPool (one output, no Indices), pad value -inf: MaxPool's padding never wins a max,
//    as -inf never does (dilations 1, ceil_mode 0 and total pads below the kernel, so
//    every window still holds an input element);
//  * AveragePool with ceil_mode 0, pad value 0: the padded zeros are counted, so the pool
//    gets count_include_pad = 1, allowed when its own pads are zero or already counted
//    (total pads below the kernel).
// auto_pad other than NOTSET is left alone. The node then reads the Pad's input.
#pragma once

#include "compiler/pass.h"

namespace svp::compiler {

class FoldPadPass : public Pass {
 public:
  const char* name() const override { return "fold_pad"; }
  Status run(Graph& g, PassContext& ctx) override;
};

}  // namespace svp::compiler
