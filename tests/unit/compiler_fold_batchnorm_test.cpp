// FoldBatchNormPass on hand-built graphs: exact per-channel folding, and no folding when
// the Conv output has another reader.
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/passes/fold_batchnorm.h"
#include "compiler_graph.h"

namespace svp::compiler {
namespace {

using namespace testing_graph;  // NOLINT(google-build-using-namespace)

struct ConvBn {
  Graph g;
  ValueId conv_out = -1, bn_out = -1;
  NodeId conv = -1;
};

// x[1,1,2,2] → Conv 1x1 (2 output channels, weights 1 and 2, bias 0.5 and -1) → BN.
ConvBn conv_bn() {
  ConvBn m;
  Graph& g = m.g;
  ValueId x = value(g, "x", {1, 1, 2, 2});
  g.inputs.push_back(x);
  ValueId w = constant(g, "w", {2, 1, 1, 1}, {1.0f, 2.0f});
  ValueId b = constant(g, "b", {2}, {0.5f, -1.0f});
  m.conv_out = value(g, "c", {1, 2, 2, 2});
  m.conv = node(g, "conv", "Conv", {x, w, b}, {m.conv_out});
  ValueId gamma = constant(g, "gamma", {2}, {2.0f, 0.5f});
  ValueId beta = constant(g, "beta", {2}, {1.0f, 0.0f});
  ValueId mean = constant(g, "mean", {2}, {0.25f, 3.0f});
  ValueId var = constant(g, "var", {2}, {4.0f, 1.0f});
  m.bn_out = value(g, "y", {1, 2, 2, 2});
  NodeId bn = node(g, "bn", "BatchNormalization", {m.conv_out, gamma, beta, mean, var}, {m.bn_out});
  g.node(bn).attrs.set("epsilon", 0.0);
  g.outputs.push_back(m.bn_out);
  return m;
}

TEST(FoldBatchNormPass, FoldsScaleAndShiftIntoConvWeightsAndBias) {
  ConvBn m = conv_bn();
  PassContext ctx;
  ASSERT_TRUE(FoldBatchNormPass().run(m.g, ctx).ok());
  ASSERT_EQ(m.g.live_node_count(), 1u);
  const Node& conv = m.g.node(m.conv);
  EXPECT_EQ(conv.outputs[0], m.bn_out);
  EXPECT_EQ(m.g.value(m.bn_out).producer, m.conv);
  // s = gamma / sqrt(var): 1 and 0.5.
  EXPECT_EQ(floats_of(m.g, conv.inputs[1]), (std::vector<float>{1.0f, 1.0f}));
  // b' = (b − mean)·s + beta: (0.5 − 0.25)·1 + 1 = 1.25; (−1 − 3)·0.5 + 0 = −2.
  EXPECT_EQ(floats_of(m.g, conv.inputs[2]), (std::vector<float>{1.25f, -2.0f}));
}

TEST(FoldBatchNormPass, LeavesBnWhenConvOutputHasAnotherReader) {
  ConvBn m = conv_bn();
  m.g.outputs.push_back(m.conv_out);
  PassContext ctx;
  ASSERT_TRUE(FoldBatchNormPass().run(m.g, ctx).ok());
  EXPECT_EQ(m.g.live_node_count(), 2u);
}

// ConvTranspose weights are [C, M/g, k...]: with 4 input channels, 2 groups and 3 outputs
// per group, weight row (ci, j) feeds output channel (ci / 2)·3 + j.
TEST(FoldBatchNormPass, FoldsIntoAGroupedConvTransposeByOutputChannel) {
  Graph g;
  ValueId x = value(g, "x", {1, 4, 2, 2});
  g.inputs.push_back(x);
  ValueId w = constant(g, "w", {4, 3, 1, 1}, std::vector<float>(12, 1.0f));
  ValueId y = value(g, "t", {1, 6, 2, 2});
  NodeId ct = node(g, "deconv", "ConvTranspose", {x, w}, {y});
  g.node(ct).attrs.set("group", std::int64_t{2});
  std::vector<float> gamma{1, 2, 3, 4, 5, 6}, zeros(6, 0.0f), ones(6, 1.0f);
  ValueId out = value(g, "y", {1, 6, 2, 2});
  NodeId bn = node(g, "bn", "BatchNormalization",
                   {y, constant(g, "gamma", {6}, gamma), constant(g, "beta", {6}, {0, 0, 0, 0, 0, 1}),
                    constant(g, "mean", {6}, zeros), constant(g, "var", {6}, ones)},
                   {out});
  g.node(bn).attrs.set("epsilon", 0.0);
  g.outputs.push_back(out);
  PassContext ctx;
  ASSERT_TRUE(FoldBatchNormPass().run(g, ctx).ok());
  ASSERT_EQ(g.live_node_count(), 1u);
  const Node& folded = g.node(ct);
  EXPECT_EQ(folded.outputs[0], out);
  EXPECT_EQ(floats_of(g, folded.inputs[1]), (std::vector<float>{1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6}));
  EXPECT_EQ(floats_of(g, folded.inputs[2]), (std::vector<float>{0, 0, 0, 0, 0, 1}));
}

}  // namespace
}  // namespace svp::compiler
