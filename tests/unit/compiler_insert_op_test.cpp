// svp_atc --insert_op_conf: both vendor dialects parsed with protobuf's text format
// (golden files in tests/data/aipp), every kind of malformed file with its message and
// line:column, and compiled models run through the C API against the float model fed the
// preprocessed image (computed here with the documented formula, not with the pipeline).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "compiler/aipp/insert_op_convert.h"
#include "compiler/aipp/insert_op_parse.h"
#include "compiler/compile.h"
#include "compiler/om_json.h"
#include "model/aipp/model_config.h"
#include "test_support.h"

namespace {

namespace fs = std::filesystem;
namespace fmt_id = svp::aipp::fmt_id;
using svp::compiler::aipp_conf::convert_insert_op;
using svp::compiler::aipp_conf::Converted;
using svp::compiler::aipp_conf::ModelContext;
using svp::compiler::aipp_conf::ModelInput;
using svp::compiler::aipp_conf::parse_insert_op_conf;
using svp::compiler::aipp_conf::read_insert_op_conf;

std::string data(const std::string& name) { return std::string(SVP_SOURCE_DIR "/tests/data/aipp/") + name; }

ModelContext image_input(std::int64_t c, std::int64_t h, std::int64_t w) {
  ModelContext m;
  m.inputs.push_back(ModelInput{"image", {1, c, h, w}, svp::model::DType::kFloat32});
  return m;
}

svp::Result<Converted> convert_file(const std::string& name, const ModelContext& m) {
  auto cfg = read_insert_op_conf(data(name));
  if (!cfg.ok()) return cfg.status();
  return convert_insert_op(*cfg, m);
}

svp::Result<Converted> convert_text(const std::string& text, const ModelContext& m) {
  auto cfg = parse_insert_op_conf(text, "t.cfg");
  if (!cfg.ok()) return cfg.status();
  return convert_insert_op(*cfg, m);
}

svp::aipp::ModelAipp model_aipp(const Converted& c, std::size_t input = 0) {
  auto a = svp::aipp::parse_model_aipp(c.input_aipp.at(input));
  EXPECT_TRUE(a.ok()) << a.status().message();
  return a.ok() ? *a : svp::aipp::ModelAipp{};
}

void expect_error(const std::string& text, const ModelContext& m, int code, const std::string& needle) {
  auto r = convert_text(text, m);
  ASSERT_FALSE(r.ok()) << text;
  EXPECT_EQ(r.status().code(), code) << r.status().message();
  EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().message();
}

// ---- golden configurations ----

TEST(InsertOpConf, AscendStaticYuv420spCscBecomesTheRuntimesQ10Matrix) {
  auto r = convert_file("ascend_yuv420sp_csc.cfg", image_input(3, 224, 224));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const auto a = model_aipp(*r);
  ASSERT_EQ(a.mode, svp::aipp::ModelAipp::Mode::kStatic);
  const auto& p = a.params;
  EXPECT_EQ(p.format, fmt_id::kYuv420Sp);
  EXPECT_EQ(p.src_w, 224);
  EXPECT_EQ(p.src_h, 224);
  EXPECT_TRUE(p.csc);
  // Q8 → Q10: 256 → 1024, 359 → 1436, −88 → −352, −183 → −732, 454 → 1816.
  EXPECT_EQ(p.matrix, (std::array<std::int16_t, 9>{1024, 0, 1436, 1024, -352, -732, 1024, 1816, 0}));
  EXPECT_EQ(p.in_bias, (std::array<std::uint8_t, 3>{0, 128, 128}));
  EXPECT_FALSE(p.batches[0].crop);
  EXPECT_FLOAT_EQ(p.batches[0].var_reci[1], 0.00392157f);
  EXPECT_FLOAT_EQ(p.batches[0].var_reci[3], 1.0f);
}

TEST(InsertOpConf, AscendCropAndPaddingExample) {
  auto r = convert_file("ascend_crop_padding.cfg", image_input(3, 95, 85));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const auto a = model_aipp(*r);
  const auto& e = a.params.batches[0];
  EXPECT_TRUE(e.crop);
  EXPECT_EQ(e.crop_x, 10);
  EXPECT_EQ(e.crop_y, 20);
  EXPECT_EQ(e.crop_w, 50);
  EXPECT_EQ(e.crop_h, 60);
  EXPECT_EQ(e.padding, svp::aipp::Padding::kConstant);
  EXPECT_EQ(e.pad_left, 20);
  EXPECT_EQ(e.pad_right, 15);
  EXPECT_EQ(e.pad_top, 20);
  EXPECT_EQ(e.pad_bottom, 15);
  // The same file for a model of another size: the AIPP output would not fit it.
  auto wrong = convert_file("ascend_crop_padding.cfg", image_input(3, 224, 224));
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("ascend_crop_padding.cfg:3:1: aipp_op for input 0 (\"image\"): AIPP on "
                                          "input \"image\", batch 0: output 85x95"),
            std::string::npos)
      << wrong.status().message();
}

