// librknnrt's zero-copy path (docs/rknn.md): native attributes against the RKNN SDK guide's
// table 5-1 (C2 per platform and type) and table 5-2 (input width alignment); runs through
// rknn_create_mem / rknn_set_io_mem in native layouts giving the normal path's outputs (the
// NC1HWC2 outputs unpacked by this file's own converter, written from the guide's section
// 5.1); cacheable memory without rknn_mem_sync seen stale as on a board; the misuse errors;
// memory shared by fd.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "compiler/compile.h"
#include "npy_io.h"
#include "onnx_builder.h"
#include "rknn/rknn_api.h"
#include "runtime/rknn_context.h"
#include "runtime/rknn_mem.h"
#include "runtime/runtime.h"
#include "target/device_profile.h"
#include "rknn_lenet.h"
#include "rknn_test_support.h"

namespace svp {
namespace {

using test::contains;
using test::uniform;

namespace fs = std::filesystem;
using runtime::rknn::last_error;
using runtime::rknn::last_warning;


// NC1HWC2 -> NCHW as the guide (section 5.1) describes it: C1 = ceil(C / C2) blocks of C2
// channels, each block stored H x W x C2 with the channel innermost; channel c is lane c % C2
// of block c / C2; lanes past C in the last block are padding and dropped. `dims` are the
// NC1HWC2 dims [N, C1, H, W, C2], `es` the element size.
std::vector<std::uint8_t> nc1hwc2_to_nchw(const std::uint8_t* src, const std::uint32_t* dims, std::uint32_t channels,
                                          std::size_t es) {
  const std::uint32_t n = dims[0], c1 = dims[1], h = dims[2], w = dims[3], c2 = dims[4];
  std::vector<std::uint8_t> dst(static_cast<std::size_t>(n) * channels * h * w * es);
  for (std::uint32_t b = 0; b < n; ++b) {
    const std::uint8_t* batch = src + static_cast<std::size_t>(b) * c1 * h * w * c2 * es;
    for (std::uint32_t c = 0; c < channels; ++c) {
      const std::uint8_t* plane = batch + static_cast<std::size_t>(c / c2) * h * w * c2 * es;
      for (std::uint32_t p = 0; p < h * w; ++p) {
        std::memcpy(&dst[((static_cast<std::size_t>(b) * channels + c) * h * w + p) * es],
                    plane + (static_cast<std::size_t>(p) * c2 + c % c2) * es, es);
      }
    }
  }
  return dst;
}

// A 3x3 convolution, `cin` -> `cout` channels, same padding, then ReLU.
std::string conv_model(const std::string& path, std::int64_t cin, std::int64_t cout, std::int64_t hw) {
  test::OnnxBuilder b;
  b.input("x", {1, cin, hw, hw}).output("y", {1, cout, hw, hw});
  b.initializer("w", {cout, cin, 3, 3}, uniform(static_cast<std::size_t>(cout * cin * 9), 7, -0.5f, 0.5f));
  b.initializer("b", {cout}, uniform(static_cast<std::size_t>(cout), 8, -0.1f, 0.1f));
  auto& conv = b.node("Conv", {"x", "w", "b"}, {"c"});
  test::OnnxBuilder::attr_ints(conv, "pads", {1, 1, 1, 1});
  test::OnnxBuilder::attr_ints(conv, "kernel_shape", {3, 3});
  b.node("Relu", {"c"}, {"y"});
  std::ofstream(path, std::ios::binary) << b.bytes();
  return path;
}

class RknnZeroCopy : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("svp_rknn_zc_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) {
      EXPECT_EQ(runtime::rknn::live_contexts(), 0u) << "a test left a context alive";
      EXPECT_EQ(runtime::rknn::live_mems(), 0u) << "a test left an rknn_tensor_mem alive";
    }
    for (rknn_context ctx : opened_) (void)rknn_destroy(ctx);
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // `onnx` compiled for `soc` as svp_atc records it (float, or int8 calibrated on uniform
  // data of `shape`).
  std::vector<std::uint8_t> compile(const std::string& onnx, const char* soc, bool int8,
                                    const std::vector<std::int64_t>& shape) {
    compiler::CompileOptions o;
    o.model = onnx;
    o.soc_version = target::find_profile(soc);
    o.compile_mode = "float";
    o.command_line = std::string("svp_atc --framework=5 --model=") + onnx + " --soc_version=" + soc;
    if (int8) {
      std::size_t n = 1;
      for (auto d : shape) n *= static_cast<std::size_t>(d);
      std::vector<std::vector<float>> calib;
      for (unsigned i = 0; i < 4; ++i) calib.push_back(uniform(n, 100 + i, 0.0f, 1.0f));
      o.compile_mode = "0";
      o.calibration = "minmax";
      o.image_list = test::write_calibration_list(dir_.string(), shape, calib);
    }
    auto r = compiler::compile(o);
    if (!r.ok()) {
      ADD_FAILURE() << r.status().message();
      return {};
    }
    return r->model.image;
  }

  rknn_context init(std::vector<std::uint8_t> image, std::uint32_t flags = 0) {
    rknn_context ctx = 0;
    EXPECT_EQ(rknn_init(&ctx, image.data(), static_cast<uint32_t>(image.size()), flags, nullptr), RKNN_SUCC)
        << last_error();
    opened_.push_back(ctx);
    return ctx;
  }

  static rknn_tensor_attr attr(rknn_context ctx, rknn_query_cmd cmd, uint32_t index = 0) {
    rknn_tensor_attr a;
    std::memset(&a, 0, sizeof a);
    a.index = index;
    EXPECT_EQ(rknn_query(ctx, cmd, &a, sizeof a), RKNN_SUCC) << last_error();
    return a;
  }

