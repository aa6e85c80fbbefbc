// --input_type / --output_type through compile() and the C API: the application's input
// takes the requested type and the model converts it value for value.
#include <gtest/gtest.h>

#include <filesystem>
#include <numeric>

#include "compiler/compile.h"
#include "model_io.h"
#include "onnx_builder.h"

namespace svp::compiler {
namespace {

namespace fs = std::filesystem;
using model::DType;
using test::OnnxBuilder;

class IoTypes : public test::RuntimeTest {
 protected:
  // x [1, 2, 4] float → Mul by 0.5 → y.
  CompileOptions halve(const std::string& file) {
    OnnxBuilder b;
    b.input("x", {1, 2, 4});
    b.initializer("h", {1}, {0.5f});
    b.node("Mul", {"x", "h"}, {"y"}, "halve");
    b.output("y", {1, 2, 4});
    CompileOptions o;
    o.model = b.write((fs::temp_directory_path() / file).string());
    o.compile_mode = "float";
    paths_.push_back(o.model);
    return o;
  }
  void TearDown() override {
    for (const auto& p : paths_) fs::remove(p);
    test::RuntimeTest::TearDown();
  }
  std::vector<std::string> paths_;
};

TEST_F(IoTypes, AUint8InputKeepsItsNameAndIsConvertedValueForValue) {
  CompileOptions o = halve("svp_io_u8.onnx");
  o.input_type = {{"x", DType::kUint8}};
  auto r = compile(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const model::Program& p = r->model.program;
  const model::Tensor& in = p.tensors[static_cast<std::size_t>(p.input_tensors().at(0))];
  EXPECT_EQ(in.name, "x");
  EXPECT_EQ(in.dtype, DType::kUint8);
  EXPECT_EQ(p.layers.front().op, "Cast");

  ASSERT_EQ(svp_acl_rt_set_device(0), SVP_ACL_SUCCESS);
  test::ModelRun run(r->model.image);
  EXPECT_EQ(svp_acl_mdl_get_input_data_type(run.desc(), 0), SVP_ACL_UINT8);
  const std::vector<std::uint8_t> x = {0, 1, 2, 3, 100, 128, 254, 255};
  run.set_input(0, x.data());
  ASSERT_EQ(run.execute(), SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
  const std::vector<float> y = run.output<float>(0);
  ASSERT_EQ(y.size(), x.size());
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_EQ(y[i], x[i] * 0.5f) << i;
}

TEST_F(IoTypes, UnknownInputsAndNonFloatOutputTypesAreRefusedWithTheWayOut) {
  CompileOptions o = halve("svp_io_bad.onnx");
  o.input_type = {{"image", DType::kUint8}};
  auto unknown = compile(o);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), err::kInvalidParam);
  EXPECT_NE(unknown.status().message().find("(inputs: x)"), std::string::npos) << unknown.status().message();
  o.input_type.clear();
  o.output_type = {{"", DType::kUint8}};
  auto out = compile(o);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), err::kFeatureUnsupported);
  o.output_type = {{"", DType::kFloat32}};  // the float path's own type: accepted
  EXPECT_TRUE(compile(o).ok());
}

}  // namespace
}  // namespace svp::compiler
