// The rknn_query commands of dynamic-shape models and of the model buffer, on svp-acl's
// static-shape models (docs/rknn.md): CURRENT_* give the static attributes,
// INPUT_DYNAMIC_RANGE is refused as Rockchip's runtime refuses it for a static model, and
// DEVICE_MEM_INFO describes the model buffer on RV1106/RV1103 only, as on the boards.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "onnx_builder.h"
#include "rknn/rknn_api.h"
#include "rknn_lenet.h"
#include "rknn_test_support.h"
#include "runtime/rknn_context.h"
#include "target/device_profile.h"

namespace svp {
namespace {

using test::contains;

using runtime::rknn::last_error;


// A 1x1 convolution (RV1106 runs it; LeNet's Flatten it does not), written once.
std::string conv_onnx() {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("svp_rknn_static_conv_" + std::to_string(::getpid()) + ".onnx"))
                               .string();
  test::OnnxBuilder b;
  b.input("x", {1, 3, 4, 4}).output("y", {1, 2, 4, 4});
  b.initializer("w", {2, 3, 1, 1}, {0.5f, -0.25f, 1.0f, 0.75f, 0.125f, -1.0f});
  b.node("Conv", {"x", "w"}, {"y"});
  std::ofstream(path, std::ios::binary) << b.bytes();
  return path;
}

std::vector<std::uint8_t> compile_for(const char* soc, const std::string& onnx = test::kLeNetOnnx) {
  return test::compile_float(onnx, soc);
}

rknn_tensor_attr query_attr(rknn_context ctx, rknn_query_cmd cmd, std::uint32_t index) {
  rknn_tensor_attr a;
  std::memset(&a, 0x5a, sizeof a);  // garbage the query must overwrite
  a.index = index;
  EXPECT_EQ(rknn_query(ctx, cmd, &a, sizeof a), RKNN_SUCC) << cmd << ": " << last_error();
  return a;
}

TEST(RknnStaticShapeQueries, CurrentAttributesOfAStaticModelAreItsStaticOnes) {
  std::vector<std::uint8_t> image = compile_for("RK3588");
  rknn_context ctx = 0;
  ASSERT_EQ(rknn_init(&ctx, image.data(), static_cast<uint32_t>(image.size()), 0, nullptr), RKNN_SUCC) << last_error();
  const struct {
    rknn_query_cmd current, fixed;
  } pairs[] = {{RKNN_QUERY_CURRENT_INPUT_ATTR, RKNN_QUERY_INPUT_ATTR},
               {RKNN_QUERY_CURRENT_OUTPUT_ATTR, RKNN_QUERY_OUTPUT_ATTR},
               {RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR, RKNN_QUERY_NATIVE_INPUT_ATTR},
               {RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR, RKNN_QUERY_NATIVE_OUTPUT_ATTR}};
  for (const auto& p : pairs) {
    const rknn_tensor_attr cur = query_attr(ctx, p.current, 0), fixed = query_attr(ctx, p.fixed, 0);
    EXPECT_EQ(std::memcmp(&cur, &fixed, sizeof cur), 0) << p.current;
    EXPECT_GT(cur.n_elems, 0u) << p.current;
    rknn_tensor_attr bad{};
    bad.index = 1;  // LeNet has one input and one output
    EXPECT_EQ(rknn_query(ctx, p.current, &bad, sizeof bad), RKNN_ERR_PARAM_INVALID) << p.current;
    EXPECT_EQ(rknn_query(ctx, p.current, &bad, sizeof bad - 1), RKNN_ERR_PARAM_INVALID) << p.current;
  }
  const rknn_tensor_attr native_in = query_attr(ctx, RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR, 0);
  EXPECT_EQ(native_in.fmt, RKNN_TENSOR_NHWC) << "a 1-channel input's native layout (guide table 5-1)";
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
}

TEST(RknnStaticShapeQueries, InputDynamicRangeOfAStaticModelIsModelInvalidAsOnABoard) {
  std::vector<std::uint8_t> image = compile_for("RK3588");
  rknn_context ctx = 0;
  ASSERT_EQ(rknn_init(&ctx, image.data(), static_cast<uint32_t>(image.size()), 0, nullptr), RKNN_SUCC) << last_error();
  static rknn_input_range range;  // 8 KiB of shapes
  std::memset(&range, 0, sizeof range);
  EXPECT_EQ(rknn_query(ctx, RKNN_QUERY_INPUT_DYNAMIC_RANGE, &range, sizeof range), RKNN_ERR_MODEL_INVALID);
  EXPECT_TRUE(contains(last_error(), "static shapes")) << last_error();
  EXPECT_EQ(rknn_query(ctx, RKNN_QUERY_INPUT_DYNAMIC_RANGE, &range, sizeof range - 1), RKNN_ERR_PARAM_INVALID);
  range.index = 1;
  EXPECT_EQ(rknn_query(ctx, RKNN_QUERY_INPUT_DYNAMIC_RANGE, &range, sizeof range), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
}

TEST(RknnStaticShapeQueries, DeviceMemInfoDescribesTheModelBufferOnRv1106AndIsRefusedElsewhere) {
  std::vector<std::uint8_t> image = compile_for("RV1106", conv_onnx());
  rknn_context ctx = 0;
  ASSERT_EQ(rknn_init(&ctx, image.data(), static_cast<uint32_t>(image.size()), 0, nullptr), RKNN_SUCC) << last_error();
  rknn_tensor_mem m;
  std::memset(&m, 0x5a, sizeof m);
  ASSERT_EQ(rknn_query(ctx, RKNN_QUERY_DEVICE_MEM_INFO, &m, sizeof m), RKNN_SUCC) << last_error();
  EXPECT_EQ(m.size, image.size());
  EXPECT_EQ(m.fd, -1) << "the host has no dma-buf fd";
  EXPECT_EQ(m.offset, 0);
  ASSERT_NE(m.virt_addr, nullptr);
  EXPECT_NE(m.virt_addr, image.data()) << "the runtime's own copy, not the caller's buffer";
  EXPECT_EQ(std::memcmp(m.virt_addr, image.data(), image.size()), 0);
  EXPECT_EQ(rknn_query(ctx, RKNN_QUERY_DEVICE_MEM_INFO, &m, sizeof m - 1), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);

  image = compile_for("RK3588");
  ASSERT_EQ(rknn_init(&ctx, image.data(), static_cast<uint32_t>(image.size()), 0, nullptr), RKNN_SUCC) << last_error();
  EXPECT_EQ(rknn_query(ctx, RKNN_QUERY_DEVICE_MEM_INFO, &m, sizeof m), RKNN_ERR_FAIL);
  EXPECT_TRUE(contains(last_error(), "RV1106")) << last_error();
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
}

}  // namespace
}  // namespace svp
