// AIPP through the C API: the model description of dynamic-AIPP inputs, the parameter
// object and its setters, set_input_aipp / set_aipp_by_input_index, static AIPP info, and
// execution: the seed's §8.3.4 flow verbatim and a camera-style 1080p NV12 frame.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <atomic>
#include <random>
#include <thread>
#include <vector>

#include "model/aipp/model_config.h"
#include "model/aipp/params.h"
#include "aipp/pipeline.h"
#include "compiler/builder.h"
#include "model_io.h"
#include "test_support.h"

extern "C" svp_acl_error svp_acl_mdl_get_first_aipp_info_v1(uint32_t, size_t, void*);

namespace {

using svp::aipp::AippParams;
using svp::compiler::BuiltModel;
using svp::model::DType;
using svp::model::Layout;
using svp::compiler::LayerOptions;
using svp::compiler::ModelBuilder;
using svp::compiler::TensorId;

BuiltModel must(const ModelBuilder& b) {
  auto m = b.build();
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(*m) : BuiltModel{};
}

// img [1,3,h,w] float32 → 1x1 conv (3 → 2 channels, fixed weights) → y. With AIPP as given.
BuiltModel aipp_conv_model(std::int64_t h, std::int64_t w, const std::string& aipp_json) {
  ModelBuilder b("aipp_net");
  const TensorId x = b.add_input("img", DType::kFloat32, {1, 3, h, w});
  if (!aipp_json.empty()) b.set_aipp(x, aipp_json);
  const TensorId wt = b.add_constant("w", {2, 3, 1, 1}, std::vector<float>{0.5f, -0.25f, 1.0f, 0.125f, 2.0f, -1.0f});
  LayerOptions o;
  o.attrs.set("kernel_shape", std::vector<std::int64_t>{1, 1});
  b.add_output(b.add_layer("conv", "Conv", {x, wt}, o), "y");
  return must(b);
}

// A loaded model with vendor-style datasets: one buffer per input at its reported size.
struct AippRun {
  explicit AippRun(const BuiltModel& m) {
    EXPECT_EQ(svp_acl_mdl_load_from_mem(m.image.data(), m.image.size(), &id), SVP_ACL_SUCCESS)
        << svp_acl_get_recent_err_msg();
    desc = svp_acl_mdl_create_desc();
    EXPECT_EQ(svp_acl_mdl_get_desc(desc, id), SVP_ACL_SUCCESS);
    input = svp_acl_mdl_create_dataset();
    output = svp_acl_mdl_create_dataset();
    for (size_t i = 0; i < svp_acl_mdl_get_num_inputs(desc); ++i) {
      add(input, svp_acl_mdl_get_input_size_by_index(desc, i), svp_acl_mdl_get_input_default_stride(desc, i));
    }
    for (size_t i = 0; i < svp_acl_mdl_get_num_outputs(desc); ++i) {
      add(output, svp_acl_mdl_get_output_size_by_index(desc, i), svp_acl_mdl_get_output_default_stride(desc, i));
    }
  }
  ~AippRun() {
    for (auto* b : buffers) svp_acl_destroy_data_buffer(b);
    for (void* p : memory) svp_acl_rt_free(p);
    svp_acl_mdl_destroy_dataset(input);
    svp_acl_mdl_destroy_dataset(output);
    svp_acl_mdl_destroy_desc(desc);
    svp_acl_mdl_unload(id);
  }
  void add(svp_acl_mdl_dataset* d, size_t size, size_t stride) {
    void* p = nullptr;
    EXPECT_EQ(svp_acl_rt_malloc(&p, size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY), SVP_ACL_SUCCESS);
    std::memset(p, 0, size);
    memory.push_back(p);
    buffers.push_back(svp_acl_create_data_buffer(p, size, stride));
    EXPECT_EQ(svp_acl_mdl_add_dataset_buffer(d, buffers.back()), SVP_ACL_SUCCESS);
  }
  // The vendor sample's re-allocation after set_input_aipp (spec §2.4): re-query size and
  // stride of input i and point its buffer at fresh memory of that size.
  std::uint8_t* reallocate_input(size_t i) {
    const size_t size = svp_acl_mdl_get_input_size_by_index(desc, i);
    const size_t stride = svp_acl_mdl_get_input_default_stride(desc, i);
    void* p = nullptr;
    EXPECT_EQ(svp_acl_rt_malloc(&p, size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY), SVP_ACL_SUCCESS);
    memory.push_back(p);
    EXPECT_EQ(svp_acl_update_data_buffer(svp_acl_mdl_get_dataset_buffer(input, i), p, size, stride), SVP_ACL_SUCCESS)
        << svp_acl_get_recent_err_msg();
    return static_cast<std::uint8_t*>(p);
  }
  std::uint8_t* in_ptr(size_t i) {
    return static_cast<std::uint8_t*>(svp_acl_get_data_buffer_addr(svp_acl_mdl_get_dataset_buffer(input, i)));
  }
  std::vector<float> output0() {
    const auto* b = svp_acl_mdl_get_dataset_buffer(output, 0);
    const auto* p = static_cast<const float*>(svp_acl_get_data_buffer_addr(b));
    return std::vector<float>(p, p + svp_acl_get_data_buffer_size(b) / sizeof(float));
  }

  uint32_t id = 0;
  svp_acl_mdl_desc* desc = nullptr;
  svp_acl_mdl_dataset* input = nullptr;
  svp_acl_mdl_dataset* output = nullptr;
  std::vector<void*> memory;
  std::vector<svp_acl_data_buffer*> buffers;
};

// A deterministic NV12 frame with video-range values, at `stride`.
std::vector<std::uint8_t> nv12_frame(int w, int h, std::size_t stride, unsigned seed) {
  std::vector<std::uint8_t> f(stride * static_cast<std::size_t>(h + h / 2), 0);
  std::mt19937 rng(seed);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)  // smooth gradient + noise, like a camera
      f[static_cast<std::size_t>(y) * stride + static_cast<std::size_t>(x)] =
          static_cast<std::uint8_t>(16 + (x * 3 + y * 2) % 200 + static_cast<int>(rng() % 20));
  for (int y = 0; y < h / 2; ++y)
    for (int x = 0; x < w; ++x)
      f[static_cast<std::size_t>(h + y) * stride + static_cast<std::size_t>(x)] =
          static_cast<std::uint8_t>(16 + (x * 5 + y * 7 + static_cast<int>(rng() % 30)) % 224);
  return f;
}

