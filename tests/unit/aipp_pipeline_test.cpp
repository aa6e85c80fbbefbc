// AIPP as a library (src/aipp): every stage bit by bit on small hand-computed images,
// every supported source format, the validation rules and the parameter block.
// Expected values are literals worked out by hand (the arithmetic is in the comments), not
// recomputed with the code under test.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "model/aipp/model_config.h"
#include "aipp/param_block.h"
#include "aipp/pipeline.h"

namespace {

using svp::aipp::AippParams;
using svp::aipp::Padding;
using svp::aipp::Resize;
namespace fmt_id = svp::aipp::fmt_id;
using svp::model::DType;
using svp::model::Layout;
using svp::model::Quant;
using svp::model::TensorView;

AippParams base(std::int32_t format, std::int32_t w, std::int32_t h) {
  AippParams p;
  p.format_set = p.src_size_set = true;
  p.format = format;
  p.src_w = w;
  p.src_h = h;
  return p;
}

// BT.601 video range YUV -> RGB in Q10 (1.164, 1.596, 0.392, 0.813, 2.017 × 1024).
void bt601(AippParams* p) {
  p->csc = true;
  p->matrix = {1192, 0, 1634, 1192, -401, -832, 1192, 2066, 0};
  p->in_bias = {16, 128, 128};
}

// Runs AIPP into a float NCHW tensor [1, C, H, W].
std::vector<float> run_f32(const AippParams& p, const std::vector<std::uint8_t>& src, std::uint64_t stride,
                           std::int64_t c, std::int64_t h, std::int64_t w, std::size_t image = 0) {
  std::vector<float> out(static_cast<std::size_t>(c * h * w), -999.0f);
  TensorView v;
  v.dtype = DType::kFloat32;
  v.dims = {1, c, h, w};
  v.data = out.data();
  const auto s = svp::aipp::run(p, image, src.data(), stride, src.size(), Layout::kNCHW, v);
  EXPECT_TRUE(s.ok()) << s.message();
  return out;
}

svp::Status run_status(const AippParams& p, const std::vector<std::uint8_t>& src, std::uint64_t stride,
                       std::vector<std::int64_t> dims) {
  std::vector<float> out(1 << 12);
  TensorView v;
  v.dtype = DType::kFloat32;
  v.dims = std::move(dims);
  v.data = out.data();
  return svp::aipp::run(p, 0, src.data(), stride, src.size(), Layout::kNCHW, v);
}

// A 2x2 NV12 image, stride 16: Y = [[100, 150], [200, 50]], one chroma pair U = 90, V = 200.
std::vector<std::uint8_t> nv12_2x2(bool nv21 = false) {
  std::vector<std::uint8_t> b(3 * 16, 0);
  b[0] = 100;
  b[1] = 150;
  b[16] = 200;
  b[17] = 50;
  b[32] = nv21 ? 200 : 90;
  b[33] = nv21 ? 90 : 200;
  return b;
}

TEST(AippPipeline, CscBt601OnNv12MatchesHandComputedFixedPoint) {
  AippParams p = base(fmt_id::kYuv420Sp, 2, 2);
  bt601(&p);
  // Y=100: R = (1192·84 + 1634·72 + 512) >> 10 = 218288 >> 10 = 213
  //        G = (1192·84 − 401·(−38) − 832·72 + 512) >> 10 = 55974 >> 10 = 54
  //        B = (1192·84 + 2066·(−38) + 512) >> 10 = 22132 >> 10 = 21
  // Y=150: R = 255 (clamped), G = 112, B = 79; Y=200: 255, 171, 138; Y=50: 154, 0 (clamped), 0.
  const auto out = run_f32(p, nv12_2x2(), 16, 3, 2, 2);
  EXPECT_EQ(out, (std::vector<float>{213, 255, 255, 154, 54, 112, 171, 0, 21, 79, 138, 0}));
}

TEST(AippPipeline, Nv21IsNv12WithUvSwappedAndRbuvSwapUndoesIt) {
  AippParams p = base(fmt_id::kYvu420Sp, 2, 2);
  bt601(&p);
  const auto nv21 = run_f32(p, nv12_2x2(true), 16, 3, 2, 2);
  EXPECT_EQ(nv21[0], 213);
  EXPECT_EQ(nv21[4], 54);
  // Reading NV12 bytes as NV21 with the U/V swap on is the same as NV12.
  p.rbuv_swap = true;
  EXPECT_EQ(run_f32(p, nv12_2x2(false), 16, 3, 2, 2), nv21);
}

TEST(AippPipeline, CscOffPassesYuvThroughWithSharedChroma) {
  const AippParams p = base(fmt_id::kYuv420Sp, 2, 2);
  EXPECT_EQ(run_f32(p, nv12_2x2(), 16, 3, 2, 2),
            (std::vector<float>{100, 150, 200, 50, 90, 90, 90, 90, 200, 200, 200, 200}));
}

TEST(AippPipeline, CscOutputBiasAndClampForRgbToYuv) {
  // One RGB888 pixel (10, 20, 30); Y row = 0.25 R + 0.5 G + 0.25 B = 20 (+16 bias = 36);
  // second row −1·R + 0 + 0 = −10 → +128 = 118; third row 2·B = 60 → +250 → 310 → 255.
  AippParams p = base(fmt_id::kRgb888, 1, 1);
  p.csc = true;
  p.matrix = {256, 512, 256, -1024, 0, 0, 0, 0, 2048};
  p.out_bias = {16, 128, 250};
  std::vector<std::uint8_t> src(16, 0);
  src[0] = 10;
  src[1] = 20;
  src[2] = 30;
  EXPECT_EQ(run_f32(p, src, 16, 3, 1, 1), (std::vector<float>{36, 118, 255}));
}

TEST(AippPipeline, CropSelectsTheWindow) {
  // YUV400 4x3 with value 10·row + col; crop (1, 1) 2x2 → [[11, 12], [21, 22]].
  AippParams p = base(fmt_id::kYuv400, 4, 3);
  p.batches[0].crop = true;
  p.batches[0].crop_x = 1;
  p.batches[0].crop_y = 1;
  p.batches[0].crop_w = 2;
  p.batches[0].crop_h = 2;
  std::vector<std::uint8_t> src(3 * 16, 0);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) src[static_cast<std::size_t>(r * 16 + c)] = static_cast<std::uint8_t>(10 * r + c);
  EXPECT_EQ(run_f32(p, src, 16, 1, 2, 2), (std::vector<float>{11, 12, 21, 22}));
}

