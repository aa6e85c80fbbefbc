// A scalar-index Gather (x[:, 0]: a ViT class token, the last time step) between quantized
// layers: an int8 / A16W8 compile keeps the Gather's input encoding on its output, so the
// model executes and computes nearly what the float model computes (issue 29).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "compiler/compile.h"
#include "model_io.h"
#include "npy_io.h"
#include "onnx_builder.h"

namespace svp::compiler {
namespace {

namespace fs = std::filesystem;
using test::OnnxBuilder;

constexpr std::int64_t kTokens = 5, kDim = 8, kOut = 4;

class Int8Gather : public test::RuntimeTest {
 protected:
  void SetUp() override {
    test::RuntimeTest::SetUp();
    dir_ = fs::temp_directory_path() / ("svp_int8_gather_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                        "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    fs::remove_all(dir_);
    test::RuntimeTest::TearDown();
  }

  // x [1, T, D] → MatMul W1 [D, D] → Relu → Gather(axis 1, index 0) → [1, D] → MatMul W2 [D, 4] → y.
  std::string model() {
    OnnxBuilder b;
    b.input("x", {1, kTokens, kDim});
    b.initializer("w1", {kDim, kDim}, test::random_floats(kDim * kDim, 3));
    b.initializer("w2", {kDim, kOut}, test::random_floats(kDim * kOut, 4));
    auto* idx = b.model().mutable_graph()->add_initializer();
    idx->set_name("cls");
    idx->set_data_type(onnx::TensorProto::INT64);
    idx->add_int64_data(0);  // no dims: a scalar index, which drops the token axis
    b.node("MatMul", {"x", "w1"}, {"h"}, "/MatMul");
    b.node("Relu", {"h"}, {"r"}, "/Relu");
    auto& g = b.node("Gather", {"r", "cls"}, {"t"}, "/Gather");
    auto* axis = g.add_attribute();
    axis->set_name("axis");
    axis->set_type(onnx::AttributeProto::INT);
    axis->set_i(1);
    b.node("MatMul", {"t", "w2"}, {"y"}, "/MatMul_1");
    b.output("y", {1, kOut});
    return b.write((dir_ / "cls_token.onnx").string());
  }

  // The model compiled in `mode` ("float", "0" = A8W8, "1" = A16W8), run on `x`.
  std::vector<float> run(const std::string& mode, const std::vector<float>& x) {
    CompileOptions o;
    o.model = model();
    o.compile_mode = mode;
    if (mode != "float") {
      std::vector<std::vector<float>> items;
      for (unsigned k = 0; k < 8; ++k) items.push_back(test::random_floats(kTokens * kDim, 100 + k));
      o.image_list = "x:" + test::write_calibration_list(dir_.string(), {1, kTokens, kDim}, items);
    }
    auto compiled = compile(o);
    EXPECT_TRUE(compiled.ok()) << compiled.status().message();
    if (!compiled.ok()) return {};
    test::ModelRun r(compiled->model.image);
    r.set_input(0, x.data());
    EXPECT_EQ(r.execute(), SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
    return r.output<float>(0);
  }

  fs::path dir_;
};

double cosine(const std::vector<float>& a, const std::vector<float>& b) {
  double ab = 0, aa = 0, bb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ab += double(a[i]) * b[i];
    aa += double(a[i]) * a[i];
    bb += double(b[i]) * b[i];
  }
  return ab / std::sqrt(aa * bb);
}

TEST_F(Int8Gather, AScalarIndexGatherBetweenInt8LayersExecutesCloseToFloat) {
  ASSERT_EQ(svp_acl_rt_set_device(0), SVP_ACL_SUCCESS);
  const std::vector<float> x = test::random_floats(kTokens * kDim, 7);
  const std::vector<float> ref = run("float", x);
  for (const char* mode : {"0", "1"}) {
    SCOPED_TRACE(std::string("compile_mode ") + mode);
    const std::vector<float> y = run(mode, x);
    ASSERT_EQ(y.size(), ref.size());
    EXPECT_GT(cosine(y, ref), 0.995);
    double worst = 0, scale = 0;
    for (std::size_t i = 0; i < y.size(); ++i) {
      worst = std::max(worst, std::abs(double(y[i]) - ref[i]));
      scale = std::max(scale, std::abs(double(ref[i])));
    }
    EXPECT_LT(worst, 0.05 * scale) << "max |int - float| " << worst << " of max |float| " << scale;
  }
}

}  // namespace
}  // namespace svp::compiler
