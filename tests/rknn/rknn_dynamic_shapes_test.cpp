// Dynamic input shapes through librknnrt (docs/rknn.md, "Dynamic shapes"): models compiled
// with resolution gears and with batch gears offer their shape sets through
// RKNN_QUERY_INPUT_DYNAMIC_RANGE, rknn_set_input_shapes selects one (the CURRENT_* queries
// follow it), each selected set runs as onnxruntime runs the ONNX model at that shape (batch
// gears, resolution gears, and both in one model), and a shape outside the list is refused
// naming the allowed ones.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "npy_io.h"
#include "onnx_builder.h"
#include "onnxruntime_oracle.h"
#include "rknn/rknn_api.h"
#include "rknn_test_support.h"
#include "runtime/rknn_context.h"
#include "target/device_profile.h"

namespace svp {
namespace {

using runtime::rknn::last_error;
using test::contains;
using test::cosine;
using test::uniform;

namespace fs = std::filesystem;

class RknnDynamicShapes : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("svp_rknn_dyn_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    for (rknn_context c : opened_) (void)rknn_destroy(c);
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // Conv 3x3 (pad 1) + Relu over [batch, 3, H, W]: `hw` symbolic H and W, `batch` -1 a
  // symbolic batch. A Flatten of a global average pool ends the batch model (its output
  // does not depend on H and W).
  std::string write_model(bool hw, bool batch) {
    test::OnnxBuilder b;
    b.input("x", {batch ? -1 : 1, 3, hw ? -1 : 8, hw ? -1 : 8});
    std::vector<float> w(4 * 3 * 3 * 3);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 7) * 0.1f - 0.3f;
    b.initializer("w", {4, 3, 3, 3}, w);
    auto& conv = b.node("Conv", {"x", "w"}, {"c"}, "conv");
    test::OnnxBuilder::attr_ints(conv, "pads", {1, 1, 1, 1});
    if (batch) {
      b.node("Relu", {"c"}, {"r"}, "relu");
      b.node("GlobalAveragePool", {"r"}, {"g"}, "gap");
      b.node("Flatten", {"g"}, {"y"}, "flat");
      b.output("y", {-1, 4});
    } else {
      b.node("Relu", {"c"}, {"y"}, "relu");
      b.output("y", {1, 4, -1, -1});
    }
    auto* dims = b.model().mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
    if (hw) {
      dims->mutable_dim(2)->set_dim_param("H");
      dims->mutable_dim(3)->set_dim_param("W");
      auto* out = b.model().mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
      out->mutable_dim(2)->set_dim_param("H");
      out->mutable_dim(3)->set_dim_param("W");
    }
    const std::string path = (dir_ / "model.onnx").string();
    b.write(path);
    return path;
  }

  std::vector<std::uint8_t> compile(const compiler::CompileOptions& options) {
    auto r = compiler::compile(options);
    if (!r.ok()) {
      ADD_FAILURE() << r.status().message();
      return {};
    }
    return r->model.image;
  }

  // Resolution gears 8x10 (the largest), 6x8 and 4x4, as svp_atc --dynamic_image_size.
  std::vector<std::uint8_t> hw_model() {
    compiler::CompileOptions o;
    o.model = write_model(true, false);
    o.soc_version = target::find_profile("RK3588");
    o.compile_mode = "float";
    o.input_shape = {{"x", {1, 3, -1, -1}}};
    o.dynamic_image_size = {{8, 10}, {6, 8}, {4, 4}};
    o.command_line =
        "svp_atc --framework=5 --model=" + o.model + " --soc_version=RK3588 --dynamic_image_size=8,10;6,8;4,4";
    return compile(o);
  }

