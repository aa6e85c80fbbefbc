// AIPP against an independent oracle, OpenCV (Debian libopencv-dev; tests and bench only):
//   * NV12 / NV21 -> RGB / BGR with BT.601 video-range coefficients: cv::cvtColor vs AIPP
//     CSC with the same matrix in Q10 (set through the C API's parameter layout);
//   * bilinear resize: cv::resize(INTER_LINEAR) vs AIPP resize;
//   * crop: a cv::Mat ROI vs AIPP crop (exact).
// Tolerances: CSC ≤ 1 LSB — OpenCV evaluates the same formula with 20-bit coefficients,
// AIPP with the API's 10-bit ones (1192/1024 vs 1.164383, ...): the coefficient error is
// ≤ 0.25 of an LSB over the video range, and each side rounds once, so results differ by
// at most 1. Resize ≤ 1 LSB — both use 11-bit weights, but OpenCV truncates its
// intermediate horizontal sums (>> 4 before the vertical pass) where AIPP keeps them
// exact, a difference below one output LSB. Chained CSC → resize ≤ 2 LSB (1 + 1).
#include <gtest/gtest.h>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <cstdlib>
#include <random>
#include <vector>

#include "aipp/pipeline.h"

namespace {

using svp::aipp::AippParams;
namespace fmt_id = svp::aipp::fmt_id;
using svp::model::DType;
using svp::model::Layout;
using svp::model::TensorView;

// Video-range NV12 of w x h, rows `w` bytes apart (cv::Mat expects a dense (h·3/2) x w).
cv::Mat random_nv12(int w, int h, unsigned seed) {
  cv::Mat m(h * 3 / 2, w, CV_8UC1);
  std::mt19937 rng(seed);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) m.at<std::uint8_t>(y, x) = static_cast<std::uint8_t>(16 + rng() % 220);
  for (int y = h; y < h * 3 / 2; ++y)
    for (int x = 0; x < w; ++x) m.at<std::uint8_t>(y, x) = static_cast<std::uint8_t>(16 + rng() % 225);
  return m;
}

AippParams params(std::int32_t format, int w, int h) {
  AippParams p;
  p.format_set = p.src_size_set = true;
  p.format = format;
  p.src_w = w;
  p.src_h = h;
  return p;
}

// BT.601 video range → R, G, B rows (Q10 of 1.164383, 1.596027, 0.391762, 0.812968, 2.017232).
void bt601_rgb(AippParams* p) {
  p->csc = true;
  p->matrix = {1192, 0, 1634, 1192, -401, -832, 1192, 2066, 0};
  p->in_bias = {16, 128, 128};
}

// AIPP into uint8 HWC (unit-scale uint8 quantization, zero point 0: the value itself).
cv::Mat run_u8(const AippParams& p, const cv::Mat& src, int out_w, int out_h, int channels) {
  cv::Mat out(out_h, out_w, CV_8UC(channels));
  const svp::model::Quant q{{1.0f}, {0}, -1};
  TensorView v;
  v.dtype = DType::kUint8;
  v.dims = {1, out_h, out_w, channels};
  v.data = out.data;
  v.quant = &q;
  const auto s = svp::aipp::run(p, 0, src.data, src.step[0], src.step[0] * static_cast<std::size_t>(src.rows),
                                Layout::kNHWC, v);
  EXPECT_TRUE(s.ok()) << s.message();
  return out;
}

int max_abs_diff(const cv::Mat& a, const cv::Mat& b) {
  cv::Mat d;
  cv::absdiff(a, b, d);
  double mx = 0;
  cv::minMaxLoc(d.reshape(1), nullptr, &mx);
  return static_cast<int>(mx);
}

