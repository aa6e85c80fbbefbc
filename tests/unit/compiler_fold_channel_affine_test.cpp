// FoldChannelAffinePass on hand-built graphs: Conv → Mul by a per-channel constant → Add of
// one → Sub of a scalar fold into one Conv with the same outputs; a constant that varies
// over the spatial dims stays.
#include <gtest/gtest.h>

#include "compiler/passes/fold_channel_affine.h"
#include "compiler_graph.h"

namespace svp::compiler {
namespace {

using namespace testing_graph;  // NOLINT(google-build-using-namespace)

// x [1, 2, 4, 4] → Conv 3x3 (3 output channels, with or without bias) → y [1, 3, 2, 2].
ValueId conv(Graph& g, bool bias, NodeId* id) {
  const ValueId x = value(g, "x", {1, 2, 4, 4});
  g.inputs.push_back(x);
  std::vector<ValueId> in = {x, constant(g, "w", {3, 2, 3, 3}, ramp(54, 0.05f))};
  if (bias) in.push_back(constant(g, "b", {3}, {0.5f, -1.0f, 0.25f}));
  const ValueId y = value(g, "c", {1, 3, 2, 2});
  *id = node(g, "conv", "Conv", in, {y});
  g.node(*id).attrs.set("kernel_shape", std::vector<std::int64_t>{3, 3});
  return y;
}

// Runs the pass on `g` (one graph output) and expects a single node left, `kept`, writing
// `out`, whose result on `input` is what the unfolded graph gave.
void expect_folded_into(Graph& g, NodeId kept, ValueId out, const std::vector<float>& input) {
  const auto want = run_graph(g, {input});
  ASSERT_EQ(want.size(), 1u);
  PassContext ctx;
  ASSERT_TRUE(FoldChannelAffinePass().run(g, ctx).ok());
  EXPECT_EQ(g.live_node_count(), 1u);
  EXPECT_EQ(g.node(kept).outputs[0], out);
  const auto got = run_graph(g, {input});
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(got[0].size(), want[0].size());
  for (std::size_t i = 0; i < got[0].size(); ++i) EXPECT_NEAR(got[0][i], want[0][i], 1e-5) << i;
}

TEST(FoldChannelAffinePass, MulAddSubFoldIntoTheConv) {
  Graph g;
  NodeId c = -1;
  const ValueId y = conv(g, false, &c);
  const ValueId m = value(g, "m", {1, 3, 2, 2}), a = value(g, "a", {1, 3, 2, 2}), s = value(g, "s", {1, 3, 2, 2});
  node(g, "mul", "Mul", {constant(g, "k", {1, 3, 1, 1}, {2.0f, -0.5f, 3.0f}), y}, {m});
  node(g, "add", "Add", {m, constant(g, "k2", {3, 1, 1}, {1.0f, 2.0f, -3.0f})}, {a});
  node(g, "sub", "Sub", {a, constant(g, "k3", {}, {0.75f})}, {s});
  g.outputs.push_back(s);
  expect_folded_into(g, c, s, ramp(32));
}

// paddle2onnx writes a ConvTranspose's bias as a separate Add (PP-OCR det's head); a
// grouped one's weights are [C, M/g, k...], so the Mul must scale by output channel.
TEST(FoldChannelAffinePass, MulAndAddFoldIntoAGroupedStridedConvTranspose) {
  Graph g;
  const ValueId x = value(g, "x", {1, 4, 3, 3});
  g.inputs.push_back(x);
  const ValueId y = value(g, "t", {1, 6, 6, 6});
  const NodeId ct = node(g, "deconv", "ConvTranspose", {x, constant(g, "w", {4, 3, 2, 2}, ramp(48, 0.05f))}, {y});
  g.node(ct).attrs.set("group", std::int64_t{2});
  g.node(ct).attrs.set("strides", std::vector<std::int64_t>{2, 2});
  g.node(ct).attrs.set("kernel_shape", std::vector<std::int64_t>{2, 2});
  const ValueId m = value(g, "m", {1, 6, 6, 6}), a = value(g, "a", {1, 6, 6, 6});
  node(g, "mul", "Mul", {y, constant(g, "k", {6, 1, 1}, {2.0f, -0.5f, 3.0f, 1.5f, -2.0f, 0.25f})}, {m});
  node(g, "add", "Add", {m, constant(g, "k2", {1, 6, 1, 1}, {1, 2, 3, 4, 5, 6})}, {a});
  g.outputs.push_back(a);
  expect_folded_into(g, ct, a, ramp(36));
}

TEST(FoldChannelAffinePass, KeepsWhatIsNotAPerChannelAffineMap) {
  for (int variant = 0; variant < 2; ++variant) {
    Graph g;
    NodeId c = -1;
    const ValueId y = conv(g, true, &c);
    const ValueId out = value(g, "out", {1, 3, 2, 2});
    if (variant == 0) {
      node(g, "mul", "Mul", {y, constant(g, "k", {1, 1, 2, 2}, {1, 2, 3, 4})}, {out});  // varies over H, W
    } else {
      node(g, "sub", "Sub", {constant(g, "k", {1}, {1.0f}), y}, {out});  // k − conv negates the Conv
    }
    g.outputs.push_back(out);
    PassContext ctx;
    ASSERT_TRUE(FoldChannelAffinePass().run(g, ctx).ok());
    EXPECT_EQ(g.live_node_count(), 2u) << variant;
  }
}

}  // namespace
}  // namespace svp::compiler
