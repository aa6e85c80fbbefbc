// Resize reference kernel: nearest (every nearest_mode) and linear (bilinear) under each
// supported coordinate_transformation_mode, scales or sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/invoke.h"
#include "kernels/kernels.h"
#include "model/tensor.h"

namespace svp::kernels {
namespace {

using model::DType;
using I = std::vector<std::int64_t>;
using F = std::vector<float>;

struct ResizeOut {
  Status status;
  I dims;
  F values;
};

Attrs modes(const std::string& mode, const std::string& ctm, const std::string& nearest = "round_prefer_floor") {
  return {{"mode", mode}, {"coordinate_transformation_mode", ctm}, {"nearest_mode", nearest}};
}

ResizeOut resize_scales(const Attrs& a, const OwnedTensor& x, const F& scales) {
  auto s = OwnedTensor::f32({static_cast<std::int64_t>(scales.size())}, scales);
  auto r = run_reference_owned("Resize", a, {x.view(), TensorView{}, s.view()});
  if (!r.ok()) return {r.status(), {}, {}};
  return {Status::Ok(), r.value()[0].view().dims, r.value()[0].values<float>()};
}

ResizeOut resize_sizes(const Attrs& a, const OwnedTensor& x, const I& sizes) {
  auto s = OwnedTensor::i64({static_cast<std::int64_t>(sizes.size())}, sizes);
  auto r = run_reference_owned("Resize", a, {x.view(), TensorView{}, TensorView{}, s.view()});
  if (!r.ok()) return {r.status(), {}, {}};
  return {Status::Ok(), r.value()[0].view().dims, r.value()[0].values<float>()};
}

TEST(KernelsResize, NearestUpsampleRepeatsPixels) {
  // scale 2: asymmetric o/2 = 0, 0.5, 1, 1.5 → floor 0 0 1 1; half_pixel (o+0.5)/2-0.5 =
  // -0.25 0.25 0.75 1.25 → round 0 0 1 1. Both give 2x2 blocks.
  auto x = OwnedTensor::f32({1, 1, 2, 2}, {1, 2, 3, 4});
  const F want{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4};
  ResizeOut o = resize_scales(modes("nearest", "asymmetric", "floor"), x, {1, 1, 2, 2});
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  EXPECT_EQ(o.dims, (I{1, 1, 4, 4}));
  EXPECT_EQ(o.values, want);
  EXPECT_EQ(resize_scales({}, x, {1, 1, 2, 2}).values, want);  // defaults: nearest, half_pixel, round_prefer_floor
}

TEST(KernelsResize, NearestUpsampleOfWholeInnerRowsCopiesThem) {
  // The last axis unscaled (NHWC data: whole pixels of C values move): out[0][h][w][c] =
  // x[0][h / 2][w / 3][c] with asymmetric floor, checked index by index.
  const std::int64_t h = 3, w = 4, c = 5;
  F v(static_cast<std::size_t>(h * w * c));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) + 0.5f;
  auto x = OwnedTensor::f32({1, h, w, c}, v);
  ResizeOut o = resize_scales(modes("nearest", "asymmetric", "floor"), x, {1, 2, 3, 1});
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  ASSERT_EQ(o.dims, (I{1, 2 * h, 3 * w, c}));
  for (std::int64_t i = 0; i < 2 * h; ++i)
    for (std::int64_t j = 0; j < 3 * w; ++j)
      for (std::int64_t k = 0; k < c; ++k)
        ASSERT_EQ(o.values[static_cast<std::size_t>((i * 3 * w + j) * c + k)],
                  v[static_cast<std::size_t>(((i / 2) * w + j / 3) * c + k)])
            << i << "," << j << "," << k;
}

TEST(KernelsResize, NearestModesResolveTiesDifferently) {
  // asymmetric, in 2 → out 4: x_orig = 0, 0.5, 1, 1.5.
  auto x = OwnedTensor::f32({2}, {10, 20});
  EXPECT_EQ(resize_sizes(modes("nearest", "asymmetric", "round_prefer_floor"), x, {4}).values, (F{10, 10, 20, 20}));
  EXPECT_EQ(resize_sizes(modes("nearest", "asymmetric", "round_prefer_ceil"), x, {4}).values, (F{10, 20, 20, 20}));
  EXPECT_EQ(resize_sizes(modes("nearest", "asymmetric", "floor"), x, {4}).values, (F{10, 10, 20, 20}));
  EXPECT_EQ(resize_sizes(modes("nearest", "asymmetric", "ceil"), x, {4}).values, (F{10, 20, 20, 20}));
}

TEST(KernelsResize, NearestDownsampleHalfPixel) {
  // in 8 → out 4, half_pixel: (o + 0.5) * 2 - 0.5 = 0.5, 2.5, 4.5, 6.5.
  auto x = OwnedTensor::f32({8}, {0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(resize_scales(modes("nearest", "half_pixel"), x, {0.5f}).values, (F{0, 2, 4, 6}));
  EXPECT_EQ(resize_scales(modes("nearest", "half_pixel", "round_prefer_ceil"), x, {0.5f}).values, (F{1, 3, 5, 7}));
  // align_corners: o * 7 / 3 = 0, 2.33, 4.67, 7 → round 0 2 5 7.
  EXPECT_EQ(resize_sizes(modes("nearest", "align_corners"), x, {4}).values, (F{0, 2, 5, 7}));
}

TEST(KernelsResize, NearestCoordinatesAreComputedInFloat) {
  // in 6 → out 2, asymmetric, floor: scale = 2/6 = 0.33333334f and 1 / 0.33333334f rounds
  // to exactly 3.0f in float (2.9999999 in double), so output 1 reads x[3].
  auto x = OwnedTensor::f32({6}, {0, 1, 2, 3, 4, 5});
  EXPECT_EQ(resize_sizes(modes("nearest", "asymmetric", "floor"), x, {2}).values, (F{0, 3}));
}

TEST(KernelsResize, LinearOneDimensionalEachCoordinateMode) {
  auto x = OwnedTensor::f32({2}, {0, 10});
  // half_pixel, scale 2: -0.25 (clamped 0), 0.25, 0.75, 1.25 (clamped 1) → 0 2.5 7.5 10
  EXPECT_EQ(resize_scales(modes("linear", "half_pixel"), x, {2}).values, (F{0, 2.5f, 7.5f, 10}));
  // pytorch_half_pixel is the same when the output has more than one element
  EXPECT_EQ(resize_scales(modes("linear", "pytorch_half_pixel"), x, {2}).values, (F{0, 2.5f, 7.5f, 10}));
  // asymmetric: 0, 0.5, 1, 1.5 (clamped 1) → 0 5 10 10
  EXPECT_EQ(resize_scales(modes("linear", "asymmetric"), x, {2}).values, (F{0, 5, 10, 10}));
  // align_corners, 5 outputs: o * 1 / 4 → 0 2.5 5 7.5 10
  EXPECT_EQ(resize_sizes(modes("linear", "align_corners"), x, {5}).values, (F{0, 2.5f, 5, 7.5f, 10}));
}

TEST(KernelsResize, PytorchHalfPixelSingleOutputReadsTheFirstElement) {
  // in 4 → out 1: pytorch_half_pixel maps to 0 → x[0]; half_pixel maps to
  // (0 + 0.5) / 0.25 - 0.5 = 1.5 → halfway between 10 and 20.
  auto x = OwnedTensor::f32({4}, {0, 10, 20, 30});
  EXPECT_EQ(resize_sizes(modes("linear", "pytorch_half_pixel"), x, {1}).values, (F{0}));
  EXPECT_EQ(resize_sizes(modes("linear", "half_pixel"), x, {1}).values, (F{15}));
}

// Bilinear in double straight from the definition, for comparison.
F naive_bilinear(const F& x, int planes, int ih, int iw, int oh, int ow, const std::string& ctm) {
  auto coord = [&](int o, int in, int out) {
    double v;
    if (ctm == "align_corners") {
      v = out == 1 ? 0.0 : o * double(in - 1) / double(out - 1);
    } else {  // half_pixel with scale out/in
      v = (o + 0.5) * in / out - 0.5;
    }
    return std::min(std::max(v, 0.0), double(in - 1));
  };
  F y;
  for (int p = 0; p < planes; ++p) {
    for (int i = 0; i < oh; ++i) {
      const double fy = coord(i, ih, oh);
      const int y0 = static_cast<int>(std::floor(fy)), y1 = std::min(y0 + 1, ih - 1);
      for (int j = 0; j < ow; ++j) {
        const double fx = coord(j, iw, ow);
        const int x0 = static_cast<int>(std::floor(fx)), x1 = std::min(x0 + 1, iw - 1);
        auto at = [&](int r, int c) { return double(x[static_cast<std::size_t>((p * ih + r) * iw + c)]); };
        const double top = at(y0, x0) * (1 - (fx - x0)) + at(y0, x1) * (fx - x0);
        const double bot = at(y1, x0) * (1 - (fx - x0)) + at(y1, x1) * (fx - x0);
        y.push_back(static_cast<float>(top * (1 - (fy - y0)) + bot * (fy - y0)));
      }
    }
  }
  return y;
}

TEST(KernelsResize, BilinearTwoDimensionalMatchesDefinition) {
  F xv;
  for (int i = 0; i < 2 * 3 * 4; ++i) xv.push_back(static_cast<float>((i * 37) % 19) - 9.0f);
  auto x = OwnedTensor::f32({1, 2, 3, 4}, xv);
  for (const std::string ctm : {"half_pixel", "align_corners"}) {
    ResizeOut o = resize_sizes(modes("linear", ctm), x, {1, 2, 5, 7});
    ASSERT_TRUE(o.status.ok()) << o.status.message();
    EXPECT_EQ(o.dims, (I{1, 2, 5, 7}));
    const F want = naive_bilinear(xv, 2, 3, 4, 5, 7, ctm);
    ASSERT_EQ(o.values.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(o.values[i], want[i], 1e-5) << ctm << " at " << i;
  }
}

TEST(KernelsResize, NearestWorksOnAnyDimAndAxesAttributeSelectsDims) {
  // Scale 2 on the channel dim of (1, 2, 2) duplicates channels.
  auto x = OwnedTensor::f32({1, 2, 2}, {1, 2, 3, 4});
  ResizeOut o = resize_scales(modes("nearest", "asymmetric", "floor"), x, {1, 2, 1});
  EXPECT_EQ(o.dims, (I{1, 4, 2}));
  EXPECT_EQ(o.values, (F{1, 2, 1, 2, 3, 4, 3, 4}));
  // Opset 18 axes: scales only for axes 1 and 2.
  Attrs a = modes("nearest", "asymmetric", "floor");
  a.set("axes", I{-2, -1});
  o = resize_scales(a, x, {1, 2});
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  EXPECT_EQ(o.dims, (I{1, 2, 4}));
  EXPECT_EQ(o.values, (F{1, 1, 2, 2, 3, 3, 4, 4}));
}

TEST(KernelsResize, OutputSizeFromScalesIsFloored) {
  // floor(5 * 1.5) = 7, floor(3 * 0.5) = 1
  auto s = OwnedTensor::f32({2}, {1.5f, 0.5f});
  auto r = infer_shapes("Resize", {}, {{5, 3}, {}, {2}}, {nullptr, nullptr, &s.view()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0], (I{7, 1}));
}

TEST(KernelsResize, UnsupportedModesAndBadParametersAreRejected) {
  auto x = OwnedTensor::f32({1, 1, 2, 2}, {1, 2, 3, 4});
  auto code = [&](const Attrs& a, const F& scales) { return resize_scales(a, x, scales).status.code(); };
  EXPECT_EQ(code(modes("cubic", "half_pixel_symmetric"), {1, 1, 2, 2}), err::kInvalidParam);
  EXPECT_EQ(code(modes("bicubic", "half_pixel"), {1, 1, 2, 2}), err::kParseModel);
  EXPECT_EQ(code(modes("nearest", "tf_crop_and_resize"), {1, 1, 2, 2}), err::kInvalidParam);
  EXPECT_EQ(code(modes("nearest", "corners"), {1, 1, 2, 2}), err::kParseModel);
  EXPECT_EQ(code(modes("nearest", "half_pixel", "nearest"), {1, 1, 2, 2}), err::kParseModel);
  // Linear on the channel dim of size 1 (any dim may change): every sample reads channel 0.
  const auto ch = resize_scales(modes("linear", "half_pixel"), x, {1, 2, 1, 1});
  ASSERT_TRUE(ch.status.ok()) << ch.status.message();
  EXPECT_EQ(ch.values, (F{1, 2, 3, 4, 1, 2, 3, 4}));
  EXPECT_EQ(code({}, {1, 2, 2}), err::kInvalidParam);                                // wrong count
  EXPECT_EQ(code({}, {1, 1, 0, 2}), err::kInvalidParam);                             // zero scale
  EXPECT_EQ(code({}, {1, 1, 0.1f, 2}), err::kInvalidParam);                          // output dim 0
  EXPECT_EQ(code({{"antialias", std::int64_t{1}}}, {1, 1, 2, 2}), err::kInvalidParam);
  EXPECT_EQ(code({{"keep_aspect_ratio_policy", std::string("not_larger")}}, {1, 1, 2, 2}), err::kInvalidParam);
  // Both scales and sizes, or neither.
  auto s = OwnedTensor::f32({4}, {1, 1, 2, 2});
  auto z = OwnedTensor::i64({4}, {1, 1, 4, 4});
  EXPECT_EQ(run_reference_owned("Resize", {}, {x.view(), TensorView{}, s.view(), z.view()}).status().code(),
            err::kInvalidParam);
  EXPECT_EQ(run_reference_owned("Resize", {}, {x.view()}).status().code(), err::kInvalidParam);
  auto zs = OwnedTensor::i64({4}, {1, 1, 0, 4});
  EXPECT_EQ(run_reference_owned("Resize", {}, {x.view(), TensorView{}, TensorView{}, zs.view()}).status().code(),
            err::kInvalidParam);
  // Scales must be known at build time.
  EXPECT_EQ(infer_shapes("Resize", {}, {{1, 1, 2, 2}, {}, {4}}).status().code(), err::kInvalidParam);
}

TEST(KernelsGridSample, CornersCentresAndPadding) {
  // 2x2 image [[1 2] [3 4]]. With align_corners, (-1, -1) is pixel (0, 0) and (0, 0) the
  // centre (bilinear mean 2.5); without, (-1, -1) is the outer corner: bilinear with zero
  // padding takes a quarter of pixel (0, 0), border padding all of it.
  auto x = OwnedTensor::f32({1, 1, 2, 2}, {1, 2, 3, 4});
  auto grid = OwnedTensor::f32({1, 1, 2, 2}, {-1, -1, 0, 0});
  auto run = [&](const Attrs& a) {
    auto r = run_reference_owned("GridSample", a, {x.view(), grid.view()});
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? (*r)[0].values<float>() : std::vector<float>{};
  };
  EXPECT_EQ(run({{"align_corners", std::int64_t{1}}}), (std::vector<float>{1, 2.5f}));
  EXPECT_EQ(run({}), (std::vector<float>{0.25f, 2.5f}));
  EXPECT_EQ(run({{"padding_mode", std::string("border")}}), (std::vector<float>{1, 2.5f}));
  // Nearest at (0.5, 0.5) with align_corners: pixel coordinate 0.75 rounds to 1.
  grid = OwnedTensor::f32({1, 1, 2, 2}, {-1, -1, 0.5f, 0.5f});
  EXPECT_EQ(run({{"mode", std::string("nearest")}, {"align_corners", std::int64_t{1}}}), (std::vector<float>{1, 4}));
  EXPECT_EQ(run_reference_owned("GridSample", {{"padding_mode", std::string("wrap")}}, {x.view(), grid.view()})
                .status()
                .code(),
            err::kParseModel);
  EXPECT_EQ(infer_shapes("GridSample", {}, {{1, 1, 2, 2}, {1, 1, 2, 3}}).status().code(), err::kInvalidParam);
}

TEST(KernelsRoiAlign, AveragesBilinearSamplesPerBin) {
  // 1x1x2x2 [[1 2] [3 4]], one roi over the whole image [0 0 2 2], half_pixel (shift
  // -0.5: [-0.5, 1.5]), one 1x1 bin of 2x2 samples at -0.5 + 0.5 = 0 and -0.5 + 1.5 = 1 per
  // axis: the pixel centres 1, 2, 3, 4 (mean 2.5). output_half_pixel (no shift, [0, 2]):
  // samples at 0.5 and 1.5 per axis; 1.5 clamps to the last pixel: rows 0.5 → 2, 1.5 → 3.
  auto x = OwnedTensor::f32({1, 1, 2, 2}, {1, 2, 3, 4});
  auto rois = OwnedTensor::f32({1, 4}, {0, 0, 2, 2});
  auto bi = OwnedTensor::i64({1}, {0});
  auto r = run_reference_owned("RoiAlign", {{"sampling_ratio", std::int64_t{2}}}, {x.view(), rois.view(), bi.view()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].view().dims, (I{1, 1, 1, 1}));
  EXPECT_NEAR((*r)[0].values<float>()[0], 2.5, 1e-6);
  auto o = run_reference_owned("RoiAlign",
                               {{"sampling_ratio", std::int64_t{2}},
                                {"coordinate_transformation_mode", std::string("output_half_pixel")}},
                               {x.view(), rois.view(), bi.view()});
  ASSERT_TRUE(o.ok()) << o.status().message();
  // Samples (0.5, 0.5) = 2.5, (0.5, 1.5) = 3, (1.5, 0.5) = 3.5, (1.5, 1.5) = 4.
  EXPECT_NEAR((*o)[0].values<float>()[0], (2.5 + 3 + 3.5 + 4) / 4, 1e-6);
  auto bad = OwnedTensor::i64({1}, {1});
  EXPECT_EQ(run_reference_owned("RoiAlign", {}, {x.view(), rois.view(), bad.view()}).status().code(),
            err::kInvalidParam);
  EXPECT_EQ(infer_shapes("RoiAlign", {{"mode", std::string("sum")}}, {{1, 1, 2, 2}, {1, 4}, {1}}).status().code(),
            err::kParseModel);
}

}  // namespace
}  // namespace svp::kernels
