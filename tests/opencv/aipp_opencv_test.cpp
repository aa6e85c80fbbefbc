// AIPP against an independent oracle, OpenCV (Debian libopencv-dev; tests and bench only):
//   * NV12 / NV21 -> RGB / BGR with BT.601 video-range coefficients: cv::cvtColor vs AIPP
//     CSC with the same matrix in Q10 (set through the C API's parameter layout);
//   * bilinear resize: cv::resize(INTER_LINEAR) vs AIPP resize;
//   * crop: a cv::Mat ROI vs AIPP crop (exact);
//   * the vendor sample's dynamic AIPP case end to end through the C API (crop 716x572 of a
//     720x576 NV12 frame, padding 2 on every side, scf 720x576 -> 1920x1080): cvtColor,
//     ROI, copyMakeBorder, resize — padding before resize, the board's order (docs/aipp.md §2).
// Tolerances: CSC ≤ 1 LSB — OpenCV evaluates the same formula with 20-bit coefficients,
// AIPP with the API's 10-bit ones (1192/1024 vs 1.164383, ...): the coefficient error is
// ≤ 0.25 of an LSB over the video range, and each side rounds once, so results differ by
// at most 1. Resize ≤ 1 LSB — both use 11-bit weights, but OpenCV truncates its
// intermediate horizontal sums (>> 4 before the vertical pass) where AIPP keeps them
// exact, a difference below one output LSB. Chained CSC → resize ≤ 2 LSB (1 + 1).
#include <gtest/gtest.h>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "aipp/pipeline.h"
#include "compiler/builder.h"
#include "test_support.h"

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

// The sample's padding modes and their OpenCV borders.
struct PadCase {
  int8_t mode;
  int border;
};

class AippSampleVsOpenCV : public svp::test::RuntimeTest, public ::testing::WithParamInterface<PadCase> {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  }
  void TearDown() override {
    EXPECT_ACL_OK(svp_acl_rt_reset_device(0));
    RuntimeTest::TearDown();
  }
};

// img [1,3,1080,1920] with dynamic AIPP (max source 720x576) -> 1x1 identity conv -> y, so
// the output is the AIPP image itself.
svp::compiler::BuiltModel identity_model() {
  svp::compiler::ModelBuilder b("aipp_sample");
  const auto x = b.add_input("img", DType::kFloat32, {1, 3, 1080, 1920});
  b.set_aipp(x, svp::aipp::dynamic_aipp_json(720, 576));
  const auto w = b.add_constant("w", {3, 3, 1, 1}, std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1});
  svp::compiler::LayerOptions o;
  o.attrs.set("kernel_shape", std::vector<std::int64_t>{1, 1});
  b.add_output(b.add_layer("conv", "Conv", {x, w}, o), "y");
  auto m = b.build();
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(*m) : svp::compiler::BuiltModel{};
}