TEST(InsertOpConf, AscendModelzooRgb888WithCropOffIgnoresTheCropWindow) {
  auto r = convert_file("ascend_rgb888_min_var.cfg", image_input(3, 224, 224));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const auto a = model_aipp(*r);
  const auto& p = a.params;
  EXPECT_EQ(p.format, fmt_id::kRgb888);
  EXPECT_FALSE(p.csc);
  EXPECT_FALSE(p.batches[0].crop);
  EXPECT_FLOAT_EQ(p.batches[0].min[0], 123.675f);
  EXPECT_FLOAT_EQ(p.batches[0].min[2], 103.53f);
  EXPECT_FLOAT_EQ(p.batches[0].mean[0], 0.0f);
  EXPECT_FLOAT_EQ(p.batches[0].var_reci[0], 0.0171247538316637f);
}

TEST(InsertOpConf, AscendDynamicMaxSourceBytesStayABudgetDescribedAsModelWideRows) {
  auto r = convert_file("ascend_dynamic.cfg", image_input(3, 224, 224));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const auto a = model_aipp(*r);
  ASSERT_EQ(a.mode, svp::aipp::ModelAipp::Mode::kDynamic);
  EXPECT_EQ(a.max_src_bytes, 752640u);  // the limit: any source of at most these bytes
  // 752640 bytes = 2240 YUV420SP rows 224 wide (336 bytes per row of pixels).
  EXPECT_EQ(a.max_src_w, 224);
  EXPECT_EQ(a.max_src_h, 2240);
  EXPECT_EQ(a.initial_format, fmt_id::kYuv420Sp);
}

TEST(InsertOpConf, SvpRgbPlanarWithModelFormatRgb) {
  auto r = convert_file("svp_rgb_planar.cfg", image_input(3, 224, 224));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const auto a = model_aipp(*r);
  const auto& p = a.params;
  EXPECT_EQ(p.format, fmt_id::kRgbPlanar);
  EXPECT_FALSE(p.csc);
  EXPECT_FALSE(p.rbuv_swap);
  EXPECT_FLOAT_EQ(p.batches[0].mean[1], 116.28f);
  EXPECT_FLOAT_EQ(p.batches[0].var_reci[2], 0.0174291938997821f);
}

TEST(InsertOpConf, SvpYuvSourceForABgrModelGetsTheBt601BgrMatrix) {
  auto r = convert_file("svp_yuv420sp_bgr_aapp.cfg", image_input(3, 64, 64));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const auto a = model_aipp(*r);
  const auto& p = a.params;
  EXPECT_EQ(p.format, fmt_id::kYuv420Sp);
  EXPECT_TRUE(p.csc);
  EXPECT_EQ(p.matrix, (std::array<std::int16_t, 9>{1192, 2066, 0, 1192, -401, -832, 1192, 0, 1634}));
  EXPECT_EQ(p.in_bias, (std::array<std::uint8_t, 3>{16, 128, 128}));
  // An RGB source for a BGR model is an R/B swap instead.
  auto swap = convert_text("aipp_op { input_format: RGB_PACKAGE model_format: BGR }", image_input(3, 8, 8));
  ASSERT_TRUE(swap.ok()) << swap.status().message();
  EXPECT_TRUE(model_aipp(*swap).params.rbuv_swap);
  EXPECT_FALSE(model_aipp(*swap).params.csc);
}