TEST(AippVsOpenCV, Nv12ToRgbBt601WithinOneLsb) {
  const int W = 64, H = 48;
  const cv::Mat nv12 = random_nv12(W, H, 1);
  cv::Mat want;
  cv::cvtColor(nv12, want, cv::COLOR_YUV2RGB_NV12);
  AippParams p = params(fmt_id::kYuv420Sp, W, H);
  bt601_rgb(&p);
  const cv::Mat got = run_u8(p, nv12, W, H, 3);
  EXPECT_LE(max_abs_diff(got, want), 1);
}

TEST(AippVsOpenCV, Nv21ToBgrBt601WithinOneLsb) {
  // BGR: the matrix rows in B, G, R order; NV21 stores V before U.
  const int W = 32, H = 16;
  const cv::Mat nv21 = random_nv12(W, H, 2);
  cv::Mat want;
  cv::cvtColor(nv21, want, cv::COLOR_YUV2BGR_NV21);
  AippParams p = params(fmt_id::kYvu420Sp, W, H);
  p.csc = true;
  p.matrix = {1192, 2066, 0, 1192, -401, -832, 1192, 0, 1634};
  p.in_bias = {16, 128, 128};
  EXPECT_LE(max_abs_diff(run_u8(p, nv21, W, H, 3), want), 1);
}

cv::Mat random_rgb(int w, int h, unsigned seed) {
  cv::Mat m(h, w, CV_8UC3);
  cv::RNG rng(seed);
  rng.fill(m, cv::RNG::UNIFORM, cv::Scalar::all(0), cv::Scalar::all(256));
  return m;
}

TEST(AippVsOpenCV, BilinearResizeWithinOneLsb) {
  const cv::Mat rgb = random_rgb(97, 61, 3);
  const int sizes[][2] = {{224, 224}, {31, 17}, {200, 100}, {48, 61}};
  for (const auto& s : sizes) {
    cv::Mat want;
    cv::resize(rgb, want, cv::Size(s[0], s[1]), 0, 0, cv::INTER_LINEAR);
    AippParams p = params(fmt_id::kRgb888, rgb.cols, rgb.rows);
    auto& e = p.batches[0];
    e.resize = svp::aipp::Resize::kBilinear;
    e.resize_in_w = rgb.cols;
    e.resize_in_h = rgb.rows;
    e.resize_out_w = s[0];
    e.resize_out_h = s[1];
    EXPECT_LE(max_abs_diff(run_u8(p, rgb, s[0], s[1], 3), want), 1) << s[0] << "x" << s[1];
  }
}

TEST(AippVsOpenCV, CropIsAnExactRoi) {
  const cv::Mat rgb = random_rgb(40, 30, 4);
  AippParams p = params(fmt_id::kRgb888, 40, 30);
  auto& e = p.batches[0];
  e.crop = true;
  e.crop_x = 7;
  e.crop_y = 5;
  e.crop_w = 21;
  e.crop_h = 13;
  const cv::Mat want = rgb(cv::Rect(7, 5, 21, 13));
  EXPECT_EQ(max_abs_diff(run_u8(p, rgb, 21, 13, 3), want), 0);
}

TEST(AippVsOpenCV, CameraPipelineCropCscResizeWithinTwoLsb) {
  const int W = 320, H = 240;
  const cv::Mat nv12 = random_nv12(W, H, 5);
  cv::Mat rgb, want;
  cv::cvtColor(nv12, rgb, cv::COLOR_YUV2RGB_NV12);
  cv::resize(rgb(cv::Rect(40, 0, 240, 240)), want, cv::Size(56, 56), 0, 0, cv::INTER_LINEAR);
  AippParams p = params(fmt_id::kYuv420Sp, W, H);
  bt601_rgb(&p);
  auto& e = p.batches[0];
  e.crop = true;
  e.crop_x = 40;
  e.crop_w = 240;
  e.crop_h = 240;
  e.resize = svp::aipp::Resize::kBilinear;
  e.resize_in_w = e.resize_in_h = 240;
  e.resize_out_w = e.resize_out_h = 56;
  EXPECT_LE(max_abs_diff(run_u8(p, nv12, 56, 56, 3), want), 2);
}

}  // namespace
