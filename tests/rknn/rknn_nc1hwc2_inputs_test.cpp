// rknn_inputs_set of buffers in the NC1HWC2 layout (docs/rknn.md): the layout
// RKNN_QUERY_NATIVE_INPUT_ATTR reports, packed here from the guide's formula (section 5.1),
// gives the NCHW buffer's outputs, converted (FLOAT32, FLOAT16) or pass_through (int8).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
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
using test::uniform;

using runtime::rknn::last_error;

// NCHW (C x H x W, N = 1) -> NC1HWC2 of `c2` lanes: channel c is lane c % C2 of block c / C2,
// each block H x W x C2; lanes past C are zero.
template <typename T>
std::vector<T> to_nc1hwc2(const std::vector<T>& x, std::uint32_t c, std::uint32_t h, std::uint32_t w, std::uint32_t c2) {
  const std::uint32_t c1 = (c + c2 - 1) / c2;
  std::vector<T> out(static_cast<std::size_t>(c1) * h * w * c2, T{});
  for (std::uint32_t ch = 0; ch < c; ++ch) {
    for (std::uint32_t p = 0; p < h * w; ++p) out[((ch / c2) * h * w + p) * c2 + ch % c2] = x[ch * h * w + p];
  }
  return out;
}

class RknnNc1hwc2Inputs : public test::RknnFixture {
 protected:
  RknnNc1hwc2Inputs() : RknnFixture("rknn_nc1hwc2") {}

  // A 3x3 convolution 10 -> 4 channels on 6x6 (10 channels: an NC1HWC2 native input) for RK3588.
  rknn_context init(bool int8) {
    std::vector<float> w = uniform(4 * 10 * 9, 7);
    for (float& v : w) v -= 0.5f;
    std::vector<std::vector<float>> calib;
    for (unsigned i = 0; int8 && i < 4; ++i) calib.push_back(uniform(360, 100 + i));
    std::vector<std::uint8_t> image = conv3x3_image(10, 4, 6, w, {}, calib);
    return image.empty() ? 0 : init_image(std::move(image));
  }

  static std::vector<float> run(rknn_context ctx, const void* buf, std::size_t size, rknn_tensor_type type,
                                rknn_tensor_format fmt, bool pass_through = false) {
    return test::rknn_run_float(ctx, buf, size, type, fmt, pass_through);
  }
};

TEST_F(RknnNc1hwc2Inputs, AFloatBufferInTheNativeNc1hwc2LayoutGivesTheNchwBuffersOutputs) {
  rknn_context ctx = init(false);
  rknn_tensor_attr native{};
  ASSERT_EQ(rknn_query(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR, &native, sizeof native), RKNN_SUCC) << last_error();
  ASSERT_EQ(native.fmt, RKNN_TENSOR_NC1HWC2);
  const std::uint32_t c2 = native.dims[4];
  ASSERT_GT(c2, 0u);
  ASSERT_LT(c2, 10u) << "the test wants padding lanes in the last block and more than one block";
  const std::vector<float> x = uniform(360, 3);
  const std::vector<float> want = run(ctx, x.data(), x.size() * 4, RKNN_TENSOR_FLOAT32, RKNN_TENSOR_NCHW);
  ASSERT_EQ(want.size(), 144u);
  const std::vector<float> packed = to_nc1hwc2(x, 10, 6, 6, c2);
  ASSERT_EQ(packed.size() * 4, native.size_with_stride);
  EXPECT_EQ(run(ctx, packed.data(), packed.size() * 4, RKNN_TENSOR_FLOAT32, RKNN_TENSOR_NC1HWC2), want);
  // FLOAT16 buffers use the same C2 (the float16 row of the guide's table).
  std::vector<std::uint16_t> h(x.size());
  std::vector<float> x16(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    h[i] = float_to_half(x[i]);
    x16[i] = half_to_float(h[i]);
  }
  const std::vector<std::uint16_t> packed16 = to_nc1hwc2(h, 10, 6, 6, c2);
  EXPECT_EQ(run(ctx, packed16.data(), packed16.size() * 2, RKNN_TENSOR_FLOAT16, RKNN_TENSOR_NC1HWC2),
            run(ctx, x16.data(), x16.size() * 4, RKNN_TENSOR_FLOAT32, RKNN_TENSOR_NCHW));
  // A buffer of the dense size (no padding lanes) is refused, naming the layout it needs.
  rknn_input in{};
  in.buf = const_cast<float*>(x.data());
  in.size = 360 * 4;
  in.type = RKNN_TENSOR_FLOAT32;
  in.fmt = RKNN_TENSOR_NC1HWC2;
  EXPECT_EQ(rknn_inputs_set(ctx, 1, &in), RKNN_ERR_INPUT_INVALID);
  EXPECT_TRUE(contains(last_error(), "NC1HWC2 [1, ")) << last_error();
  // INT32 has no C2: refused.
  in.type = RKNN_TENSOR_INT32;
  EXPECT_EQ(rknn_inputs_set(ctx, 1, &in), RKNN_ERR_INPUT_INVALID);
  EXPECT_TRUE(contains(last_error(), "C2")) << last_error();
}

TEST_F(RknnNc1hwc2Inputs, AnInt8PassThroughBufferInNc1hwc2GivesTheNchwPassThroughOutputs) {
  rknn_context ctx = init(true);
  rknn_tensor_attr a{};
  ASSERT_EQ(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &a, sizeof a), RKNN_SUCC) << last_error();
  ASSERT_EQ(a.type, RKNN_TENSOR_INT8);
  rknn_tensor_attr native{};
  ASSERT_EQ(rknn_query(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR, &native, sizeof native), RKNN_SUCC) << last_error();
  ASSERT_EQ(native.fmt, RKNN_TENSOR_NC1HWC2);
  const std::uint32_t c2 = native.dims[4];
  const std::vector<float> x = uniform(360, 4);
  std::vector<std::int8_t> q(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    q[i] = static_cast<std::int8_t>(std::lround(std::fmin(127.0f, std::fmax(-128.0f, x[i] / a.scale + a.zp))));
  }
  const std::vector<float> want = run(ctx, q.data(), q.size(), RKNN_TENSOR_INT8, RKNN_TENSOR_NCHW, true);
  ASSERT_EQ(want.size(), 144u);
  const std::vector<std::int8_t> packed = to_nc1hwc2(q, 10, 6, 6, c2);
  EXPECT_EQ(packed.size(), native.size_with_stride);
  EXPECT_EQ(run(ctx, packed.data(), packed.size(), RKNN_TENSOR_INT8, RKNN_TENSOR_NC1HWC2, true), want);
}

}  // namespace
}  // namespace svp