// The vendor rule for max_src_image_size: each source fits the byte budget; it need not hold
// a source of the model input's size (the vendor sample: 622080 bytes, one 720x576 YUV420SP
// frame, for a 1920x1080 input). The runtime checks the real source at set_input_aipp.
TEST(InsertOpConf, AByteBudgetBelowTheModelInputSizeIsAcceptedAndKeptForTheRuntime) {
  auto r = convert_text("aipp_op { aipp_mode: dynamic max_src_image_size: 622080 }", image_input(3, 1080, 1920));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(model_aipp(*r).max_src_bytes, 622080u);
  EXPECT_EQ(model_aipp(*r).max_src_w, 1920);  // described as 1920x216 until set_input_aipp
  EXPECT_EQ(model_aipp(*r).max_src_h, 216);
  auto tiny = convert_text("aipp_op { aipp_mode: dynamic max_src_image_size: 90 }", image_input(3, 8, 8));
  ASSERT_TRUE(tiny.ok()) << tiny.status().message();
  EXPECT_EQ(model_aipp(*tiny).max_src_bytes, 90u);
}

TEST(InsertOpConf, BlocksGoToTheirInputsByRelatedInputRank) {
  ModelContext m = image_input(3, 8, 8);
  m.inputs.push_back(ModelInput{"gray", {1, 1, 4, 4}, svp::model::DType::kFloat32});
  m.inputs.push_back(ModelInput{"vec", {1, 10}, svp::model::DType::kFloat32});
  auto r = convert_text(
      "aipp_op { related_input_rank: 1 input_format: YUV400_U8 }\n"
      "aipp_op { related_input_rank: 0 aipp_mode: dynamic max_src_image_size_w: 16 max_src_image_size_h: 8 }\n",
      m);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(model_aipp(*r, 0).mode, svp::aipp::ModelAipp::Mode::kDynamic);
  EXPECT_EQ(model_aipp(*r, 0).max_src_w, 16);
  EXPECT_EQ(model_aipp(*r, 1).params.format, fmt_id::kYuv400);
  EXPECT_EQ(r->input_aipp[2], "");
}

// ---- malformed configurations ----

TEST(InsertOpConfErrors, SyntaxErrorsNameLineAndColumn) {
  const ModelContext m = image_input(3, 8, 8);
  expect_error("aipp_op {\n  input_format RGB888_U8\n}\n", m, svp::err::kParseFile,
               "t.cfg:2:16: Expected \":\", found \"RGB888_U8\"");
  expect_error("aipp_op {\n  aipp_mode: static\n  input_fromat: RGB888_U8\n}\n", m, svp::err::kParseFile,
               "t.cfg:3:3: Message type \"svp.atc.AippOpParams\" has no field named \"input_fromat\"");
  expect_error("aipp_op { input_format: NV12 }", m, svp::err::kParseFile,
               "t.cfg:1:25: Unknown enumeration value of \"NV12\" for field \"input_format\"");
  expect_error("aipp_op { aipp_mode: static\n", m, svp::err::kParseFile, "t.cfg:2:");
  expect_error("aipp_op { src_image_size_w: 12.5 }", m, svp::err::kParseFile, "t.cfg:1:29: ");
  expect_error("aipp_op { src_image_size_w: 99999999999 }", m, svp::err::kParseFile, "t.cfg:1:29: ");
}