  // Batch gears 1, 2 and 4, as svp_atc --dynamic_batch_size (recorded in the command line).
  std::vector<std::uint8_t> batch_model() {
    compiler::CompileOptions o;
    o.model = write_model(false, true);
    o.soc_version = target::find_profile("RK3588");
    o.compile_mode = "float";
    o.input_shape = {{"x", {-1, 3, 8, 8}}};
    o.dynamic_batch_size = {1, 2, 4};
    o.command_line = "svp_atc --framework=5 --model=" + o.model + " --soc_version=RK3588 --dynamic_batch_size=1,2,4";
    return compile(o);
  }

  // Batch gears 1 and 2 with resolution gears 8x10 and 4x4 (both svp_atc flags): Conv +
  // Relu over [N, 3, H, W] -> [N, 4, H, W].
  std::vector<std::uint8_t> batch_hw_model() {
    test::OnnxBuilder b;
    b.input("x", {-1, 3, -1, -1});
    std::vector<float> w(4 * 3 * 3 * 3);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 5) * 0.1f - 0.2f;
    b.initializer("w", {4, 3, 3, 3}, w);
    auto& conv = b.node("Conv", {"x", "w"}, {"c"}, "conv");
    test::OnnxBuilder::attr_ints(conv, "pads", {1, 1, 1, 1});
    b.node("Relu", {"c"}, {"y"}, "relu");
    b.output("y", {-1, 4, -1, -1});
    for (auto* v : {b.model().mutable_graph()->mutable_input(0), b.model().mutable_graph()->mutable_output(0)}) {
      auto* shape = v->mutable_type()->mutable_tensor_type()->mutable_shape();
      shape->mutable_dim(0)->set_dim_param("N");
      shape->mutable_dim(2)->set_dim_param("H");
      shape->mutable_dim(3)->set_dim_param("W");
    }
    compiler::CompileOptions o;
    o.model = (dir_ / "model.onnx").string();
    b.write(o.model);
    o.soc_version = target::find_profile("RK3588");
    o.compile_mode = "float";
    o.input_shape = {{"x", {-1, 3, -1, -1}}};
    o.dynamic_batch_size = {1, 2};
    o.dynamic_image_size = {{8, 10}, {4, 4}};
    o.command_line = "svp_atc --framework=5 --model=" + o.model +
                     " --soc_version=RK3588 --dynamic_batch_size=1,2 --dynamic_image_size=8,10;4,4";
    return compile(o);
  }

  rknn_context init(std::vector<std::uint8_t> image) {
    rknn_context ctx = 0;
    EXPECT_EQ(rknn_init(&ctx, image.data(), static_cast<uint32_t>(image.size()), 0, nullptr), RKNN_SUCC)
        << last_error();
    if (ctx != 0) opened_.push_back(ctx);
    return ctx;
  }

  static rknn_tensor_attr query(rknn_context ctx, rknn_query_cmd cmd, uint32_t index = 0) {
    rknn_tensor_attr a;
    std::memset(&a, 0, sizeof a);
    a.index = index;
    EXPECT_EQ(rknn_query(ctx, cmd, &a, sizeof a), RKNN_SUCC) << last_error();
    return a;
  }

  static std::vector<uint32_t> dims(const rknn_tensor_attr& a) { return {a.dims, a.dims + a.n_dims}; }

  // Selects NHWC input shape `nhwc`.
  static int set_shape(rknn_context ctx, const std::vector<uint32_t>& nhwc) {
    rknn_tensor_attr a = query(ctx, RKNN_QUERY_INPUT_ATTR);
    a.fmt = RKNN_TENSOR_NHWC;
    a.n_dims = static_cast<uint32_t>(nhwc.size());
    for (std::size_t k = 0; k < nhwc.size(); ++k) a.dims[k] = nhwc[k];
    return rknn_set_input_shapes(ctx, 1, &a);
  }

