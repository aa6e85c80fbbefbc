// CancelTransposePass on hand-built graphs.
#include <gtest/gtest.h>

#include "compiler/passes/cancel_transpose.h"
#include "compiler_graph.h"

namespace svp::compiler {
namespace {

using namespace testing_graph;  // NOLINT(google-build-using-namespace)

struct TwoTransposes {
  Graph g;
  ValueId x = -1, y = -1;
  NodeId first = -1, second = -1;
};

// x → Transpose(p1) → Transpose(p2) → Relu → out.
TwoTransposes two_transposes(std::vector<std::int64_t> p1, std::vector<std::int64_t> p2) {
  TwoTransposes t;
  t.x = value(t.g, "x", {1, 2, 3, 4});
  t.g.inputs.push_back(t.x);
  ValueId a = value(t.g, "a", {});
  ValueId b = value(t.g, "b", {});
  t.y = value(t.g, "y", {});
  t.first = node(t.g, "t1", "Transpose", {t.x}, {a});
  t.g.node(t.first).attrs.set("perm", p1);
  t.second = node(t.g, "t2", "Transpose", {a}, {b});
  t.g.node(t.second).attrs.set("perm", p2);
  node(t.g, "relu", "Relu", {b}, {t.y});
  t.g.outputs.push_back(t.y);
  return t;
}

TEST(CancelTransposePass, InversePermutationsCancel) {
  TwoTransposes t = two_transposes({0, 2, 3, 1}, {0, 3, 1, 2});  // NCHW→NHWC→NCHW
  PassContext ctx;
  ASSERT_TRUE(CancelTransposePass().run(t.g, ctx).ok());
  ASSERT_EQ(t.g.live_node_count(), 1u);
  EXPECT_EQ(t.g.node(t.g.live_nodes()[0]).inputs[0], t.x);
}

TEST(CancelTransposePass, OtherPermutationsCompose) {
  TwoTransposes t = two_transposes({0, 2, 3, 1}, {0, 2, 3, 1});
  PassContext ctx;
  ASSERT_TRUE(CancelTransposePass().run(t.g, ctx).ok());
  ASSERT_EQ(t.g.live_node_count(), 2u);
  const Node& s = t.g.node(t.second);
  EXPECT_EQ(s.inputs[0], t.x);
  EXPECT_EQ(*s.attrs.get_ints("perm", {}), (std::vector<std::int64_t>{0, 3, 1, 2}));
  EXPECT_TRUE(t.g.node(t.first).dead);
}

}  // namespace
}  // namespace svp::compiler