// The documented AIPP arithmetic (docs/aipp.md §2), written naively over whole images:
// CSC every crop pixel, then bilinear resize, then DTC, NCHW float. An independent
// implementation of the same definition, for bit-exact end-to-end comparisons.
std::vector<float> naive_nv12_aipp(const std::vector<std::uint8_t>& f, std::size_t stride, int src_h, int cx, int cy,
                                   int cw, int ch, int ow, int oh, const std::array<int, 9>& m,
                                   const std::array<int, 3>& ib, const std::array<float, 3>& mean,
                                   const std::array<float, 3>& var_reci) {
  std::vector<int> rgb(static_cast<std::size_t>(3 * cw * ch));
  for (int y = 0; y < ch; ++y)
    for (int x = 0; x < cw; ++x) {
      const int sx = cx + x, sy = cy + y;
      const int Y = f[static_cast<std::size_t>(sy) * stride + static_cast<std::size_t>(sx)];
      const std::size_t uv = static_cast<std::size_t>(src_h + sy / 2) * stride + static_cast<std::size_t>(sx / 2 * 2);
      const int c[3] = {Y - ib[0], f[uv] - ib[1], f[uv + 1] - ib[2]};
      for (int o = 0; o < 3; ++o) {
        int v = (m[static_cast<std::size_t>(3 * o)] * c[0] + m[static_cast<std::size_t>(3 * o + 1)] * c[1] +
                 m[static_cast<std::size_t>(3 * o + 2)] * c[2] + 512) >> 10;
        rgb[static_cast<std::size_t>((o * ch + y) * cw + x)] = std::min(255, std::max(0, v));
      }
    }
  auto coord = [](int i, int in, int out, int* i0, int* i1, int* w) {
    const float fx = static_cast<float>((i + 0.5) * (static_cast<double>(in) / out) - 0.5);
    int s = static_cast<int>(std::floor(fx));
    float fr = fx - static_cast<float>(s);
    if (s < 0) { s = 0; fr = 0; }
    if (s >= in - 1) { s = in - 1; fr = 0; }
    *i0 = s;
    *i1 = std::min(s + 1, in - 1);
    *w = static_cast<int>(std::lrint(fr * 2048));
  };
  std::vector<float> out(static_cast<std::size_t>(3 * ow * oh));
  for (int o = 0; o < 3; ++o)
    for (int y = 0; y < oh; ++y)
      for (int x = 0; x < ow; ++x) {
        int y0, y1, wy, x0, x1, wx;
        coord(y, ch, oh, &y0, &y1, &wy);
        coord(x, cw, ow, &x0, &x1, &wx);
        auto px = [&](int yy, int xx) -> std::int64_t { return rgb[static_cast<std::size_t>((o * ch + yy) * cw + xx)]; };
        const std::int64_t t = px(y0, x0) * (2048 - wx) + px(y0, x1) * wx;
        const std::int64_t b = px(y1, x0) * (2048 - wx) + px(y1, x1) * wx;
        const auto v = static_cast<int>((t * (2048 - wy) + b * wy + (1 << 21)) >> 22);
        out[static_cast<std::size_t>((o * oh + y) * ow + x)] =
            (static_cast<float>(v) - mean[static_cast<std::size_t>(o)] - 0.0f) * var_reci[static_cast<std::size_t>(o)];
      }
  return out;
}

class AippApiTest : public svp::test::RuntimeTest {
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

TEST_F(AippApiTest, DynamicAippAddsAParameterInputAndDescribesTheSourceImage) {
  const BuiltModel m = aipp_conv_model(224, 224, svp::aipp::dynamic_aipp_json(1920, 1080));
  AippRun r(m);
  ASSERT_EQ(svp_acl_mdl_get_num_inputs(r.desc), 4u);  // img, its parameters, task_buf, work_buf
  EXPECT_STREQ(svp_acl_mdl_get_input_name_by_index(r.desc, 1), SVP_ACL_DYNAMIC_AIPP_NAME);
  size_t index = 99;
  ASSERT_ACL_OK(svp_acl_mdl_get_input_index_by_name(r.desc, SVP_ACL_DYNAMIC_AIPP_NAME, &index));
  EXPECT_EQ(index, 1u);
  const svp_acl_mdl_aipp_type want[] = {SVP_ACL_DATA_WITH_DYNAMIC_AIPP, SVP_ACL_DYNAMIC_AIPP_NODE,
                                        SVP_ACL_DATA_WITHOUT_AIPP, SVP_ACL_DATA_WITHOUT_AIPP};
  for (size_t i = 0; i < 4; ++i) {
    svp_acl_mdl_aipp_type t;
    size_t attached = 0;
    ASSERT_ACL_OK(svp_acl_mdl_get_input_aipp_type(r.id, i, &t, &attached));
    EXPECT_EQ(t, want[i]) << i;
    EXPECT_EQ(attached, i == 0 ? 1u : static_cast<size_t>(SVP_ACL_INVALID_NODE_INDEX)) << i;
  }
  // The raw source at the maximum size: NV12 1920x1080 = 1620 rows of 1920 bytes.
  EXPECT_EQ(svp_acl_mdl_get_input_default_stride(r.desc, 0), 1920u);
  EXPECT_EQ(svp_acl_mdl_get_input_size_by_index(r.desc, 0), 1920u * 1620u);
  EXPECT_EQ(svp_acl_mdl_get_input_data_type(r.desc, 0), SVP_ACL_UINT8);
  svp_acl_mdl_io_dims dims;
  ASSERT_ACL_OK(svp_acl_mdl_get_input_dims(r.desc, 0, &dims));
  EXPECT_EQ(std::vector<int64_t>(dims.dims, dims.dims + dims.dim_count), (std::vector<int64_t>{1, 3, 1080, 1920}));
  EXPECT_EQ(svp_acl_mdl_get_input_size_by_index(r.desc, 1), 192u);  // 64-byte header + one 128-byte entry
  svp_acl_mdl_aipp_type t;
  size_t attached;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_get_input_aipp_type(r.id, 4, &t, &attached));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_MODEL_ID, svp_acl_mdl_get_input_aipp_type(r.id + 7, 0, &t, &attached));
  ASSERT_ACL_OK(svp_acl_mdl_get_output_aipp_type(r.id, 0, &t, &attached));
  EXPECT_EQ(t, SVP_ACL_DATA_WITHOUT_AIPP);
}