  // The normal path: `x` (float32 NCHW) in, output 0 out as float32 (`want_float`) or in
  // the output attribute's type.
  static std::vector<std::uint8_t> normal_run(rknn_context ctx, const std::vector<float>& x, bool want_float) {
    rknn_input in{};
    in.buf = const_cast<float*>(x.data());
    in.size = static_cast<uint32_t>(x.size() * sizeof(float));
    in.type = RKNN_TENSOR_FLOAT32;
    in.fmt = RKNN_TENSOR_NCHW;
    EXPECT_EQ(rknn_inputs_set(ctx, 1, &in), RKNN_SUCC) << last_error();
    EXPECT_EQ(rknn_run(ctx, nullptr), RKNN_SUCC) << last_error();
    rknn_output out{};
    out.want_float = want_float ? 1 : 0;
    EXPECT_EQ(rknn_outputs_get(ctx, 1, &out, nullptr), RKNN_SUCC) << last_error();
    std::vector<std::uint8_t> y;
    if (out.buf != nullptr) y.assign(static_cast<std::uint8_t*>(out.buf), static_cast<std::uint8_t*>(out.buf) + out.size);
    EXPECT_EQ(rknn_outputs_release(ctx, 1, &out), RKNN_SUCC) << last_error();
    return y;
  }