  // Runs NCHW float input `x` through the context at its current shape: output 0 as float.
  static std::vector<float> run(rknn_context ctx, const std::vector<float>& x) {
    rknn_input in;
    std::memset(&in, 0, sizeof in);
    in.buf = const_cast<float*>(x.data());
    in.size = static_cast<uint32_t>(x.size() * sizeof(float));
    in.type = RKNN_TENSOR_FLOAT32;
    in.fmt = RKNN_TENSOR_NCHW;
    EXPECT_EQ(rknn_inputs_set(ctx, 1, &in), RKNN_SUCC) << last_error();
    EXPECT_EQ(rknn_run(ctx, nullptr), RKNN_SUCC) << last_error();
    rknn_output out;
    std::memset(&out, 0, sizeof out);
    out.want_float = 1;
    std::vector<float> y;
    EXPECT_EQ(rknn_outputs_get(ctx, 1, &out, nullptr), RKNN_SUCC) << last_error();
    if (out.buf != nullptr) {
      y.resize(out.size / sizeof(float));
      std::memcpy(y.data(), out.buf, y.size() * sizeof(float));
    }
    EXPECT_EQ(rknn_outputs_release(ctx, 1, &out), RKNN_SUCC) << last_error();
    return y;
  }

  std::vector<float> onnxruntime(const std::vector<std::int64_t>& shape, const std::vector<float>& x) {
    const std::string in_path = (dir_ / "ort_input.npy").string();
    test::write_npy_f32(in_path, shape, x);
    const std::string cmd =
        test::onnxruntime_command((dir_ / "model.onnx").string(), (dir_ / "ort").string(), {{"x", in_path}});
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    return test::read_npy_f32((dir_ / "ort" / "y.npy").string()).data;
  }

  static bool have_onnxruntime() { return fs::exists(test::npm_modules() + "/onnxruntime-node"); }

  fs::path dir_;
  std::vector<rknn_context> opened_;
};

TEST_F(RknnDynamicShapes, ResolutionGearsAreTheShapeSetsTheDynamicRangeQueryReports) {
  rknn_context ctx = init(hw_model());
  ASSERT_NE(ctx, 0u);
  static rknn_input_range range;
  std::memset(&range, 0x5a, sizeof range);
  range.index = 0;
  ASSERT_EQ(rknn_query(ctx, RKNN_QUERY_INPUT_DYNAMIC_RANGE, &range, sizeof range), RKNN_SUCC) << last_error();
  EXPECT_EQ(range.index, 0u);
  EXPECT_EQ(range.shape_number, 3u);
  EXPECT_EQ(range.fmt, RKNN_TENSOR_NHWC);
  EXPECT_EQ(range.n_dims, 4u);
  EXPECT_STREQ(range.name, "x");
  const uint32_t want[3][4] = {{1, 8, 10, 3}, {1, 6, 8, 3}, {1, 4, 4, 3}};
  for (int s = 0; s < 3; ++s) {
    for (int k = 0; k < 4; ++k) EXPECT_EQ(range.dyn_range[s][k], want[s][k]) << "set " << s << " dim " << k;
  }
  EXPECT_EQ(range.dyn_range[3][0], 0u) << "rows past shape_number are zero";
  range.index = 1;
  EXPECT_EQ(rknn_query(ctx, RKNN_QUERY_INPUT_DYNAMIC_RANGE, &range, sizeof range), RKNN_ERR_PARAM_INVALID);
  // Before rknn_set_input_shapes: the largest set, also in the CURRENT_* answers.
  EXPECT_EQ(dims(query(ctx, RKNN_QUERY_INPUT_ATTR)), (std::vector<uint32_t>{1, 8, 10, 3}));
  EXPECT_EQ(dims(query(ctx, RKNN_QUERY_CURRENT_INPUT_ATTR)), (std::vector<uint32_t>{1, 8, 10, 3}));
  EXPECT_EQ(dims(query(ctx, RKNN_QUERY_OUTPUT_ATTR)), (std::vector<uint32_t>{1, 4, 8, 10}));
}