TEST(InsertOpConfErrors, BadValuesNameTheFieldItsLocationAndTheFix) {
  const ModelContext rgb = image_input(3, 8, 8);
  expect_error("aipp_op {\n input_format: YUV420SP_U8\n csc_switch: true\n matrix_r0c0: 9000\n}", rgb,
               svp::err::kInvalidParam, "t.cfg:4:2: matrix_r0c0: 9000 is outside -8192..8191");
  expect_error("aipp_op { input_format: YUV420SP_U8 csc_switch: true }", rgb, svp::err::kInvalidParam,
               "t.cfg:1:37: csc_switch: true needs the matrix");
  expect_error("aipp_op { input_format: YUV420SP_U8 csc_switch: true matrix_r0c0: 256 input_bias_1: 300 }", rgb,
               svp::err::kInvalidParam, "t.cfg:1:71: input_bias_1: 300 is outside 0..255");
  expect_error("aipp_op { related_input_rank: 2 input_format: RGB888_U8 }", rgb, svp::err::kInvalidParam,
               "t.cfg:1:11: related_input_rank: 2 is not an input of this model, which has 1 input(s); use 0..0");
  expect_error("aipp_op { input_format: RGB888_U8 }\naipp_op { input_format: RGB888_U8 }", rgb,
               svp::err::kInvalidParam, "t.cfg:2:1: a second AIPP block for input 0 (\"image\"), the first is at t.cfg:1:1");
  expect_error("aipp_op { input_format: YUV400_U8 }", rgb, svp::err::kInvalidParam,
               "SVP_ACL_YUV400_U8 produces 1 channel(s), the model input has 3");
  expect_error("aipp_op { input_format: RGB888_U8 src_image_size_w: 16 src_image_size_h: 16 crop: true "
               "load_start_pos_w: 12 crop_size_w: 8 crop_size_h: 8 }",
               rgb, svp::err::kInvalidParam, "crop window at (12, 0) of 8x8 lies outside the 16x16 source image");
  expect_error("aipp_op { input_format: RGB888_U8 var_reci_chn_0: 0.5\n var_reci_chn_0: 0.25 }", rgb,
               svp::err::kInvalidParam, "t.cfg:1:35: var_reci_chn_0 is written 2 times");
  expect_error("aipp_op { input_format: YUV420SP model_format: RGB csc_switch: true }", rgb, svp::err::kInvalidParam,
               "t.cfg:1:34: model_format chooses the colour conversion");
  expect_error("aipp_op { input_format: RGB_PLANAR model_format: GRAY }", image_input(1, 8, 8),
               svp::err::kFeatureUnsupported, "model_format GRAY from the 3-channel");
  expect_error("aipp_op { input_format: RAW10 }", rgb, svp::err::kFeatureUnsupported,
               "t.cfg:1:11: input_format RAW10 is a vendor format svp-acl's AIPP does not read");
  expect_error("aipp_op { input_format: RGB888_U8 padding: true padding_value: 3 }", rgb, svp::err::kFeatureUnsupported,
               "padding_value: a padding value other than 0");
  expect_error("aipp_op { input_format: RGB888_U8 crop: true resize: true }", rgb, svp::err::kInvalidParam,
               "needs crop_size_w and crop_size_h");
  expect_error("aipp_op { aipp_mode: dynamic }", rgb, svp::err::kInvalidParam,
               "t.cfg:1:1: dynamic AIPP needs max_src_image_size");
  expect_error("aipp_op { aipp_mode: static }", rgb, svp::err::kInvalidParam, "static AIPP needs input_format");
  expect_error("multi_shape_op { mode: batch batch_list: 1 }", rgb, svp::err::kFeatureUnsupported,
               "t.cfg:1:1: multi_shape_op is not supported");
  expect_error("# nothing\n", rgb, svp::err::kInvalidParam, "t.cfg: no aipp_op block");
  ModelContext vec;
  vec.inputs.push_back(ModelInput{"v", {1, 10}, svp::model::DType::kFloat32});
  expect_error("aipp_op { input_format: RGB888_U8 }", vec, svp::err::kInvalidParam,
               "input 0 (\"v\") has dims [1, 10]: AIPP feeds an image input");
  ModelContext gears = rgb;
  gears.hw_gears = {{8, 8}, {4, 4}};
  expect_error("aipp_op { input_format: RGB888_U8 }", gears, svp::err::kInvalidParam,
               "static AIPP produces one image size, but --dynamic_image_size asks for several");
}

TEST(InsertOpConfErrors, UnreadableAndOversizedFiles) {
  auto missing = read_insert_op_conf("/nonexistent/insert_op.cfg");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), svp::err::kInvalidFile);
  auto big = parse_insert_op_conf(std::string(svp::compiler::aipp_conf::kMaxConfigBytes + 1, ' '), "big.cfg");
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), svp::err::kInvalidFileSize);
}

// Random bytes and mutated golden files never crash the reader (the libFuzzer target
// tests/fuzz/insert_op_conf_fuzz.cpp does this at scale).
TEST(InsertOpConfErrors, GarbageNeverCrashes) {
  std::mt19937 rng(17);
  std::ifstream in(data("ascend_yuv420sp_csc.cfg"));
  const std::string golden((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(golden.empty());
  int ok = 0;
  for (int i = 0; i < 300; ++i) {
    std::string t = golden;
    for (int k = 0; k < 3; ++k) t[rng() % t.size()] = static_cast<char>(rng() % 128);
    ok += convert_text(t, image_input(3, 224, 224)).ok() ? 1 : 0;
  }
  EXPECT_LT(ok, 300);  // most mutations break something, and each failure was a Status
}

// ---- compiled models through the C API ----

class InsertOpCompileTest : public svp::test::RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  }
  void TearDown() override {
    EXPECT_ACL_OK(svp_acl_rt_reset_device(0));
    RuntimeTest::TearDown();
  }

  // LeNet (1x1x28x28 "image") compiled with `cfg` ("" = none).
  svp::compiler::BuiltModel compile_lenet(const std::string& cfg, std::vector<std::string>* log = nullptr,
                                          const std::string& image_list = "") {
    svp::compiler::CompileOptions o;
    o.model = SVP_SOURCE_DIR "/models/lenet_fashion_mnist.onnx";
    o.compile_mode = image_list.empty() ? "float" : "0";
    o.image_list = image_list;
    o.output = "lenet";
    std::string path;
    if (!cfg.empty()) {
      path = (fs::temp_directory_path() / ("svp_insert_op_" + std::to_string(::getpid()) + ".cfg")).string();
      std::ofstream(path) << cfg;
      o.insert_op_conf = path;
    }
    auto r = svp::compiler::compile(o);
    if (!path.empty()) fs::remove(path);
    EXPECT_TRUE(r.ok()) << r.status().message();
    if (!r.ok()) return {};
    if (log) *log = r->log;
    return std::move(r->model);
  }
};