// The seed's §8.3.4 model_set_dynamic_aipp(), verbatim but for the source height (see the
// SeedValues test): loop over the inputs, find the dynamic AIPP input, set, execute.
svp_acl_error seed_model_set_dynamic_aipp(uint32_t model_id, svp_acl_mdl_desc* svp_acl_model_desc,
                                          svp_acl_mdl_dataset* input, int32_t src_height) {
  size_t index;
  svp_acl_error ret = SVP_ACL_SUCCESS;
  size_t input_num;
  svp_acl_mdl_aipp_type aipp_type;
  size_t attached_index;
  svp_acl_mdl_aipp* aipp_set = svp_acl_mdl_create_aipp(1);
  input_num = svp_acl_mdl_get_num_inputs(svp_acl_model_desc);
  for (index = 0; index < input_num; index++) {
    ret = svp_acl_mdl_get_input_aipp_type(model_id, index, &aipp_type, &attached_index);
    if (aipp_type != SVP_ACL_DATA_WITH_DYNAMIC_AIPP) continue;
    ret = svp_acl_mdl_set_aipp_src_image_size(aipp_set, 256, src_height);
    ret = svp_acl_mdl_set_aipp_input_format(aipp_set, SVP_ACL_YUV420SP_U8);
    ret = svp_acl_mdl_set_aipp_csc_params(aipp_set, 1, 1192, 2166, 0, 1192, -218, -547, 1192, 0, 1836, 0, 0, 0, 16,
                                          128, 128);
    ret = svp_acl_mdl_set_aipp_rbuv_swap_switch(aipp_set, 0);
    ret = svp_acl_mdl_set_aipp_dtc_pixel_mean(aipp_set, 0, 0, 0, 0, 0);
    ret = svp_acl_mdl_set_aipp_dtc_pixel_min(aipp_set, 0, 0, 0, 0, 0);
    ret = svp_acl_mdl_set_aipp_pixel_var_reci(aipp_set, 1.0, 1.0, 1.0, 1.0, 0);
    ret = svp_acl_mdl_set_aipp_crop_params(aipp_set, 1, 2, 2, 224, 224, 0);
    ret = svp_acl_mdl_set_input_aipp(model_id, input, attached_index, aipp_set);
    if (ret != SVP_ACL_SUCCESS) break;  // (the seed leaves error handling to the reader)
  }
  svp_acl_mdl_destroy_aipp(aipp_set);
  return ret;
}

TEST_F(AippApiTest, SeedValuesCropOutsideTheSourceAreRejectedWithAClearMessage) {
  // The seed sets a 256x224 source and crops 224 rows from row 2: rows 2..225 do not exist.
  const BuiltModel m = aipp_conv_model(224, 224, svp::aipp::dynamic_aipp_json(1920, 1080));
  AippRun r(m);
  EXPECT_EQ(seed_model_set_dynamic_aipp(r.id, r.desc, r.input, 224), SVP_ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("lies outside the 256x224 source image"),
            std::string::npos)
      << svp_acl_get_recent_err_msg();
  // Nothing was written: executing now fails on the parameter input, never runs half-set.
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_execute(r.id, r.input, r.output));
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("holds no parameters"), std::string::npos);
}

TEST_F(AippApiTest, SeedFlowSetsParametersAndExecutes) {
  const BuiltModel m = aipp_conv_model(224, 224, svp::aipp::dynamic_aipp_json(1920, 1080));
  AippRun r(m);
  ASSERT_EQ(seed_model_set_dynamic_aipp(r.id, r.desc, r.input, 228), SVP_ACL_SUCCESS)
      << svp_acl_get_recent_err_msg();
  // Size and stride now follow the configuration: NV12 256x228 = 342 rows of 256 bytes.
  EXPECT_EQ(svp_acl_mdl_get_input_default_stride(r.desc, 0), 256u);
  ASSERT_EQ(svp_acl_mdl_get_input_size_by_index(r.desc, 0), 256u * 342u);
  std::uint8_t* src = r.reallocate_input(0);
  const auto frame = nv12_frame(256, 228, 256, 3);
  std::memcpy(src, frame.data(), frame.size());
  ASSERT_ACL_OK(svp_acl_mdl_execute(r.id, r.input, r.output));
  // The seed's matrix yields BGR (row 0 = B = 1.164 (Y−16) + 2.115 (U−128), BT.709).
  const auto x = naive_nv12_aipp(frame, 256, 228, 2, 2, 224, 224, 224, 224,
                                 {1192, 2166, 0, 1192, -218, -547, 1192, 0, 1836}, {16, 128, 128}, {0, 0, 0},
                                 {1, 1, 1});
  const auto want = svp::test::reference_outputs(m, {x.data()});
  EXPECT_EQ(r.output0(), want[0].values<float>());
}

TEST_F(AippApiTest, CameraFrame1080pThroughDynamicAippEqualsThePreprocessedTensorFedDirectly) {
  const int W = 1920, H = 1080;
  const BuiltModel with_aipp = aipp_conv_model(224, 224, svp::aipp::dynamic_aipp_json(W, H));
  const BuiltModel plain = aipp_conv_model(224, 224, "");
  AippRun r(with_aipp);
  svp_acl_mdl_aipp* a = svp_acl_mdl_create_aipp(1);
  ASSERT_NE(a, nullptr);
  ASSERT_ACL_OK(svp_acl_mdl_set_aipp_input_format(a, SVP_ACL_YUV420SP_U8));
  ASSERT_ACL_OK(svp_acl_mdl_set_aipp_src_image_size(a, W, H));
  ASSERT_ACL_OK(svp_acl_mdl_set_aipp_csc_params(a, 1, 1192, 0, 1634, 1192, -401, -832, 1192, 2066, 0, 0, 0, 0, 16, 128,
                                                128));
  ASSERT_ACL_OK(svp_acl_mdl_set_aipp_crop_params(a, 1, 420, 0, 1080, 1080, 0));  // centre square
  ASSERT_ACL_OK(svp_acl_mdl_set_aipp_scf_params(a, AIPP_RESIZE_SWITCH_BILINEAR, 1080, 1080, 224, 224, 0));
  ASSERT_ACL_OK(svp_acl_mdl_set_aipp_dtc_pixel_mean(a, 123.0f, 117.0f, 104.0f, 0, 0));
  ASSERT_ACL_OK(svp_acl_mdl_set_aipp_pixel_var_reci(a, 1 / 58.4f, 1 / 57.1f, 1 / 57.4f, 1, 0));
  ASSERT_ACL_OK(svp_acl_mdl_set_aipp_by_input_index(r.id, r.input, 0, a));
  ASSERT_ACL_OK(svp_acl_mdl_destroy_aipp(a));
  const auto frame = nv12_frame(W, H, 1920, 11);
  ASSERT_EQ(svp_acl_mdl_get_input_size_by_index(r.desc, 0), frame.size());
  std::memcpy(r.in_ptr(0), frame.data(), frame.size());
  ASSERT_ACL_OK(svp_acl_mdl_execute(r.id, r.input, r.output));

  const auto x = naive_nv12_aipp(frame, 1920, H, 420, 0, 1080, 1080, 224, 224,
                                 {1192, 0, 1634, 1192, -401, -832, 1192, 2066, 0}, {16, 128, 128},
                                 {123.0f, 117.0f, 104.0f}, {1 / 58.4f, 1 / 57.1f, 1 / 57.4f});
  AippRun direct(plain);
  ASSERT_EQ(svp_acl_mdl_get_input_size_by_index(direct.desc, 0), x.size() * sizeof(float));
  std::memcpy(direct.in_ptr(0), x.data(), x.size() * sizeof(float));
  ASSERT_ACL_OK(svp_acl_mdl_execute(direct.id, direct.input, direct.output));
  EXPECT_EQ(r.output0(), direct.output0());
}

