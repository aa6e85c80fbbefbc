// JPEG and PNG files as calibration data for inputs with static AIPP: decoding, every
// source format packed the way the runtime's AIPP unpacks it, and the same calibration as
// the equivalent .npy items.
#include <gtest/gtest.h>

#include <jpeglib.h>
#include <png.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/npy.h"
#include "compiler/compile.h"
#include "compiler/quantize/calibration_param.h"
#include "compiler/quantize/image_calibration.h"
#include "model/aipp/model_config.h"

namespace svp::compiler::quant {
namespace {

namespace fs = std::filesystem;

class ImageCalibration : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("svp_image_calibration_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // 8-bit PNG, grey (1 channel) or RGB (3).
  std::string write_png(const std::string& name, int w, int h, int channels, const std::vector<std::uint8_t>& px) {
    png_image image{};
    image.version = PNG_IMAGE_VERSION;
    image.width = static_cast<png_uint_32>(w);
    image.height = static_cast<png_uint_32>(h);
    image.format = channels == 1 ? PNG_FORMAT_GRAY : PNG_FORMAT_RGB;
    EXPECT_TRUE(png_image_write_to_file(&image, path(name).c_str(), 0, px.data(), 0, nullptr)) << image.message;
    return path(name);
  }

  std::string write_jpeg(const std::string& name, int w, int h, const std::vector<std::uint8_t>& rgb) {
    std::FILE* f = std::fopen(path(name).c_str(), "wb");
    jpeg_compress_struct c;
    jpeg_error_mgr err;
    c.err = jpeg_std_error(&err);
    jpeg_create_compress(&c);
    jpeg_stdio_dest(&c, f);
    c.image_width = static_cast<JDIMENSION>(w);
    c.image_height = static_cast<JDIMENSION>(h);
    c.input_components = 3;
    c.in_color_space = JCS_RGB;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, 98, TRUE);
    jpeg_start_compress(&c, TRUE);
    for (int y = 0; y < h; ++y) {
      JSAMPROW row = const_cast<std::uint8_t*>(rgb.data()) + static_cast<std::size_t>(y * w * 3);
      jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    std::fclose(f);
    return path(name);
  }

  fs::path dir_;
};

std::vector<std::uint8_t> solid(int w, int h, std::uint8_t r, std::uint8_t g, std::uint8_t b) {
  std::vector<std::uint8_t> px;
  for (int i = 0; i < w * h; ++i) px.insert(px.end(), {r, g, b});
  return px;
}

// The pipeline's output for a solid image under `json` (a static AIPP of a 1x3x8x8 input):
// channel means.
std::vector<float> channel_means(const RgbImage& img, const std::string& json) {
  auto a = aipp::parse_model_aipp(json);
  EXPECT_TRUE(a.ok()) << a.status().message();
  std::vector<float> out(3 * 8 * 8);
  model::TensorView v;
  v.dtype = model::DType::kFloat32;
  v.dims = {1, 3, 8, 8};
  v.data = out.data();
  const Status s = image_to_input(img, *a, model::Layout::kNCHW, v);
  EXPECT_TRUE(s.ok()) << s.message();
  std::vector<float> mean(3, 0.0f);
  for (int c = 0; c < 3; ++c) {
    for (int i = 0; i < 64; ++i) mean[static_cast<std::size_t>(c)] += out[static_cast<std::size_t>(c * 64 + i)] / 64;
  }
  return mean;
}

TEST_F(ImageCalibration, EveryRgbSourceFormatComesOutAsTheImagesChannels) {
  auto img = decode_image(write_png("solid.png", 12, 10, 3, solid(12, 10, 200, 100, 50)));
  ASSERT_TRUE(img.ok()) << img.status().message();
  for (const char* format : {"RGB888_U8", "BGR_PACKAGE_U8", "RGB_PLANAR_U8", "BGR_PLANAR_U8", "XRGB8888_U8", "ARGB8888_U8",
                             "RGBX_PLANAR_U8", "BGRX_PACKAGE_U8", "XBGR_PACKAGE_U8"}) {
    const std::string json = fmt::format(
        R"({{"aipp_mode": "static", "input_format": "{}", "src_image_size_w": 8, "src_image_size_h": 8}})", format);
    const std::vector<float> m = channel_means(*img, json);
    EXPECT_EQ(m, (std::vector<float>{200, 100, 50})) << format;
  }
}

// A YUV source with the JFIF (full-range BT.601) YUV -> RGB matrix in the configuration
// gives back the image's colours, 4:2:0 and 4:2:2 alike.
TEST_F(ImageCalibration, YuvSourcesWithTheMatchingCscGiveBackTheColours) {
  auto img = decode_image(write_jpeg("solid.jpg", 16, 16, solid(16, 16, 200, 100, 50)));
  ASSERT_TRUE(img.ok()) << img.status().message();
  EXPECT_NEAR(img->rgb[0], 200, 3);
  for (const char* format : {"YUV420SP_U8", "YVU420SP_U8", "YUV422SP_U8"}) {
    const std::string json = fmt::format(
        R"({{"aipp_mode": "static", "input_format": "{}", "src_image_size_w": 8, "src_image_size_h": 8,
            "csc_switch": true, "matrix_r0c0": 1024, "matrix_r0c1": 0, "matrix_r0c2": 1436,
            "matrix_r1c0": 1024, "matrix_r1c1": -352, "matrix_r1c2": -731,
            "matrix_r2c0": 1024, "matrix_r2c1": 1815, "matrix_r2c2": 0,
            "input_bias_0": 0, "input_bias_1": 128, "input_bias_2": 128}})",
        format);
    const std::vector<float> m = channel_means(*img, json);
    EXPECT_NEAR(m[0], 200, 4) << format;
    EXPECT_NEAR(m[1], 100, 4) << format;
    EXPECT_NEAR(m[2], 50, 4) << format;
  }
}

