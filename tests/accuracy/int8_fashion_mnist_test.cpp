// Int8 post-training quantization measured on labelled data: the Fashion-MNIST LeNet
// (models/lenet_fashion_mnist.onnx) compiled float and A8W8 (calibration: 32 training images,
// never the test set — the budget), both run through the C API on the 10,000 test images of Debian's
// dataset-fashion-mnist; top-1 accuracy against the labels. The int8 model must stay
// within 0.3 points of the float one for min-max, percentile and MSE calibration, and so
// must the A16W8 and CUBE-only modes (--compile_mode 1, 5, 6).
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "model_io.h"

namespace svp {
namespace {

namespace fs = std::filesystem;
const char* kDataset = "/usr/share/datasets/fashion-mnist";

// An idx file's payload after its header (`header` bytes).
std::vector<std::uint8_t> read_idx_gz(const std::string& path, std::size_t header) {
  std::vector<std::uint8_t> out;
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) return out;
  std::vector<std::uint8_t> buf(1 << 16);
  int n = 0;
  while ((n = gzread(f, buf.data(), static_cast<unsigned>(buf.size()))) > 0) out.insert(out.end(), buf.begin(), buf.begin() + n);
  gzclose(f);
  if (out.size() < header) return {};
  out.erase(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(header));
  return out;
}

class Int8FashionMnist : public test::RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    ASSERT_EQ(svp_acl_rt_set_device(0), SVP_ACL_SUCCESS);
    dir_ = fs::temp_directory_path() / ("svp_int8_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
    RuntimeTest::TearDown();
  }

  // Top-1 accuracy (%) of `image` on the test set.
  double accuracy(const std::vector<std::uint8_t>& image, const std::vector<std::uint8_t>& px,
                  const std::vector<std::uint8_t>& labels) {
    test::ModelRun run(image);
    std::size_t right = 0;
    std::vector<float> x(784);
    for (std::size_t i = 0; i < labels.size(); ++i) {
      for (std::size_t k = 0; k < 784; ++k) x[k] = px[i * 784 + k] / 255.0f;
      run.set_input(0, x.data());
      EXPECT_EQ(run.execute(), SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
      const std::vector<float> y = run.output<float>(0);
      std::size_t best = 0;
      for (std::size_t c = 1; c < y.size(); ++c) best = y[c] > y[best] ? c : best;
      right += best == labels[i] ? 1 : 0;
    }
    return 100.0 * static_cast<double>(right) / static_cast<double>(labels.size());
  }

  fs::path dir_;
};

TEST_F(Int8FashionMnist, QuantizedLeNetStaysWithinAThirdOfAPointOfFloatOnTheTestSet) {
  const auto test_px = read_idx_gz(std::string(kDataset) + "/t10k-images-idx3-ubyte.gz", 16);
  const auto test_labels = read_idx_gz(std::string(kDataset) + "/t10k-labels-idx1-ubyte.gz", 8);
  const auto train_px = read_idx_gz(std::string(kDataset) + "/train-images-idx3-ubyte.gz", 16);
  ASSERT_EQ(test_px.size(), 10000u * 784) << "install Debian's dataset-fashion-mnist (scripts/deps.sh)";
  ASSERT_EQ(test_labels.size(), 10000u);
  ASSERT_GE(train_px.size(), 32u * 784);
  // Calibration: the first 32 training images, one per line as the numbers themselves.
  const fs::path list = dir_ / "calibration.txt";
  {
    std::ofstream out(list);
    for (std::size_t i = 0; i < 32; ++i) {
      for (std::size_t k = 0; k < 784; ++k) out << (k ? " " : "") << train_px[i * 784 + k] / 255.0f;
      out << "\n";
    }
  }
  compiler::CompileOptions o;
  o.model = SVP_SOURCE_DIR "/models/lenet_fashion_mnist.onnx";
  o.compile_mode = "float";
  auto f = compiler::compile(o);
  ASSERT_TRUE(f.ok()) << f.status().message();
  const double float_acc = accuracy(f->model.image, test_px, test_labels);
  std::printf("float: %.2f %%\n", float_acc);
  EXPECT_NEAR(float_acc, 86.35, 0.05);  // PyTorch's figure for these weights

  o.compile_mode = "0";
  o.image_list = list.string();  // one input: the name may be left out
  // "quant_mode=1": the vendor's search mode — MSE clipping for activations and the weight
  // scale search (weight_search.h); the others are --calibration methods with max|w| weights.
  // Under the sanitizers only min-max: on CPUs without VNNI the int8 layers run the
  // reference kernels (docs/kernels.md), and five methods over 10,000 images then outlast
  // the test's 600 s under ThreadSanitizer; the normal build measures every method.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  const std::vector<const char*> methods = {"minmax"};
#else
  const std::vector<const char*> methods = {"minmax", "percentile", "entropy", "mse", "quant_mode=1"};
#endif
  for (const char* method : methods) {
    const bool search = std::string(method) == "quant_mode=1";
    o.calibration = search ? "" : method;
    o.quant_mode = search ? 1 : 0;
    auto q = compiler::compile(o);
    ASSERT_TRUE(q.ok()) << method << ": " << q.status().message();
    std::size_t int8_tensors = 0;
    for (const auto& t : q->model.program.tensors) {
      const bool q8 = t.dtype == model::DType::kInt8 || t.dtype == model::DType::kUint8;
      int8_tensors += q8 && !t.quant.empty() ? 1 : 0;
    }
    EXPECT_GT(int8_tensors, 8u) << method;
    const double acc = accuracy(q->model.image, test_px, test_labels);
    std::printf("A8W8 %-12s: %.2f %% (%zu int8 tensors)\n", method, acc, int8_tensors);
    if (std::string(method) == "entropy") {
      // Known: TensorRT's entropy method clips this small net's activations too hard
      // (measured 81.5 %; COMPILER.md §6 reports the same on YOLO). Bounded so that a
      // regression shows, not hidden; docs/quantization.md says to prefer the others.
      EXPECT_GE(acc, 80.0) << method;
    } else {
      EXPECT_GE(acc, float_acc - 0.3) << method;  // the target
    }
  }
  // The other modes (min-max): A16W8, and the CUBE ops quantized with fp16 elsewhere.
  // They run on the reference kernels (10,000 images: 4 minutes under ThreadSanitizer), so
  // the sanitizer builds leave them to the unit tests (QuantizeA16W8, QuantizeCubeOnly).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return;
#endif
  o.calibration = "minmax";
  o.quant_mode = 0;
  for (const char* mode : {"1", "5", "6"}) {
    o.compile_mode = mode;
    auto q = compiler::compile(o);
    ASSERT_TRUE(q.ok()) << mode << ": " << q.status().message();
    std::size_t int16_tensors = 0;
    for (const auto& t : q->model.program.tensors) int16_tensors += t.dtype == model::DType::kInt16 ? 1 : 0;
    EXPECT_EQ(int16_tensors > 0, std::string(mode) != "5") << mode;
    const double acc = accuracy(q->model.image, test_px, test_labels);
    std::printf("--compile_mode=%s: %.2f %% (%zu int16 tensors)\n", mode, acc, int16_tensors);
    EXPECT_GE(acc, float_acc - 0.3) << mode;
  }
}

}  // namespace
}  // namespace svp