// The vendor sample's dynamic AIPP case (same values in every copy of the sample, both
// chips): a 720x576 YUV420SP source, crop 716x572 at (0, 0), padding 2 on every side, scf
// 720x576 -> 1920x1080. The board pads before it resizes, so the scf input is the padded
// crop (docs/aipp.md §2); tests/opencv runs it end to end against OpenCV.
svp_acl_mdl_aipp* sample_aipp(int32_t crop_x, int8_t padding, int32_t scf_in_w, int32_t scf_in_h, int32_t out_h) {
  svp_acl_mdl_aipp* a = svp_acl_mdl_create_aipp(1);
  EXPECT_ACL_OK(svp_acl_mdl_set_aipp_input_format(a, SVP_ACL_YUV420SP_U8));
  EXPECT_ACL_OK(svp_acl_mdl_set_aipp_src_image_size(a, 720, 576));
  EXPECT_ACL_OK(svp_acl_mdl_set_aipp_crop_params(a, 1, crop_x, 0, 716, 572, 0));
  EXPECT_ACL_OK(svp_acl_mdl_set_aipp_padding_params(a, padding, 2, 2, 2, 2, 0));
  EXPECT_ACL_OK(svp_acl_mdl_set_aipp_scf_params(a, AIPP_RESIZE_SWITCH_BILINEAR, scf_in_w, scf_in_h, 1920, out_h, 0));
  return a;
}

TEST_F(AippApiTest, VendorSampleCropPaddingScfValuesAreAcceptedAndWrongSizesRejectedByStage) {
  const BuiltModel m = aipp_conv_model(1080, 1920, svp::aipp::dynamic_aipp_json(720, 576));
  AippRun r(m);
  auto expect = [&](svp_acl_mdl_aipp* a, const char* needle) {
    const svp_acl_error e = svp_acl_mdl_set_input_aipp(r.id, r.input, 1, a);
    if (needle == nullptr) {
      EXPECT_EQ(e, SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
    } else {
      EXPECT_EQ(e, SVP_ACL_ERROR_INVALID_PARAM);
      EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find(needle), std::string::npos)
          << svp_acl_get_recent_err_msg();
    }
    EXPECT_ACL_OK(svp_acl_mdl_destroy_aipp(a));
  };
  expect(sample_aipp(0, AIPP_PADDING_SWITCH_CONSTANT, 720, 576, 1080), nullptr);
  expect(sample_aipp(0, AIPP_PADDING_SWITCH_REPLICATION, 720, 576, 1080), nullptr);
  EXPECT_EQ(svp_acl_mdl_get_input_size_by_index(r.desc, 0), 720u * 864u);
  // The Ascend reading (scf input = crop size) is not the board's when padding is on.
  expect(sample_aipp(0, AIPP_PADDING_SWITCH_CONSTANT, 716, 572, 1080),
         "resize (scf) input 716x572 differs from the padded crop size 720x576 that the resize stage reads "
         "(716x572 crop + left 2 right 2, top 2 bottom 2 padding)");
  // Without padding the scf input is the crop size itself.
  expect(sample_aipp(0, AIPP_PADDING_SWITCH_OFF, 720, 576, 1080),
         "resize (scf) input 720x576 differs from the crop size 716x572 that the resize stage reads (padding is off)");
  // The crop must lie inside the source; the output must be the model input's size.
  expect(sample_aipp(6, AIPP_PADDING_SWITCH_CONSTANT, 720, 576, 1080),
         "crop window at (6, 0) of 716x572 lies outside the 720x576 source image");
  expect(sample_aipp(0, AIPP_PADDING_SWITCH_CONSTANT, 720, 576, 1088),
         "output 1920x1088 (w x h after crop, padding and resize) does not match the model input (1920x1080)");
}

TEST_F(AippApiTest, SetInputAippErrors) {
  const BuiltModel m = aipp_conv_model(8, 8, svp::aipp::dynamic_aipp_json(16, 16));
  AippRun r(m);
  svp_acl_mdl_aipp* a = svp_acl_mdl_create_aipp(1);
  // Mandatory setters first.
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_set_input_aipp(r.id, r.input, 1, a));
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("svp_acl_mdl_set_aipp_input_format is mandatory"),
            std::string::npos);
  ASSERT_ACL_OK(svp_acl_mdl_set_aipp_input_format(a, SVP_ACL_YUV420SP_U8));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_set_input_aipp(r.id, r.input, 1, a));
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("svp_acl_mdl_set_aipp_src_image_size is mandatory"),
            std::string::npos);
  ASSERT_ACL_OK(svp_acl_mdl_set_aipp_src_image_size(a, 9, 8));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_set_input_aipp(r.id, r.input, 1, a));
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("even width and height"), std::string::npos);
  ASSERT_ACL_OK(svp_acl_mdl_set_aipp_src_image_size(a, 18, 8));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_set_input_aipp(r.id, r.input, 1, a));
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("exceeds the model's maximum 16x16"), std::string::npos);
  ASSERT_ACL_OK(svp_acl_mdl_set_aipp_src_image_size(a, 10, 8));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_set_input_aipp(r.id, r.input, 1, a));
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("does not match the model input (8x8)"), std::string::npos);
  ASSERT_ACL_OK(svp_acl_mdl_set_aipp_src_image_size(a, 8, 8));
  // The data input is not the parameter input; by_input_index wants the data input.
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_set_input_aipp(r.id, r.input, 0, a));
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("not a dynamic-AIPP parameter input"), std::string::npos);
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_set_aipp_by_input_index(r.id, r.input, 1, a));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_MODEL_ID, svp_acl_mdl_set_input_aipp(r.id + 5, r.input, 1, a));
  ASSERT_ACL_OK(svp_acl_mdl_set_input_aipp(r.id, r.input, 1, a));
  // Modified after set_input_aipp: execution refuses it.
  r.in_ptr(1)[70] ^= 1;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_execute(r.id, r.input, r.output));
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("checksum"), std::string::npos);
  // Output AIPP crops only, and svp-acl models have no output AIPP node.
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_set_output_aipp(r.id, r.output, 0, a));
  svp_acl_mdl_aipp* crop_only = svp_acl_mdl_create_aipp(1);
  ASSERT_ACL_OK(svp_acl_mdl_set_aipp_crop_params(crop_only, 1, 0, 0, 4, 4, 0));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_set_output_aipp(r.id, r.output, 0, crop_only));
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("no output-side AIPP"), std::string::npos);
  EXPECT_ACL_OK(svp_acl_mdl_destroy_aipp(crop_only));
  EXPECT_ACL_OK(svp_acl_mdl_destroy_aipp(a));
}

