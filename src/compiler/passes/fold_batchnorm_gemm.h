// BatchNormalization (inference form) of a Gemm's [M, N] output, normalising over the N
// columns, is folded into the Gemm when B (and C, if present) are float constants: with
// s = gamma / sqrt(var + epsilon), column n of op(B) is scaled by s[n] and the new C is
// (beta·C − mean)·s + bn_beta (beta becomes 1): alpha·A·op(B)·s + (beta·C − mean)·s + bn_beta
// is the BN of the Gemm. C stays [N] when it does not vary along M, else it becomes
// [M, N]. Only when the Gemm output feeds the BN alone and is not a graph output; the BN's
// output value (and name) is kept.
#pragma once

#include "compiler/pass.h"

namespace svp::compiler {

class FoldBatchNormGemmPass : public Pass {
 public:
  const char* name() const override { return "fold_batchnorm_gemm"; }
  Status run(Graph& g, PassContext& ctx) override;
};

}  // namespace svp::compiler
