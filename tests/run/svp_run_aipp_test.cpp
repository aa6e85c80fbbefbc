// svp_run on models with AIPP inputs (docs/svp_run.md "Models with AIPP"): the input file
// is the raw source image, sized by the AIPP source format and size — static AIPP from the
// model, dynamic AIPP from ais_bench's --aipp_config file. Outputs are checked against the
// frame's pixels placed by hand (CSC off, so the model sees Y, U, V per pixel).
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/builder.h"
#include "svp_run/runner.h"

namespace {

namespace fs = std::filesystem;
using svp::aipp::AippParams;
using svp::compiler::DType;
using svp::compiler::ModelBuilder;
using svp::compiler::TensorId;
using svp::run::RunOptions;
namespace fid = svp::aipp::fmt_id;

struct Outcome {
  int code;
  std::string out, err;
};

std::vector<float> read_floats(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::vector<char> b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<float> v(b.size() / 4);
  std::memcpy(v.data(), b.data(), v.size() * 4);
  return v;
}

// An NV12 frame w x h: Y rows, then h/2 rows of interleaved U, V; every byte distinct enough
// to catch a misplaced row or column.
std::vector<std::uint8_t> nv12(int w, int h) {
  std::vector<std::uint8_t> f(static_cast<std::size_t>(w * h * 3 / 2));
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) f[static_cast<std::size_t>(y * w + x)] = static_cast<std::uint8_t>((y * 7 + x * 3) % 200 + 1);
  }
  for (int r = 0; r < h / 2; ++r) {
    for (int x = 0; x < w; ++x) {
      f[static_cast<std::size_t>((h + r) * w + x)] = static_cast<std::uint8_t>(x % 2 ? 210 + r + x / 2 % 5 : 100 + r * 3 + x / 2);
    }
  }
  return f;
}

// What a Relu after AIPP with CSC off gives for the out_w x out_h window at (x0, y0) of an
// NV12 frame w wide, h high: planes Y, U, V, chroma shared by 2x2 pixels.
std::vector<float> nv12_planes(const std::vector<std::uint8_t>& f, int w, int h, int x0, int y0, int out_w, int out_h) {
  std::vector<float> v(static_cast<std::size_t>(3 * out_w * out_h));
  for (int y = 0; y < out_h; ++y) {
    for (int x = 0; x < out_w; ++x) {
      const int sy = y0 + y, sx = x0 + x;
      const std::size_t uv = static_cast<std::size_t>((h + sy / 2) * w + (sx & ~1));
      const std::size_t at = static_cast<std::size_t>(y * out_w + x);
      v[at] = f[static_cast<std::size_t>(sy * w + sx)];
      v[static_cast<std::size_t>(out_w * out_h) + at] = f[uv];
      v[static_cast<std::size_t>(2 * out_w * out_h) + at] = f[uv + 1];
    }
  }
  return v;
}