TEST_F(AippApiTest, SetterArgumentChecks) {
  EXPECT_EQ(svp_acl_mdl_create_aipp(0), nullptr);
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("batch_size 0"), std::string::npos);
  svp_acl_mdl_aipp* a = svp_acl_mdl_create_aipp(2);
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_set_aipp_crop_params(a, 1, 0, 0, 2, 2, 2));
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("batch_index 2 out of range"), std::string::npos);
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_set_aipp_scf_params(a, 3, 2, 2, 1, 1, 0));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_set_aipp_padding_params(a, 5, 0, 0, 0, 0, 0));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_set_aipp_padding_params(a, 1, -1, 0, 0, 0, 0));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_set_aipp_csc_params(a, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                                                                0, 0, 0, 0));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_set_aipp_rbuv_swap_switch(a, -1));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_set_aipp_ax_swap_switch(a, 2));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_set_aipp_src_image_size(a, 0, 4));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM,
                   svp_acl_mdl_set_aipp_input_format(a, static_cast<svp_acl_aipp_input_format>(0x105)));
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("SVP_ACL_FEATURE_MAP_FP32"), std::string::npos);
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM,
                   svp_acl_mdl_set_aipp_dtc_pixel_mean(a, std::numeric_limits<float>::quiet_NaN(), 0, 0, 0, 1));
  EXPECT_ACL_OK(svp_acl_mdl_set_aipp_pixel_var_reci(a, 1, 1, 1, 1, 1));
  EXPECT_ACL_OK(svp_acl_mdl_destroy_aipp(a));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_destroy_aipp(a));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_set_aipp_ax_swap_switch(nullptr, 0));
}

AippParams static_rgb_params() {
  AippParams p;
  p.format_set = p.src_size_set = true;
  p.format = svp::aipp::fmt_id::kRgb888;
  p.src_w = 12;
  p.src_h = 10;
  p.rbuv_swap = true;
  auto& e = p.batches[0];
  e.crop = true;
  e.crop_x = 2;
  e.crop_y = 1;
  e.crop_w = 8;
  e.crop_h = 8;
  e.resize = svp::aipp::Resize::kBilinear;
  e.resize_in_w = e.resize_in_h = 8;
  e.resize_out_w = e.resize_out_h = 4;
  e.mean = {1, 2, 3, 0};
  e.var_reci = {0.5f, 0.5f, 0.5f, 1};
  return p;
}

TEST_F(AippApiTest, StaticAippInfoAndExecution) {
  const AippParams p = static_rgb_params();
  const BuiltModel m = aipp_conv_model(4, 4, svp::aipp::static_aipp_json(p));
  AippRun r(m);
  ASSERT_EQ(svp_acl_mdl_get_num_inputs(r.desc), 3u);  // no parameter input
  svp_acl_mdl_aipp_type t;
  size_t attached;
  ASSERT_ACL_OK(svp_acl_mdl_get_input_aipp_type(r.id, 0, &t, &attached));
  EXPECT_EQ(t, SVP_ACL_DATA_WITH_STATIC_AIPP);
  svp_acl_aipp_info info;
  ASSERT_ACL_OK(svp_acl_mdl_get_first_aipp_info(r.id, 0, &info));
  EXPECT_EQ(info.aipp_format, SVP_ACL_RGB888_U8);
  EXPECT_EQ(info.src_image_width, 12);
  EXPECT_EQ(info.src_image_height, 10);
  EXPECT_EQ(info.crop_switch, 1);
  EXPECT_EQ(info.crop_start_width, 2);
  EXPECT_EQ(info.crop_height, 8);
  EXPECT_EQ(info.resize_switch, AIPP_RESIZE_SWITCH_BILINEAR);
  EXPECT_EQ(info.resize_output_width, 4);
  EXPECT_EQ(info.rbuv_swap_switch, 1);
  EXPECT_EQ(info.mean_chn2, 3.0f);
  EXPECT_EQ(info.var_reci_chn0, 0.5f);
  EXPECT_EQ(info.shape_count, 1u);
  EXPECT_EQ(info.out_dims[0].src_size, 10u * 48u);  // 36 bytes per row → stride 48
  EXPECT_EQ(info.out_dims[0].aipp_out_size, 3u * 4u * 4u * 4u);
  EXPECT_EQ(info.aipp_extend, nullptr);
  EXPECT_EQ(svp_acl_mdl_get_input_size_by_index(r.desc, 0), 480u);
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_get_first_aipp_info(r.id, 1, &info));  // task_buf
  ASSERT_ACL_OK(svp_acl_mdl_get_last_aipp_info(r.id, 0, &info));  // no output AIPP: switches off
  EXPECT_EQ(info.crop_switch, 0);

  // Level-1 callers get the one-member struct, nothing past it is written.
  unsigned char level1[16];
  std::memset(level1, 0xAB, sizeof level1);
  ASSERT_ACL_OK(svp_acl_mdl_get_first_aipp_info_v1(r.id, 0, level1));
  int32_t fmt;
  std::memcpy(&fmt, level1, 4);
  EXPECT_EQ(fmt, SVP_ACL_RGB888_U8);
  for (size_t i = 4; i < sizeof level1; ++i) EXPECT_EQ(level1[i], 0xAB) << i;

  // Execution: the application writes the raw RGB image at the reported stride.
  std::vector<std::uint8_t> src(480, 0);
  std::mt19937 rng(9);
  for (int y = 0; y < 10; ++y)
    for (int x = 0; x < 36; ++x) src[static_cast<std::size_t>(y * 48 + x)] = static_cast<std::uint8_t>(rng());
  std::memcpy(r.in_ptr(0), src.data(), src.size());
  ASSERT_ACL_OK(svp_acl_mdl_execute(r.id, r.input, r.output));
  // The same pipeline without a model (unit-tested stage by stage in aipp_pipeline_test).
  std::vector<float> x(3 * 4 * 4);
  svp::model::TensorView v;
  v.dtype = DType::kFloat32;
  v.dims = {1, 3, 4, 4};
  v.data = x.data();
  ASSERT_TRUE(svp::aipp::run(p, 0, src.data(), 48, src.size(), Layout::kNCHW, v).ok());
  EXPECT_EQ(r.output0(), svp::test::reference_outputs(m, {x.data()})[0].values<float>());
}

