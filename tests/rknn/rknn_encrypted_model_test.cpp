// Encrypted models (seed 000 §5.9, docs/rknn.md "Model encryption"): a model encrypted at
// any crypt_level loads through rknn_init (from memory and from a path) and runs with the
// plain model's outputs; a flipped byte, a truncated file or a header naming another level
// is refused with RKNN_ERR_MODEL_INVALID and a message; the file does not hold the weights
// in the clear.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "onnx_builder.h"
#include "rknn/rknn_api.h"
#include "rknn_test_support.h"
#include "runtime/rknn_context.h"
#include "runtime/rknn_crypt.h"
#include "target/device_profile.h"

namespace svp {
namespace {

using runtime::rknn::decrypt_model;
using runtime::rknn::encrypt_model;
using runtime::rknn::last_error;
using test::contains;
using test::uniform;
namespace fs = std::filesystem;

constexpr std::size_t kWeights = 4 * 1 * 3 * 3;

class RknnEncryptedModel : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("svp_rknn_enc_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    weights_ = uniform(kWeights, 7, -0.5f, 0.5f);
    plain_ = compile_conv();
    ASSERT_FALSE(plain_.empty());
  }
  void TearDown() override {
    for (rknn_context ctx : opened_) (void)rknn_destroy(ctx);
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // A 3x3 convolution of 1 -> 4 channels on 8x8 with weights_, compiled for RK3588 in float.
  std::vector<std::uint8_t> compile_conv() {
    const std::string path = (dir_ / "conv.onnx").string();
    test::OnnxBuilder b;
    b.input("x", {1, 1, 8, 8}).output("y", {1, 4, 8, 8});
    b.initializer("w", {4, 1, 3, 3}, weights_);
    auto& conv = b.node("Conv", {"x", "w"}, {"y"});
    test::OnnxBuilder::attr_ints(conv, "pads", {1, 1, 1, 1});
    test::OnnxBuilder::attr_ints(conv, "kernel_shape", {3, 3});
    std::ofstream(path, std::ios::binary) << b.bytes();
    compiler::CompileOptions o;
    o.model = path;
    o.soc_version = target::find_profile("RK3588");
    o.compile_mode = "float";
    o.command_line = "svp_atc --framework=5 --model=" + path + " --soc_version=RK3588";
    auto r = compiler::compile(o);
    if (!r.ok()) {
      ADD_FAILURE() << r.status().message();
      return {};
    }
    return r->model.image;
  }

  std::vector<std::uint8_t> encrypted(int level) {
    auto e = encrypt_model(plain_, level);
    EXPECT_TRUE(e.ok()) << e.status().message();
    return e.ok() ? *e : std::vector<std::uint8_t>{};
  }

  // rknn_init's code for `image` (the context is kept for the run when it succeeds).
  int init(std::vector<std::uint8_t>& image, rknn_context* ctx) {
    *ctx = 0;
    const int r = rknn_init(ctx, image.data(), static_cast<std::uint32_t>(image.size()), 0, nullptr);
    if (r == RKNN_SUCC) opened_.push_back(*ctx);
    return r;
  }

  // Output 0 as float32 bytes on a fixed input.
  static std::vector<std::uint8_t> run(rknn_context ctx) {
    std::vector<float> x = uniform(64, 3);
    rknn_input in{};
    in.buf = x.data();
    in.size = static_cast<std::uint32_t>(x.size() * sizeof(float));
    in.type = RKNN_TENSOR_FLOAT32;
    in.fmt = RKNN_TENSOR_NCHW;
    EXPECT_EQ(rknn_inputs_set(ctx, 1, &in), RKNN_SUCC) << last_error();
    EXPECT_EQ(rknn_run(ctx, nullptr), RKNN_SUCC) << last_error();
    rknn_output out{};
    out.want_float = 1;
    EXPECT_EQ(rknn_outputs_get(ctx, 1, &out, nullptr), RKNN_SUCC) << last_error();
    std::vector<std::uint8_t> y(static_cast<std::uint8_t*>(out.buf), static_cast<std::uint8_t*>(out.buf) + out.size);
    EXPECT_EQ(rknn_outputs_release(ctx, 1, &out), RKNN_SUCC);
    return y;
  }

  std::vector<std::uint8_t> plain_outputs() {
    rknn_context ctx = 0;
    EXPECT_EQ(init(plain_, &ctx), RKNN_SUCC) << last_error();
    return run(ctx);
  }

  fs::path dir_;
  std::vector<float> weights_;
  std::vector<std::uint8_t> plain_;
  std::vector<rknn_context> opened_;
};

TEST_F(RknnEncryptedModel, EveryLevelLoadsFromMemoryAndRunsWithThePlainOutputs) {
  const std::vector<std::uint8_t> expected = plain_outputs();
  ASSERT_FALSE(expected.empty());
  for (int level = 1; level <= 3; ++level) {
    std::vector<std::uint8_t> image = encrypted(level);
    rknn_context ctx = 0;
    ASSERT_EQ(init(image, &ctx), RKNN_SUCC) << "crypt_level " << level << ": " << last_error();
    EXPECT_EQ(run(ctx), expected) << "crypt_level " << level;
  }
}

TEST_F(RknnEncryptedModel, LoadsFromAFilePath) {
  const std::vector<std::uint8_t> expected = plain_outputs();
  const std::vector<std::uint8_t> image = encrypted(2);
  const std::string path = (dir_ / "conv.crypt.rknn").string();
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(image.data()),
                                              static_cast<std::streamsize>(image.size()));
  rknn_context ctx = 0;
  ASSERT_EQ(rknn_init(&ctx, const_cast<char*>(path.c_str()), 0, 0, nullptr), RKNN_SUCC) << last_error();
  opened_.push_back(ctx);
  EXPECT_EQ(run(ctx), expected);
}

TEST_F(RknnEncryptedModel, EncryptingTwiceGivesDifferentFilesOfTheSameModel) {
  const std::vector<std::uint8_t> a = encrypted(1);
  const std::vector<std::uint8_t> b = encrypted(1);
  EXPECT_NE(a, b) << "each file has its own random IV";
  auto da = decrypt_model(a.data(), a.size());
  ASSERT_TRUE(da.ok()) << da.status().message();
  EXPECT_EQ(*da, plain_);
}

TEST_F(RknnEncryptedModel, AFlippedByteAnywhereIsRefused) {
  const std::vector<std::uint8_t> good = encrypted(1);
  // In the header's level/size/IV/tag and in the ciphertext, first and last byte.
  for (const std::size_t at : {std::size_t{13}, std::size_t{20}, std::size_t{30}, std::size_t{40}, std::size_t{52},
                               good.size() / 2, good.size() - 1}) {
    std::vector<std::uint8_t> bad = good;
    bad[at] ^= 0x01;
    rknn_context ctx = 0;
    EXPECT_EQ(init(bad, &ctx), RKNN_ERR_MODEL_INVALID) << "byte " << at;
    EXPECT_TRUE(contains(last_error(), "encrypted model")) << "byte " << at << ": " << last_error();
  }
  std::vector<std::uint8_t> bad = good;
  bad[good.size() / 2] ^= 0x80;
  rknn_context ctx = 0;
  ASSERT_EQ(init(bad, &ctx), RKNN_ERR_MODEL_INVALID);
  EXPECT_TRUE(contains(last_error(), "failed authentication")) << last_error();
}

TEST_F(RknnEncryptedModel, ATruncatedFileIsRefused) {
  for (const std::size_t keep : {std::size_t{10}, std::size_t{40}}) {
    std::vector<std::uint8_t> bad = encrypted(3);
    bad.resize(keep);
    rknn_context ctx = 0;
    EXPECT_EQ(init(bad, &ctx), RKNN_ERR_MODEL_INVALID);
    EXPECT_TRUE(contains(last_error(), "truncated")) << last_error();
  }
  std::vector<std::uint8_t> bad = encrypted(3);
  bad.pop_back();
  rknn_context ctx = 0;
  EXPECT_EQ(init(bad, &ctx), RKNN_ERR_MODEL_INVALID);
  EXPECT_TRUE(contains(last_error(), "truncated")) << last_error();
}

TEST_F(RknnEncryptedModel, AHeaderNamingAnotherLevelIsRefused) {
  std::vector<std::uint8_t> bad = encrypted(1);
  bad[12] = 2;  // the crypt_level field
  rknn_context ctx = 0;
  ASSERT_EQ(init(bad, &ctx), RKNN_ERR_MODEL_INVALID);
  EXPECT_TRUE(contains(last_error(), "another crypt_level")) << last_error();
  bad[12] = 9;
  ASSERT_EQ(init(bad, &ctx), RKNN_ERR_MODEL_INVALID);
  EXPECT_TRUE(contains(last_error(), "crypt_level 9")) << last_error();
}

TEST_F(RknnEncryptedModel, LevelsOutsideOneToThreeAreRefusedWhenEncrypting) {
  for (const int level : {0, 4, -1}) {
    auto e = encrypt_model(plain_, level);
    ASSERT_FALSE(e.ok()) << level;
    EXPECT_TRUE(contains(e.status().message(), "crypt_level")) << e.status().message();
  }
}

TEST_F(RknnEncryptedModel, TheFileHoldsNeitherTheWeightsNorTheImageInTheClear) {
  const auto* w = reinterpret_cast<const std::uint8_t*>(weights_.data());
  const std::vector<std::uint8_t> weight_bytes(w, w + kWeights * sizeof(float));
  auto find = [](const std::vector<std::uint8_t>& hay, const std::uint8_t* needle, std::size_t n) {
    return std::search(hay.begin(), hay.end(), needle, needle + n) != hay.end();
  };
  // The plain image holds the first weights as written (else this test proves nothing).
  ASSERT_TRUE(find(plain_, weight_bytes.data(), 16));
  for (int level = 1; level <= 3; ++level) {
    const std::vector<std::uint8_t> e = encrypted(level);
    EXPECT_FALSE(find(e, weight_bytes.data(), 16)) << "crypt_level " << level;
    // No 16-byte window of the plain image, every 61 bytes, appears in the file.
    for (std::size_t at = 0; at + 16 <= plain_.size(); at += 61) {
      ASSERT_FALSE(find(e, plain_.data() + at, 16)) << "plain bytes at " << at << ", crypt_level " << level;
    }
  }
}

}  // namespace
}  // namespace svp
