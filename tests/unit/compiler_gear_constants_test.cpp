// Resolution gears for models whose Reshape targets come from Shape chains
// (src/compiler/gear_constants.h): the importer folds those chains at the first gear; the
// compiler compares with another gear's import and writes -1 where the target depends on
// the image size, so that the runtime's per-gear program (exec/gears.cpp) is right at
// every gear. PaddleOCR's recognisers are built this way.
#include <gtest/gtest.h>

#include <filesystem>

#include "compiler/compile.h"
#include "compiler/gear_constants.h"
#include "exec/gears.h"
#include "onnx_builder.h"

namespace svp::compiler {
namespace {

namespace fs = std::filesystem;
using test::OnnxBuilder;

void int64_initializer(OnnxBuilder& b, const std::string& name, std::vector<std::int64_t> dims,
                       std::vector<std::int64_t> values) {
  auto* t = b.model().mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  for (auto d : dims) t->add_dims(d);
  for (auto v : values) t->add_int64_data(v);
}

// x [1, 1, H, W] -> Reshape(x, target) where target is computed from Shape(x):
// [1, H * W] (one image-dependent entry) or, with `both`, [1, H, W] (two).
OnnxBuilder shape_chain_model(bool both) {
  OnnxBuilder b(13);
  b.input("x", {1, 1, 0, 0});
  auto* dims = b.model().mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  dims->mutable_dim(2)->set_dim_param("H");
  dims->mutable_dim(3)->set_dim_param("W");
  int64_initializer(b, "two", {}, {2});
  int64_initializer(b, "three", {}, {3});
  int64_initializer(b, "one", {1}, {1});
  int64_initializer(b, "axes", {1}, {0});
  b.node("Shape", {"x"}, {"s"});
  b.node("Gather", {"s", "two"}, {"h"});
  b.node("Gather", {"s", "three"}, {"w"});
  if (both) {
    b.node("Unsqueeze", {"h", "axes"}, {"h1"});
    b.node("Unsqueeze", {"w", "axes"}, {"w1"});
    auto& c = b.node("Concat", {"one", "h1", "w1"}, {"target"});
    auto* a = c.add_attribute();
    a->set_name("axis");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(0);
    b.node("Reshape", {"x", "target"}, {"y"}, "flatten_like");
    b.output("y", {1, -1, -1});
    b.model().mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(2)->set_dim_param("M");
  } else {
    b.node("Mul", {"h", "w"}, {"hw"});
    b.node("Unsqueeze", {"hw", "axes"}, {"hw1"});
    auto& c = b.node("Concat", {"one", "hw1"}, {"target"});
    auto* a = c.add_attribute();
    a->set_name("axis");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(0);
    b.node("Reshape", {"x", "target"}, {"y"}, "flatten_like");
    b.output("y", {1, -1});
  }
  return b;
}

CompileOptions gear_options(const std::string& path) {
  CompileOptions o;
  o.model = path;
  o.compile_mode = "float";
  o.input_shape = {{"x", {1, 1, -1, -1}}};
  o.dynamic_image_size = {{4, 6}, {2, 3}, {4, 3}};
  return o;
}

TEST(GearConstants, AReshapeTargetFromAShapeChainWorksAtEveryGear) {
  const std::string path = shape_chain_model(false).write((fs::temp_directory_path() / "svp_gear_chain.onnx").string());
  auto r = compile(gear_options(path));
  fs::remove(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  bool logged = false;
  for (const std::string& line : r->log) logged = logged || line.find("1 Reshape target(s)") != std::string::npos;
  EXPECT_TRUE(logged);
  const model::Program& p = r->model.program;
  const auto out = [](const model::Program& q) {
    return q.tensors[static_cast<std::size_t>(q.output_tensors().at(0))].dims;
  };
  EXPECT_EQ(out(p), (std::vector<std::int64_t>{1, 24}));
  // Each gear's program, derived by the runtime, has its own size (before: 24 elements
  // stored as the target failed at 2x3 and 4x3).
  for (auto [h, w] : {std::pair<std::uint64_t, std::uint64_t>{2, 3}, {4, 3}, {4, 6}}) {
    auto g = model::program_at_gear(p, r->model.weights.data(), r->model.weights.size(), h, w);
    ASSERT_TRUE(g.ok()) << h << "x" << w << ": " << g.status().message();
    EXPECT_EQ(out(*g), (std::vector<std::int64_t>{1, static_cast<std::int64_t>(h * w)}));
  }
}

TEST(GearConstants, ATargetWithTwoImageDependentEntriesIsRefusedWithTheNode) {
  const std::string path = shape_chain_model(true).write((fs::temp_directory_path() / "svp_gear_chain2.onnx").string());
  auto r = compile(gear_options(path));
  fs::remove(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), err::kFeatureUnsupported);
  EXPECT_NE(r.status().message().find("flatten_like"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("compile one model per size"), std::string::npos) << r.status().message();
}

TEST(GearConstants, ComparisonGearsDifferInHeightAndWidth) {
  EXPECT_EQ(comparison_gears({{48, 640}, {48, 320}, {48, 160}}),
            (std::vector<std::pair<std::int64_t, std::int64_t>>{{48, 320}}));
  EXPECT_EQ(comparison_gears({{64, 64}, {64, 32}, {32, 64}}),
            (std::vector<std::pair<std::int64_t, std::int64_t>>{{32, 64}, {64, 32}}));
  EXPECT_EQ(comparison_gears({{64, 64}, {32, 32}}), (std::vector<std::pair<std::int64_t, std::int64_t>>{{32, 32}}));
}

}  // namespace
}  // namespace svp::compiler