// As sample_common_svp_npu_model.c does: get_first_aipp_info on every data input (all
// inputs but task_buf/work_buf), abort on failure, then halve the line count for YUV420SP.
TEST_F(AippApiTest, FirstAippInfoSucceedsOnEveryDataInputAsTheVendorSampleCallsIt) {
  ModelBuilder vb("vector_net");
  const TensorId v = vb.add_input("v", DType::kFloat32, {1, 8});
  vb.add_output(vb.add_layer("relu", "Relu", {v}, LayerOptions{}), "y");
  const BuiltModel vec = must(vb);
  const BuiltModel stat = aipp_conv_model(4, 4, svp::aipp::static_aipp_json(static_rgb_params()));
  const BuiltModel dyn = aipp_conv_model(8, 8, svp::aipp::dynamic_aipp_json(16, 16));
  struct Expect {
    const BuiltModel* model;
    std::vector<int> formats;       // aipp_format per data input (0: none reported)
    std::vector<size_t> dim_nums;   // src_dim_num per data input
  };
  for (const Expect& e : {Expect{&vec, {0}, {2}}, Expect{&stat, {SVP_ACL_RGB888_U8}, {4}},
                          Expect{&dyn, {SVP_ACL_YUV420SP_U8, 0}, {4, 1}}}) {
    AippRun r(*e.model);
    const size_t data_inputs = svp_acl_mdl_get_num_inputs(r.desc) - 2;
    ASSERT_EQ(data_inputs, e.formats.size());
    for (size_t i = 0; i < data_inputs; ++i) {
      svp_acl_aipp_info info;
      std::memset(&info, 0xAB, sizeof info);
      ASSERT_ACL_OK(svp_acl_mdl_get_first_aipp_info(r.id, i, &info));
      EXPECT_EQ(static_cast<int>(info.aipp_format), e.formats[i]) << i;
      EXPECT_EQ(info.src_dim_num, e.dim_nums[i]) << i;
      EXPECT_EQ(info.shape_count, 1u);
      EXPECT_EQ(info.out_dims[0].src_dims.dim_count, e.dim_nums[i]);
      EXPECT_EQ(info.out_dims[0].src_size, svp_acl_mdl_get_input_size_by_index(r.desc, i)) << i;
      EXPECT_EQ(info.aipp_extend, nullptr);
      if (e.formats[i] == 0) {  // no static AIPP: every switch off
        EXPECT_EQ(info.crop_switch, 0);
        EXPECT_EQ(info.resize_switch, 0);
        EXPECT_EQ(info.padding_switch, 0);
        EXPECT_EQ(info.csc_switch, 0);
        EXPECT_EQ(info.src_data_type, svp_acl_mdl_get_input_data_type(r.desc, i)) << i;
      }
    }
    // task_buf / work_buf carry no AIPP information; outputs answer like inputs without AIPP.
    svp_acl_aipp_info info;
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_get_first_aipp_info(r.id, data_inputs, &info));
    ASSERT_ACL_OK(svp_acl_mdl_get_last_aipp_info(r.id, 0, &info));
    EXPECT_EQ(static_cast<int>(info.aipp_format), 0);
    EXPECT_EQ(info.out_dims[0].src_size, svp_acl_mdl_get_output_size_by_index(r.desc, 0));
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_get_last_aipp_info(r.id, 1, &info));
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_get_first_aipp_info(r.id, 0, nullptr));
  }
}

// The board reports a dynamic-AIPP input's configured source format and size too: the
// vendor sample (sample_common_svp_npu_model.c) reads aipp_format after get_first_aipp_info
// to size its YUV420SP source (1.5 rows per image row); with 0 it sized a 3-plane image and
// stopped itself (issue 29). The model's AIPP configuration knows the format and the maximum
// source; the per-execution switches stay 0 until set_input_aipp.
TEST_F(AippApiTest, FirstAippInfoOfADynamicInputReportsTheModelsSourceFormatAndMaximumSize) {
  const BuiltModel m = aipp_conv_model(8, 8, svp::aipp::dynamic_aipp_json(24, 16, svp::aipp::fmt_id::kYvu420Sp));
  AippRun r(m);
  svp_acl_aipp_info info;
  std::memset(&info, 0xAB, sizeof info);
  ASSERT_ACL_OK(svp_acl_mdl_get_first_aipp_info(r.id, 0, &info));
  EXPECT_EQ(info.aipp_format, SVP_ACL_YVU420SP_U8);
  EXPECT_EQ(info.src_image_width, 24);
  EXPECT_EQ(info.src_image_height, 16);
  EXPECT_EQ(info.src_data_type, SVP_ACL_UINT8);
  EXPECT_EQ(info.crop_switch, 0);
  EXPECT_EQ(info.resize_switch, 0);
  EXPECT_EQ(info.csc_switch, 0);
  // The sample's arithmetic: for YUV420SP/YVU420SP, 1.5 rows per image row at the input's
  // stride make the input's size (with format 0 it took 3 rows per image row: twice too big).
  const size_t stride = svp_acl_mdl_get_input_default_stride(r.desc, 0);
  EXPECT_EQ(info.out_dims[0].src_size, svp_acl_mdl_get_input_size_by_index(r.desc, 0));
  EXPECT_EQ(info.out_dims[0].src_size, stride * static_cast<size_t>(info.src_image_height) * 3 / 2);
  // The parameter input still reports no format.
  ASSERT_ACL_OK(svp_acl_mdl_get_first_aipp_info(r.id, 1, &info));
  EXPECT_EQ(static_cast<int>(info.aipp_format), 0);
}

// The vendor's max_src_image_size is a byte budget each source must fit, whatever the model
// input size: the vendor sample's 622080 bytes (one 720x576 YUV420SP frame) for a 1920x1080
// input, its frame resized up by the scf stage (issue 29).
TEST_F(AippApiTest, AByteBudgetAcceptsEverySourceThatFitsItAndRefusesALargerOne) {
  const auto d = svp::aipp::budget_description(svp::aipp::fmt_id::kYuv420Sp, 622080, 1920);
  EXPECT_EQ(d.first, 1920);
  EXPECT_EQ(d.second, 216);  // 1920 x 216 x 1.5 = 622080
  const BuiltModel m =
      aipp_conv_model(1080, 1920, svp::aipp::dynamic_aipp_json(d.first, d.second, svp::aipp::fmt_id::kYuv420Sp, 622080));
  AippRun r(m);
  EXPECT_GE(svp_acl_mdl_get_input_size_by_index(r.desc, 0), 622080u);
  auto set = [&](int w, int h) {
    svp_acl_mdl_aipp* a = svp_acl_mdl_create_aipp(1);
    EXPECT_ACL_OK(svp_acl_mdl_set_aipp_input_format(a, SVP_ACL_YUV420SP_U8));
    EXPECT_ACL_OK(svp_acl_mdl_set_aipp_src_image_size(a, w, h));
    EXPECT_ACL_OK(svp_acl_mdl_set_aipp_scf_params(a, AIPP_RESIZE_SWITCH_BILINEAR, w, h, 1920, 1080, 0));
    const svp_acl_error e = svp_acl_mdl_set_input_aipp(r.id, r.input, 1, a);
    svp_acl_mdl_destroy_aipp(a);
    return e;
  };
  EXPECT_ACL_OK(set(720, 576));
  EXPECT_EQ(svp_acl_mdl_get_input_size_by_index(r.desc, 0), 720u * 864u);  // the configured source now
  EXPECT_ACL_OK(set(1440, 288));  // another shape of the same bytes
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, set(722, 576));
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg())
                .find("source image 722x576 SVP_ACL_YUV420SP_U8 is 623808 bytes, more than the model's "
                      "max_src_image_size 622080 bytes"),
            std::string::npos)
      << svp_acl_get_recent_err_msg();
}