std::vector<std::uint8_t> row_image(std::vector<std::uint8_t> px) {
  std::vector<std::uint8_t> b(16, 0);
  std::memcpy(b.data(), px.data(), px.size());
  return b;
}

TEST(AippPipeline, BilinearDownscaleUsesHalfPixelCentresAndRoundsHalfUp) {
  // 4 → 2: x = (i + 0.5)·2 − 0.5 = 0.5, 2.5 → (10 + 21) / 2 = 15.5 → 16; (30 + 40) / 2 = 35.
  AippParams p = base(fmt_id::kYuv400, 4, 1);
  p.batches[0].resize = Resize::kBilinear;
  p.batches[0].resize_in_w = 4;
  p.batches[0].resize_in_h = 1;
  p.batches[0].resize_out_w = 2;
  p.batches[0].resize_out_h = 1;
  EXPECT_EQ(run_f32(p, row_image({10, 21, 30, 40}), 16, 1, 1, 2), (std::vector<float>{16, 35}));
}

TEST(AippPipeline, BilinearUpscaleClampsAtTheBorders) {
  // 2 → 4: x = −0.25 (→ 0, weight 0), 0.25, 0.75, 1.25 (→ last pixel):
  // 10; 10·0.75 + 30·0.25 = 15; 10·0.25 + 30·0.75 = 25; 30.
  AippParams p = base(fmt_id::kYuv400, 2, 1);
  p.batches[0].resize = Resize::kBilinear;
  p.batches[0].resize_in_w = 2;
  p.batches[0].resize_in_h = 1;
  p.batches[0].resize_out_w = 4;
  p.batches[0].resize_out_h = 1;
  EXPECT_EQ(run_f32(p, row_image({10, 30}), 16, 1, 1, 4), (std::vector<float>{10, 15, 25, 30}));
}

TEST(AippPipeline, BilinearIn2DWeighsFourPixels) {
  // 2x2 → 1x1: centre (0.5, 0.5) → (10 + 20 + 30 + 41) / 4 = 25.25 → 25.
  AippParams p = base(fmt_id::kYuv400, 2, 2);
  p.batches[0].resize = Resize::kBilinear;
  p.batches[0].resize_in_w = 2;
  p.batches[0].resize_in_h = 2;
  p.batches[0].resize_out_w = 1;
  p.batches[0].resize_out_h = 1;
  std::vector<std::uint8_t> src(32, 0);
  src[0] = 10;
  src[1] = 20;
  src[16] = 30;
  src[17] = 41;
  EXPECT_EQ(run_f32(p, src, 16, 1, 1, 1), (std::vector<float>{25}));
}