TEST_F(RknnDynamicShapes, EachResolutionGearRunsAsOnnxruntimeAndTheCurrentQueriesFollowIt) {
  if (!have_onnxruntime()) GTEST_SKIP() << "needs the npm package onnxruntime-node (scripts/npm_deps.sh)";
  rknn_context ctx = init(hw_model());
  ASSERT_NE(ctx, 0u);
  const struct { uint32_t h, w; } gears[] = {{6, 8}, {4, 4}, {8, 10}};
  for (const auto& g : gears) {
    SCOPED_TRACE(std::to_string(g.h) + "x" + std::to_string(g.w));
    ASSERT_EQ(set_shape(ctx, {1, g.h, g.w, 3}), RKNN_SUCC) << last_error();
    const rknn_tensor_attr in = query(ctx, RKNN_QUERY_CURRENT_INPUT_ATTR);
    EXPECT_EQ(dims(in), (std::vector<uint32_t>{1, g.h, g.w, 3}));
    EXPECT_EQ(in.n_elems, 3 * g.h * g.w);
    EXPECT_EQ(in.size, 3 * g.h * g.w * sizeof(float));
    const rknn_tensor_attr out = query(ctx, RKNN_QUERY_CURRENT_OUTPUT_ATTR);
    EXPECT_EQ(dims(out), (std::vector<uint32_t>{1, 4, g.h, g.w}));
    const rknn_tensor_attr native_out = query(ctx, RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR);
    EXPECT_EQ(native_out.fmt, RKNN_TENSOR_NC1HWC2);
    EXPECT_EQ(native_out.dims[2], g.h);
    EXPECT_EQ(native_out.dims[3], g.w);
    // The static attribute stays the largest (what buffers are sized by).
    EXPECT_EQ(dims(query(ctx, RKNN_QUERY_INPUT_ATTR)), (std::vector<uint32_t>{1, 8, 10, 3}));
    const std::vector<float> x = uniform(3 * g.h * g.w, 11 + g.h, -1.0f, 1.0f);
    const std::vector<float> y = run(ctx, x);
    ASSERT_EQ(y.size(), 4u * g.h * g.w);
    EXPECT_GE(cosine(y, onnxruntime({1, 3, g.h, g.w}, x)), 0.9999);
  }
}

TEST_F(RknnDynamicShapes, AShapeOutsideTheListIsRefusedNamingTheAllowedOnes) {
  rknn_context ctx = init(hw_model());
  ASSERT_NE(ctx, 0u);
  ASSERT_EQ(set_shape(ctx, {1, 6, 8, 3}), RKNN_SUCC) << last_error();
  EXPECT_EQ(set_shape(ctx, {1, 5, 5, 3}), RKNN_ERR_INPUT_INVALID);
  EXPECT_TRUE(contains(last_error(), "[1,5,5,3] is not one of the model's shape sets")) << last_error();
  EXPECT_TRUE(contains(last_error(), "[1,8,10,3]; [1,6,8,3]; [1,4,4,3]")) << last_error();
  EXPECT_EQ(set_shape(ctx, {1, 8, 8, 3}), RKNN_ERR_INPUT_INVALID) << "8x8 is no gear (8x10 is)";
  // The refused calls left the selection alone.
  EXPECT_EQ(dims(query(ctx, RKNN_QUERY_CURRENT_INPUT_ATTR)), (std::vector<uint32_t>{1, 6, 8, 3}));
  // Malformed descriptions: wrong rank, a 4-D shape without NHWC/NCHW, an index out of range, n_inputs.
  rknn_tensor_attr a = query(ctx, RKNN_QUERY_INPUT_ATTR);
  a.n_dims = 3;
  EXPECT_EQ(rknn_set_input_shapes(ctx, 1, &a), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "n_dims is 3")) << last_error();
  a = query(ctx, RKNN_QUERY_INPUT_ATTR);
  a.fmt = RKNN_TENSOR_NC1HWC2;
  EXPECT_EQ(rknn_set_input_shapes(ctx, 1, &a), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "RKNN_TENSOR_NHWC")) << last_error();
  a = query(ctx, RKNN_QUERY_INPUT_ATTR);
  a.index = 1;
  EXPECT_EQ(rknn_set_input_shapes(ctx, 1, &a), RKNN_ERR_PARAM_INVALID);
  a.index = 0;
  EXPECT_EQ(rknn_set_input_shapes(ctx, 0, &a), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "n_inputs is 0")) << last_error();
  EXPECT_EQ(rknn_set_input_shapes(ctx, 1, nullptr), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_set_input_shape(ctx, nullptr), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_set_input_shapes(0, 1, &a), RKNN_ERR_CTX_INVALID);
  // NCHW descriptions are accepted too (model order).
  a.fmt = RKNN_TENSOR_NCHW;
  const uint32_t nchw[4] = {1, 3, 4, 4};
  std::memcpy(a.dims, nchw, sizeof nchw);
  EXPECT_EQ(rknn_set_input_shapes(ctx, 1, &a), RKNN_SUCC) << last_error();
  EXPECT_EQ(dims(query(ctx, RKNN_QUERY_CURRENT_INPUT_ATTR)), (std::vector<uint32_t>{1, 4, 4, 3}));
}