  fs::path dir_;
  std::vector<rknn_context> opened_;
};

// Writes NCHW float `x` (C x H x W) as NHWC rows of w_stride elements of `T`, via `quant`.
template <typename T, typename Q>
void write_nhwc(void* dst, const std::vector<float>& x, std::uint32_t c, std::uint32_t h, std::uint32_t w,
                std::uint32_t w_stride, Q quant) {
  auto* p = static_cast<T*>(dst);
  for (std::uint32_t y = 0; y < h; ++y) {
    for (std::uint32_t i = 0; i < w; ++i) {
      for (std::uint32_t k = 0; k < c; ++k) p[(y * w_stride + i) * c + k] = quant(x[(k * h + y) * w + i]);
    }
  }
}

TEST_F(RknnZeroCopy, NativeAttributesFollowTheGuidesC2AndWidthAlignmentPerPlatform) {
  const std::string onnx = conv_model((dir_ / "conv.onnx").string(), 3, 20, 20);
  struct Case {
    const char* soc;
    std::uint32_t w_stride, c1, c2;
  };
  // Table 5-1, int8: RK3588 16, RV1106 16, RK3566 8. Table 5-2: width aligned to 16 on
  // RK3588/RV1106, 8 on RK3566 (20 -> 32 / 24).
  for (const Case& k : {Case{"RK3588", 32, 2, 16}, Case{"RV1106", 32, 2, 16}, Case{"RK3566", 24, 3, 8}}) {
    SCOPED_TRACE(k.soc);
    rknn_context ctx = init(compile(onnx, k.soc, true, {1, 3, 20, 20}));
    const rknn_tensor_attr in = attr(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR);
    EXPECT_EQ(in.fmt, RKNN_TENSOR_NHWC);
    EXPECT_EQ(in.type, RKNN_TENSOR_INT8);
    ASSERT_EQ(in.n_dims, 4u);
    EXPECT_EQ(std::vector<std::uint32_t>(in.dims, in.dims + 4), (std::vector<std::uint32_t>{1, 20, 20, 3}));
    EXPECT_EQ(in.w_stride, k.w_stride);
    EXPECT_EQ(in.size, 1200u);
    EXPECT_EQ(in.size_with_stride, 20u * k.w_stride * 3);
    EXPECT_STREQ(in.name, "x");
    const rknn_tensor_attr normal_in = attr(ctx, RKNN_QUERY_INPUT_ATTR);
    EXPECT_EQ(in.zp, normal_in.zp);
    EXPECT_EQ(in.scale, normal_in.scale);
    const rknn_tensor_attr out = attr(ctx, RKNN_QUERY_NATIVE_OUTPUT_ATTR);
    EXPECT_EQ(out.fmt, RKNN_TENSOR_NC1HWC2);
    EXPECT_EQ(out.type, RKNN_TENSOR_INT8);
    ASSERT_EQ(out.n_dims, 5u);
    EXPECT_EQ(std::vector<std::uint32_t>(out.dims, out.dims + 5), (std::vector<std::uint32_t>{1, k.c1, 20, 20, k.c2}));
    EXPECT_EQ(out.size_with_stride, k.c1 * 400u * k.c2);
    EXPECT_GT(out.size_with_stride, attr(ctx, RKNN_QUERY_OUTPUT_ATTR).size) << "20 channels pad to C1 x C2";
    const rknn_tensor_attr nhwc = attr(ctx, RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR);
    EXPECT_EQ(nhwc.fmt, RKNN_TENSOR_NHWC);
    EXPECT_EQ(std::vector<std::uint32_t>(nhwc.dims, nhwc.dims + 4), (std::vector<std::uint32_t>{1, 20, 20, 20}));
    EXPECT_EQ(nhwc.size_with_stride, 8000u);
    EXPECT_EQ(attr(ctx, RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR).fmt, RKNN_TENSOR_NHWC);
    EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
  }
  // Float models: float16's C2 (RK3588 8, RK3566 4), float32 elements (the runtime's type).
  for (const Case& k : {Case{"RK3588", 32, 3, 8}, Case{"RK3566", 24, 5, 4}}) {
    SCOPED_TRACE(k.soc);
    rknn_context ctx = init(compile(onnx, k.soc, false, {}));
    const rknn_tensor_attr out = attr(ctx, RKNN_QUERY_NATIVE_OUTPUT_ATTR);
    EXPECT_EQ(out.type, RKNN_TENSOR_FLOAT32);
    EXPECT_EQ(std::vector<std::uint32_t>(out.dims, out.dims + 5), (std::vector<std::uint32_t>{1, k.c1, 20, 20, k.c2}));
    EXPECT_EQ(out.size_with_stride, k.c1 * 400u * k.c2 * 4);
    EXPECT_EQ(attr(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR).size_with_stride, 20u * k.w_stride * 3 * 4);
    EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
  }
  // An input of 5 channels is NC1HWC2 natively (guide 5.2.3: NHWC only for 1, 3 or 4).
  const std::string five = conv_model((dir_ / "conv5.onnx").string(), 5, 4, 6);
  rknn_context ctx = init(compile(five, "RV1106", true, {1, 5, 6, 6}));
  const rknn_tensor_attr in = attr(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR);
  EXPECT_EQ(in.fmt, RKNN_TENSOR_NC1HWC2);
  EXPECT_EQ(std::vector<std::uint32_t>(in.dims, in.dims + 5), (std::vector<std::uint32_t>{1, 1, 6, 6, 16}));
  EXPECT_EQ(attr(ctx, RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR).fmt, RKNN_TENSOR_NHWC);
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
}

TEST_F(RknnZeroCopy, Int8RunInNativeLayoutsGivesTheNormalPathsOutputs) {
  const std::string onnx = conv_model((dir_ / "conv.onnx").string(), 3, 20, 20);
  const auto image = compile(onnx, "RK3588", true, {1, 3, 20, 20});
  const std::vector<float> x = uniform(1200, 42, 0.0f, 1.0f);
  rknn_context normal = init(image);
  const std::vector<std::uint8_t> expected = normal_run(normal, x, false);  // int8, NCHW
  ASSERT_EQ(expected.size(), 8000u);

  rknn_context ctx = init(image);
  rknn_tensor_attr in = attr(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR);
  rknn_tensor_attr out = attr(ctx, RKNN_QUERY_NATIVE_OUTPUT_ATTR);
  rknn_tensor_mem* in_mem = rknn_create_mem(ctx, in.size_with_stride);
  rknn_tensor_mem* out_mem = rknn_create_mem(ctx, out.size_with_stride);
  ASSERT_NE(in_mem, nullptr) << last_error();
  ASSERT_NE(out_mem, nullptr) << last_error();
  EXPECT_EQ(in_mem->size, in.size_with_stride);
  EXPECT_EQ(in_mem->flags, static_cast<uint32_t>(RKNN_TENSOR_MEMORY_FLAGS_ALLOC_INSIDE));
  // The input in the attribute's int8 encoding, NHWC rows padded to w_stride (padding junk).
  std::memset(in_mem->virt_addr, 0x7f, in_mem->size);
  write_nhwc<std::int8_t>(in_mem->virt_addr, x, 3, 20, 20, in.w_stride, [&](float v) {
    return static_cast<std::int8_t>(std::max(-128.0f, std::min(127.0f, std::nearbyint(v / in.scale) + in.zp)));
  });
  ASSERT_EQ(rknn_set_io_mem(ctx, in_mem, &in), RKNN_SUCC) << last_error();
  ASSERT_EQ(rknn_set_io_mem(ctx, out_mem, &out), RKNN_SUCC) << last_error();
  ASSERT_EQ(rknn_run(ctx, nullptr), RKNN_SUCC) << last_error();
  const std::vector<std::uint8_t> got =
      nc1hwc2_to_nchw(static_cast<std::uint8_t*>(out_mem->virt_addr), out.dims, 20, 1);
  EXPECT_EQ(got, expected);
  // Read as if it were NCHW (the classic mistake), it is not the output.
  EXPECT_NE(std::vector<std::uint8_t>(static_cast<std::uint8_t*>(out_mem->virt_addr),
                                      static_cast<std::uint8_t*>(out_mem->virt_addr) + 8000),
            expected);
  EXPECT_EQ(rknn_destroy_mem(ctx, in_mem), RKNN_SUCC);
  EXPECT_EQ(rknn_destroy_mem(ctx, out_mem), RKNN_SUCC);
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
  EXPECT_EQ(rknn_destroy(normal), RKNN_SUCC);
}

TEST_F(RknnZeroCopy, Rv1106HasTheZeroCopyApiOnlyAndRefusesTheNormalOne) {
  const std::string onnx = conv_model((dir_ / "conv.onnx").string(), 3, 20, 20);
  rknn_context ctx = init(compile(onnx, "RV1106", false, {}));
  const std::vector<float> x(1200, 0.5f);
  rknn_input in{};
  in.buf = const_cast<float*>(x.data());
  in.size = 1200 * 4;
  in.type = RKNN_TENSOR_FLOAT32;
  in.fmt = RKNN_TENSOR_NCHW;
  EXPECT_EQ(rknn_inputs_set(ctx, 1, &in), RKNN_ERR_CTX_INVALID);
  EXPECT_NE(last_error().find("zero-copy API only"), std::string::npos) << last_error();
  rknn_output out{};
  out.want_float = 1;
  EXPECT_EQ(rknn_outputs_get(ctx, 1, &out, nullptr), RKNN_ERR_CTX_INVALID);
  EXPECT_EQ(rknn_outputs_release(ctx, 1, &out), RKNN_ERR_CTX_INVALID);
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
}

TEST_F(RknnZeroCopy, FloatRunWithTypeAndLayoutChosenByTheApplicationMatchesTheNormalPath) {
  const std::string onnx = conv_model((dir_ / "conv.onnx").string(), 3, 20, 20);
  const auto image = compile(onnx, "RV1106", false, {});
  const std::vector<float> x = uniform(1200, 43, -1.0f, 1.0f);
  // RV1106's runtime has no normal API: the reference is the same model built for RK3588.
  rknn_context normal = init(compile(onnx, "RK3588", false, {}));
  const std::vector<std::uint8_t> expected = normal_run(normal, x, true);
  ASSERT_EQ(expected.size(), 8000u * 4);

  rknn_context ctx = init(image);
  // Input: native NHWC float32 with w_stride padding; output 1: native NC1HWC2 (C2 8);
  // then the output as NHWC (the NHWC native command) on a second binding.
  rknn_tensor_attr in = attr(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR);
  rknn_tensor_attr out = attr(ctx, RKNN_QUERY_NATIVE_OUTPUT_ATTR);
  ASSERT_EQ(out.dims[4], 8u);
  rknn_tensor_mem* in_mem = rknn_create_mem2(ctx, in.size_with_stride, RKNN_FLAG_MEMORY_NON_CACHEABLE);
  rknn_tensor_mem* out_mem = rknn_create_mem(ctx, out.size_with_stride);
  ASSERT_NE(in_mem, nullptr) << last_error();
  ASSERT_NE(out_mem, nullptr) << last_error();
  write_nhwc<float>(in_mem->virt_addr, x, 3, 20, 20, in.w_stride, [](float v) { return v; });
  ASSERT_EQ(rknn_set_io_mem(ctx, in_mem, &in), RKNN_SUCC) << last_error();
  ASSERT_EQ(rknn_set_io_mem(ctx, out_mem, &out), RKNN_SUCC) << last_error();
  ASSERT_EQ(rknn_run(ctx, nullptr), RKNN_SUCC) << last_error();
  EXPECT_EQ(nc1hwc2_to_nchw(static_cast<std::uint8_t*>(out_mem->virt_addr), out.dims, 20, 4), expected);

  rknn_tensor_attr nhwc = attr(ctx, RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR);
  rknn_tensor_mem* nhwc_mem = rknn_create_mem(ctx, nhwc.size_with_stride);
  ASSERT_NE(nhwc_mem, nullptr) << last_error();
  ASSERT_EQ(rknn_set_io_mem(ctx, nhwc_mem, &nhwc), RKNN_SUCC) << last_error();
  ASSERT_EQ(rknn_run(ctx, nullptr), RKNN_SUCC) << last_error();
  const auto* y = static_cast<const float*>(nhwc_mem->virt_addr);
  std::vector<float> want(8000);
  std::memcpy(want.data(), expected.data(), expected.size());
  for (std::uint32_t c = 0; c < 20; c += 7) {
    for (std::uint32_t p = 0; p < 400; p += 13) EXPECT_EQ(y[p * 20 + c], want[c * 400 + p]) << c << " " << p;
  }
  for (rknn_tensor_mem* m : {in_mem, out_mem, nhwc_mem}) EXPECT_EQ(rknn_destroy_mem(ctx, m), RKNN_SUCC);
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
  EXPECT_EQ(rknn_destroy(normal), RKNN_SUCC);
}

TEST_F(RknnZeroCopy, AnNc1hwc2InputTakesNc1hwc2WithPassThroughAndNhwcWithout) {
  const std::string onnx = conv_model((dir_ / "conv5.onnx").string(), 5, 4, 6);
  const auto image = compile(onnx, "RV1106", true, {1, 5, 6, 6});
  const std::vector<float> x = uniform(180, 21, 0.0f, 1.0f);
  // RV1106's runtime has no normal API: the reference is the same model built for RK3588
  // (the same quantization and kernels).
  rknn_context normal = init(compile(onnx, "RK3588", true, {1, 5, 6, 6}));
  const std::vector<std::uint8_t> expected = normal_run(normal, x, false);
  rknn_context ctx = init(image);
  rknn_tensor_attr in = attr(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR);
  rknn_tensor_attr out = attr(ctx, RKNN_QUERY_OUTPUT_ATTR);
  ASSERT_EQ(in.fmt, RKNN_TENSOR_NC1HWC2);
  auto q = [&](float v) {
    return static_cast<std::int8_t>(std::max(-128.0f, std::min(127.0f, std::nearbyint(v / in.scale) + in.zp)));
  };
  rknn_tensor_mem* in_mem = rknn_create_mem(ctx, in.size_with_stride);
  rknn_tensor_mem* out_mem = rknn_create_mem(ctx, out.size_with_stride);
  ASSERT_NE(in_mem, nullptr) << last_error();
  ASSERT_NE(out_mem, nullptr) << last_error();
  ASSERT_EQ(rknn_set_io_mem(ctx, out_mem, &out), RKNN_SUCC) << last_error();
  // pass_through: the application lays the channels out in blocks of C2 = 16 (5 used).
  auto* p = static_cast<std::int8_t*>(in_mem->virt_addr);
  std::memset(p, 0, in_mem->size);
  for (std::uint32_t c = 0; c < 5; ++c) {
    for (std::uint32_t i = 0; i < 36; ++i) p[i * 16 + c] = q(x[c * 36 + i]);
  }
  in.pass_through = 1;
  ASSERT_EQ(rknn_set_io_mem(ctx, in_mem, &in), RKNN_SUCC) << last_error();
  ASSERT_EQ(rknn_run(ctx, nullptr), RKNN_SUCC) << last_error();
  const auto* y = static_cast<const std::uint8_t*>(out_mem->virt_addr);
  EXPECT_EQ(std::vector<std::uint8_t>(y, y + expected.size()), expected);
  // Without pass_through the runtime converts from NHWC.
  std::memset(p, 0, in_mem->size);
  write_nhwc<std::int8_t>(p, x, 5, 6, 6, 6, q);
  in.pass_through = 0;
  ASSERT_EQ(rknn_set_io_mem(ctx, in_mem, &in), RKNN_SUCC) << last_error();
  ASSERT_EQ(rknn_run(ctx, nullptr), RKNN_SUCC) << last_error();
  EXPECT_EQ(std::vector<std::uint8_t>(y, y + expected.size()), expected);
  for (rknn_tensor_mem* m : {in_mem, out_mem}) EXPECT_EQ(rknn_destroy_mem(ctx, m), RKNN_SUCC);
  for (rknn_context c : {ctx, normal}) EXPECT_EQ(rknn_destroy(c), RKNN_SUCC);
}

TEST_F(RknnZeroCopy, CacheableMemoryWithoutMemSyncIsStaleOnTheNpuAsOnABoardAndTheMissingCallIsNamed) {
  const auto image = compile(test::kLeNetOnnx, "RK3588", false, {});
  const std::vector<float> a = uniform(784, 1, 0.0f, 1.0f), b = uniform(784, 2, 0.0f, 1.0f);
  rknn_context normal = init(image);
  const auto ya = normal_run(normal, a, true), yb = normal_run(normal, b, true);
  ASSERT_NE(ya, yb);
  // Cache maintenance left to the application (as RV1106 demos that share camera buffers do).
  rknn_context ctx =
      init(image, RKNN_FLAG_DISABLE_FLUSH_INPUT_MEM_CACHE | RKNN_FLAG_DISABLE_FLUSH_OUTPUT_MEM_CACHE);
  rknn_tensor_attr in = attr(ctx, RKNN_QUERY_INPUT_ATTR);
  rknn_tensor_attr out = attr(ctx, RKNN_QUERY_OUTPUT_ATTR);
  in.type = RKNN_TENSOR_FLOAT32;
  rknn_tensor_mem* in_mem = rknn_create_mem2(ctx, 784 * 4, RKNN_FLAG_MEMORY_CACHEABLE);
  rknn_tensor_mem* out_mem = rknn_create_mem2(ctx, 40, RKNN_FLAG_MEMORY_CACHEABLE);
  ASSERT_NE(in_mem, nullptr) << last_error();
  ASSERT_NE(out_mem, nullptr) << last_error();
  ASSERT_EQ(rknn_set_io_mem(ctx, in_mem, &in), RKNN_SUCC) << last_error();
  ASSERT_EQ(rknn_set_io_mem(ctx, out_mem, &out), RKNN_SUCC) << last_error();
  auto output = [&] {
    const auto* p = static_cast<const std::uint8_t*>(out_mem->virt_addr);
    return std::vector<std::uint8_t>(p, p + 40);
  };
  // Synced both ways: the right answer.
  std::memcpy(in_mem->virt_addr, a.data(), 784 * 4);
  ASSERT_EQ(rknn_mem_sync(ctx, in_mem, RKNN_MEMORY_SYNC_TO_DEVICE), RKNN_SUCC) << last_error();
  ASSERT_EQ(rknn_run(ctx, nullptr), RKNN_SUCC) << last_error();
  EXPECT_EQ(output(), std::vector<std::uint8_t>(40, 0)) << "the CPU's cached view before FROM_DEVICE";
  ASSERT_EQ(rknn_mem_sync(ctx, out_mem, RKNN_MEMORY_SYNC_FROM_DEVICE), RKNN_SUCC) << last_error();
  EXPECT_EQ(output(), ya);
  // b written without TO_DEVICE: the NPU reads a's bytes from DDR, and the run says why.
  runtime::rknn::clear_last_error();
  std::memcpy(in_mem->virt_addr, b.data(), 784 * 4);
  ASSERT_EQ(rknn_run(ctx, nullptr), RKNN_SUCC) << last_error();
  ASSERT_EQ(rknn_mem_sync(ctx, out_mem, RKNN_MEMORY_SYNC_FROM_DEVICE), RKNN_SUCC) << last_error();
  EXPECT_EQ(output(), ya) << "stale input";
  EXPECT_TRUE(contains(last_warning(), "rknn_mem_sync(ctx, mem, RKNN_MEMORY_SYNC_TO_DEVICE)")) << last_warning();
  char name[32];
  std::snprintf(name, sizeof name, "%p", static_cast<void*>(in_mem));
  EXPECT_TRUE(contains(last_warning(), name)) << last_warning();
  EXPECT_TRUE(contains(last_warning(), "rknn_run")) << last_warning();
  ASSERT_EQ(rknn_mem_sync(ctx, in_mem, RKNN_MEMORY_SYNC_BIDIRECTIONAL), RKNN_SUCC) << last_error();
  ASSERT_EQ(rknn_run(ctx, nullptr), RKNN_SUCC) << last_error();
  ASSERT_EQ(rknn_mem_sync(0, out_mem, RKNN_MEMORY_SYNC_FROM_DEVICE), RKNN_SUCC) << "context NULL is allowed";
  EXPECT_EQ(output(), yb);
  for (rknn_tensor_mem* m : {in_mem, out_mem}) EXPECT_EQ(rknn_destroy_mem(ctx, m), RKNN_SUCC);

  // Default flags: rknn_run flushes and invalidates memory it was given, as the board's
  // runtime does (the model zoo's demos never call rknn_mem_sync).
  rknn_context plain = init(image);
  in_mem = rknn_create_mem(plain, 784 * 4);
  out_mem = rknn_create_mem(plain, 40);
  ASSERT_EQ(rknn_set_io_mem(plain, in_mem, &in), RKNN_SUCC) << last_error();
  ASSERT_EQ(rknn_set_io_mem(plain, out_mem, &out), RKNN_SUCC) << last_error();
  for (const auto* v : {&a, &b}) {
    std::memcpy(in_mem->virt_addr, v->data(), 784 * 4);
    ASSERT_EQ(rknn_run(plain, nullptr), RKNN_SUCC) << last_error();
    EXPECT_EQ(output(), v == &a ? ya : yb);
  }
  for (rknn_tensor_mem* m : {in_mem, out_mem}) EXPECT_EQ(rknn_destroy_mem(plain, m), RKNN_SUCC);
  for (rknn_context c : {ctx, plain, normal}) EXPECT_EQ(rknn_destroy(c), RKNN_SUCC);
}

TEST_F(RknnZeroCopy, MisusedMemoryIsRefusedByTheCallThatMisusesIt) {
  const std::string onnx = conv_model((dir_ / "conv.onnx").string(), 3, 20, 20);
  const auto image = compile(onnx, "RK3588", true, {1, 3, 20, 20});
  rknn_context ctx = init(image);
  rknn_context other = init(image);
  const rknn_tensor_attr normal_in = attr(ctx, RKNN_QUERY_INPUT_ATTR);
  rknn_tensor_attr in = attr(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR);
  rknn_tensor_attr out = attr(ctx, RKNN_QUERY_NATIVE_OUTPUT_ATTR);
  // Sized from the normal attribute, bound with the native one (w_stride 32 > 20).
  rknn_tensor_mem* small = rknn_create_mem(ctx, normal_in.size);
  ASSERT_NE(small, nullptr) << last_error();
  EXPECT_EQ(rknn_set_io_mem(ctx, small, &in), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "rknn_set_io_mem: input 0")) << last_error();
  EXPECT_TRUE(contains(last_error(), "1920 bytes")) << last_error();
  EXPECT_TRUE(contains(last_error(), "size_with_stride")) << last_error();
  // ... while the normal attribute fits it.
  EXPECT_EQ(rknn_set_io_mem(ctx, small, const_cast<rknn_tensor_attr*>(&normal_in)), RKNN_SUCC) << last_error();
  rknn_tensor_mem* mem = rknn_create_mem(ctx, 64 * 1024);
  ASSERT_NE(mem, nullptr);
  // Strides and dims that do not describe the tensor.
  rknn_tensor_attr bad = in;
  bad.w_stride = 16;
  EXPECT_EQ(rknn_set_io_mem(ctx, mem, &bad), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "w_stride")) << last_error();
  bad = in;
  bad.w_stride = 0xFFFFFFFFu;
  bad.h_stride = 0xFFFFFFFFu;  // an element count that would wrap around 64 bits
  EXPECT_EQ(rknn_set_io_mem(ctx, mem, &bad), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "h_stride")) << last_error();
  bad = out;
  bad.dims[1] = 1;  // C1 of 20 channels in blocks of 16 is 2
  EXPECT_EQ(rknn_set_io_mem(ctx, mem, &bad), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "NC1HWC2")) << last_error();
  bad = out;
  bad.type = RKNN_TENSOR_INT16;
  EXPECT_EQ(rknn_set_io_mem(ctx, mem, &bad), RKNN_ERR_PARAM_INVALID);
  bad = in;
  std::snprintf(bad.name, sizeof bad.name, "nope");
  EXPECT_EQ(rknn_set_io_mem(ctx, mem, &bad), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "nope")) << last_error();
  bad = in;
  bad.pass_through = 1;
  bad.type = RKNN_TENSOR_UINT8;
  EXPECT_EQ(rknn_set_io_mem(ctx, mem, &bad), RKNN_ERR_PARAM_INVALID);
  // Memory of another context.
  EXPECT_EQ(rknn_set_io_mem(other, mem, &in), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "belongs to context")) << last_error();
  EXPECT_EQ(rknn_destroy_mem(other, mem), RKNN_ERR_PARAM_INVALID);
  // ... unless created without one.
  rknn_tensor_mem* shared = rknn_create_mem2(0, 64 * 1024, RKNN_MEM_FLAG_ALLOC_NO_CONTEXT);
  ASSERT_NE(shared, nullptr) << last_error();
  EXPECT_EQ(rknn_set_io_mem(other, shared, &in), RKNN_SUCC) << last_error();
  // Bound, then destroyed: the run refuses it instead of reading freed memory.
  ASSERT_EQ(rknn_set_io_mem(ctx, mem, &in), RKNN_SUCC) << last_error();
  ASSERT_EQ(rknn_destroy_mem(ctx, mem), RKNN_SUCC);
  EXPECT_EQ(rknn_run(ctx, nullptr), RKNN_ERR_INPUT_INVALID);
  EXPECT_TRUE(contains(last_error(), "destroyed")) << last_error();
  // Destroyed memory: every call refuses it, a second destroy included.
  EXPECT_EQ(rknn_set_io_mem(ctx, mem, &in), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "not a live rknn_tensor_mem")) << last_error();
  EXPECT_EQ(rknn_destroy_mem(ctx, mem), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_mem_sync(ctx, mem, RKNN_MEMORY_SYNC_TO_DEVICE), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(mem->virt_addr, nullptr) << "a destroyed descriptor is poisoned, not freed under the application";
  // Not from this runtime at all.
  rknn_tensor_mem fake{};
  EXPECT_EQ(rknn_destroy_mem(ctx, &fake), RKNN_ERR_PARAM_INVALID);
  // Physical addresses and MB blocks do not exist on a host.
  EXPECT_EQ(rknn_create_mem_from_phys(ctx, 0x3f000000, nullptr, 4096), nullptr);
  EXPECT_TRUE(contains(last_error(), "no physical addresses")) << last_error();
  EXPECT_EQ(rknn_create_mem_from_mb_blk(ctx, &fake, 0), nullptr);
  EXPECT_TRUE(contains(last_error(), "MB block")) << last_error();
  // Memory outlives its context's rknn_destroy and is freed afterwards with that handle.
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
  EXPECT_TRUE(contains(last_warning(), "still live")) << last_warning();
  EXPECT_EQ(rknn_destroy_mem(ctx, small), RKNN_SUCC) << last_error();
  EXPECT_EQ(rknn_destroy_mem(other, shared), RKNN_SUCC) << last_error();
  EXPECT_EQ(rknn_destroy(other), RKNN_SUCC);
}