TEST(AippPipeline, NearestResizeTakesFloorOfScaledIndex) {
  // 4 → 3: floor(i·4/3) = 0, 1, 2.
  AippParams p = base(fmt_id::kYuv400, 4, 1);
  p.batches[0].resize = Resize::kNearest;
  p.batches[0].resize_in_w = 4;
  p.batches[0].resize_in_h = 1;
  p.batches[0].resize_out_w = 3;
  p.batches[0].resize_out_h = 1;
  EXPECT_EQ(run_f32(p, row_image({10, 21, 30, 40}), 16, 1, 1, 3), (std::vector<float>{10, 21, 30}));
}

TEST(AippPipeline, DtcSubtractsMeanThenMinThenScales) {
  // (100 − 20 − 5) · 0.5 = 37.5
  AippParams p = base(fmt_id::kYuv400, 1, 1);
  p.batches[0].mean[0] = 20;
  p.batches[0].min[0] = 5;
  p.batches[0].var_reci[0] = 0.5f;
  EXPECT_EQ(run_f32(p, row_image({100}), 16, 1, 1, 1), (std::vector<float>{37.5f}));
}

TEST(AippPipeline, Int8OutputQuantizesWithRoundHalfEvenAndSaturates) {
  AippParams p = base(fmt_id::kYuv400, 3, 1);
  p.batches[0].mean[0] = 20;
  p.batches[0].min[0] = 5;
  p.batches[0].var_reci[0] = 0.5f;
  // Y = 100, 26, 255 → 37.5, 0.5, 115 → /1 → nearbyint: 38 (half to even), 0, 115;
  // + zp −10 → 28, −10, 105.
  const Quant q{{1.0f}, {-10}, -1};
  std::vector<std::int8_t> out(3);
  TensorView v;
  v.dtype = DType::kInt8;
  v.dims = {1, 1, 1, 3};
  v.data = out.data();
  v.quant = &q;
  const auto src = row_image({100, 26, 255});
  ASSERT_TRUE(svp::aipp::run(p, 0, src.data(), 16, src.size(), Layout::kNCHW, v).ok());
  EXPECT_EQ(out, (std::vector<std::int8_t>{28, -10, 105}));
  // Scale 0.25: 37.5 / 0.25 = 150 − 10 = 140 → saturates at 127.
  const Quant q2{{0.25f}, {-10}, -1};
  v.quant = &q2;
  ASSERT_TRUE(svp::aipp::run(p, 0, src.data(), 16, src.size(), Layout::kNCHW, v).ok());
  EXPECT_EQ(out[0], 127);
}

std::vector<std::uint8_t> img_1234() {
  std::vector<std::uint8_t> b(32, 0);
  b[0] = 1;
  b[1] = 2;
  b[16] = 3;
  b[17] = 4;
  return b;
}

std::vector<float> padded(Padding mode, std::int32_t pad) {
  AippParams p = base(fmt_id::kYuv400, 2, 2);
  auto& e = p.batches[0];
  e.padding = mode;
  e.pad_top = e.pad_bottom = e.pad_left = e.pad_right = pad;
  const std::int64_t n = 2 + 2 * pad;
  return run_f32(p, img_1234(), 16, 1, n, n);
}