TEST_F(RknnDynamicShapes, SwitchingTheShapeNeedsTheInputsSetAgain) {
  rknn_context ctx = init(hw_model());
  ASSERT_NE(ctx, 0u);
  const std::vector<float> x = uniform(3 * 8 * 10, 3);
  EXPECT_EQ(run(ctx, x).size(), 4u * 8 * 10);  // the largest set runs without rknn_set_input_shapes
  // The deprecated single-input form selects the same way.
  rknn_tensor_attr a = query(ctx, RKNN_QUERY_INPUT_ATTR);
  const uint32_t nhwc[4] = {1, 4, 4, 3};
  std::memcpy(a.dims, nhwc, sizeof nhwc);
  ASSERT_EQ(rknn_set_input_shape(ctx, &a), RKNN_SUCC) << last_error();
  EXPECT_EQ(rknn_run(ctx, nullptr), RKNN_ERR_INPUT_INVALID) << "the 8x10 input does not carry over to 4x4";
  EXPECT_TRUE(contains(last_error(), "never set")) << last_error();
  rknn_input in;
  std::memset(&in, 0, sizeof in);
  in.buf = const_cast<float*>(x.data());
  in.size = static_cast<uint32_t>(x.size() * sizeof(float));  // the 8x10 size
  in.type = RKNN_TENSOR_FLOAT32;
  in.fmt = RKNN_TENSOR_NCHW;
  EXPECT_EQ(rknn_inputs_set(ctx, 1, &in), RKNN_ERR_INPUT_INVALID) << "the buffer has the old shape's size";
  EXPECT_EQ(run(ctx, uniform(3 * 4 * 4, 4)).size(), 4u * 4 * 4);
}

