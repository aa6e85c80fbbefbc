// Placement (NPU core / AI-CPU) on hand-built graphs, and --force_to_cpu through compile().
#include <gtest/gtest.h>

#include "compiler/passes/placement.h"
#include "compiler_graph.h"

namespace svp::compiler {
namespace {

using model::Target;
using namespace testing_graph;  // NOLINT(google-build-using-namespace)

// x → Conv → Relu → <mid op> → Reshape → <tail op> → y: a CNN with a non-NPU op in the
// middle (mid) and at the end (tail).
struct PlacedChain {
  Graph g;
  NodeId conv = -1, relu = -1, mid = -1, reshape = -1, tail = -1;
};

PlacedChain chain(const std::string& mid_op, const std::string& tail_op) {
  PlacedChain c;
  Graph& g = c.g;
  const ValueId x = value(g, "x", {1, 3, 8, 8});
  g.inputs.push_back(x);
  const ValueId w = constant(g, "w", {4, 3, 3, 3});
  const ValueId a = value(g, "a", {1, 4, 6, 6}), b = value(g, "b", {1, 4, 6, 6}), m = value(g, "m", {1, 4, 6, 6});
  const ValueId r = value(g, "r", {1, 144}), y = value(g, "y", {1, 144});
  c.conv = node(g, "conv", "Conv", {x, w}, {a});
  c.relu = node(g, "relu", "Relu", {a}, {b});
  c.mid = node(g, "mid", mid_op, {b}, {m});
  c.reshape = node(g, "flat", "Flatten", {m}, {r});
  c.tail = node(g, "tail", tail_op, {r}, {y});
  g.outputs.push_back(y);
  return c;
}

TEST(Placement, NativeNpuOpsStayOnTheNpuAndOthersGoToTheAiCpu) {
  PlacedChain c = chain("Sigmoid", "TopK");
  const PlacementReport r = place_nodes(c.g);
  EXPECT_EQ(c.g.node(c.conv).target, Target::kNpu);
  EXPECT_EQ(c.g.node(c.mid).target, Target::kNpu);
  EXPECT_EQ(c.g.node(c.reshape).target, Target::kNpu);
  EXPECT_EQ(c.g.node(c.tail).target, Target::kAiCpu);
  EXPECT_EQ(r.npu_nodes, 4u);
  EXPECT_EQ(r.aicpu_nodes, 1u);
  EXPECT_EQ(r.npu_macs, 4u * 36 * 27);  // the Conv's 4·6·6 outputs × 3·3·3
  EXPECT_EQ(r.aicpu_macs, 0u);
  EXPECT_EQ(r.groups, 2u);
  ASSERT_EQ(r.cuts.size(), 1u);
  EXPECT_EQ(r.cuts[0], "flat -> tail");
}

TEST(Placement, ACheapNpuIslandBetweenAiCpuOpsJoinsThem) {
  // TopK → Flatten → TopK: the Flatten alone on the NPU would cost two hand-overs.
  PlacedChain c = chain("TopK", "TopK");
  const PlacementReport r = place_nodes(c.g);
  EXPECT_EQ(c.g.node(c.reshape).target, Target::kAiCpu);
  EXPECT_EQ(r.moved_to_aicpu, 1u);
  EXPECT_EQ(r.groups, 2u);  // conv+relu, then the rest
  ASSERT_EQ(r.cuts.size(), 1u);
  EXPECT_EQ(r.cuts[0], "relu -> mid");
}

TEST(Placement, CostlyNodesNeverMoveToJoinNeighbours) {
  PlacedChain c = chain("TopK", "TopK");
  // Make the conv an island: its consumer and (pretend) producer are AI-CPU nodes.
  c.g.node(c.relu).op = "TopK";
  place_nodes(c.g);
  EXPECT_EQ(c.g.node(c.conv).target, Target::kNpu);  // graph input + cube MACs
}

TEST(Placement, MatMulBeyondFourDimensionsRunsOnTheAiCpu) {
  Graph g;
  const ValueId a = value(g, "a", {1, 2, 2, 3, 4, 5}), b = constant(g, "b", {5, 6}), y = value(g, "y", {1, 2, 2, 3, 4, 6});
  g.inputs.push_back(a);
  const NodeId mm = node(g, "mm", "MatMul", {a, b}, {y});
  g.outputs.push_back(y);
  EXPECT_FALSE(npu_op(g, mm));
  place_nodes(g);
  EXPECT_EQ(g.node(mm).target, Target::kAiCpu);
}

TEST(Placement, ForceToCpuTakesOnnxOrGraphNamesAndRejectsUnknownOnes) {
  PlacedChain c = chain("Sigmoid", "Relu");
  c.g.node(c.mid).origin.onnx_name = "onnx_sigmoid";
  ASSERT_TRUE(force_to_cpu(c.g, {"onnx_sigmoid", "conv"}).ok());
  const PlacementReport r = place_nodes(c.g);
  EXPECT_EQ(c.g.node(c.conv).target, Target::kAiCpu);  // forced, despite its MACs
  EXPECT_EQ(c.g.node(c.mid).target, Target::kAiCpu);
  EXPECT_EQ(c.g.node(c.tail).target, Target::kNpu);
  EXPECT_EQ(r.aicpu_macs, 4u * 36 * 27);
  const Status bad = force_to_cpu(c.g, {"no_such_node"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.code(), err::kInvalidParam);
  EXPECT_NE(bad.message().find("\"no_such_node\""), std::string::npos) << bad.message();
}

}  // namespace
}  // namespace svp::compiler