// One model loaded with a dataset of one buffer per input at its reported size.
struct Loaded {
  explicit Loaded(const svp::compiler::BuiltModel& m) {
    EXPECT_EQ(svp_acl_mdl_load_from_mem(m.image.data(), m.image.size(), &id), SVP_ACL_SUCCESS)
        << svp_acl_get_recent_err_msg();
    desc = svp_acl_mdl_create_desc();
    EXPECT_EQ(svp_acl_mdl_get_desc(desc, id), SVP_ACL_SUCCESS);
    in = svp_acl_mdl_create_dataset();
    out = svp_acl_mdl_create_dataset();
    for (size_t i = 0; i < svp_acl_mdl_get_num_inputs(desc); ++i) {
      add(in, svp_acl_mdl_get_input_size_by_index(desc, i), svp_acl_mdl_get_input_default_stride(desc, i));
    }
    add(out, svp_acl_mdl_get_output_size_by_index(desc, 0), svp_acl_mdl_get_output_default_stride(desc, 0));
  }
  ~Loaded() {
    for (auto* b : bufs) svp_acl_destroy_data_buffer(b);
    for (void* p : mem) svp_acl_rt_free(p);
    svp_acl_mdl_destroy_dataset(in);
    svp_acl_mdl_destroy_dataset(out);
    svp_acl_mdl_destroy_desc(desc);
    svp_acl_mdl_unload(id);
  }
  void add(svp_acl_mdl_dataset* d, size_t size, size_t stride) {
    void* p = nullptr;
    EXPECT_EQ(svp_acl_rt_malloc(&p, size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY), SVP_ACL_SUCCESS);
    std::memset(p, 0, size);
    mem.push_back(p);
    bufs.push_back(svp_acl_create_data_buffer(p, size, stride));
    EXPECT_EQ(svp_acl_mdl_add_dataset_buffer(d, bufs.back()), SVP_ACL_SUCCESS);
  }
  svp_acl_data_buffer* buffer(size_t i) { return svp_acl_mdl_get_dataset_buffer(in, i); }
  std::vector<float> run() {
    EXPECT_EQ(svp_acl_mdl_execute(id, in, out), SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
    const auto* b = svp_acl_mdl_get_dataset_buffer(out, 0);
    const auto* p = static_cast<const float*>(svp_acl_get_data_buffer_addr(b));
    return std::vector<float>(p, p + 10);
  }
  uint32_t id = 0;
  svp_acl_mdl_desc* desc = nullptr;
  svp_acl_mdl_dataset* in = nullptr;
  svp_acl_mdl_dataset* out = nullptr;
  std::vector<void*> mem;
  std::vector<svp_acl_data_buffer*> bufs;
};

// A 28x28 gray "garment": a bright blob on a dark background with noise.
std::vector<std::uint8_t> gray_image(unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> img(28 * 28);
  for (int y = 0; y < 28; ++y)
    for (int x = 0; x < 28; ++x) {
      const int d = (x - 14) * (x - 14) + (y - 12) * (y - 12);
      img[static_cast<std::size_t>(y * 28 + x)] = static_cast<std::uint8_t>(std::min(255, (d < 80 ? 200 : 20) + static_cast<int>(rng() % 40)));
    }
  return img;
}

// Writes 28 rows of 28 bytes at the buffer's stride.
void write_rows(svp_acl_data_buffer* b, const std::vector<std::uint8_t>& img) {
  const size_t stride = svp_acl_get_data_buffer_stride(b);
  ASSERT_GE(stride, 28u);
  ASSERT_GE(svp_acl_get_data_buffer_size(b), 27 * stride + 28);
  auto* p = static_cast<std::uint8_t*>(svp_acl_get_data_buffer_addr(b));
  for (size_t y = 0; y < 28; ++y) std::memcpy(p + y * stride, img.data() + y * 28, 28);
}

// The float model's input for `img` under DTC (docs/aipp.md §2.2 step 6).
std::vector<float> dtc(const std::vector<std::uint8_t>& img, float mean, float min, float var_reci) {
  std::vector<float> x(img.size());
  for (size_t i = 0; i < img.size(); ++i) x[i] = ((static_cast<float>(img[i]) - mean) - min) * var_reci;
  return x;
}

std::vector<float> run_plain(const svp::compiler::BuiltModel& plain, const std::vector<float>& x) {
  Loaded l(plain);
  auto* b = l.buffer(0);
  EXPECT_EQ(svp_acl_get_data_buffer_size(b), x.size() * sizeof(float));
  std::memcpy(svp_acl_get_data_buffer_addr(b), x.data(), x.size() * sizeof(float));
  return l.run();
}

TEST_F(InsertOpCompileTest, StaticAippModelsOfBothDialectsEqualTheFloatModelOnThePreprocessedImage) {
  const auto plain = compile_lenet("");
  const std::string ascend =
      "aipp_op {\n  aipp_mode: static\n  input_format: YUV400_U8\n  mean_chn_0: 72.5\n  min_chn_0: 0.5\n"
      "  var_reci_chn_0: 0.0125\n}\n";
  const std::string svp =
      "aipp_op {\nrelated_input_rank : 0\ninput_format : YUV400\nmodel_format : GRAY\naipp_mode: static\n"
      "mean_chn_0 : 73\nvar_reci_chn_0: 0.0125\n}\n";
  for (const auto& [cfg, mean, min] : {std::tuple{ascend, 72.5f, 0.5f}, std::tuple{svp, 73.0f, 0.0f}}) {
    std::vector<std::string> log;
    const auto m = compile_lenet(cfg, &log);
    bool logged = false;
    for (const auto& line : log) logged = logged || line.find("aipp: input 0 (\"image\"): static") != std::string::npos;
    EXPECT_TRUE(logged);
    // --mode=1's JSON shows the input's AIPP.
    const auto j = svp::compiler::om_json(m.program, m.weights.size());
    EXPECT_EQ(j["ops"][0]["input_desc"][0]["aipp"]["aipp_mode"], "static");
    EXPECT_EQ(j["ops"][0]["input_desc"][0]["aipp"]["input_format"], "YUV400_U8");
    Loaded l(m);
    // The compiled input is the raw source: a uint8 28x28 gray image with static AIPP.
    EXPECT_EQ(svp_acl_mdl_get_input_data_type(l.desc, 0), SVP_ACL_UINT8);
    svp_acl_mdl_io_dims dims;
    ASSERT_ACL_OK(svp_acl_mdl_get_input_dims(l.desc, 0, &dims));
    EXPECT_EQ(std::vector<int64_t>(dims.dims, dims.dims + dims.dim_count), (std::vector<int64_t>{1, 1, 28, 28}));
    svp_acl_mdl_aipp_type type;
    size_t attached = 0;
    ASSERT_ACL_OK(svp_acl_mdl_get_input_aipp_type(l.id, 0, &type, &attached));
    EXPECT_EQ(type, SVP_ACL_DATA_WITH_STATIC_AIPP);
    for (unsigned seed : {1u, 2u}) {
      const auto img = gray_image(seed);
      write_rows(l.buffer(0), img);
      const auto got = l.run();
      EXPECT_EQ(got, run_plain(plain, dtc(img, mean, min, 0.0125f))) << seed;
      // And the preprocessing mattered: the raw pixels give another answer.
      EXPECT_NE(got, run_plain(plain, dtc(img, 0, 0, 1))) << seed;
    }
  }
}

TEST_F(InsertOpCompileTest, Int8ModelWithStaticAippEqualsTheInt8ModelOnThePreprocessedImage) {
  // Calibration items are first-layer tensors (preprocessed images), for both models.
  const std::string list = (fs::temp_directory_path() / ("svp_insert_op_cal_" + std::to_string(::getpid()) + ".txt")).string();
  {
    std::ofstream out(list);
    for (unsigned seed : {11u, 12u, 13u, 14u}) {
      const auto x = dtc(gray_image(seed), 72.5f, 0.0f, 0.0125f);
      for (std::size_t i = 0; i < x.size(); ++i) out << (i ? " " : "") << x[i];
      out << "\n";
    }
  }
  const auto plain = compile_lenet("", nullptr, "image:" + list);
  const auto m = compile_lenet("aipp_op { input_format: YUV400_U8 mean_chn_0: 72.5 var_reci_chn_0: 0.0125 }", nullptr,
                               "image:" + list);
  fs::remove(list);
  Loaded l(m);
  for (unsigned seed : {5u, 6u}) {
    const auto img = gray_image(seed);
    write_rows(l.buffer(0), img);
    EXPECT_EQ(l.run(), run_plain(plain, dtc(img, 72.5f, 0.0f, 0.0125f))) << seed;
  }
}

TEST_F(InsertOpCompileTest, DynamicAippModelAcceptsSetInputAippAndRuns) {
  const auto plain = compile_lenet("");
  // 3136 bytes = four 28x28 YUV400 images: any source of at most 3136 bytes, described as
  // 28 wide and 112 high until set_input_aipp.
  const auto m = compile_lenet("aipp_op { aipp_mode: dynamic related_input_rank: 0 max_src_image_size: 3136 }");
  Loaded l(m);
  ASSERT_EQ(svp_acl_mdl_get_num_inputs(l.desc), 4u);  // image, its parameters, task_buf, work_buf
  svp_acl_mdl_aipp_type type;
  size_t attached = 0;
  ASSERT_ACL_OK(svp_acl_mdl_get_input_aipp_type(l.id, 0, &type, &attached));
  ASSERT_EQ(type, SVP_ACL_DATA_WITH_DYNAMIC_AIPP);
  svp_acl_mdl_io_dims dims;
  ASSERT_ACL_OK(svp_acl_mdl_get_input_dims(l.desc, 0, &dims));
  EXPECT_EQ(std::vector<int64_t>(dims.dims, dims.dims + dims.dim_count), (std::vector<int64_t>{1, 1, 112, 28}));

  svp_acl_mdl_aipp* a = svp_acl_mdl_create_aipp(1);
  ASSERT_ACL_OK(svp_acl_mdl_set_aipp_input_format(a, SVP_ACL_YUV400_U8));
  ASSERT_ACL_OK(svp_acl_mdl_set_aipp_src_image_size(a, 28, 28));
  ASSERT_ACL_OK(svp_acl_mdl_set_aipp_dtc_pixel_mean(a, 100, 0, 0, 0, 0));
  ASSERT_ACL_OK(svp_acl_mdl_set_aipp_pixel_var_reci(a, 0.02f, 1, 1, 1, 0));
  ASSERT_ACL_OK(svp_acl_mdl_set_input_aipp(l.id, l.in, attached, a));
  ASSERT_ACL_OK(svp_acl_mdl_destroy_aipp(a));
  // The vendor sample's order: re-query size and stride, update the buffer.
  const size_t size = svp_acl_mdl_get_input_size_by_index(l.desc, 0);
  const size_t stride = svp_acl_mdl_get_input_default_stride(l.desc, 0);
  ASSERT_LE(size, svp_acl_get_data_buffer_size(l.buffer(0)));
  ASSERT_ACL_OK(svp_acl_update_data_buffer(l.buffer(0), svp_acl_get_data_buffer_addr(l.buffer(0)), size, stride));
  const auto img = gray_image(3);
  write_rows(l.buffer(0), img);
  EXPECT_EQ(l.run(), run_plain(plain, dtc(img, 100, 0, 0.02f)));
}

TEST_F(InsertOpCompileTest, ConfigurationErrorsStopTheCompilation) {
  svp::compiler::CompileOptions o;
  o.model = SVP_SOURCE_DIR "/models/lenet_fashion_mnist.onnx";
  o.compile_mode = "float";
  o.insert_op_conf = data("svp_rgb_planar.cfg");  // 3 channels for a gray model
  auto r = svp::compiler::compile(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), svp::err::kInvalidParam);
  EXPECT_NE(r.status().message().find("svp_rgb_planar.cfg:1:1: aipp_op for input 0 (\"image\")"), std::string::npos)
      << r.status().message();
}

}  // namespace
