// librknnrt's device memory limit (docs/rknn.md): the runtime librknnrt starts itself takes
// the first model's board memory (its --soc_version's profile), or SVP_ACL_RKNN_CONFIG's
// acl.json. Each test stops the runtime first, so that its rknn_init starts it again.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "onnx_builder.h"
#include "rknn/rknn_api.h"
#include "runtime/rknn_context.h"
#include "runtime/rknn_mem.h"
#include "runtime/runtime.h"
#include "target/device_profile.h"
#include "rknn_test_support.h"

namespace svp {
namespace {

using test::contains;

namespace fs = std::filesystem;
using runtime::rknn::last_error;

class RknnDeviceMemoryLimit : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("svp_rknn_limit_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    ASSERT_EQ(runtime::rknn::live_contexts(), 0u);
    ASSERT_EQ(runtime::rknn::live_mems(), 0u);
    (void)runtime::Runtime::finalize();  // started by an earlier test, or not at all
  }
  void TearDown() override {
    ::unsetenv("SVP_ACL_RKNN_CONFIG");
    (void)runtime::Runtime::finalize();  // the next test's rknn_init starts it afresh
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // A 1x1 convolution compiled for `soc`.
  std::vector<std::uint8_t> conv_for(const char* soc) {
    const std::string path = (dir_ / "conv.onnx").string();
    test::OnnxBuilder b;
    b.input("x", {1, 3, 4, 4}).output("y", {1, 2, 4, 4});
    b.initializer("w", {2, 3, 1, 1}, {0.5f, -0.25f, 1.0f, 0.75f, 0.125f, -1.0f});
    b.node("Conv", {"x", "w"}, {"y"});
    std::ofstream(path, std::ios::binary) << b.bytes();
    compiler::CompileOptions o;
    o.model = path;
    o.soc_version = target::find_profile(soc);
    o.compile_mode = "float";
    o.command_line = "svp_atc --framework=5 --model=" + path + " --soc_version=" + soc;
    auto r = compiler::compile(o);
    if (!r.ok()) {
      ADD_FAILURE() << r.status().message();
      return {};
    }
    return r->model.image;
  }

  static std::uint64_t limit() {
    auto rt = runtime::Runtime::get();
    return rt.ok() ? (*rt)->backend().memory().usage().limit : 0;
  }

  fs::path dir_;
};

TEST_F(RknnDeviceMemoryLimit, TheFirstModelsBoardSetsTheLimitAndMemoryBeyondItIsRefusedNamingTheBoard) {
  std::vector<std::uint8_t> image = conv_for("RV1106");
  rknn_context ctx = 0;
  ASSERT_EQ(rknn_init(&ctx, image.data(), static_cast<uint32_t>(image.size()), 0, nullptr), RKNN_SUCC) << last_error();
  EXPECT_EQ(limit(), target::find_profile("RV1106")->board_memory_bytes);
  EXPECT_EQ(limit(), 256u << 20);
  EXPECT_EQ(rknn_create_mem(ctx, 300u << 20), nullptr) << "300 MiB on a 256 MiB board";
  EXPECT_TRUE(contains(last_error(), "RV1106")) << last_error();
  EXPECT_TRUE(contains(last_error(), "SVP_ACL_RKNN_CONFIG")) << last_error();
  // A second model for another board shares the running core and its limit.
  std::vector<std::uint8_t> other = conv_for("RK3588");
  rknn_context ctx2 = 0;
  ASSERT_EQ(rknn_init(&ctx2, other.data(), static_cast<uint32_t>(other.size()), 0, nullptr), RKNN_SUCC) << last_error();
  EXPECT_EQ(limit(), 256u << 20);
  EXPECT_EQ(rknn_destroy(ctx2), RKNN_SUCC);
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
}

TEST_F(RknnDeviceMemoryLimit, SvpAclRknnConfigNamesAnAclJsonWhoseLimitIsUsed) {
  const std::string json = (dir_ / "acl.json").string();
  std::ofstream(json) << R"({"softnpu": {"device_memory_mb": 1}})";
  ASSERT_EQ(::setenv("SVP_ACL_RKNN_CONFIG", json.c_str(), 1), 0);
  std::vector<std::uint8_t> image = conv_for("RK3588");
  rknn_context ctx = 0;
  ASSERT_EQ(rknn_init(&ctx, image.data(), static_cast<uint32_t>(image.size()), 0, nullptr), RKNN_SUCC) << last_error();
  EXPECT_EQ(limit(), 1u << 20);
  EXPECT_EQ(rknn_create_mem(ctx, 2u << 20), nullptr);
  EXPECT_TRUE(contains(last_error(), "device_memory_mb")) << last_error();
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
  (void)runtime::Runtime::finalize();

  // A file that does not parse: rknn_init fails, naming it, and starts nothing.
  std::ofstream(json) << "{";
  ASSERT_EQ(rknn_init(&ctx, image.data(), static_cast<uint32_t>(image.size()), 0, nullptr), RKNN_ERR_DEVICE_UNAVAILABLE);
  EXPECT_TRUE(contains(last_error(), "SVP_ACL_RKNN_CONFIG")) << last_error();
  EXPECT_TRUE(contains(last_error(), "acl.json")) << last_error();
  EXPECT_FALSE(runtime::Runtime::get().ok());
}

}  // namespace
}  // namespace svp
