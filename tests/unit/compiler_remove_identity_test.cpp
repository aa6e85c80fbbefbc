// RemoveIdentityPass on hand-built graphs: Identity and inference Dropout vanish (their
// reader reads the input, or the producer writes the graph output), a training Dropout and
// a copy of a graph input into a graph output stay; outputs are unchanged.
#include <gtest/gtest.h>

#include "compiler/passes/remove_identity.h"
#include "compiler_graph.h"

namespace svp::compiler {
namespace {

using namespace testing_graph;  // NOLINT(google-build-using-namespace)

TEST(RemoveIdentityPass, ReaderReadsTheInputOfAnIdentity) {
  Graph g;
  const ValueId x = value(g, "x", {2, 3}), a = value(g, "a", {2, 3}), b = value(g, "b", {2, 3}),
                y = value(g, "y", {2, 3});
  g.inputs.push_back(x);
  node(g, "r1", "Relu", {x}, {a});
  node(g, "id", "Identity", {a}, {b});
  const NodeId r2 = node(g, "r2", "Neg", {b}, {y});
  g.outputs.push_back(y);
  const auto want = run_graph(g, {ramp(6)});
  PassContext ctx;
  ASSERT_TRUE(RemoveIdentityPass().run(g, ctx).ok());
  EXPECT_EQ(g.live_node_count(), 2u);
  EXPECT_EQ(g.node(r2).inputs[0], a);
  EXPECT_EQ(run_graph(g, {ramp(6)}), want);
}

TEST(RemoveIdentityPass, ProducerWritesTheGraphOutputOfAnInferenceDropout) {
  Graph g;
  const ValueId x = value(g, "x", {4}), a = value(g, "a", {4}), y = value(g, "y", {4});
  g.inputs.push_back(x);
  const NodeId relu = node(g, "relu", "Relu", {x}, {a});
  node(g, "drop", "Dropout", {a}, {y});
  g.outputs.push_back(y);
  const auto want = run_graph(g, {ramp(4)});
  PassContext ctx;
  ASSERT_TRUE(RemoveIdentityPass().run(g, ctx).ok());
  EXPECT_EQ(g.live_node_count(), 1u);
  EXPECT_EQ(g.node(relu).outputs[0], y);
  EXPECT_EQ(g.value(y).producer, relu);
  EXPECT_EQ(run_graph(g, {ramp(4)}), want);
}

TEST(RemoveIdentityPass, KeepsTrainingDropoutAndInputToOutputCopies) {
  Graph g;
  const ValueId x = value(g, "x", {4}), a = value(g, "a", {4}), y = value(g, "y", {4}), z = value(g, "z", {4});
  g.inputs.push_back(x);
  auto on = std::make_shared<std::vector<std::uint8_t>>(1, 1);
  const ValueId training = g.add_constant("training", model::DType::kBool, {}, on);
  const ValueId ratio = constant(g, "ratio", {}, {0.5f});
  node(g, "drop", "Dropout", {x, ratio, training}, {a});
  node(g, "neg", "Neg", {a}, {y});
  node(g, "copy", "Identity", {x}, {z});  // graph input → graph output: the copy fills z
  g.outputs.push_back(y);
  g.outputs.push_back(z);
  PassContext ctx;
  ASSERT_TRUE(RemoveIdentityPass().run(g, ctx).ok());
  EXPECT_EQ(g.live_node_count(), 3u);
}

}  // namespace
}  // namespace svp::compiler