// The vendor's zero-copy flow for dynamic shapes: memory sized by INPUT_ATTR / OUTPUT_ATTR
// (the largest set), rknn_set_input_shapes, then rknn_set_io_mem with the CURRENT attributes.
TEST_F(RknnDynamicShapes, ZeroCopyMemorySizedForTheLargestSetServesASmallerOne) {
  rknn_context ctx = init(hw_model());
  ASSERT_NE(ctx, 0u);
  const rknn_tensor_attr max_in = query(ctx, RKNN_QUERY_INPUT_ATTR), max_out = query(ctx, RKNN_QUERY_OUTPUT_ATTR);
  rknn_tensor_mem* in_mem = rknn_create_mem(ctx, max_in.size);
  rknn_tensor_mem* out_mem = rknn_create_mem(ctx, max_out.size);
  ASSERT_NE(in_mem, nullptr);
  ASSERT_NE(out_mem, nullptr);
  ASSERT_EQ(set_shape(ctx, {1, 6, 8, 3}), RKNN_SUCC) << last_error();
  const std::vector<float> x = uniform(3 * 6 * 8, 9, -1.0f, 1.0f);  // NCHW
  auto* nhwc = static_cast<float*>(in_mem->virt_addr);
  for (int c = 0; c < 3; ++c) {
    for (int i = 0; i < 6 * 8; ++i) nhwc[i * 3 + c] = x[static_cast<std::size_t>(c * 48 + i)];
  }
  rknn_tensor_attr in_attr = query(ctx, RKNN_QUERY_CURRENT_INPUT_ATTR);
  rknn_tensor_attr out_attr = query(ctx, RKNN_QUERY_CURRENT_OUTPUT_ATTR);
  ASSERT_EQ(rknn_set_io_mem(ctx, in_mem, &in_attr), RKNN_SUCC) << last_error();
  ASSERT_EQ(rknn_set_io_mem(ctx, out_mem, &out_attr), RKNN_SUCC) << last_error();
  ASSERT_EQ(rknn_run(ctx, nullptr), RKNN_SUCC) << last_error();
  const std::vector<float> zero_copy(static_cast<float*>(out_mem->virt_addr),
                                     static_cast<float*>(out_mem->virt_addr) + out_attr.n_elems);
  // The normal path at the same shape gives the same answer.
  const std::vector<float> normal = run(ctx, x);
  ASSERT_EQ(normal.size(), 4u * 6 * 8);
  EXPECT_EQ(zero_copy, normal);
  // Switching the shape unbinds: the memory is bound again with the new set's attributes.
  ASSERT_EQ(set_shape(ctx, {1, 4, 4, 3}), RKNN_SUCC) << last_error();
  EXPECT_EQ(rknn_run(ctx, nullptr), RKNN_ERR_INPUT_INVALID);
  EXPECT_EQ(rknn_destroy_mem(ctx, in_mem), RKNN_SUCC);
  EXPECT_EQ(rknn_destroy_mem(ctx, out_mem), RKNN_SUCC);
}

// Each context selects its own set: a rknn_dup_context copy (the same loaded model) runs
// another gear without changing the original's.
TEST_F(RknnDynamicShapes, ADuplicateContextKeepsItsOwnShapeSet) {
  rknn_context ctx = init(hw_model());
  ASSERT_NE(ctx, 0u);
  rknn_context dup = 0;
  ASSERT_EQ(rknn_dup_context(&ctx, &dup), RKNN_SUCC) << last_error();
  opened_.push_back(dup);
  ASSERT_EQ(set_shape(ctx, {1, 6, 8, 3}), RKNN_SUCC) << last_error();
  ASSERT_EQ(set_shape(dup, {1, 4, 4, 3}), RKNN_SUCC) << last_error();
  EXPECT_EQ(dims(query(ctx, RKNN_QUERY_CURRENT_INPUT_ATTR)), (std::vector<uint32_t>{1, 6, 8, 3}));
  const std::vector<float> x6 = uniform(3 * 6 * 8, 12), x4 = uniform(3 * 4 * 4, 13);
  const std::vector<float> y4 = run(dup, x4);
  const std::vector<float> y6 = run(ctx, x6);
  ASSERT_EQ(y6.size(), 4u * 6 * 8);
  ASSERT_EQ(y4.size(), 4u * 4 * 4);
  // The same answers as a context that ran only that set.
  rknn_context fresh = init(hw_model());
  ASSERT_EQ(set_shape(fresh, {1, 4, 4, 3}), RKNN_SUCC) << last_error();
  EXPECT_EQ(run(fresh, x4), y4);
  EXPECT_EQ(run(ctx, x6), y6);
}

