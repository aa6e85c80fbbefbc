// FoldPadPass on hand-built graphs: a zero Pad into a Conv, a -inf Pad into a MaxPool and a
// zero Pad into an AveragePool (which then counts the padding) give the same outputs with
// one node less; a zero Pad before a MaxPool, or one padding the channels, stays.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "compiler/passes/fold_pad.h"
#include "compiler_graph.h"

namespace svp::compiler {
namespace {

using namespace testing_graph;  // NOLINT(google-build-using-namespace)

ValueId int64_constant(Graph& g, const std::string& name, const std::vector<std::int64_t>& v) {
  auto data = std::make_shared<std::vector<std::uint8_t>>(v.size() * sizeof(std::int64_t));
  std::memcpy(data->data(), v.data(), data->size());
  return g.add_constant(name, model::DType::kInt64, {static_cast<std::int64_t>(v.size())}, data);
}

struct PadThen {
  Graph g;
  NodeId user = -1;
};

// x [1, 2, 5, 5] → Pad(pads, value) → `op` (3x3 kernel, stride 1) → y.
PadThen pad_then(const std::string& op, std::vector<std::int64_t> pads, float pad_value) {
  PadThen m;
  Graph& g = m.g;
  const ValueId x = value(g, "x", {1, 2, 5, 5});
  g.inputs.push_back(x);
  const std::int64_t h = 5 + pads[2] + pads[6], w = 5 + pads[3] + pads[7];
  const std::int64_t c = 2 + pads[1] + pads[5];
  const ValueId p = value(g, "p", {1, c, h, w});
  node(g, "pad", "Pad", {x, int64_constant(g, "pads", pads), constant(g, "v", {}, {pad_value})}, {p});
  std::vector<ValueId> inputs = {p};
  std::int64_t cout = c;
  if (op == "Conv") {
    cout = 3;
    inputs.push_back(constant(g, "w", {3, c, 3, 3}, ramp(static_cast<std::size_t>(3 * c * 9), 0.1f)));
    inputs.push_back(constant(g, "b", {3}, {0.5f, -0.25f, 0.0f}));
  }
  const ValueId y = value(g, "y", {1, cout, h - 2, w - 2});
  m.user = node(g, "user", op, inputs, {y});
  g.node(m.user).attrs.set("kernel_shape", std::vector<std::int64_t>{3, 3});
  g.outputs.push_back(y);
  return m;
}

// Runs the pass: `nodes_after` nodes remain and the outputs stay the same (float rounding).
void expect_same_outputs(PadThen& m, std::size_t nodes_after) {
  const auto want = run_graph(m.g, {ramp(50)});
  ASSERT_FALSE(want.empty());
  PassContext ctx;
  ASSERT_TRUE(FoldPadPass().run(m.g, ctx).ok());
  EXPECT_EQ(m.g.live_node_count(), nodes_after);
  const auto got = run_graph(m.g, {ramp(50)});
  ASSERT_EQ(got.size(), want.size());
  ASSERT_EQ(got[0].size(), want[0].size());
  for (std::size_t i = 0; i < got[0].size(); ++i) {
    if (got[0][i] != want[0][i]) {  // equal infinities match
      EXPECT_NEAR(got[0][i], want[0][i], 1e-6) << i;
    }
  }
}

TEST(FoldPadPass, ZeroPadIntoConv) {
  PadThen m = pad_then("Conv", {0, 0, 1, 2, 0, 0, 0, 1}, 0.0f);
  expect_same_outputs(m, 1);
  EXPECT_EQ(*m.g.node(m.user).attrs.get_ints("pads", {}), (std::vector<std::int64_t>{1, 2, 0, 1}));
}

TEST(FoldPadPass, MinusInfinityPadIntoMaxPool) {
  PadThen m = pad_then("MaxPool", {0, 0, 1, 1, 0, 0, 1, 1}, -std::numeric_limits<float>::infinity());
  expect_same_outputs(m, 1);
}

TEST(FoldPadPass, ZeroPadIntoAveragePoolCountsThePadding) {
  PadThen m = pad_then("AveragePool", {0, 0, 2, 1, 0, 0, 1, 2}, 0.0f);
  expect_same_outputs(m, 1);
  EXPECT_EQ(*m.g.node(m.user).attrs.get_int("count_include_pad", 0), 1);
}

TEST(FoldPadPass, KeepsPadsThatAreNotExact) {
  PadThen zero_max = pad_then("MaxPool", {0, 0, 1, 1, 0, 0, 1, 1}, 0.0f);  // a 0 can win a max
  expect_same_outputs(zero_max, 2);
  PadThen channels = pad_then("Conv", {0, 1, 1, 1, 0, 0, 1, 1}, 0.0f);  // pads C
  expect_same_outputs(channels, 2);
  PadThen nonzero = pad_then("Conv", {0, 0, 1, 1, 0, 0, 1, 1}, 1.0f);
  expect_same_outputs(nonzero, 2);
  PadThen too_wide = pad_then("MaxPool", {0, 0, 3, 0, 0, 0, 0, 0}, -std::numeric_limits<float>::infinity());
  expect_same_outputs(too_wide, 2);  // a window of padding only
  PadThen ceil = pad_then("MaxPool", {0, 0, 1, 1, 0, 0, 1, 1}, -std::numeric_limits<float>::infinity());
  ceil.g.node(ceil.user).attrs.set("ceil_mode", std::int64_t{1});  // its extra window could be padding only
  expect_same_outputs(ceil, 2);
}

}  // namespace
}  // namespace svp::compiler
