// Device profiles (src/target): every target of the issue list, their layouts, and
// placement reading a target's op support set instead of a list inside the pass.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "compiler/passes/placement.h"
#include "compiler_graph.h"
#include "kernels/kernels.h"
#include "target/device_profile.h"
#include "target/rknn_op_support.h"

namespace svp::target {
namespace {

const DeviceProfile& profile(const char* name) {
  const DeviceProfile* p = find_profile(name);
  if (p == nullptr) throw std::runtime_error(std::string("no profile ") + name);
  return *p;
}

TEST(TargetProfiles, EverySvpAndRknnTargetHasAProfileFoundByNameOrAlias) {
  for (const char* name : {"SS928V100", "Hi3519DV500", "Hi3516CV610", "SS626V100"}) {
    ASSERT_NE(find_profile(name), nullptr) << name;
    EXPECT_EQ(find_profile(name)->family, Family::kSvp);
  }
  for (const char* name : {"RK3588", "RK3576", "RK3566", "RK3568", "RK3562", "RV1106", "RV1103"}) {
    ASSERT_NE(find_profile(name), nullptr) << name;
    EXPECT_EQ(find_profile(name)->family, Family::kRknn);
  }
  EXPECT_EQ(find_profile("RK3568"), find_profile("RK3566"));
  EXPECT_EQ(find_profile("RV1103"), find_profile("RV1106"));
  EXPECT_EQ(find_profile("rk3588"), nullptr);  // vendor spellings are exact
  EXPECT_EQ(find_profile("SS999"), nullptr);
  EXPECT_STREQ(default_profile().name, "SS928V100");
  EXPECT_EQ(profile_names(Family::kSvp), "SS928V100, SS626V100, Hi3519DV500, Hi3516CV610");
  for (const DeviceProfile& p : all_profiles()) {
    EXPECT_GE(p.npu_cores, 1u) << p.name;
    EXPECT_GT(p.npu_int8_tops, 0.0) << p.name;
    EXPECT_NE(p.ops, nullptr) << p.name;
  }
  EXPECT_EQ(profile("RK3588").npu_cores, 3u);
  EXPECT_EQ(profile("RK3576").npu_cores, 2u);
}

TEST(TargetProfiles, RknnNativeLayoutsUseTheC2OfSeedTable5_1) {
  // int8 / float16: RK3566/RK3568 8 / 4, RK3588 and RK3576 16 / 8, RV1103/RV1106 16 / 8,
  // RK3562 16 / 8.
  EXPECT_EQ(profile("RK3566").c2_int8, 8u);
  EXPECT_EQ(profile("RK3566").c2_fp16, 4u);
  for (const char* name : {"RK3588", "RK3576", "RV1106", "RK3562"}) {
    EXPECT_EQ(profile(name).c2_int8, 16u) << name;
    EXPECT_EQ(profile(name).c2_fp16, 8u) << name;
    EXPECT_STREQ(profile(name).native_layout, "NC1HWC2");
  }
}

TEST(TargetProfiles, OpSupportFollowsEachTargetsList) {
  const DeviceProfile& ss928 = profile("SS928V100");
  EXPECT_EQ(op_support(ss928, "Conv", {4, 4}), Support::kNpu);
  EXPECT_EQ(op_support(ss928, "TopK", {2}), Support::kCpu);
  std::string why;
  EXPECT_EQ(op_support(ss928, "MatMul", {5, 2}, &why), Support::kCpu);
  EXPECT_NE(why.find("up to 4-D"), std::string::npos) << why;
  EXPECT_EQ(op_support_rule(ss928, "MatMul"), "NPU up to 4-D operands, else AI-CPU");
  EXPECT_EQ(op_support_rule(ss928, "Gather"), "AI-CPU");
  // Rockchip's list (SDK 2.3.2): Softmax is an NPU op except on RK3566/RK3568; RV1106's CPU
  // fallback has no TopK; Abs is supported nowhere.
  EXPECT_EQ(op_support(profile("RK3588"), "Softmax", {2}), Support::kNpu);
  EXPECT_EQ(op_support(profile("RK3568"), "Softmax", {2}), Support::kCpu);
  EXPECT_EQ(op_support(profile("RK3588"), "TopK", {2}), Support::kCpu);
  EXPECT_EQ(op_support(profile("RV1106"), "TopK", {2}), Support::kRefused);
  EXPECT_EQ(op_support(profile("RK3588"), "Abs", {2}), Support::kRefused);
  EXPECT_EQ(op_support_rule(profile("RK3588"), "TopK"), "CPU");
  EXPECT_EQ(op_support_rule(profile("RK3588"), "Abs"), "refused");
  // An op missing from the vendor's list is refused, not silently run.
  EXPECT_EQ(op_support(profile("RK3588"), "TfIdfVectorizer", {1}), Support::kRefused);
}

TEST(TargetProfiles, RknnSupportSetsAreSortedForLookup) {
  for (RknnOpSet s : {RknnOpSet::kRk3588, RknnOpSet::kRk3576, RknnOpSet::kRk3566, RknnOpSet::kRk3562,
                      RknnOpSet::kRv1106}) {
    const OpSupport& ops = rknn_ops(s);
    EXPECT_GT(ops.rules.size(), 150u) << ops.name;
    for (std::size_t i = 1; i < ops.rules.size(); ++i) {
      EXPECT_LT(std::string_view(ops.rules[i - 1].op), std::string_view(ops.rules[i].op)) << ops.name;
    }
  }
}

TEST(TargetProfiles, RknnSupportSetsMatchTheirTsv) {
  // The generated table is what the generator makes of the committed TSV today.
  const std::string script = std::string(SVP_SOURCE_DIR) + "/tools/scripts/gen_rknn_op_support.py";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(("python3 " + script).c_str(), "r"), pclose);
  ASSERT_NE(pipe, nullptr);
  std::string generated;
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, pipe.get())) > 0;) generated.append(buf, n);
  std::ifstream in(std::string(SVP_SOURCE_DIR) + "/src/target/rknn_op_support.cpp");
  std::stringstream committed;
  committed << in.rdbuf();
  EXPECT_EQ(generated, committed.str()) << "regenerate: python3 tools/scripts/gen_rknn_op_support.py > "
                                           "src/target/rknn_op_support.cpp";
}

}  // namespace
}  // namespace svp::target

