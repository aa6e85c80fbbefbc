// CancelReshapePass on hand-built graphs.
#include <gtest/gtest.h>

#include <cstring>

#include "compiler/passes/cancel_reshape.h"
#include "compiler_graph.h"

namespace svp::compiler {
namespace {

using namespace testing_graph;  // NOLINT(google-build-using-namespace)

ValueId shape_const(Graph& g, const std::string& name, const std::vector<std::int64_t>& dims) {
  auto data = std::make_shared<std::vector<std::uint8_t>>(dims.size() * sizeof(std::int64_t));
  std::memcpy(data->data(), dims.data(), data->size());
  return g.add_constant(name, model::DType::kInt64, {static_cast<std::int64_t>(dims.size())}, data);
}

// x[2,3,4] → Reshape(s1) → Reshape(s2) → out.
Graph two(const std::vector<std::int64_t>& s2, ValueId* x, NodeId* second) {
  Graph g;
  *x = value(g, "x", {2, 3, 4});
  g.inputs.push_back(*x);
  ValueId a = value(g, "a", {6, 4});
  ValueId y = value(g, "y", {24});
  node(g, "r1", "Reshape", {*x, shape_const(g, "s1", {6, 4})}, {a});
  *second = node(g, "r2", "Reshape", {a, shape_const(g, "s2", s2)}, {y});
  g.outputs.push_back(y);
  return g;
}

TEST(CancelReshapePass, SecondReshapeReadsTheOriginalInput) {
  ValueId x = -1;
  NodeId second = -1;
  Graph g = two({-1}, &x, &second);
  PassContext ctx;
  ASSERT_TRUE(CancelReshapePass().run(g, ctx).ok());
  EXPECT_EQ(g.live_node_count(), 1u);
  EXPECT_EQ(g.node(second).inputs[0], x);
}

TEST(CancelReshapePass, ZeroInTargetShapeKeepsBoth) {
  ValueId x = -1;
  NodeId second = -1;
  Graph g = two({0, -1}, &x, &second);  // 0 copies dim 0 of the first reshape's output (6)
  PassContext ctx;
  ASSERT_TRUE(CancelReshapePass().run(g, ctx).ok());
  EXPECT_EQ(g.live_node_count(), 2u);
  EXPECT_NE(g.node(second).inputs[0], x);
}

}  // namespace
}  // namespace svp::compiler
