// svp_atc --accuracy_report's model-output figures (compiler/quantize/output_accuracy.h):
// the predicted output cosine is what the compiled .om gives when the runtime executes it,
// and the input sensitivity tells a model that amplifies the rounding of its input from
// a smooth one.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "acl_execute.h"
#include "compiler/compile.h"
#include "model_io.h"
#include "npy_io.h"
#include "onnx_builder.h"
#include "test_support.h"

namespace svp {
namespace {

namespace fs = std::filesystem;

const std::vector<std::int64_t> kShape = {1, 3, 16, 16};
constexpr std::size_t kElements = 3 * 16 * 16;

void attr_int(onnx::NodeProto& n, const std::string& name, std::int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

// x → Conv 3→8 → HardSwish → depthwise Conv → Sigmoid → Conv 1×1 8→2 → y: PP-OCR det's
// kinds of layers, with an output of both signs (a cosine of all-positive values hides
// errors).
std::string mobile_block(const std::string& dir) {
  test::OnnxBuilder b(14);  // HardSwish
  b.input("x", kShape).output("y", {1, 2, 16, 16});
  b.initializer("w1", {8, 3, 3, 3}, test::random_floats(8 * 27, 1, -0.5f, 0.5f));
  b.initializer("w2", {8, 1, 3, 3}, test::random_floats(8 * 9, 2, -0.8f, 0.8f));
  b.initializer("w3", {2, 8, 1, 1}, test::random_floats(16, 3, -1.0f, 1.0f));
  auto& c1 = b.node("Conv", {"x", "w1"}, {"c1"}, "conv1");
  test::OnnxBuilder::attr_ints(c1, "pads", {1, 1, 1, 1});
  b.node("HardSwish", {"c1"}, {"h"}, "hardswish");
  auto& dw = b.node("Conv", {"h", "w2"}, {"d"}, "depthwise");
  test::OnnxBuilder::attr_ints(dw, "pads", {1, 1, 1, 1});
  attr_int(dw, "group", 8);
  b.node("Sigmoid", {"d"}, {"s"}, "sigmoid");
  b.node("Conv", {"s", "w3"}, {"y"}, "head");
  return b.write(dir + "/mobile_block.onnx");
}

// A 3×3 filter (no padding) over a smooth input ramp: `difference` takes neighbouring
// pixels apart (the ramp's small slope, which input rounding to 8 bits disturbs), the
// other averages them.
std::string filter_model(const std::string& dir, bool difference) {
  test::OnnxBuilder b(13);
  b.input("x", kShape).output("y", {1, 1, 14, 14});
  std::vector<float> w(27, 1.0f / 27);
  if (difference) {
    for (int c = 0; c < 3; ++c) {
      std::fill(w.begin() + c * 9, w.begin() + c * 9 + 9, 0.0f);
      w[static_cast<std::size_t>(c * 9 + 3)] = -1.0f;  // left neighbour
      w[static_cast<std::size_t>(c * 9 + 5)] = 1.0f;   // right neighbour
    }
  }
  b.initializer("w", {1, 3, 3, 3}, w);
  b.node("Conv", {"x", "w"}, {"y"}, "filter");
  return b.write(dir + (difference ? "/difference.onnx" : "/average.onnx"));
}

class AccuracyPrediction : public test::RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    ASSERT_EQ(svp_acl_rt_set_device(0), SVP_ACL_SUCCESS);
    dir_ = (fs::temp_directory_path() / ("svp_accuracy_prediction_" + std::to_string(::getpid()))).string();
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
    EXPECT_EQ(svp_acl_rt_reset_device(0), SVP_ACL_SUCCESS);
    RuntimeTest::TearDown();
  }

  Result<compiler::CompileResult> compile(const std::string& onnx, const std::string& mode,
                                          const std::vector<std::vector<float>>& items) {
    compiler::CompileOptions o;
    o.model = onnx;
    o.compile_mode = mode;
    if (mode != "float") {
      o.image_list = "x:" + test::write_calibration_list(dir_, kShape, items);
      o.accuracy_report = true;
    }
    return compiler::compile(o);
  }

