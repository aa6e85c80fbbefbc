// FLOAT16 and BFLOAT16 application buffers (docs/rknn.md): the IEEE half and bfloat16
// conversions' rounding, rknn_inputs_set of half buffers giving the float32 buffer's outputs
// (float and int8 models, NCHW and NHWC), and rknn_set_io_mem memory of those types read as
// inputs and written as outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "common/half.h"
#include "rknn/rknn_api.h"
#include "runtime/rknn_context.h"
#include "rknn_fixture.h"
#include "rknn_test_support.h"

namespace svp {
namespace {

using test::contains;

using runtime::rknn::last_error;

// Values k/64, k in [-64, 64]: exact in float16 and bfloat16 (at most 7 significant bits), so
// a half buffer holds exactly the float32 buffer's values.
std::vector<float> sixty_fourths(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-64, 64);
  std::vector<float> v(n);
  for (float& f : v) f = static_cast<float>(d(rng)) / 64.0f;
  return v;
}

std::vector<std::uint16_t> to16(const std::vector<float>& x, bool bf16) {
  std::vector<std::uint16_t> h(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) h[i] = bf16 ? float_to_bfloat16(x[i]) : float_to_half(x[i]);
  return h;
}

class RknnHalfBuffers : public test::RknnFixture {
 protected:
  RknnHalfBuffers() : RknnFixture("rknn_half") {}

  // A 3x3 convolution 3 -> 4 channels on 8x8, compiled for RK3588 (float, or int8 calibrated
  // on data like the tests').
  std::vector<std::uint8_t> conv_image(bool int8) {
    std::vector<std::vector<float>> calib;
    for (unsigned i = 0; int8 && i < 4; ++i) calib.push_back(sixty_fourths(192, 100 + i));
    return conv3x3_image(3, 4, 8, sixty_fourths(4 * 3 * 9, 7), sixty_fourths(4, 8), calib);
  }

  rknn_context init(std::vector<std::uint8_t> image) { return init_image(std::move(image)); }