// The LeNet with a YUV400 AIPP (pixels / 255) calibrated on 8 PNG images encodes every
// layer as when calibrated on the same pixels / 255 given as .npy without AIPP.
TEST_F(ImageCalibration, PngImagesThroughAippCalibrateLikeTheSamePixelsAsNpy) {
  std::mt19937 rng(3);
  std::ofstream png_list(path("png.txt")), npy_list(path("npy.txt"));
  for (int k = 0; k < 8; ++k) {
    std::vector<std::uint8_t> grey(28 * 28);
    std::vector<float> scaled(28 * 28);
    for (int i = 0; i < 28 * 28; ++i) {
      const int y = i / 28, x = i % 28;
      const double v = 127.5 + 127.5 * std::sin(0.2 * (x + k) + 0.3 * y * (k % 3 + 1)) * ((rng() % 100) / 100.0);
      grey[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(std::lround(v));
      scaled[static_cast<std::size_t>(i)] = static_cast<float>(grey[static_cast<std::size_t>(i)]) * (1.0f / 255.0f);
    }
    png_list << write_png("img" + std::to_string(k) + ".png", 28, 28, 1, grey) << "\n";
    const std::vector<std::uint8_t> npy = npy::make("<f4", {1, 1, 28, 28}, reinterpret_cast<const std::uint8_t*>(scaled.data()), scaled.size() * 4);
    std::ofstream(path("img" + std::to_string(k) + ".npy"), std::ios::binary)
        .write(reinterpret_cast<const char*>(npy.data()), static_cast<std::streamsize>(npy.size()));
    npy_list << "img" << k << ".npy\n";
  }
  png_list.close();
  npy_list.close();
  std::ofstream(path("aipp.cfg")) << "aipp_op {\n  aipp_mode: static\n  input_format: YUV400_U8\n"
                                     "  src_image_size_w: 28\n  src_image_size_h: 28\n  var_reci_chn_0: 0.003921569\n}\n";
  auto compile_with = [&](const std::string& list, bool aipp) {
    CompileOptions o;
    o.model = SVP_SOURCE_DIR "/models/lenet_fashion_mnist.onnx";
    o.image_list = "image:" + list;
    if (aipp) o.insert_op_conf = path("aipp.cfg");
    auto r = compile(o);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? r->calibration_param : std::string();
  };
  auto from_png = parse_calibration_param(compile_with(path("png.txt"), true), "png");
  auto from_npy = parse_calibration_param(compile_with(path("npy.txt"), false), "npy");
  ASSERT_TRUE(from_png.ok() && from_npy.ok());
  ASSERT_EQ(from_png->layers.size(), from_npy->layers.size());
  ASSERT_GT(from_png->layers.size(), 5u);
  for (std::size_t i = 0; i < from_png->layers.size(); ++i) {
    const LayerParams& a = from_png->layers[i];
    const LayerParams& b = from_npy->layers[i];
    ASSERT_EQ(a.inputs.size(), b.inputs.size()) << a.name;
    for (std::size_t k = 0; k < a.inputs.size(); ++k) {
      ASSERT_EQ(a.inputs[k].has_value(), b.inputs[k].has_value());
      if (!a.inputs[k]) continue;
      EXPECT_NEAR(a.inputs[k]->scale, b.inputs[k]->scale, b.inputs[k]->scale * 1e-5f) << a.name;
      EXPECT_EQ(a.inputs[k]->zero_point, b.inputs[k]->zero_point) << a.name;
    }
  }
}

TEST_F(ImageCalibration, BadImagesAndImagesWithoutAippNameTheFileAndTheWayOut) {
  std::ofstream(path("junk.png")) << "not a png";
  auto junk = decode_image(path("junk.png"));
  ASSERT_FALSE(junk.ok());
  EXPECT_EQ(junk.status().code(), err::kInvalidFile);
  EXPECT_NE(junk.status().message().find("junk.png"), std::string::npos) << junk.status().message();
  std::ofstream(path("junk.jpg")) << "not a jpeg either";
  auto junk_jpeg = decode_image(path("junk.jpg"));
  ASSERT_FALSE(junk_jpeg.ok());
  EXPECT_EQ(junk_jpeg.status().code(), err::kInvalidFile) << junk_jpeg.status().message();
  auto bmp = decode_image(path("x.bmp"));
  ASSERT_FALSE(bmp.ok());
  EXPECT_EQ(bmp.status().code(), err::kFeatureUnsupported);
  EXPECT_NE(bmp.status().message().find("convert it to PNG"), std::string::npos);

  std::ofstream(path("list.txt")) << write_png("g.png", 28, 28, 1, std::vector<std::uint8_t>(28 * 28, 9)) << "\n";
  CompileOptions o;
  o.model = SVP_SOURCE_DIR "/models/lenet_fashion_mnist.onnx";
  o.image_list = "image:" + path("list.txt");
  auto r = compile(o);  // no --insert_op_conf: the pixels' meaning is unknown
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), err::kInvalidParam);
  EXPECT_NE(r.status().message().find("has no AIPP"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace svp::compiler::quant