TEST_F(RknnZeroCopy, MemoryFromAnFdIsTheApplicationsSharedMemoryUsedInPlace) {
  const auto image = compile(test::kLeNetOnnx, "RK3588", false, {});
  const std::vector<float> x = uniform(784, 5, 0.0f, 1.0f);
  rknn_context normal = init(image);
  const auto expected = normal_run(normal, x, true);
  rknn_context ctx = init(image);
  const int fd = ::memfd_create("rknn_zero_copy_test", 0);
  ASSERT_GE(fd, 0);
  constexpr std::int32_t kOffset = 4096;
  const std::size_t total = kOffset + 784 * 4 + 64;
  ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(total)), 0);
  void* map = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ASSERT_NE(map, MAP_FAILED);
  // The input at offset 4096 of the application's mapping; the output in the same fd after
  // it, mapped by the runtime (virt_addr NULL).
  rknn_tensor_mem* in_mem = rknn_create_mem_from_fd(ctx, fd, map, 784 * 4, kOffset);
  rknn_tensor_mem* out_mem = rknn_create_mem_from_fd(ctx, fd, nullptr, 40, kOffset + 784 * 4);
  ASSERT_NE(in_mem, nullptr) << last_error();
  ASSERT_NE(out_mem, nullptr) << last_error();
  EXPECT_EQ(in_mem->fd, fd);
  EXPECT_EQ(in_mem->virt_addr, map);
  EXPECT_EQ(in_mem->offset, kOffset);
  EXPECT_EQ(in_mem->size, 784u * 4);
  EXPECT_EQ(in_mem->flags, static_cast<uint32_t>(RKNN_TENSOR_MEMORY_FLAGS_FROM_FD));
  EXPECT_NE(in_mem->phys_addr, 0u);
  EXPECT_NE(out_mem->virt_addr, nullptr);
  EXPECT_NE(out_mem->virt_addr, map) << "mapped by the runtime";
  std::memcpy(static_cast<std::uint8_t*>(map) + kOffset, x.data(), 784 * 4);
  rknn_tensor_attr in = attr(ctx, RKNN_QUERY_INPUT_ATTR);
  in.type = RKNN_TENSOR_FLOAT32;
  rknn_tensor_attr out = attr(ctx, RKNN_QUERY_OUTPUT_ATTR);
  ASSERT_EQ(rknn_set_io_mem(ctx, in_mem, &in), RKNN_SUCC) << last_error();
  ASSERT_EQ(rknn_set_io_mem(ctx, out_mem, &out), RKNN_SUCC) << last_error();
  ASSERT_EQ(rknn_run(ctx, nullptr), RKNN_SUCC) << last_error();
  const auto* y = static_cast<const std::uint8_t*>(map) + kOffset + 784 * 4;
  EXPECT_EQ(std::vector<std::uint8_t>(y, y + 40), expected) << "seen through the application's own mapping";
  // An fd too small for offset + size, and no fd at all.
  EXPECT_EQ(rknn_create_mem_from_fd(ctx, fd, nullptr, 4096, static_cast<std::int32_t>(total)), nullptr);
  EXPECT_TRUE(contains(last_error(), "runs past its end")) << last_error();
  EXPECT_EQ(rknn_create_mem_from_fd(ctx, 100000, nullptr, 64, 0), nullptr);
  EXPECT_TRUE(contains(last_error(), "not an open file descriptor")) << last_error();
  for (rknn_tensor_mem* m : {in_mem, out_mem}) EXPECT_EQ(rknn_destroy_mem(ctx, m), RKNN_SUCC);
  ::munmap(map, total);
  ::close(fd);
  for (rknn_context c : {ctx, normal}) EXPECT_EQ(rknn_destroy(c), RKNN_SUCC);
}

