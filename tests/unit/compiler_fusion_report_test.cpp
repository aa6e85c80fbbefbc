// The fusion report: compile_graph's log and om.json name the layers the runtime folds
// together at load (Conv + Relu here, read off the runtime's own plan); a lone Relu is no
// fusion.
#include <gtest/gtest.h>

#include <algorithm>

#include "compiler/compile.h"
#include "compiler/fusion_report.h"
#include "compiler/om_json.h"
#include "compiler/options.h"
#include "compiler_graph.h"

namespace svp::compiler {
namespace {

using namespace testing_graph;  // NOLINT(google-build-using-namespace)

// x [1, 2, 6, 6] → Conv 3x3 → Relu → y, or x → Relu → y.
Graph model(bool with_conv) {
  Graph g;
  g.name = "fusion";
  g.opset = 13;
  const ValueId x = value(g, "x", {1, 2, 6, 6});
  g.inputs.push_back(x);
  ValueId r_in = x;
  if (with_conv) {
    r_in = value(g, "c", {1, 4, 4, 4});
    const NodeId c = node(g, "conv", "Conv",
                          {x, constant(g, "w", {4, 2, 3, 3}, ramp(72)), constant(g, "b", {4}, {1, 2, 3, 4})}, {r_in});
    g.node(c).attrs.set("kernel_shape", std::vector<std::int64_t>{3, 3});
  }
  const ValueId y = value(g, "y", g.value(r_in).shape);
  node(g, "relu", "Relu", {r_in}, {y});
  g.outputs.push_back(y);
  return g;
}

std::string fusion_line(const CompileResult& r) {
  auto it = std::find_if(r.log.begin(), r.log.end(), [](const std::string& l) { return l.rfind("fusions", 0) == 0; });
  return it == r.log.end() ? "" : *it;
}

TEST(FusionReport, ConvReluIsReportedInTheLogAndOmJson) {
  CompileOptions opt;
  opt.compile_mode = "float";
  auto r = compile_graph(model(true), opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(fusion_line(*r), "fusions at load: 1 group(s): conv+relu");
  auto groups = runtime_fusions(r->model.program, r->model.weights.data(), r->model.weights.size());
  ASSERT_TRUE(groups.ok());
  const nlohmann::json j = om_json(r->model.program, r->model.weights.size(), &*groups);
  EXPECT_EQ(j["fusions"], nlohmann::json::parse(R"([["conv", "relu"]])"));
  EXPECT_EQ(j["ops"][1]["fused_into"], "conv");
  EXPECT_FALSE(j["ops"][0].contains("fused_into"));
}

TEST(FusionReport, NothingToFuse) {
  CompileOptions opt;
  opt.compile_mode = "float";
  auto r = compile_graph(model(false), opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(fusion_line(*r), "fusions at load: 0 group(s): none");
}

}  // namespace
}  // namespace svp::compiler