TEST(AippPipeline, PaddingModes) {
  EXPECT_EQ(padded(Padding::kConstant, 1),
            (std::vector<float>{0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 0}));
  EXPECT_EQ(padded(Padding::kReplication, 1),
            (std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
  // REFLECT_101: ... 2 | 1 2 | 1 ...
  EXPECT_EQ(padded(Padding::kReflection, 1),
            (std::vector<float>{4, 3, 4, 3, 2, 1, 2, 1, 4, 3, 4, 3, 2, 1, 2, 1}));
  // REFLECT (edge repeated), pad 2: 2 1 | 1 2 | 2 1
  const auto sym = padded(Padding::kSymmetric, 2);
  EXPECT_EQ(std::vector<float>(sym.begin() + 12, sym.begin() + 18), (std::vector<float>{2, 1, 1, 2, 2, 1}));
  EXPECT_EQ(std::vector<float>(sym.begin(), sym.begin() + 6), (std::vector<float>{4, 3, 3, 4, 4, 3}));
}

TEST(AippPipeline, ConstantPaddingOfQuantizedOutputIsTheZeroPoint) {
  AippParams p = base(fmt_id::kYuv400, 1, 1);
  p.batches[0].padding = Padding::kConstant;
  p.batches[0].pad_right = 1;
  const Quant q{{0.5f}, {7}, -1};
  std::vector<std::uint8_t> out(2);
  TensorView v;
  v.dtype = DType::kUint8;
  v.dims = {1, 1, 1, 2};
  v.data = out.data();
  v.quant = &q;
  const auto src = row_image({10});
  ASSERT_TRUE(svp::aipp::run(p, 0, src.data(), 16, src.size(), Layout::kNCHW, v).ok());
  EXPECT_EQ(out, (std::vector<std::uint8_t>{27, 7}));  // 10 / 0.5 + 7; real 0 → zp
}

TEST(AippPipeline, StageOrderCropThenCscThenPaddingThenResizeThenDtc) {
  // NV12 4x2, crop (2, 0) 2x2, CSC BT.601, constant padding 1 left (padded 3x2), resize
  // 3x2 → 3x1, mean 100. The resize reads the padded crop, so its input is 3x2.
  std::vector<std::uint8_t> src(3 * 16, 0);
  const std::uint8_t y[2][4] = {{16, 16, 100, 150}, {16, 16, 200, 50}};
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 4; ++c) src[static_cast<std::size_t>(16 * r + c)] = y[r][c];
  src[32] = 128;  // pair of columns 0-1
  src[33] = 128;
  src[34] = 90;  // pair of columns 2-3
  src[35] = 200;
  AippParams p = base(fmt_id::kYuv420Sp, 4, 2);
  bt601(&p);
  auto& e = p.batches[0];
  e.crop = true;
  e.crop_x = 2;
  e.crop_w = 2;
  e.crop_h = 2;
  e.padding = Padding::kConstant;
  e.pad_left = 1;
  e.resize = Resize::kBilinear;
  e.resize_in_w = 3;
  e.resize_in_h = 2;
  e.resize_out_w = 3;
  e.resize_out_h = 1;
  e.mean = {100, 100, 100, 0};
  // CSC of the crop (values of CscBt601...): R [213 255; 255 154], G [54 112; 171 0],
  // B [21 79; 138 0]. Padded rows: [0, c0, c1]. Horizontal 3 → 3 is the identity; vertical
  // 2 → 1 samples at 0.5: (a + b + 1) >> 1 (Q11 weights 1024/1024, rounded half up).
  // R: 0, (213+255+1)/2 = 234, (255+154+1)/2 = 205; G: 0, 113, 56; B: 0, 80, 40.
  // DTC − 100: the padded pixel 0 becomes −100 like any other pixel.
  EXPECT_EQ(run_f32(p, src, 16, 3, 1, 3),
            (std::vector<float>{-100, 134, 105, -100, 13, -44, -100, -20, -60}));
}

TEST(AippPipeline, ConstantPaddingIsPixelValueZeroBeforeDtc) {
  // YUV400 1x1 = 10, constant padding 1 right, mean 4, var_reci 0.5: the padded pixel is 0
  // before DTC, so it leaves DTC as (0 − 4) · 0.5 = −2; the image pixel as (10 − 4) · 0.5 = 3.
  AippParams p = base(fmt_id::kYuv400, 1, 1);
  p.batches[0].padding = Padding::kConstant;
  p.batches[0].pad_right = 1;
  p.batches[0].mean[0] = 4;
  p.batches[0].var_reci[0] = 0.5f;
  EXPECT_EQ(run_f32(p, row_image({10}), 16, 1, 1, 2), (std::vector<float>{3, -2}));
}

TEST(AippPipeline, ResizeBlendsThePaddedBorder) {
  // YUV400 2x1 [40, 80], replication padding 1 left and right → [40, 40, 80, 80], nearest
  // 4 → 2 reads columns 0 and 2: [40, 80]; bilinear 4 → 2 samples at 0.5 and 2.5:
  // (40+40)/2 = 40 and (80+80)/2 = 80. Constant padding instead → [0, 40, 80, 0]: bilinear
  // gives (0+40+1)>>1 = 20 and (80+0+1)>>1 = 40.
  AippParams p = base(fmt_id::kYuv400, 2, 1);
  auto& e = p.batches[0];
  e.padding = Padding::kReplication;
  e.pad_left = e.pad_right = 1;
  e.resize = Resize::kNearest;
  e.resize_in_w = 4;
  e.resize_in_h = 1;
  e.resize_out_w = 2;
  e.resize_out_h = 1;
  EXPECT_EQ(run_f32(p, row_image({40, 80}), 16, 1, 1, 2), (std::vector<float>{40, 80}));
  e.resize = Resize::kBilinear;
  EXPECT_EQ(run_f32(p, row_image({40, 80}), 16, 1, 1, 2), (std::vector<float>{40, 80}));
  e.padding = Padding::kConstant;
  EXPECT_EQ(run_f32(p, row_image({40, 80}), 16, 1, 1, 2), (std::vector<float>{20, 40}));
}

// A random 6x4 RGB image written in every packed / planar layout reads back the same.
TEST(AippPipeline, EveryRgbFormatYieldsTheSameChannels) {
  const int W = 6, H = 4;
  std::mt19937 rng(5);
  std::vector<std::uint8_t> rgb(static_cast<std::size_t>(W * H * 3));
  for (auto& v : rgb) v = static_cast<std::uint8_t>(rng());
  auto at = [&](int y, int x, int c) { return rgb[static_cast<std::size_t>((y * W + x) * 3 + c)]; };
  std::vector<float> want(static_cast<std::size_t>(3 * H * W));
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) want[static_cast<std::size_t>((c * H + y) * W + x)] = at(y, x, c);

  struct Case {
    std::int32_t format;
    int bpp;               // packed bytes per pixel, 0 = planar
    int planes;            // planar planes
    std::array<int, 4> slot;  // where R, G, B, X go (byte or plane)
  };
  const Case cases[] = {
      {fmt_id::kRgb888, 3, 0, {0, 1, 2, -1}},      {fmt_id::kBgrPackage, 3, 0, {2, 1, 0, -1}},
      {fmt_id::kXrgb8888, 4, 0, {1, 2, 3, 0}},     {fmt_id::kArgb8888, 4, 0, {1, 2, 3, 0}},
      {fmt_id::kXbgrPackage, 4, 0, {3, 2, 1, 0}},  {fmt_id::kRgbxPackage, 4, 0, {0, 1, 2, 3}},
      {fmt_id::kBgrxPackage, 4, 0, {2, 1, 0, 3}},  {fmt_id::kRgbPlanar, 0, 3, {0, 1, 2, -1}},
      {fmt_id::kBgrPlanar, 0, 3, {2, 1, 0, -1}},   {fmt_id::kXrgbPlanar, 0, 4, {1, 2, 3, 0}},
      {fmt_id::kXbgrPlanar, 0, 4, {3, 2, 1, 0}},   {fmt_id::kRgbxPlanar, 0, 4, {0, 1, 2, 3}},
      {fmt_id::kBgrxPlanar, 0, 4, {2, 1, 0, 3}},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(svp::aipp::format_name(k.format));
    const std::uint64_t stride = 32;
    std::vector<std::uint8_t> src(stride * static_cast<std::uint64_t>(H * std::max(k.planes, 1)), 0xEE);
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x)
        for (int c = 0; c < 4; ++c) {
          if (k.slot[static_cast<std::size_t>(c)] < 0) continue;
          const std::uint8_t v = c < 3 ? at(y, x, c) : 0x55;
          const int s = k.slot[static_cast<std::size_t>(c)];
          if (k.bpp > 0) src[static_cast<std::size_t>(y * 32 + x * k.bpp + s)] = v;
          else src[static_cast<std::size_t>((s * H + y) * 32 + x)] = v;
        }
    AippParams p = base(k.format, W, H);
    EXPECT_EQ(run_f32(p, src, stride, 3, H, W), want);
    // R/B swap: channel order B, G, R.
    p.rbuv_swap = true;
    const auto swapped = run_f32(p, src, stride, 3, H, W);
    const std::size_t plane = static_cast<std::size_t>(H * W);
    EXPECT_EQ(std::vector<float>(swapped.begin(), swapped.begin() + static_cast<long>(plane)),
              std::vector<float>(want.begin() + 2 * static_cast<long>(plane), want.end()));
  }
}