  std::string dir_;
};

// Uniform in [-1, 1] with one outlier of 300 per input: the input's int8 step (~1.2) is
// coarse against the bulk of the values, so the int8 output is clearly off (a prediction
// of 1 would miss it by more than the tolerance).
std::vector<std::vector<float>> random_items(unsigned seed) {
  std::vector<std::vector<float>> items;
  for (unsigned k = 0; k < 4; ++k) {
    items.push_back(test::random_floats(kElements, seed + k, -1.0f, 1.0f));
    items.back()[37 * k] = 300.0f;
  }
  return items;
}

TEST_F(AccuracyPrediction, ThePredictedOutputCosineIsTheExecutedModels) {
  const std::string onnx = mobile_block(dir_);
  const auto items = random_items(20);
  auto int8 = compile(onnx, "0", items);
  ASSERT_TRUE(int8.ok()) << int8.status().message();
  auto fp32 = compile(onnx, "float", items);
  ASSERT_TRUE(fp32.ok()) << fp32.status().message();
  ASSERT_EQ(int8->output_accuracy.size(), 1u);
  EXPECT_EQ(int8->output_accuracy[0].name, "y");
  const double predicted = int8->output_accuracy[0].predicted_cosine;
  const double executed =
      test::cosine_over_all(test::execute_first_output(fp32->model, items), test::execute_first_output(int8->model, items));
  EXPECT_NEAR(predicted, executed, 0.005);
  std::printf("predicted output cosine %.5f, executed %.5f\n", predicted, executed);
  // A loss the figure has to get right, not a cosine of 1 on both sides.
  EXPECT_LT(executed, 0.99);
  EXPECT_GT(executed, 0.5);
  bool logged = false;
  for (const std::string& line : int8->log) logged = logged || line.find("predicted output cosine") != std::string::npos;
  EXPECT_TRUE(logged);
  EXPECT_NE(int8->layer_accuracy_html.find("predicted output cosine"), std::string::npos);
}

// A smooth ramp (x = 0.2·channel + 0.0005·column + 0.0007·row, range [0, 0.43]): its
// int8 rounding (one LSB ≈ 0.0017) is comparable to the difference of neighbouring pixels
// (0.003 over the three channels), small against their average (~0.2).
TEST_F(AccuracyPrediction, InputSensitivityIsLowForAModelThatAmplifiesInputRounding) {
  std::vector<std::vector<float>> items;
  for (unsigned k = 0; k < 4; ++k) {
    std::vector<float> x(kElements);
    for (std::size_t i = 0; i < kElements; ++i) {
      x[i] = 0.2f * static_cast<float>(i / 256) + 0.0005f * static_cast<float>(i % 16) +
             0.0007f * static_cast<float>(i / 16 % 16) + 0.003f * static_cast<float>(k);
    }
    items.push_back(std::move(x));
  }
  auto sharp = compile(filter_model(dir_, true), "0", items);
  ASSERT_TRUE(sharp.ok()) << sharp.status().message();
  auto smooth = compile(filter_model(dir_, false), "0", items);
  ASSERT_TRUE(smooth.ok()) << smooth.status().message();
  ASSERT_EQ(sharp->output_accuracy.size(), 1u);
  ASSERT_EQ(smooth->output_accuracy.size(), 1u);
  EXPECT_LT(sharp->output_accuracy[0].input_sensitivity, 0.99);
  EXPECT_GT(smooth->output_accuracy[0].input_sensitivity, 0.9999);
  // The int8 model is limited by the rounding of its own input too (its output encoding,
  // clipped at the calibrated maximum, hides part of that error: 0.975 against 0.955).
  EXPECT_LT(sharp->output_accuracy[0].predicted_cosine, 0.99);
  bool logged = false;
  for (const std::string& line : sharp->log) logged = logged || line.find("input sensitivity 0.") != std::string::npos;
  EXPECT_TRUE(logged);
  std::printf("difference: predicted %.4f, input sensitivity %.4f; average: predicted %.4f, input sensitivity %.4f\n",
              sharp->output_accuracy[0].predicted_cosine, sharp->output_accuracy[0].input_sensitivity,
              smooth->output_accuracy[0].predicted_cosine, smooth->output_accuracy[0].input_sensitivity);
}

}  // namespace
}  // namespace svp