// The outputs of the previous set are not handed out as the new set's (their sizes differ),
// in the pipelined mode too.
TEST_F(RknnDynamicShapes, OutputsOfThePreviousShapeAreNotReturnedAfterASwitch) {
  std::vector<std::uint8_t> image = hw_model();
  rknn_context ctx = 0;
  ASSERT_EQ(rknn_init(&ctx, image.data(), static_cast<uint32_t>(image.size()), RKNN_FLAG_ASYNC_MASK, nullptr),
            RKNN_SUCC)
      << last_error();
  opened_.push_back(ctx);
  EXPECT_EQ(run(ctx, uniform(3 * 8 * 10, 6)).size(), 4u * 8 * 10);
  ASSERT_EQ(set_shape(ctx, {1, 4, 4, 3}), RKNN_SUCC) << last_error();
  rknn_output out;
  std::memset(&out, 0, sizeof out);
  out.want_float = 1;
  EXPECT_EQ(rknn_outputs_get(ctx, 1, &out, nullptr), RKNN_ERR_OUTPUT_INVALID);
  EXPECT_TRUE(contains(last_error(), "no run has finished")) << last_error();
  EXPECT_EQ(run(ctx, uniform(3 * 4 * 4, 7)).size(), 4u * 4 * 4);
}

TEST_F(RknnDynamicShapes, BatchGearsRunTheListedBatchesAsOnnxruntimeAndRefuseOthers) {
  rknn_context ctx = init(batch_model());
  ASSERT_NE(ctx, 0u);
  static rknn_input_range range;
  std::memset(&range, 0, sizeof range);
  ASSERT_EQ(rknn_query(ctx, RKNN_QUERY_INPUT_DYNAMIC_RANGE, &range, sizeof range), RKNN_SUCC) << last_error();
  ASSERT_EQ(range.shape_number, 3u);
  for (uint32_t s = 0; s < 3; ++s) {
    EXPECT_EQ(range.dyn_range[s][0], (std::vector<uint32_t>{1, 2, 4})[s]);
    EXPECT_EQ(range.dyn_range[s][1], 8u);
    EXPECT_EQ(range.dyn_range[s][3], 3u);
  }
  EXPECT_EQ(dims(query(ctx, RKNN_QUERY_INPUT_ATTR)), (std::vector<uint32_t>{4, 8, 8, 3}));
  EXPECT_EQ(dims(query(ctx, RKNN_QUERY_OUTPUT_ATTR)), (std::vector<uint32_t>{4, 4}));
  EXPECT_EQ(set_shape(ctx, {3, 8, 8, 3}), RKNN_ERR_INPUT_INVALID) << "3 is within the maximum but not listed";
  EXPECT_TRUE(contains(last_error(), "[1,8,8,3]; [2,8,8,3]; [4,8,8,3]")) << last_error();
  if (!have_onnxruntime()) GTEST_SKIP() << "needs the npm package onnxruntime-node (scripts/npm_deps.sh)";
  for (uint32_t batch : {2u, 1u, 4u}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    ASSERT_EQ(set_shape(ctx, {batch, 8, 8, 3}), RKNN_SUCC) << last_error();
    EXPECT_EQ(dims(query(ctx, RKNN_QUERY_CURRENT_OUTPUT_ATTR)), (std::vector<uint32_t>{batch, 4}));
    const std::vector<float> x = uniform(batch * 3 * 8 * 8, 20 + batch, -1.0f, 1.0f);
    const std::vector<float> y = run(ctx, x);
    ASSERT_EQ(y.size(), 4u * batch);
    const std::vector<float> want = onnxruntime({batch, 3, 8, 8}, x);
    EXPECT_GE(cosine(y, want), 0.9999);
    // Each item is its own: the last item's answer matches onnxruntime's last row.
    const std::vector<float> last_y(y.end() - 4, y.end()), last_want(want.end() - 4, want.end());
    EXPECT_GE(cosine(last_y, last_want), 0.9999);
  }
}