TEST_F(RknnZeroCopy, MemoryIsCreatedSyncedBoundAndDestroyedFromSeveralThreadsAtOnce) {
  const auto image = compile(test::kLeNetOnnx, "RK3588", false, {});
  const std::vector<float> x = uniform(784, 9, 0.0f, 1.0f);
  rknn_context normal = init(image);
  const auto expected = normal_run(normal, x, true);
  std::vector<rknn_context> ctxs = {init(image), init(image)};
  std::vector<std::thread> threads;
  std::vector<int> failures(ctxs.size() + 1, 0);
  for (std::size_t t = 0; t < ctxs.size(); ++t) {
    threads.emplace_back([&, t] {
      rknn_context ctx = ctxs[t];
      rknn_tensor_attr in = attr(ctx, RKNN_QUERY_INPUT_ATTR);
      in.type = RKNN_TENSOR_FLOAT32;
      rknn_tensor_attr out = attr(ctx, RKNN_QUERY_OUTPUT_ATTR);
      for (int i = 0; i < 8; ++i) {
        rknn_tensor_mem* im = rknn_create_mem(ctx, 784 * 4);
        rknn_tensor_mem* om = rknn_create_mem(ctx, 40);
        std::memcpy(im->virt_addr, x.data(), 784 * 4);
        failures[t] += rknn_mem_sync(ctx, im, RKNN_MEMORY_SYNC_TO_DEVICE) != RKNN_SUCC;
        failures[t] += rknn_set_io_mem(ctx, im, &in) != RKNN_SUCC;
        failures[t] += rknn_set_io_mem(ctx, om, &out) != RKNN_SUCC;
        failures[t] += rknn_run(ctx, nullptr) != RKNN_SUCC;
        failures[t] += std::memcmp(om->virt_addr, expected.data(), 40) != 0;
        failures[t] += rknn_destroy_mem(ctx, im) != RKNN_SUCC;
        failures[t] += rknn_destroy_mem(ctx, om) != RKNN_SUCC;
      }
    });
  }
  threads.emplace_back([&] {  // unowned memory churn beside the runs
    for (int i = 0; i < 64; ++i) {
      rknn_tensor_mem* m = rknn_create_mem2(0, 4096, RKNN_MEM_FLAG_ALLOC_NO_CONTEXT);
      failures.back() += m == nullptr || rknn_destroy_mem(0, m) != RKNN_SUCC;
    }
  });
  for (auto& th : threads) th.join();
  for (std::size_t t = 0; t < failures.size(); ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
  for (rknn_context c : ctxs) EXPECT_EQ(rknn_destroy(c), RKNN_SUCC);
  EXPECT_EQ(rknn_destroy(normal), RKNN_SUCC);
}

TEST_F(RknnZeroCopy, ContextsCreatedWithInternalAllocOutsideShareOneInternalMemory) {
  const auto image = compile(test::kLeNetOnnx, "RK3588", false, {});
  const std::vector<float> a = uniform(784, 31, 0.0f, 1.0f), b = uniform(784, 32, 0.0f, 1.0f);
  rknn_context normal = init(image);
  const auto ya = normal_run(normal, a, true), yb = normal_run(normal, b, true);
  rknn_context c1 = init(image, RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE);
  rknn_context c2 = init(image, RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE);
  rknn_mem_size sizes{}, normal_sizes{};
  ASSERT_EQ(rknn_query(c1, RKNN_QUERY_MEM_SIZE, &sizes, sizeof sizes), RKNN_SUCC);
  ASSERT_EQ(rknn_query(normal, RKNN_QUERY_MEM_SIZE, &normal_sizes, sizeof normal_sizes), RKNN_SUCC);
  ASSERT_GT(sizes.total_internal_size, 0u);
  EXPECT_EQ(sizes.total_dma_allocated_size + sizes.total_internal_size, normal_sizes.total_dma_allocated_size)
      << "the context did not allocate its intermediates";
  // No internal memory yet: the run says what is missing.
  rknn_input in{};
  in.buf = const_cast<float*>(a.data());
  in.size = 784 * 4;
  in.type = RKNN_TENSOR_FLOAT32;
  in.fmt = RKNN_TENSOR_NCHW;
  ASSERT_EQ(rknn_inputs_set(c1, 1, &in), RKNN_SUCC);
  EXPECT_EQ(rknn_run(c1, nullptr), RKNN_ERR_FAIL);
  EXPECT_TRUE(contains(last_error(), "rknn_set_internal_mem")) << last_error();
  // Too small, or not device memory: refused.
  rknn_tensor_mem* small = rknn_create_mem(c1, sizes.total_internal_size - 1);
  EXPECT_EQ(rknn_set_internal_mem(c1, small), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "total_internal_size")) << last_error();
  // One memory for both (they run one after the other).
  rknn_tensor_mem* shared = rknn_create_mem2(0, sizes.total_internal_size, RKNN_MEM_FLAG_ALLOC_NO_CONTEXT);
  ASSERT_NE(shared, nullptr) << last_error();
  ASSERT_EQ(rknn_set_internal_mem(c1, shared), RKNN_SUCC) << last_error();
  ASSERT_EQ(rknn_set_internal_mem(c2, shared), RKNN_SUCC) << last_error();
  EXPECT_EQ(normal_run(c1, a, true), ya);
  EXPECT_EQ(normal_run(c2, b, true), yb);
  EXPECT_EQ(normal_run(c1, b, true), yb);
  // Destroyed under the context: the next run refuses it.
  ASSERT_EQ(rknn_destroy_mem(0, shared), RKNN_SUCC);
  EXPECT_EQ(rknn_run(c2, nullptr), RKNN_ERR_FAIL);
  EXPECT_TRUE(contains(last_error(), "destroyed")) << last_error();
  EXPECT_EQ(rknn_destroy_mem(c1, small), RKNN_SUCC);
  for (rknn_context c : {c1, c2, normal}) EXPECT_EQ(rknn_destroy(c), RKNN_SUCC);
}