TEST(AippPipeline, AxSwapReadsXrgbDataStoredAsRgbx) {
  const std::vector<std::uint8_t> rgbx = row_image({10, 20, 30, 0xFF});
  AippParams p = base(fmt_id::kXrgb8888, 1, 1);
  p.ax_swap = true;
  EXPECT_EQ(run_f32(p, rgbx, 16, 3, 1, 1), (std::vector<float>{10, 20, 30}));
  p.ax_swap = false;
  EXPECT_EQ(run_f32(p, rgbx, 16, 3, 1, 1), (std::vector<float>{20, 30, 255}));
}

TEST(AippPipeline, Yuv422SharesChromaPerPairOfColumnsOnEveryRow) {
  // 2x2 NV16: Y rows then 2 chroma rows (one U,V pair per row).
  std::vector<std::uint8_t> src(4 * 16, 0);
  src[0] = 1;
  src[1] = 2;
  src[16] = 3;
  src[17] = 4;
  src[32] = 50;
  src[33] = 60;
  src[48] = 70;
  src[49] = 80;
  const AippParams p = base(fmt_id::kYuv422Sp, 2, 2);
  EXPECT_EQ(run_f32(p, src, 16, 3, 2, 2), (std::vector<float>{1, 2, 3, 4, 50, 50, 70, 70, 60, 60, 80, 80}));
}