  // Output 0 as float32 after a run on `buf` (`type`, `fmt`).
  static std::vector<float> run(rknn_context ctx, const void* buf, std::uint32_t size, rknn_tensor_type type,
                                rknn_tensor_format fmt) {
    return test::rknn_run_float(ctx, buf, size, type, fmt);
  }
};

TEST(RknnHalfConversion, RoundsToNearestEvenAndKeepsInfinityAndNan) {
  EXPECT_EQ(float_to_half(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half(65504.0f), 0x7bff);                  // the largest half
  EXPECT_EQ(float_to_half(65520.0f), 0x7c00);                  // halfway to 65536: rounds to infinity
  EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3c00);      // tie: to the even 1.0
  EXPECT_EQ(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);  // tie: to the even 1+2^-9
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -24)), 0x0001);     // the smallest subnormal
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -25)), 0x0000);     // tie: to the even 0
  EXPECT_EQ(float_to_half(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_TRUE(std::isnan(half_to_float(float_to_half(std::nanf("")))));
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(half_to_float(0xfbff), -65504.0f);

  EXPECT_EQ(float_to_bfloat16(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bfloat16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);      // tie: to the even 1.0
  EXPECT_EQ(float_to_bfloat16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);  // tie: up to the even
  EXPECT_EQ(float_to_bfloat16(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)), 0x3f81);  // above: up
  EXPECT_EQ(float_to_bfloat16(std::numeric_limits<float>::max()), 0x7f80);  // rounds to infinity
  EXPECT_TRUE(std::isnan(bfloat16_to_float(float_to_bfloat16(std::nanf("")))));
  EXPECT_EQ(bfloat16_to_float(0xc040), -3.0f);
}

TEST_F(RknnHalfBuffers, Float16AndBfloat16InputsGiveTheFloat32InputsOutputs) {
  for (bool int8 : {false, true}) {
    SCOPED_TRACE(int8 ? "int8 model" : "float model");
    rknn_context ctx = init(conv_image(int8));
    const std::vector<float> x = sixty_fourths(192, 11);  // NCHW 1x3x8x8
    const std::vector<float> want = run(ctx, x.data(), 192 * 4, RKNN_TENSOR_FLOAT32, RKNN_TENSOR_NCHW);
    ASSERT_EQ(want.size(), 256u);
    const auto f16 = to16(x, false), bf16 = to16(x, true);
    EXPECT_EQ(run(ctx, f16.data(), 192 * 2, RKNN_TENSOR_FLOAT16, RKNN_TENSOR_NCHW), want);
    EXPECT_EQ(run(ctx, bf16.data(), 192 * 2, RKNN_TENSOR_BFLOAT16, RKNN_TENSOR_NCHW), want);
    // The same values in NHWC order.
    std::vector<std::uint16_t> nhwc(192);
    for (std::size_t c = 0; c < 3; ++c) {
      for (std::size_t p = 0; p < 64; ++p) nhwc[p * 3 + c] = f16[c * 64 + p];
    }
    EXPECT_EQ(run(ctx, nhwc.data(), 192 * 2, RKNN_TENSOR_FLOAT16, RKNN_TENSOR_NHWC), want);
    // A half buffer sized as float32 is refused, naming the bytes it needs.
    rknn_input in{};
    in.buf = const_cast<float*>(x.data());
    in.size = 192 * 4;
    in.type = RKNN_TENSOR_FLOAT16;
    in.fmt = RKNN_TENSOR_NCHW;
    EXPECT_EQ(rknn_inputs_set(ctx, 1, &in), RKNN_ERR_INPUT_INVALID);
    EXPECT_TRUE(contains(last_error(), "384 bytes")) << last_error();
    EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
    opened_.clear();
  }
}

TEST_F(RknnHalfBuffers, BoundHalfMemoryIsReadAsInputAndOutputsAreWrittenRoundedToHalf) {
  rknn_context ctx = init(conv_image(false));
  const std::vector<float> x = sixty_fourths(192, 12);
  const std::vector<float> want = run(ctx, x.data(), 192 * 4, RKNN_TENSOR_FLOAT32, RKNN_TENSOR_NCHW);
  ASSERT_EQ(want.size(), 256u);
  for (rknn_tensor_type type : {RKNN_TENSOR_FLOAT16, RKNN_TENSOR_BFLOAT16}) {
    SCOPED_TRACE(type);
    const bool bf16 = type == RKNN_TENSOR_BFLOAT16;
    rknn_tensor_attr in{}, out{};
    in.index = 0;
    out.index = 0;
    ASSERT_EQ(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &in, sizeof in), RKNN_SUCC) << last_error();
    ASSERT_EQ(rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &out, sizeof out), RKNN_SUCC) << last_error();
    ASSERT_EQ(in.fmt, RKNN_TENSOR_NHWC);
    in.type = type;
    out.type = type;
    rknn_tensor_mem* in_mem = rknn_create_mem(ctx, in.n_elems * 2);
    rknn_tensor_mem* out_mem = rknn_create_mem(ctx, out.n_elems * 2);
    ASSERT_NE(in_mem, nullptr) << last_error();
    ASSERT_NE(out_mem, nullptr) << last_error();
    const auto h = to16(x, bf16);
    auto* p = static_cast<std::uint16_t*>(in_mem->virt_addr);
    for (std::size_t c = 0; c < 3; ++c) {
      for (std::size_t q = 0; q < 64; ++q) p[q * 3 + c] = h[c * 64 + q];
    }
    ASSERT_EQ(rknn_set_io_mem(ctx, in_mem, &in), RKNN_SUCC) << last_error();
    ASSERT_EQ(rknn_set_io_mem(ctx, out_mem, &out), RKNN_SUCC) << last_error();
    ASSERT_EQ(rknn_run(ctx, nullptr), RKNN_SUCC) << last_error();
    const auto* y = static_cast<const std::uint16_t*>(out_mem->virt_addr);
    const auto expected = to16(want, bf16);
    std::size_t inexact = 0;
    for (std::size_t i = 0; i < 256; ++i) {
      EXPECT_EQ(y[i], expected[i]) << i;
      if ((bf16 ? bfloat16_to_float(y[i]) : half_to_float(y[i])) != want[i]) ++inexact;
    }
    EXPECT_GT(inexact, 0u) << "the outputs were all exact in 16 bits: the rounding was not exercised";
    for (rknn_tensor_mem* m : {in_mem, out_mem}) EXPECT_EQ(rknn_destroy_mem(ctx, m), RKNN_SUCC);
  }
  // INT4 memory stays unimplemented; an output in a type it cannot be written as is refused.
  rknn_tensor_attr out{};
  ASSERT_EQ(rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &out, sizeof out), RKNN_SUCC);
  rknn_tensor_mem* mem = rknn_create_mem(ctx, out.n_elems * 4);
  ASSERT_NE(mem, nullptr) << last_error();
  out.type = RKNN_TENSOR_INT4;
  EXPECT_EQ(rknn_set_io_mem(ctx, mem, &out), RKNN_ERR_FAIL);
  EXPECT_TRUE(contains(last_error(), "not implemented yet")) << last_error();
  out.type = RKNN_TENSOR_INT16;
  EXPECT_EQ(rknn_set_io_mem(ctx, mem, &out), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "FLOAT16")) << last_error();
  EXPECT_EQ(rknn_destroy_mem(ctx, mem), RKNN_SUCC);
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
  opened_.clear();
}

}  // namespace
}  // namespace svp