TEST_P(AippSampleVsOpenCV, VendorSampleCropPadResize720x576To1080pEndToEnd) {
  const svp::compiler::BuiltModel m = identity_model();
  uint32_t id = 0;
  ASSERT_ACL_OK(svp_acl_mdl_load_from_mem(m.image.data(), m.image.size(), &id));
  svp_acl_mdl_desc* desc = svp_acl_mdl_create_desc();
  ASSERT_ACL_OK(svp_acl_mdl_get_desc(desc, id));
  svp_acl_mdl_dataset* in = svp_acl_mdl_create_dataset();
  svp_acl_mdl_dataset* out = svp_acl_mdl_create_dataset();
  std::vector<void*> mem;
  std::vector<svp_acl_data_buffer*> bufs;
  auto add = [&](svp_acl_mdl_dataset* d, size_t size, size_t stride) {
    void* p = nullptr;
    ASSERT_ACL_OK(svp_acl_rt_malloc(&p, size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
    std::memset(p, 0, size);
    mem.push_back(p);
    bufs.push_back(svp_acl_create_data_buffer(p, size, stride));
    ASSERT_ACL_OK(svp_acl_mdl_add_dataset_buffer(d, bufs.back()));
  };
  for (size_t i = 0; i < svp_acl_mdl_get_num_inputs(desc); ++i) {
    add(in, svp_acl_mdl_get_input_size_by_index(desc, i), svp_acl_mdl_get_input_default_stride(desc, i));
  }
  add(out, svp_acl_mdl_get_output_size_by_index(desc, 0), svp_acl_mdl_get_output_default_stride(desc, 0));

  // The sample's values (sample_common_svp_npu_set_input_aipp_param: crop, padding, scf).
  svp_acl_mdl_aipp* a = svp_acl_mdl_create_aipp(1);
  ASSERT_ACL_OK(svp_acl_mdl_set_aipp_input_format(a, SVP_ACL_YUV420SP_U8));
  ASSERT_ACL_OK(svp_acl_mdl_set_aipp_src_image_size(a, 720, 576));
  ASSERT_ACL_OK(svp_acl_mdl_set_aipp_csc_params(a, 1, 1192, 0, 1634, 1192, -401, -832, 1192, 2066, 0, 0, 0, 0, 16, 128,
                                                128));
  ASSERT_ACL_OK(svp_acl_mdl_set_aipp_crop_params(a, 1, 0, 0, 716, 572, 0));
  ASSERT_ACL_OK(svp_acl_mdl_set_aipp_padding_params(a, GetParam().mode, 2, 2, 2, 2, 0));
  ASSERT_ACL_OK(svp_acl_mdl_set_aipp_scf_params(a, AIPP_RESIZE_SWITCH_BILINEAR, 720, 576, 1920, 1080, 0));
  size_t param_index = 0;
  ASSERT_ACL_OK(svp_acl_mdl_get_input_index_by_name(desc, SVP_ACL_DYNAMIC_AIPP_NAME, &param_index));
  ASSERT_ACL_OK(svp_acl_mdl_set_input_aipp(id, in, param_index, a));
  ASSERT_ACL_OK(svp_acl_mdl_destroy_aipp(a));

  // The source buffer now describes the 720x576 frame (dense rows: 720 is a multiple of 16).
  ASSERT_EQ(svp_acl_mdl_get_input_default_stride(desc, 0), 720u);
  ASSERT_EQ(svp_acl_mdl_get_input_size_by_index(desc, 0), 720u * 864u);
  const cv::Mat nv12 = random_nv12(720, 576, 7);
  auto* src_buf = svp_acl_mdl_get_dataset_buffer(in, 0);
  ASSERT_GE(svp_acl_get_data_buffer_size(src_buf), nv12.total());
  std::memcpy(svp_acl_get_data_buffer_addr(src_buf), nv12.data, nv12.total());
  ASSERT_ACL_OK(svp_acl_mdl_execute(id, in, out));

  cv::Mat rgb, padded, want;
  cv::cvtColor(nv12, rgb, cv::COLOR_YUV2RGB_NV12);
  // A copy of the crop: on an ROI, copyMakeBorder would read the pixels beyond it.
  cv::copyMakeBorder(rgb(cv::Rect(0, 0, 716, 572)).clone(), padded, 2, 2, 2, 2, GetParam().border, cv::Scalar::all(0));
  ASSERT_EQ(padded.cols, 720);
  ASSERT_EQ(padded.rows, 576);
  cv::resize(padded, want, cv::Size(1920, 1080), 0, 0, cv::INTER_LINEAR);

  // The output is float NCHW; gather it into an 8-bit HWC image (exact: identity DTC).
  const auto* y = static_cast<const float*>(svp_acl_get_data_buffer_addr(svp_acl_mdl_get_dataset_buffer(out, 0)));
  cv::Mat got(1080, 1920, CV_8UC3);
  int non_integer = 0;
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 1080; ++r)
      for (int x = 0; x < 1920; ++x) {
        const float v = y[(static_cast<std::size_t>(c) * 1080 + static_cast<std::size_t>(r)) * 1920 +
                          static_cast<std::size_t>(x)];
        if (v != std::floor(v) || v < 0 || v > 255) ++non_integer;
        got.at<cv::Vec3b>(r, x)[c] = static_cast<std::uint8_t>(std::clamp(v, 0.0f, 255.0f));
      }
  EXPECT_EQ(non_integer, 0);
  EXPECT_LE(max_abs_diff(got, want), 2);
  // The border rows really are the padding's: the top-left output pixel reads the pad.
  cv::Mat no_pad;
  cv::resize(rgb(cv::Rect(0, 0, 716, 572)), no_pad, cv::Size(1920, 1080), 0, 0, cv::INTER_LINEAR);
  if (GetParam().border == cv::BORDER_CONSTANT) {
    EXPECT_GT(max_abs_diff(got, no_pad), 20);
  }

  svp_acl_mdl_destroy_dataset(in);
  svp_acl_mdl_destroy_dataset(out);
  for (auto* b : bufs) svp_acl_destroy_data_buffer(b);
  for (void* p : mem) svp_acl_rt_free(p);
  svp_acl_mdl_destroy_desc(desc);
  svp_acl_mdl_unload(id);
}

INSTANTIATE_TEST_SUITE_P(PaddingModes, AippSampleVsOpenCV,
                         ::testing::Values(PadCase{AIPP_PADDING_SWITCH_CONSTANT, cv::BORDER_CONSTANT},
                                           PadCase{AIPP_PADDING_SWITCH_REPLICATION, cv::BORDER_REPLICATE},
                                           PadCase{AIPP_PADDING_SWITCH_REFLECTION, cv::BORDER_REFLECT_101},
                                           PadCase{AIPP_PADDING_SWITCH_SYMMETRIC, cv::BORDER_REFLECT}),
                         // Readable test names (the default prints the struct's bytes).
                         [](const ::testing::TestParamInfo<PadCase>& info) -> std::string {
                           switch (info.param.mode) {
                             case AIPP_PADDING_SWITCH_CONSTANT:
                               return "Constant";
                             case AIPP_PADDING_SWITCH_REPLICATION:
                               return "Replication";
                             case AIPP_PADDING_SWITCH_REFLECTION:
                               return "Reflection";
                             default:
                               return "Symmetric";
                           }
                         });

}  // namespace