TEST(AippPipeline, PerBatchEntriesApplyToTheirImage) {
  AippParams p = base(fmt_id::kYuv400, 2, 1);
  p.batches.resize(2);
  p.batches[1].mean[0] = 1;
  const auto src = row_image({5, 6});
  EXPECT_EQ(run_f32(p, src, 16, 1, 1, 2, 0), (std::vector<float>{5, 6}));
  EXPECT_EQ(run_f32(p, src, 16, 1, 1, 2, 1), (std::vector<float>{4, 5}));
}

TEST(AippPipeline, NhwcOutputInterleavesChannels) {
  const AippParams p = base(fmt_id::kYuv420Sp, 2, 2);
  std::vector<float> out(12);
  TensorView v;
  v.dtype = DType::kFloat32;
  v.dims = {1, 2, 2, 3};
  v.data = out.data();
  const auto src = nv12_2x2();
  ASSERT_TRUE(svp::aipp::run(p, 0, src.data(), 16, src.size(), Layout::kNHWC, v).ok());
  EXPECT_EQ(out, (std::vector<float>{100, 90, 200, 150, 90, 200, 200, 90, 200, 50, 90, 200}));
}

// ---------------------------------------------------------------------------------------
// Validation: every rule fails with INVALID_PARAM and says what is wrong.

void expect_invalid(const AippParams& p, const char* needle) {
  const svp::Status s = svp::aipp::validate(p);
  EXPECT_EQ(s.code(), svp::err::kInvalidParam) << needle;
  EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
}

TEST(AippValidate, MandatorySettersAndFormats) {
  AippParams p = base(fmt_id::kYuv420Sp, 4, 4);
  p.format_set = false;
  expect_invalid(p, "svp_acl_mdl_set_aipp_input_format is mandatory");
  p = base(fmt_id::kYuv420Sp, 4, 4);
  p.src_size_set = false;
  expect_invalid(p, "svp_acl_mdl_set_aipp_src_image_size is mandatory");
  expect_invalid(base(0x105, 4, 4), "SVP_ACL_FEATURE_MAP_FP32 is not supported");
  expect_invalid(base(0x112, 4, 4), "Bayer raw format");
  expect_invalid(base(fmt_id::kYuv420Sp, 5, 4), "needs an even width and height");
  expect_invalid(base(fmt_id::kYvu420Sp, 4, 3), "needs an even width and height");
  expect_invalid(base(fmt_id::kYuv422Sp, 3, 3), "needs an even width");
  EXPECT_TRUE(svp::aipp::validate(base(fmt_id::kYuv422Sp, 4, 3)).ok());
  AippParams q = base(fmt_id::kYuv400, 4, 4);
  q.csc = true;
  expect_invalid(q, "CSC is not applicable");
  q = base(fmt_id::kRgb888, 4, 4);
  q.ax_swap = true;
  expect_invalid(q, "AX swap applies only");
}

TEST(AippValidate, CropResizePaddingDtc) {
  AippParams p = base(fmt_id::kYuv420Sp, 8, 8);
  auto& e = p.batches[0];
  e.crop = true;
  e.crop_x = 4;
  e.crop_y = 0;
  e.crop_w = 6;
  e.crop_h = 8;
  expect_invalid(p, "lies outside the 8x8 source image");
  e.crop_w = 4;
  EXPECT_TRUE(svp::aipp::validate(p).ok());
  e.crop_x = 3;
  e.crop_w = 2;
  expect_invalid(p, "must be even");
  e.crop_x = 4;
  e.resize = Resize::kBilinear;
  e.resize_in_w = 8;
  e.resize_in_h = 8;
  e.resize_out_w = e.resize_out_h = 2;
  expect_invalid(p, "resize (scf) input 8x8 differs from the crop size 2x8");
  e.resize_in_w = 2;
  EXPECT_TRUE(svp::aipp::validate(p).ok());
  // Padding extends what the resize reads: the scf input must include it.
  e.padding = Padding::kConstant;
  e.pad_left = e.pad_right = 1;
  expect_invalid(p, "resize (scf) input 2x8 differs from the padded crop size 4x8 that the resize stage reads "
                    "(2x8 crop + left 1 right 1, top 0 bottom 0 padding)");
  e.resize_in_w = 4;
  EXPECT_TRUE(svp::aipp::validate(p).ok());
  e.pad_right = 0;
  e.resize_in_w = 2;
  e.padding = Padding::kReflection;
  e.pad_left = 2;
  expect_invalid(p, "reflection padding must be smaller");
  e.padding = Padding::kConstant;
  e.pad_left = -1;
  expect_invalid(p, "padding sizes");
  e.pad_left = 0;
  e.var_reci[2] = std::numeric_limits<float>::infinity();
  expect_invalid(p, "must be finite");
}

