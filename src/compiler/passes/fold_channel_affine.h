// A Mul, Add or Sub of a Conv's (or ConvTranspose's) output by a float constant that is
// the same over the batch and the spatial dims (shape [], [1], [C, 1, ..., 1] or [1, C, 1, ..., 1]: one value
// per output channel, or one for all) is folded into the Conv's weights and bias:
//   Mul by k:  W'[c] = W[c]·k[c], B'[c] = B[c]·k[c]
//   Add k:     B'[c] = B[c] + k[c]        Sub k (Conv output first): B'[c] = B[c] − k[c]
// (Conv·k distributes over the sum; equal up to float32 rounding, as BatchNormalization
// folding). Only when the Conv output feeds that node alone, is not a graph output, and
// the result keeps the Conv output's shape; the Mul/Add's output value is kept.
#pragma once

#include "compiler/pass.h"

namespace svp::compiler {

class FoldChannelAffinePass : public Pass {
 public:
  const char* name() const override { return "fold_channel_affine"; }
  Status run(Graph& g, PassContext& ctx) override;
};

}  // namespace svp::compiler