namespace svp::compiler {
namespace {

using model::Target;
using namespace testing_graph;  // NOLINT(google-build-using-namespace)

// x → Conv → Softmax → TopK → y
struct Net {
  Graph g;
  NodeId conv = -1, softmax = -1, topk = -1;
};

Net net(const char* last_op) {
  Net n;
  Graph& g = n.g;
  const ValueId x = value(g, "x", {1, 3, 8, 8}), w = constant(g, "w", {4, 3, 3, 3});
  const ValueId a = value(g, "a", {1, 4, 6, 6}), b = value(g, "b", {1, 4, 6, 6}), y = value(g, "y", {1, 4, 6, 6});
  g.inputs.push_back(x);
  n.conv = node(g, "conv", "Conv", {x, w}, {a});
  n.softmax = node(g, "softmax", "Softmax", {a}, {b});
  n.topk = node(g, "last", last_op, {b}, {y});
  g.outputs.push_back(y);
  return n;
}

TEST(PlacementByTarget, TheSameGraphIsPlacedByEachTargetsProfile) {
  Net on_ss928 = net("Relu");
  place_nodes(on_ss928.g, *target::find_profile("SS928V100"));
  EXPECT_EQ(on_ss928.g.node(on_ss928.softmax).target, Target::kNpu);
  Net on_rk3568 = net("Relu");
  const PlacementReport r = place_nodes(on_rk3568.g, *target::find_profile("RK3568"));
  EXPECT_EQ(on_rk3568.g.node(on_rk3568.conv).target, Target::kNpu);
  EXPECT_EQ(on_rk3568.g.node(on_rk3568.softmax).target, Target::kAiCpu);  // no NPU Softmax on RK3566/RK3568
  EXPECT_TRUE(r.refused.empty());
  EXPECT_TRUE(placement_error(r, *target::find_profile("RK3568")).ok());
}

TEST(PlacementByTarget, AnOpTheTargetRefusesFailsTheCompileNamingNodeAndTarget) {
  Net n = net("Abs");
  const PlacementReport r = place_nodes(n.g, *target::find_profile("RK3588"));
  ASSERT_EQ(r.refused.size(), 1u);
  const Status s = placement_error(r, *target::find_profile("RK3588"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), err::kFeatureUnsupported);
  EXPECT_NE(s.message().find("\"last\" (Abs)"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("RK3588"), std::string::npos) << s.message();
  // The SVP chips run Abs on the NPU.
  Net svp = net("Abs");
  EXPECT_TRUE(place_nodes(svp.g, *target::find_profile("Hi3516CV610")).refused.empty());
}

}  // namespace
}  // namespace svp::compiler
