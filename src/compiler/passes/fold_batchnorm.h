// BatchNormalization (inference form) after a Conv or ConvTranspose whose weights are
// float constants is folded into its weights and bias: W' = W·s, B' = (B − mean)·s + beta
// with s = gamma / sqrt(var + epsilon) per output channel (passes::ChannelWeights says
// which weights feed a channel). Only when the Conv output feeds the BN alone and is not a
// graph output; the BN's output value (and name) is kept.
#pragma once

#include "compiler/pass.h"

namespace svp::compiler {

class FoldBatchNormPass : public Pass {
 public:
  const char* name() const override { return "fold_batchnorm"; }
  Status run(Graph& g, PassContext& ctx) override;
};

}  // namespace svp::compiler