TEST_F(AippApiTest, DynamicBatchTakesOneParameterSetForEveryImage) {
  ModelBuilder b("batched");
  const TensorId x = b.add_input("img", DType::kFloat32, {1, 3, 4, 4});
  b.set_dynamic_aipp(x, 8, 8);
  b.set_dynamic_batch({3});
  const TensorId wt = b.add_constant("w", {1, 3, 1, 1}, std::vector<float>{1, 1, 1});
  LayerOptions o;
  o.attrs.set("kernel_shape", std::vector<std::int64_t>{1, 1});
  b.add_output(b.add_layer("conv", "Conv", {x, wt}, o), "y");
  const BuiltModel m = must(b);
  AippRun r(m);
  for (uint64_t n : {2u, 1u}) {
    svp_acl_mdl_aipp* a = svp_acl_mdl_create_aipp(n);
    ASSERT_ACL_OK(svp_acl_mdl_set_aipp_input_format(a, SVP_ACL_YUV420SP_U8));
    ASSERT_ACL_OK(svp_acl_mdl_set_aipp_src_image_size(a, 4, 4));
    if (n == 2) {
      EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_set_input_aipp(r.id, r.input, 1, a));
      EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("one parameter set for all batch images"),
                std::string::npos);
    } else {
      EXPECT_ACL_OK(svp_acl_mdl_set_input_aipp(r.id, r.input, 1, a));
    }
    ASSERT_ACL_OK(svp_acl_mdl_destroy_aipp(a));
  }
  // Executing 3 images with the one set: each image is its own 4x4 NV12 frame in the
  // buffer (96 bytes apart); CSC off, so y = Y + U + V per pixel.
  size_t dyn = 0;
  ASSERT_ACL_OK(svp_acl_mdl_get_input_index_by_name(r.desc, SVP_ACL_DYNAMIC_TENSOR_NAME, &dyn));
  ASSERT_ACL_OK(svp_acl_mdl_set_dynamic_batch_size(r.id, r.input, dyn, 3));
  ASSERT_EQ(svp_acl_mdl_get_input_size_by_index(r.desc, 0), 96u);  // 6 rows of 16 bytes
  void* mem = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_malloc(&mem, 3 * 96, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
  r.memory.push_back(mem);
  auto* src = static_cast<std::uint8_t*>(mem);
  for (int item = 0; item < 3; ++item) {
    std::memset(src + item * 96, 10 + item, 64);  // Y
    for (int k = 0; k < 32; k += 2) {
      src[item * 96 + 64 + k] = 20;      // U
      src[item * 96 + 64 + k + 1] = 30;  // V
    }
  }
  ASSERT_ACL_OK(svp_acl_update_data_buffer(svp_acl_mdl_get_dataset_buffer(r.input, 0), mem, 3 * 96, 16));
  // Outputs for 3 items.
  const size_t out_size = svp_acl_mdl_get_output_size_by_index(r.desc, 0);
  void* out = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_malloc(&out, 3 * out_size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
  r.memory.push_back(out);
  ASSERT_ACL_OK(svp_acl_update_data_buffer(svp_acl_mdl_get_dataset_buffer(r.output, 0), out, 3 * out_size,
                                           svp_acl_mdl_get_output_default_stride(r.desc, 0)));
  ASSERT_ACL_OK(svp_acl_mdl_execute(r.id, r.input, r.output));
  const auto* y = static_cast<const float*>(out);
  for (int item = 0; item < 3; ++item) {
    for (size_t i = 0; i < out_size / sizeof(float); ++i) {
      ASSERT_EQ(y[static_cast<size_t>(item) * out_size / sizeof(float) + i], 60.0f + static_cast<float>(item))
          << "item " << item << " element " << i;
    }
  }
}

// Dynamic HW: the post-AIPP size must equal the selected gear (seed §8.3.4). The source is
// the same 8x8 NV12 frame at both gears; resize produces the gear.
TEST_F(AippApiTest, DynamicHwPostAippSizeMustEqualTheSelectedGear) {
  ModelBuilder b("gears");
  const TensorId x = b.add_input("img", DType::kFloat32, {1, 3, 8, 8});
  b.set_dynamic_aipp(x, 16, 16);
  b.set_dynamic_hw({{8, 8}, {4, 4}});
  const TensorId wt = b.add_constant("w", {1, 3, 1, 1}, std::vector<float>{1, 1, 1});
  LayerOptions o;
  o.attrs.set("kernel_shape", std::vector<std::int64_t>{1, 1});
  b.add_output(b.add_layer("conv", "Conv", {x, wt}, o), "y");
  const BuiltModel m = must(b);
  AippRun r(m);
  size_t dyn = 0;
  ASSERT_ACL_OK(svp_acl_mdl_get_input_index_by_name(r.desc, SVP_ACL_DYNAMIC_TENSOR_NAME, &dyn));
  ASSERT_ACL_OK(svp_acl_mdl_set_dynamic_hw_size(r.id, r.input, dyn, 4, 4));
  // The data input still describes the AIPP source at every gear.
  EXPECT_EQ(svp_acl_mdl_get_input_size_by_index(r.desc, 0), 24u * 16u);  // NV12 16x16 maximum
  svp_acl_mdl_aipp* a = svp_acl_mdl_create_aipp(1);
  ASSERT_ACL_OK(svp_acl_mdl_set_aipp_input_format(a, SVP_ACL_YUV420SP_U8));
  ASSERT_ACL_OK(svp_acl_mdl_set_aipp_src_image_size(a, 8, 8));
  ASSERT_ACL_OK(svp_acl_mdl_set_input_aipp(r.id, r.input, 1, a));  // 8x8: a gear, but not the selected one
  std::memset(r.in_ptr(0), 100, 8 * 16);                            // Y: 8 rows at stride 16
  std::memset(r.in_ptr(0) + 8 * 16, 50, 4 * 16);                    // UV: 4 rows
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_execute(r.id, r.input, r.output));
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("differs from the selected resolution gear 4x4"),
            std::string::npos)
      << svp_acl_get_recent_err_msg();
  ASSERT_ACL_OK(svp_acl_mdl_set_aipp_scf_params(a, AIPP_RESIZE_SWITCH_BILINEAR, 8, 8, 4, 4, 0));
  ASSERT_ACL_OK(svp_acl_mdl_set_input_aipp(r.id, r.input, 1, a));
  ASSERT_ACL_OK(svp_acl_mdl_execute(r.id, r.input, r.output));
  // The output buffer was allocated at the largest gear (stride 32 = 8 floats per row).
  const svp_acl_data_buffer* ob = svp_acl_mdl_get_dataset_buffer(r.output, 0);
  const auto* y = static_cast<const float*>(svp_acl_get_data_buffer_addr(ob));
  const size_t row = svp_acl_get_data_buffer_stride(ob) / sizeof(float);
  EXPECT_EQ(svp_acl_mdl_get_output_size_by_index(r.desc, 0), 4u * 16u);  // 4 rows of 4 floats at this gear
  for (size_t i = 0; i < 16; ++i) EXPECT_EQ(y[(i / 4) * row + i % 4], 200.0f) << i;  // Y + U + V, CSC off
  // A post-AIPP size that is no gear at all is refused when set.
  ASSERT_ACL_OK(svp_acl_mdl_set_aipp_scf_params(a, AIPP_RESIZE_SWITCH_BILINEAR, 8, 8, 6, 6, 0));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_set_input_aipp(r.id, r.input, 1, a));
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("(8x8, 8x8, 4x4)"), std::string::npos)
      << svp_acl_get_recent_err_msg();
  ASSERT_ACL_OK(svp_acl_mdl_destroy_aipp(a));
}