TEST(AippValidate, AgainstTheModelInput) {
  svp::aipp::Target t;
  t.input_name = "img";
  t.channels = 3;
  t.batch = 2;
  t.hw = {{4, 6}};
  t.max_src_w = 8;
  t.max_src_h = 8;
  AippParams p = base(fmt_id::kYuv420Sp, 6, 4);
  EXPECT_TRUE(svp::aipp::validate_for(p, t).ok());
  auto check = [&](const AippParams& q, const char* needle) {
    const svp::Status s = svp::aipp::validate_for(q, t);
    EXPECT_EQ(s.code(), svp::err::kInvalidParam);
    EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
  };
  check(base(fmt_id::kYuv420Sp, 8, 4), "output 8x4 (w x h after crop, padding and resize) does not match the model input (6x4)");
  check(base(fmt_id::kYuv420Sp, 10, 4), "exceeds the model's maximum 8x8");
  check(base(fmt_id::kYuv400, 6, 4), "produces 1 channel(s), the model input has 3");
  AippParams three = p;
  three.batches.resize(3);
  check(three, "3 parameter sets for a batch of 2");
  AippParams two = p;
  two.batches.resize(2);
  EXPECT_TRUE(svp::aipp::validate_for(two, t).ok());
  t.dynamic_batch = true;
  check(two, "one parameter set for all batch images");
  // Dynamic HW: any gear is accepted by validate_for; run() checks the selected one.
  t.dynamic_batch = false;
  t.hw.emplace_back(2, 4);
  EXPECT_TRUE(svp::aipp::validate_for(base(fmt_id::kYuv420Sp, 4, 2), t).ok());
  const auto src = std::vector<std::uint8_t>(3 * 16, 0);
  const svp::Status s = run_status(base(fmt_id::kYuv420Sp, 4, 2), src, 16, {1, 3, 4, 6});
  EXPECT_NE(s.message().find("needs the post-AIPP size of the selected gear"), std::string::npos) << s.message();
}

TEST(AippValidate, RunChecksTheSourceBuffer) {
  const AippParams p = base(fmt_id::kYuv420Sp, 4, 4);
  const std::vector<std::uint8_t> small(5 * 16, 0);  // 4 Y rows + 2 UV rows need 5·16 + 4
  EXPECT_NE(run_status(p, small, 16, {1, 3, 4, 4}).message().find("source buffer of 80 bytes is smaller"),
            std::string::npos);
  const std::vector<std::uint8_t> ok(5 * 16 + 4, 0);  // the last row needs only its pixels
  EXPECT_TRUE(run_status(p, ok, 16, {1, 3, 4, 4}).ok());
  EXPECT_NE(run_status(p, ok, 2, {1, 3, 4, 4}).message().find("stride 2 is smaller"), std::string::npos);
}

// ---------------------------------------------------------------------------------------
// Parameter block.

TEST(AippParamBlock, RoundTripsEveryField) {
  AippParams p = base(fmt_id::kXrgb8888, 640, 480);
  bt601(&p);
  p.out_bias = {1, 2, 3};
  p.rbuv_swap = true;
  p.ax_swap = true;
  p.batches.resize(2);
  auto& e = p.batches[1];
  e.crop = true;
  e.crop_x = 2;
  e.crop_y = 4;
  e.crop_w = 100;
  e.crop_h = 50;
  e.resize = Resize::kNearest;
  e.resize_in_w = 100;
  e.resize_in_h = 50;
  e.resize_out_w = 30;
  e.resize_out_h = 20;
  e.padding = Padding::kSymmetric;
  e.pad_top = 1;
  e.pad_bottom = 2;
  e.pad_left = 3;
  e.pad_right = 4;
  e.mean = {1.5f, 2.5f, 3.5f, 4.5f};
  e.min = {-1, -2, -3, -4};
  e.var_reci = {0.1f, 0.2f, 0.3f, 0.4f};
  std::vector<std::uint8_t> buf(svp::aipp::block_capacity(4), 0xCC);
  ASSERT_TRUE(svp::aipp::serialize(p, buf.data(), buf.size()).ok());
  EXPECT_EQ(buf[svp::aipp::block_size(p)], 0xCC);  // nothing written past the block
  auto back = svp::aipp::parse_block(buf.data(), buf.size());
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(svp::aipp::static_aipp_json(*back), svp::aipp::static_aipp_json(p));
  const auto& b = back->batches[1];
  EXPECT_EQ(back->batches.size(), 2u);
  EXPECT_EQ(b.pad_right, 4);
  EXPECT_EQ(b.resize_out_h, 20);
  EXPECT_EQ(b.var_reci[3], 0.4f);
  EXPECT_EQ(back->matrix, p.matrix);
  EXPECT_TRUE(back->rbuv_swap && back->ax_swap);
}

