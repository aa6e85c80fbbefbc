// The native int8/uint8 GlobalAveragePool (src/kernels/onednn/q8_gap.h) against the
// reference kernel's generic path, byte for byte, over encodings, channel counts whose
// NHWC period is short, long or past the vector path's limit, and planes with a tail.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/kernels.h"
#include "kernels/onednn/q8_gap.h"

namespace {

using svp::model::DType;

std::vector<std::uint8_t> nhwc_of(const std::vector<std::uint8_t>& nchw, std::int64_t c, std::int64_t hw) {
  std::vector<std::uint8_t> out(nchw.size());
  for (std::int64_t ch = 0; ch < c; ++ch)
    for (std::int64_t s = 0; s < hw; ++s)
      out[static_cast<std::size_t>(s * c + ch)] = nchw[static_cast<std::size_t>(ch * hw + s)];
  return out;
}

struct Shape {
  std::int64_t c, h, w;
};

// c = 8 and 64: periods of one vector; 36 and 88: periods of 9 and 11 vectors; 65: past
// the limit (the plain loop); 7×7 and 5×9 planes: one masked vector per plane. 64 × 48 × 48
// and 36 × 56 × 56: NHWC lanes that pass their int16 sums on to int32 many times (every
// 128 vectors per lane). Channel counts of 16 and more also take the vector requantization,
// 36, 65 and 88 with a tail.
const Shape kShapes[] = {{8, 24, 48}, {64, 7, 7},  {36, 5, 9},   {88, 12, 24},
                         {65, 3, 5},  {3, 40, 41}, {64, 48, 48}, {36, 56, 56}};

// The outputs against the reference kernel in both layouts, and the sums against the plain
// double loop.
void expect_reference_bytes(DType dt, float sx, std::int32_t zx, const Shape& sh, std::mt19937& rng) {
  const std::int64_t hw = sh.h * sh.w;
  const float sy = sx * 0.37f;
  const std::int32_t zy = dt == DType::kInt8 ? 3 : 125;
  std::vector<std::uint8_t> x(static_cast<std::size_t>(sh.c * hw));
  // Each channel its own range of bytes, so the means (and outputs) differ.
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<std::uint8_t>(static_cast<std::int64_t>(i) / hw * 37 + static_cast<std::int64_t>(rng() % 96));
  svp::model::Quant qx{{sx}, {zx}, -1}, qy{{sy}, {zy}, -1};
  std::vector<std::uint8_t> want(static_cast<std::size_t>(sh.c)), got(want.size());
  svp::model::TensorView in{dt, {1, sh.c, sh.h, sh.w}, x.data(), &qx};
  svp::model::TensorView out{dt, {1, sh.c, 1, 1}, want.data(), &qy};
  ASSERT_TRUE(svp::kernels::run_reference("GlobalAveragePool", {}, {in}, {out}).ok());
  const svp::kernels::onednn::Q8Operand oy{dt, sy, zy};
  const svp::kernels::onednn::Q8GapInput ox = svp::kernels::onednn::q8_gap_input({dt, sx, zx});
  const std::string what = std::string(svp::model::dtype_name(dt)) + " s=" + std::to_string(sx) +
                           " zp=" + std::to_string(zx) + " c=" + std::to_string(sh.c) + " hw=" + std::to_string(hw);
  svp::kernels::onednn::q8_global_avg_pool(x.data(), ox, got.data(), oy, 1, sh.c, hw, false);
  EXPECT_EQ(got, want) << "NCHW " << what;
  const std::vector<std::uint8_t> xn = nhwc_of(x, sh.c, hw);
  std::fill(got.begin(), got.end(), std::uint8_t{0});
  svp::kernels::onednn::q8_global_avg_pool(xn.data(), ox, got.data(), oy, 1, sh.c, hw, true);
  EXPECT_EQ(got, want) << "NHWC " << what;
  // The sums themselves, against the plain double loop: exact, whatever the order.
  std::vector<double> plain(static_cast<std::size_t>(sh.c), 0.0), fast(plain.size()), fast_nhwc(plain.size());
  for (std::int64_t ch = 0; ch < sh.c; ++ch)
    for (std::int64_t s = 0; s < hw; ++s) {
      const std::uint8_t v = x[static_cast<std::size_t>(ch * hw + s)];
      const std::int32_t q = dt == DType::kInt8 ? static_cast<std::int8_t>(v) : v;
      plain[static_cast<std::size_t>(ch)] += static_cast<double>(static_cast<float>(q - zx) * sx);
    }
  svp::kernels::onednn::q8_gap_channel_sums(x.data(), ox, sh.c, hw, false, fast.data());
  svp::kernels::onednn::q8_gap_channel_sums(xn.data(), ox, sh.c, hw, true, fast_nhwc.data());
  EXPECT_EQ(fast, plain) << "NCHW sums " << what;
  EXPECT_EQ(fast_nhwc, plain) << "NHWC sums " << what;
}

TEST(Q8GlobalAveragePool, GivesTheReferenceBytesForEveryLayoutEncodingAndShape) {
  std::mt19937 rng(11);
  const float scales[] = {0.05f, 0.0137f, 3.1e-3f, 1.7f};
  for (DType dt : {DType::kInt8, DType::kUint8}) {
    for (float sx : scales) {
      for (const Shape& sh : kShapes) {
        const std::int32_t zx = dt == DType::kInt8 ? static_cast<std::int32_t>(rng() % 41) - 20
                                                   : static_cast<std::int32_t>(rng() % 256);
        expect_reference_bytes(dt, sx, zx, sh, rng);
      }
    }
  }
}

// A uint8 input with zero point 0 (after a Relu) has products up to 255·s, whose rounding
// errors can reach both −128 and 128 units: then the correction takes two byte tables
// rather than one. Both kinds of scale, found by looking, give the reference's bytes.
TEST(Q8GlobalAveragePool, GivesTheReferenceBytesWithOneOrTwoCorrectionTables) {
  if (!svp::kernels::onednn::q8_gap_input({DType::kUint8, 0.01f, 0}).split) {
    GTEST_SKIP() << "this CPU takes the plain loop (no AVX-512 VBMI)";
  }
  std::mt19937 rng(5);
  for (bool two : {false, true}) {
    float found = 0.f;
    for (int k = 0; k < 1000 && found == 0.f; ++k) {
      const float s = 0.01f * (1.f + static_cast<float>(k) * 1e-4f);
      if (svp::kernels::onednn::q8_gap_input({DType::kUint8, s, 0}).two_tables == two) found = s;
    }
    ASSERT_NE(found, 0.f) << "no scale with two_tables = " << two;
    for (const Shape& sh : kShapes) expect_reference_bytes(DType::kUint8, found, 0, sh, rng);
  }
}

}  // namespace