// Several threads configure and execute the same model with their own datasets while
// others read its description: the model's current-source state is shared (vendor
// behaviour) and must stay consistent (run under TSan by scripts/test.sh thread).
TEST_F(AippApiTest, ConcurrentSetInputAippExecuteAndDescriptionQueries) {
  const BuiltModel m = aipp_conv_model(8, 8, svp::aipp::dynamic_aipp_json(16, 16));
  AippRun a(m);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      if (svp_acl_rt_set_device(0) != SVP_ACL_SUCCESS) ++failures;
      svp_acl_mdl_dataset* in = svp_acl_mdl_create_dataset();
      svp_acl_mdl_dataset* out = svp_acl_mdl_create_dataset();
      std::vector<void*> mem;
      std::vector<svp_acl_data_buffer*> bufs;
      auto add = [&](svp_acl_mdl_dataset* d, size_t size, size_t stride) {
        void* p = nullptr;
        if (svp_acl_rt_malloc(&p, size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY) != SVP_ACL_SUCCESS) ++failures;
        std::memset(p, 16 + t, size);
        mem.push_back(p);
        bufs.push_back(svp_acl_create_data_buffer(p, size, stride));
        svp_acl_mdl_add_dataset_buffer(d, bufs.back());
      };
      for (size_t i = 0; i < 4; ++i) {
        add(in, svp_acl_mdl_get_input_size_by_index(a.desc, i), svp_acl_mdl_get_input_default_stride(a.desc, i));
      }
      add(out, svp_acl_mdl_get_output_size_by_index(a.desc, 0), svp_acl_mdl_get_output_default_stride(a.desc, 0));
      svp_acl_mdl_aipp* p = svp_acl_mdl_create_aipp(1);
      svp_acl_mdl_set_aipp_input_format(p, SVP_ACL_YUV420SP_U8);
      svp_acl_mdl_set_aipp_src_image_size(p, 8, 8);
      for (int k = 0; k < 20; ++k) {
        if (svp_acl_mdl_set_input_aipp(a.id, in, 1, p) != SVP_ACL_SUCCESS) ++failures;
        if (svp_acl_mdl_execute(a.id, in, out) != SVP_ACL_SUCCESS) ++failures;
        if (svp_acl_mdl_get_input_size_by_index(a.desc, 0) != 12u * 16u) ++failures;  // 8x8 NV12: 12 rows of 16
      }
      svp_acl_mdl_destroy_aipp(p);
      for (auto* b : bufs) svp_acl_destroy_data_buffer(b);
      for (void* x : mem) svp_acl_rt_free(x);
      svp_acl_mdl_destroy_dataset(in);
      svp_acl_mdl_destroy_dataset(out);
      if (svp_acl_rt_reset_device(0) != SVP_ACL_SUCCESS) ++failures;
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0) << svp_acl_get_recent_err_msg();
}

TEST(AippModelValidation, RejectsInputsAippCannotFeed) {
  auto build = [](DType dt, std::vector<std::int64_t> dims, const std::string& json) {
    ModelBuilder b("bad");
    const TensorId x = b.add_input("img", dt, dims, Layout::kNCHW,
                                   dt == DType::kFloat32 ? svp::model::Quant{} : svp::model::Quant{{0.5f}, {0}, -1});
    b.set_aipp(x, json);
    b.add_output(b.add_layer("relu", "Relu", {x}), "y");
    return b.build().status();
  };
  const std::string dyn = svp::aipp::dynamic_aipp_json(64, 64);
  EXPECT_TRUE(build(DType::kFloat32, {1, 3, 8, 8}, dyn).ok());
  EXPECT_TRUE(build(DType::kInt8, {1, 3, 8, 8}, dyn).ok());
  auto msg = [&](DType dt, std::vector<std::int64_t> dims, const std::string& json) {
    const svp::Status s = build(dt, std::move(dims), json);
    EXPECT_EQ(s.code(), svp::err::kParseModel);
    return s.message();
  };
  EXPECT_NE(msg(DType::kFloat32, {1, 3, 8}, dyn).find("rank-4"), std::string::npos);
  EXPECT_NE(msg(DType::kInt32, {1, 3, 8, 8}, dyn).find("float32, int8 or uint8"), std::string::npos);
  EXPECT_NE(msg(DType::kFloat32, {1, 2, 8, 8}, dyn).find("1 or 3 channels"), std::string::npos);
  AippParams p = static_rgb_params();
  EXPECT_NE(msg(DType::kFloat32, {1, 3, 8, 8}, svp::aipp::static_aipp_json(p)).find("does not match the model input"),
            std::string::npos);
  EXPECT_NE(msg(DType::kFloat32, {1, 3, 8, 8}, "{\"aipp_mode\": 3}").find("aipp_mode"), std::string::npos);
  // The parameter inputs' reserved name cannot be a data input's.
  ModelBuilder b("reserved");
  const TensorId x = b.add_input(SVP_ACL_DYNAMIC_AIPP_NAME, DType::kFloat32, {1, 4});
  b.add_output(b.add_layer("relu", "Relu", {x}), "y");
  EXPECT_EQ(b.build().status().code(), svp::err::kParseModel);
}

}  // namespace

namespace {

TEST(AippReuseTest, ReuseTypesThatPutIntermediatesIntoInputMemoryRejectAippInputs) {
  for (int type : {2, 4, 5, 6}) {
    ModelBuilder b("aipp_reuse");
    const TensorId x = b.add_input("img", DType::kFloat32, {1, 3, 8, 8});
    b.set_aipp(x, svp::aipp::dynamic_aipp_json(8, 8));
    b.add_output(b.add_layer("relu", "Relu", {x}), "y");
    b.set_buffer_reuse(type);
    auto m = b.build();
    ASSERT_FALSE(m.ok()) << "type " << type;
    EXPECT_NE(m.status().message().find("AIPP input \"img\""), std::string::npos) << m.status().message();
  }
  ModelBuilder b("aipp_out_reuse");  // outputs only: fine
  const TensorId x = b.add_input("img", DType::kFloat32, {1, 3, 8, 8});
  b.set_aipp(x, svp::aipp::dynamic_aipp_json(8, 8));
  b.add_output(b.add_layer("relu", "Relu", {x}), "y");
  b.set_buffer_reuse(SVP_ACL_BUFFER_REUSE_OUTWORK_CONT);
  EXPECT_TRUE(b.build().ok());
}

}  // namespace
