// FoldBatchNormGemmPass on hand-built graphs: BN after a Gemm folds into B and C (B plain
// or transposed, C per column or per element), outputs unchanged; no fold when the Gemm's
// output is also a graph output.
#include <gtest/gtest.h>

#include "compiler/passes/fold_batchnorm_gemm.h"
#include "compiler_graph.h"

namespace svp::compiler {
namespace {

using namespace testing_graph;  // NOLINT(google-build-using-namespace)

struct GemmBn {
  Graph g;
  ValueId gemm_out = -1;
  NodeId gemm = -1;
};

// x [2, 3] → Gemm(B, C; alpha 0.5, beta 2) → BN over its 4 columns → y.
GemmBn gemm_bn(bool trans_b, std::vector<std::int64_t> c_shape) {
  GemmBn m;
  Graph& g = m.g;
  const ValueId x = value(g, "x", {2, 3});
  g.inputs.push_back(x);
  const ValueId b = trans_b ? constant(g, "b", {4, 3}, ramp(12, 0.2f)) : constant(g, "b", {3, 4}, ramp(12, 0.2f));
  std::size_t c_n = 1;
  for (auto d : c_shape) c_n *= static_cast<std::size_t>(d);
  const ValueId c = constant(g, "c", c_shape, ramp(c_n, -0.3f));
  m.gemm_out = value(g, "g", {2, 4});
  m.gemm = node(g, "gemm", "Gemm", {x, b, c}, {m.gemm_out});
  g.node(m.gemm).attrs.set("transB", std::int64_t{trans_b ? 1 : 0});
  g.node(m.gemm).attrs.set("alpha", 0.5);
  g.node(m.gemm).attrs.set("beta", 2.0);
  const ValueId y = value(g, "y", {2, 4});
  node(g, "bn", "BatchNormalization",
       {m.gemm_out, constant(g, "gamma", {4}, {2.0f, 0.5f, -1.0f, 1.5f}), constant(g, "beta", {4}, {1, 0, -2, 0.25f}),
        constant(g, "mean", {4}, {0.25f, 3.0f, -1.0f, 0.0f}), constant(g, "var", {4}, {4.0f, 1.0f, 0.5f, 2.0f})},
       {y});
  g.outputs.push_back(y);
  return m;
}

void expect_folded(GemmBn& m) {
  const auto want = run_graph(m.g, {ramp(6)});
  ASSERT_FALSE(want.empty());
  PassContext ctx;
  ASSERT_TRUE(FoldBatchNormGemmPass().run(m.g, ctx).ok());
  EXPECT_EQ(m.g.live_node_count(), 1u);
  const auto got = run_graph(m.g, {ramp(6)});
  ASSERT_EQ(got.size(), 1u);
  for (std::size_t i = 0; i < got[0].size(); ++i) EXPECT_NEAR(got[0][i], want[0][i], 1e-5) << i;
}

TEST(FoldBatchNormGemmPass, FoldsIntoBAndPerColumnC) {
  GemmBn m = gemm_bn(false, {4});
  expect_folded(m);
  EXPECT_EQ(m.g.value(m.g.node(m.gemm).inputs[2]).shape, (std::vector<std::int64_t>{4}));
}

TEST(FoldBatchNormGemmPass, FoldsIntoTransposedBAndPerElementC) {
  GemmBn m = gemm_bn(true, {2, 4});
  expect_folded(m);
  EXPECT_EQ(m.g.value(m.g.node(m.gemm).inputs[2]).shape, (std::vector<std::int64_t>{2, 4}));
}

TEST(FoldBatchNormGemmPass, LeavesBnWhenGemmOutputIsAGraphOutput) {
  GemmBn m = gemm_bn(false, {1});
  m.g.outputs.push_back(m.gemm_out);
  PassContext ctx;
  ASSERT_TRUE(FoldBatchNormGemmPass().run(m.g, ctx).ok());
  EXPECT_EQ(m.g.live_node_count(), 2u);
}

}  // namespace
}  // namespace svp::compiler
