// FuseHardSwishPass on hand-built graphs: x · clip(x + 3, 0, 6) / 6 (with a Div, or a Mul
// by 1/6) becomes one HardSwish with the same outputs to float rounding; chains that only
// look alike (another constant, another range, an intermediate read elsewhere) stay.
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/passes/fuse_hardswish.h"
#include "compiler_graph.h"

namespace svp::compiler {
namespace {

using namespace testing_graph;  // NOLINT(google-build-using-namespace)

struct Chain {
  Graph g;
  ValueId x, sum, clipped, product;
  NodeId last;
};

// x → Add(x, add_c) → Clip(lo, hi) → Mul(x, ·) → Div(·, 6) or Mul(·, 1/6) → y
void build(Chain* c, float add_c, float hi, bool div) {
  Graph& g = c->g;
  c->x = value(g, "x", {1, 2, 3, 4});
  c->sum = value(g, "sum", {1, 2, 3, 4});
  c->clipped = value(g, "clipped", {1, 2, 3, 4});
  c->product = value(g, "product", {1, 2, 3, 4});
  const ValueId y = value(g, "y", {1, 2, 3, 4});
  g.inputs.push_back(c->x);
  node(g, "add", "Add", {c->x, constant(g, "three", {}, {add_c})}, {c->sum});
  node(g, "clip", "Clip", {c->sum, constant(g, "lo", {}, {0.f}), constant(g, "hi", {}, {hi})}, {c->clipped});
  node(g, "mul", "Mul", {c->clipped, c->x}, {c->product});
  c->last = div ? node(g, "div", "Div", {c->product, constant(g, "six", {}, {6.f})}, {y})
                : node(g, "sixth", "Mul", {constant(g, "sixth_c", {}, {1.f / 6.f}), c->product}, {y});
  g.outputs.push_back(y);
}

std::vector<float> inputs() {
  std::vector<float> v(24);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = -5.f + 0.45f * static_cast<float>(i);  // across -3 and 3
  return v;
}

void expect_near(const std::vector<float>& a, const std::vector<float>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-6f * (1 + std::abs(b[i]))) << i;
}

TEST(FuseHardSwishPass, ChainWithDivBecomesOneHardSwish) {
  Chain c;
  build(&c, 3.f, 6.f, /*div=*/true);
  const auto want = run_graph(c.g, {inputs()});
  PassContext ctx;
  ASSERT_TRUE(FuseHardSwishPass().run(c.g, ctx).ok());
  ASSERT_EQ(c.g.live_node_count(), 1u);
  const Node& hs = c.g.node(c.g.live_nodes()[0]);
  EXPECT_EQ(hs.op, "HardSwish");
  EXPECT_EQ(hs.inputs, std::vector<ValueId>{c.x});
  expect_near(run_graph(c.g, {inputs()})[0], want[0]);
}

TEST(FuseHardSwishPass, ChainWithMulBySixthBecomesOneHardSwish) {
  Chain c;
  build(&c, 3.f, 6.f, /*div=*/false);
  const auto want = run_graph(c.g, {inputs()});
  PassContext ctx;
  ASSERT_TRUE(FuseHardSwishPass().run(c.g, ctx).ok());
  ASSERT_EQ(c.g.live_node_count(), 1u);
  expect_near(run_graph(c.g, {inputs()})[0], want[0]);
}

TEST(FuseHardSwishPass, LookalikeChainsStay) {
  for (int variant = 0; variant < 3; ++variant) {
    Chain c;
    build(&c, variant == 0 ? 2.f : 3.f, variant == 1 ? 5.f : 6.f, true);
    if (variant == 2) {  // the clipped value has a second reader
      const ValueId z = value(c.g, "z", {1, 2, 3, 4});
      node(c.g, "neg", "Neg", {c.clipped}, {z});
      c.g.outputs.push_back(z);
    }
    const std::size_t before = c.g.live_node_count();
    PassContext ctx;
    ASSERT_TRUE(FuseHardSwishPass().run(c.g, ctx).ok());
    EXPECT_EQ(c.g.live_node_count(), before) << "variant " << variant;
  }
}

}  // namespace
}  // namespace svp::compiler