TEST(AippParamBlock, RejectsUnsetModifiedAndShortBuffers) {
  std::vector<std::uint8_t> buf(svp::aipp::block_capacity(1), 0);
  EXPECT_NE(svp::aipp::parse_block(buf.data(), buf.size()).status().message().find("holds no parameters"),
            std::string::npos);
  const AippParams p = base(fmt_id::kYuv420Sp, 8, 8);
  ASSERT_TRUE(svp::aipp::serialize(p, buf.data(), buf.size()).ok());
  ASSERT_TRUE(svp::aipp::parse_block(buf.data(), buf.size()).ok());
  for (std::size_t i = 8; i < buf.size(); i += 7) {  // every field is covered by the CRC
    auto copy = buf;
    copy[i] ^= 0x10;
    EXPECT_FALSE(svp::aipp::parse_block(copy.data(), copy.size()).ok()) << "byte " << i;
  }
  EXPECT_FALSE(svp::aipp::parse_block(buf.data(), buf.size() - 1).ok());
  EXPECT_EQ(svp::aipp::serialize(p, buf.data(), buf.size() - 1).code(), svp::err::kInvalidParam);
}

// ---------------------------------------------------------------------------------------
// Model configuration schema.

TEST(AippModelConfig, StaticRoundTripAndErrors) {
  AippParams p = base(fmt_id::kYuv420Sp, 64, 32);
  bt601(&p);
  p.batches[0].crop = true;
  p.batches[0].crop_w = 32;
  p.batches[0].crop_h = 32;
  p.batches[0].resize = Resize::kBilinear;
  p.batches[0].resize_in_w = 32;
  p.batches[0].resize_in_h = 32;
  p.batches[0].resize_out_w = 16;
  p.batches[0].resize_out_h = 16;
  auto a = svp::aipp::parse_model_aipp(svp::aipp::static_aipp_json(p));
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->mode, svp::aipp::ModelAipp::Mode::kStatic);
  EXPECT_EQ(svp::aipp::static_aipp_json(a->params), svp::aipp::static_aipp_json(p));

  auto err = [](const std::string& json) { return svp::aipp::parse_model_aipp(json).status(); };
  EXPECT_EQ(err("[1]").code(), svp::err::kParseModel);
  EXPECT_NE(err(R"({"aipp_mode": "sometimes"})").message().find("\"aipp_mode\""), std::string::npos);
  EXPECT_NE(err(R"({"aipp_mode": "static", "input_format": "YUV420SP_U8"})").message().find("src_image_size_w"),
            std::string::npos);
  EXPECT_NE(err(R"({"aipp_mode": "static", "input_format": "NV12", "src_image_size_w": 2, "src_image_size_h": 2})")
                .message()
                .find("not a supported format name"),
            std::string::npos);
  EXPECT_NE(err(R"({"aipp_mode": "static", "input_format": "YUV420SP_U8", "src_image_size_w": 2,
                    "src_image_size_h": 2, "matrix_r0c0": 40000})")
                .message()
                .find("matrix_r0c0"),
            std::string::npos);
  EXPECT_NE(err(R"({"aipp_mode": "dynamic"})").message().find("max_src_image_size_w"), std::string::npos);
  auto d = svp::aipp::parse_model_aipp(svp::aipp::dynamic_aipp_json(1920, 1080));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->max_src_w, 1920);
  EXPECT_EQ(d->initial_format, fmt_id::kYuv420Sp);
}

TEST(AippSourceGeometry, FollowsTheContractRowRules) {
  // NV12 1920x1080, internal stride 16: 1620 rows of 1920 bytes.
  auto g = svp::aipp::source_geometry(fmt_id::kYuv420Sp, 1920, 1080, 16);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->dims, (std::vector<std::int64_t>{1, 3, 1080, 1920}));
  EXPECT_EQ(g->stride, 1920u);
  EXPECT_EQ(g->size, 1620u * 1920u);
  g = svp::aipp::source_geometry(fmt_id::kYuv422Sp, 10, 4, 16);
  EXPECT_EQ(g->stride, 16u);
  EXPECT_EQ(g->size, 8u * 16u);
  g = svp::aipp::source_geometry(fmt_id::kRgb888, 10, 4, 16);
  EXPECT_EQ(g->stride, 32u);  // 30 bytes → 32
  EXPECT_EQ(g->dims, (std::vector<std::int64_t>{1, 1, 4, 10}));
  g = svp::aipp::source_geometry(fmt_id::kXrgbPlanar, 10, 4, 16);
  EXPECT_EQ(g->size, 16u * 16u);
  EXPECT_EQ(g->dims, (std::vector<std::int64_t>{1, 4, 4, 10}));
}

}  // namespace