TEST_F(RknnDynamicShapes, BatchAndResolutionGearsTogetherOfferEveryCombinationAndRunItAsOnnxruntime) {
  rknn_context ctx = init(batch_hw_model());
  ASSERT_NE(ctx, 0u);
  static rknn_input_range range;
  std::memset(&range, 0, sizeof range);
  ASSERT_EQ(rknn_query(ctx, RKNN_QUERY_INPUT_DYNAMIC_RANGE, &range, sizeof range), RKNN_SUCC) << last_error();
  const std::vector<std::vector<uint32_t>> sets = {{1, 8, 10, 3}, {2, 8, 10, 3}, {1, 4, 4, 3}, {2, 4, 4, 3}};
  ASSERT_EQ(range.shape_number, sets.size());
  for (std::size_t s = 0; s < sets.size(); ++s) {
    EXPECT_EQ(std::vector<uint32_t>(range.dyn_range[s], range.dyn_range[s] + 4), sets[s]) << "set " << s;
  }
  // The largest set sizes the buffers and is what INPUT_ATTR / OUTPUT_ATTR report.
  EXPECT_EQ(dims(query(ctx, RKNN_QUERY_INPUT_ATTR)), (std::vector<uint32_t>{2, 8, 10, 3}));
  EXPECT_EQ(dims(query(ctx, RKNN_QUERY_OUTPUT_ATTR)), (std::vector<uint32_t>{2, 4, 8, 10}));
  EXPECT_EQ(set_shape(ctx, {3, 8, 10, 3}), RKNN_ERR_INPUT_INVALID);
  EXPECT_EQ(set_shape(ctx, {2, 6, 8, 3}), RKNN_ERR_INPUT_INVALID);
  EXPECT_TRUE(contains(last_error(), "[1,8,10,3]; [2,8,10,3]; [1,4,4,3]; [2,4,4,3]")) << last_error();
  if (!have_onnxruntime()) GTEST_SKIP() << "needs the npm package onnxruntime-node (scripts/npm_deps.sh)";
  for (std::size_t s : {3u, 0u, 1u, 2u}) {
    const std::vector<uint32_t>& nhwc = sets[s];
    SCOPED_TRACE("set " + std::to_string(s));
    ASSERT_EQ(set_shape(ctx, nhwc), RKNN_SUCC) << last_error();
    EXPECT_EQ(dims(query(ctx, RKNN_QUERY_CURRENT_OUTPUT_ATTR)), (std::vector<uint32_t>{nhwc[0], 4, nhwc[1], nhwc[2]}));
    const std::vector<float> x = uniform(nhwc[0] * 3 * nhwc[1] * nhwc[2], 40 + static_cast<unsigned>(s), -1.0f, 1.0f);
    const std::vector<float> y = run(ctx, x);
    const std::size_t item = 4u * nhwc[1] * nhwc[2];
    ASSERT_EQ(y.size(), item * nhwc[0]);
    const std::vector<float> want = onnxruntime({nhwc[0], 3, nhwc[1], nhwc[2]}, x);
    ASSERT_EQ(want.size(), y.size());
    EXPECT_GE(cosine(y, want), 0.9999);
    // Each item is its own: the last item against onnxruntime's last.
    EXPECT_GE(cosine(std::vector<float>(y.end() - static_cast<std::ptrdiff_t>(item), y.end()),
                     std::vector<float>(want.end() - static_cast<std::ptrdiff_t>(item), want.end())),
              0.9999);
  }
}

TEST_F(RknnDynamicShapes, AStaticModelRefusesShapeSelection) {
  compiler::CompileOptions o;
  o.model = write_model(false, false);
  o.soc_version = target::find_profile("RK3588");
  o.compile_mode = "float";
  rknn_context ctx = init(compile(o));
  ASSERT_NE(ctx, 0u);
  rknn_tensor_attr a = query(ctx, RKNN_QUERY_INPUT_ATTR);
  EXPECT_EQ(rknn_set_input_shapes(ctx, 1, &a), RKNN_ERR_MODEL_INVALID);
  EXPECT_TRUE(contains(last_error(), "static shapes")) << last_error();
}

}  // namespace
}  // namespace svp