TEST_F(RknnZeroCopy, DupContextRunsTheSameLoadedModelWithItsOwnBuffersAndOutlivesTheOriginal) {
  const auto image = compile(test::kLeNetOnnx, "RK3588", false, {});
  const std::vector<float> a = uniform(784, 11, 0.0f, 1.0f), b = uniform(784, 12, 0.0f, 1.0f);
  rknn_context ctx = init(image);
  const auto ya = normal_run(ctx, a, true);
  const std::size_t loaded = runtime::rknn::live_contexts();
  auto models = [] {
    auto rt = runtime::Runtime::get();
    return rt.ok() ? (*rt)->models().size() : 0;
  };
  const std::size_t models_before = models();
  rknn_context dup = 0;
  ASSERT_EQ(rknn_dup_context(&ctx, &dup), RKNN_SUCC) << last_error();
  opened_.push_back(dup);
  EXPECT_NE(dup, ctx);
  EXPECT_EQ(runtime::rknn::live_contexts(), loaded + 1);
  EXPECT_EQ(models(), models_before) << "the model (and its weights) is loaded once";
  // Own buffers: the duplicate has run nothing yet, and its input does not clobber ctx's.
  rknn_output none{};
  EXPECT_EQ(rknn_outputs_get(dup, 1, &none, nullptr), RKNN_ERR_OUTPUT_INVALID);
  const auto yb = normal_run(dup, b, true);
  ASSERT_NE(ya, yb);
  EXPECT_EQ(rknn_run(ctx, nullptr), RKNN_SUCC) << "ctx keeps its own input a";
  rknn_output out{};
  out.want_float = 1;
  ASSERT_EQ(rknn_outputs_get(ctx, 1, &out, nullptr), RKNN_SUCC);
  EXPECT_EQ(std::vector<std::uint8_t>(static_cast<std::uint8_t*>(out.buf), static_cast<std::uint8_t*>(out.buf) + 40), ya);
  EXPECT_EQ(rknn_outputs_release(ctx, 1, &out), RKNN_SUCC);
  EXPECT_EQ(attr(dup, RKNN_QUERY_NATIVE_INPUT_ATTR).w_stride, attr(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR).w_stride);
  // The original destroyed, the duplicate still runs the model.
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
  EXPECT_EQ(normal_run(dup, a, true), ya);
  EXPECT_EQ(models(), models_before);
  EXPECT_EQ(rknn_destroy(dup), RKNN_SUCC);
  EXPECT_EQ(models(), models_before - 1) << "unloaded with the last context running it";
  rknn_context bogus = ctx;
  EXPECT_EQ(rknn_dup_context(&bogus, &dup), RKNN_ERR_CTX_INVALID);
  EXPECT_EQ(dup, 0u);
}

}  // namespace
}  // namespace svp