class SvpRunAipp : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    dir_ = fs::temp_directory_path() / ("svp_run_aipp_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // img [1, 3, h, w] float32 with `aipp` (JSON) → Relu → y.
  std::string model(std::int64_t h, std::int64_t w, const std::string& aipp) {
    ModelBuilder b("aipp_relu");
    const TensorId x = b.add_input("img", DType::kFloat32, {1, 3, h, w});
    b.set_aipp(x, aipp);
    b.add_output(b.add_layer("relu", "Relu", {x}), "y");
    auto m = b.build();
    EXPECT_TRUE(m.ok()) << m.status().message();
    const fs::path p = dir_ / "aipp.om";
    write(p, m.value().image);
    return p.string();
  }
  // Static NV12 w x h in, CSC off: the model sees Y, U, V.
  std::string static_model(std::int32_t format, int w, int h) {
    AippParams p;
    p.format_set = p.src_size_set = true;
    p.format = format;
    p.src_w = w;
    p.src_h = h;
    return model(h, w, svp::aipp::static_aipp_json(p));
  }
  static void write(const fs::path& p, const std::vector<std::uint8_t>& bytes) {
    std::ofstream f(p, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  Outcome run(const std::string& model, const std::vector<std::string>& inputs, const std::string& aipp_config = "") {
    RunOptions o;
    o.model = model;
    o.inputs = inputs;
    o.aipp_config = aipp_config;
    o.output = (dir_ / "out").string();
    o.output_dirname = "r";
    o.warmup_count = 0;
    std::ostringstream out, err;
    const int code = svp::run::run(o, out, err);
    return {code, out.str(), err.str()};
  }
  fs::path result(const std::string& name) const { return dir_ / "out" / "r" / name; }
  std::string config(const std::string& text) {
    const fs::path p = dir_ / "actual_aipp_conf.config";
    std::ofstream(p) << text;
    return p.string();
  }

  fs::path dir_;
};

TEST_F(SvpRunAipp, AStaticYuv420spModelTakesARealSizeNv12Frame) {
  const std::string om = static_model(fid::kYuv420Sp, 16, 8);
  const std::vector<std::uint8_t> frame = nv12(16, 8);  // 192 bytes: 16 x 8 x 1.5
  write(dir_ / "frame.yuv", frame);
  const Outcome r = run(om, {(dir_ / "frame.yuv").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_floats(result("frame_0.bin")), nv12_planes(frame, 16, 8, 0, 0, 16, 8));
}

TEST_F(SvpRunAipp, AFrameOfTheTensorsSizeIsRefusedNamingTheFormatAndBothSizes) {
  const std::string om = static_model(fid::kYuv420Sp, 16, 8);
  // 3 x H rows of W bytes: what the model tensor's dims [1,3,8,16] would ask for.
  write(dir_ / "frame.yuv", std::vector<std::uint8_t>(384, 7));
  const Outcome r = run(om, {(dir_ / "frame.yuv").string()});
  EXPECT_EQ(r.code, svp::run::kExitBadInput);
  EXPECT_NE(r.err.find("has 384 bytes"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("needs 192 bytes"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("16x8 YUV420SP_U8 (W x H x 1.5 = 192 bytes)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("static AIPP"), std::string::npos) << r.err;
}

TEST_F(SvpRunAipp, ZeroDataOnAStaticYuvModelStaysInsideItsBuffer) {
  const std::string om = static_model(fid::kYuv420Sp, 16, 8);
  const Outcome r = run(om, {});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_floats(result("pure_infer_data_0.bin")), std::vector<float>(3 * 8 * 16, 0.0f));
}

TEST_F(SvpRunAipp, DynamicBatchTakesOneFramePerBatchImage) {
  AippParams p;
  p.format_set = p.src_size_set = true;
  p.format = fid::kYuv420Sp;
  p.src_w = 16;
  p.src_h = 8;
  ModelBuilder b("aipp_batch");
  const TensorId x = b.add_input("img", DType::kFloat32, {1, 3, 8, 16});
  b.set_static_aipp(x, p);
  b.set_dynamic_batch({2});  // at most 2 images per execution
  b.add_output(b.add_layer("relu", "Relu", {x}), "y");
  auto m = b.build();
  ASSERT_TRUE(m.ok()) << m.status().message();
  write(dir_ / "batch.om", m.value().image);
  std::vector<std::uint8_t> two = nv12(16, 8), second = nv12(16, 8);
  for (std::uint8_t& v : second) v = static_cast<std::uint8_t>(255 - v);
  two.insert(two.end(), second.begin(), second.end());
  write(dir_ / "two.yuv", two);
  RunOptions o;
  o.model = (dir_ / "batch.om").string();
  o.inputs = {(dir_ / "two.yuv").string()};
  o.dym_batch = 2;
  o.output = (dir_ / "out").string();
  o.output_dirname = "r";
  std::ostringstream out, err;
  ASSERT_EQ(svp::run::run(o, out, err), 0) << err.str();
  std::vector<float> want = nv12_planes(nv12(16, 8), 16, 8, 0, 0, 16, 8);
  const std::vector<float> want2 = nv12_planes(second, 16, 8, 0, 0, 16, 8);
  want.insert(want.end(), want2.begin(), want2.end());
  EXPECT_EQ(read_floats(result("two_0.bin")), want);
}

TEST_F(SvpRunAipp, AnRgb888ModelTakesTheWholePackedImage) {
  const std::string om = static_model(fid::kRgb888, 8, 4);
  std::vector<std::uint8_t> image(8 * 4 * 3);  // 96 bytes: three per pixel
  for (std::size_t k = 0; k < image.size(); ++k) image[k] = static_cast<std::uint8_t>(k + 1);
  write(dir_ / "image.rgb", image);
  const Outcome r = run(om, {(dir_ / "image.rgb").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<float> want(image.size());
  for (std::size_t c = 0; c < 3; ++c) {
    for (std::size_t px = 0; px < 32; ++px) want[c * 32 + px] = image[px * 3 + c];
  }
  EXPECT_EQ(read_floats(result("image_0.bin")), want);
  // A third of the image (the tensor's [1,3,4,8] uint8 read as one byte per element) is refused.
  write(dir_ / "third.rgb", std::vector<std::uint8_t>(image.begin(), image.begin() + 32));
  const Outcome third = run(om, {(dir_ / "third.rgb").string()});
  EXPECT_EQ(third.code, svp::run::kExitBadInput);
  EXPECT_NE(third.err.find("8x4 RGB888_U8 (W x H x 3 = 96 bytes)"), std::string::npos) << third.err;
}

TEST_F(SvpRunAipp, ADynamicAippModelTakesItsParametersFromAnAisBenchAippConfig) {
  const std::string om = model(8, 16, svp::aipp::dynamic_aipp_json(32, 32));
  const std::vector<std::uint8_t> frame = nv12(20, 12);  // 360 bytes
  write(dir_ / "frame.yuv", frame);
  const std::string cfg = config(
      "[aipp_op]\n"
      "    input_format : YUV420SP_U8\n"
      "    src_image_size_w : 20\n"
      "    src_image_size_h : 12\n"
      "    # the 16x8 window at (2, 2)\n"
      "    crop : 1\n"
      "    load_start_pos_w : 2\n"
      "    load_start_pos_h : 2\n"
      "    crop_size_w : 16\n"
      "    crop_size_h : 8\n"
      "    csc_switch : 0\n");
  const Outcome r = run(om, {(dir_ / "frame.yuv").string()}, cfg);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_floats(result("frame_0.bin")), nv12_planes(frame, 20, 12, 2, 2, 16, 8));
  // The model's maximum source (32x32, 1536 bytes) is not what the file must hold.
  write(dir_ / "max.yuv", std::vector<std::uint8_t>(32 * 32 * 3 / 2, 1));
  const Outcome big = run(om, {(dir_ / "max.yuv").string()}, cfg);
  EXPECT_EQ(big.code, svp::run::kExitBadInput);
  EXPECT_NE(big.err.find("20x12 YUV420SP_U8 (W x H x 1.5 = 360 bytes)"), std::string::npos) << big.err;
  EXPECT_NE(big.err.find("dynamic AIPP (--aipp_config)"), std::string::npos) << big.err;
}

TEST_F(SvpRunAipp, ADynamicAippModelWithoutAippConfigIsAUsageErrorNamingTheOption) {
  const std::string om = model(8, 16, svp::aipp::dynamic_aipp_json(32, 32));
  const Outcome r = run(om, {});
  EXPECT_EQ(r.code, svp::run::kExitUsage);
  EXPECT_NE(r.err.find("has dynamic AIPP: give its parameters with --aipp_config"), std::string::npos) << r.err;
}

TEST_F(SvpRunAipp, AippConfigMistakesNameTheFileLineAndKey) {
  const std::string om = model(8, 16, svp::aipp::dynamic_aipp_json(32, 32));
  const std::pair<std::string, std::string> cases[] = {
      {"[aipp_op]\n input_format : YUV420SP_U8\n src_image_size_w : 16\n", "src_image_size_h is missing"},
      {"[aipp_op]\n input_format : YUV420SP_U8\n src_image_size_w : 16\n src_image_size_h : 8\n crop_sise_w : 4\n",
       "actual_aipp_conf.config:5: unknown key 'crop_sise_w'"},
      {"input_format : YUV420SP_U8\n", "actual_aipp_conf.config:1: 'input_format : YUV420SP_U8' before the [aipp_op]"},
      {"[aipp_op]\n input_format : NV12\n src_image_size_w : 16\n src_image_size_h : 8\n",
       "input_format NV12 is not a format svp_run reads"},
      // The runtime's own check of the parameters against the model: output 18x8 is not 16x8.
      {"[aipp_op]\n input_format : YUV420SP_U8\n src_image_size_w : 18\n src_image_size_h : 8\n",
       "does not match the model input"},
  };
  for (const auto& [text, message] : cases) {
    const Outcome r = run(om, {}, config(text));
    EXPECT_NE(r.code, 0) << text;
    EXPECT_NE(r.err.find(message), std::string::npos) << text << "\n" << r.err;
  }
  // And an --aipp_config for a model without dynamic AIPP.
  const Outcome stat = run(static_model(fid::kYuv420Sp, 16, 8), {},
                           config("[aipp_op]\n input_format : YUV420SP_U8\n src_image_size_w : 16\n src_image_size_h : 8\n"));
  EXPECT_EQ(stat.code, svp::run::kExitUsage);
  EXPECT_NE(stat.err.find("has no dynamic-AIPP input"), std::string::npos) << stat.err;
}

}  // namespace
