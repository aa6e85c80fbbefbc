// Custom operators (include/rknn/rknn_custom_op.h, docs/rknn.md "Custom operators"): an
// ONNX node of a custom domain compiled into the model and computed at rknn_run by the
// callbacks an application registered (init / prepare / compute / destroy), its
// attributes read with rknn_custom_op_get_op_attr, the skip code running the built-in op,
// and the errors: unregistered op types, NULL and bad arguments, GPU targets.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "npy_io.h"
#include "onnx_builder.h"
#include "rknn/rknn_api.h"
#include "rknn/rknn_custom_op.h"
#include "rknn_fixture.h"
#include "rknn_test_support.h"
#include "runtime/rknn_context.h"
#include "target/device_profile.h"

namespace svp {
namespace {

namespace fs = std::filesystem;
using runtime::rknn::last_error;
using runtime::rknn::last_warning;
using test::contains;

constexpr char kDomain[] = "com.example.custom";
constexpr std::int64_t kElems = 2 * 3 * 4;

// What the callbacks saw, for the tests to check (one model instance per test).
struct Seen {
  int init = 0, prepare = 0, compute = 0, destroy = 0;
  bool priv_ok = true;               // compute saw init's priv_data
  std::vector<std::uint32_t> dims;   // input 0's, at compute
  rknn_tensor_type type = RKNN_TENSOR_TYPE_MAX;
  float alpha = 0;
  std::int64_t axis = -99;
  std::string mode, name;
  std::vector<std::int64_t> ints;
  std::uint32_t missing_elems = 99;
  bool missing_null = false;
  int init_result = 0, compute_result = 0;
  rknn_custom_op_context* ctx = nullptr;  // init's (lives until rknn_destroy)
  std::int64_t destroy_axis = 0;          // "axis" as destroy read it
};
Seen g_seen;
int g_priv = 42;

int on_init(rknn_custom_op_context* ctx, rknn_custom_op_tensor* in, uint32_t n_in, rknn_custom_op_tensor*, uint32_t) {
  ++g_seen.init;
  g_seen.ctx = ctx;
  ctx->priv_data = &g_priv;
  if (n_in != 1 || in[0].attr.n_elems != kElems) g_seen.priv_ok = false;
  return g_seen.init_result;
}
int on_prepare(rknn_custom_op_context*, rknn_custom_op_tensor*, uint32_t, rknn_custom_op_tensor*, uint32_t) {
  ++g_seen.prepare;
  return 0;
}
// y = 1 / (1 + exp(-x)), reading its attributes as the vendor's example does.
int on_compute(rknn_custom_op_context* ctx, rknn_custom_op_tensor* in, uint32_t n_in, rknn_custom_op_tensor* out,
               uint32_t n_out) {
  ++g_seen.compute;
  if (ctx->priv_data != &g_priv || n_in != 1 || n_out != 1) g_seen.priv_ok = false;
  g_seen.dims.assign(in[0].attr.dims, in[0].attr.dims + in[0].attr.n_dims);
  g_seen.type = in[0].attr.type;
  rknn_custom_op_attr a;
  rknn_custom_op_get_op_attr(ctx, "alpha", &a);
  if (a.dtype == RKNN_TENSOR_FLOAT32 && a.n_elems == 1) g_seen.alpha = *static_cast<float*>(a.data);
  rknn_custom_op_get_op_attr(ctx, "axis", &a);
  if (a.dtype == RKNN_TENSOR_INT64 && a.n_elems == 1) g_seen.axis = *static_cast<int64_t*>(a.data);
  rknn_custom_op_get_op_attr(ctx, "mode", &a);
  if (a.dtype == RKNN_TENSOR_UINT8) g_seen.mode = static_cast<char*>(a.data);
  rknn_custom_op_get_op_attr(ctx, "name", &a);
  if (a.dtype == RKNN_TENSOR_UINT8 && a.n_elems > 0) g_seen.name = static_cast<char*>(a.data);
  rknn_custom_op_get_op_attr(ctx, "pads", &a);
  if (a.dtype == RKNN_TENSOR_INT64) g_seen.ints.assign(static_cast<int64_t*>(a.data), static_cast<int64_t*>(a.data) + a.n_elems);
  rknn_custom_op_get_op_attr(ctx, "no_such_attr", &a);
  g_seen.missing_elems = a.n_elems;
  g_seen.missing_null = a.data == nullptr;
  const float* x = reinterpret_cast<const float*>(static_cast<char*>(in[0].mem.virt_addr) + in[0].mem.offset);
  float* y = reinterpret_cast<float*>(static_cast<char*>(out[0].mem.virt_addr) + out[0].mem.offset);
  for (uint32_t i = 0; i < in[0].attr.n_elems; ++i) y[i] = 1.0f / (1.0f + std::exp(-x[i]));
  return g_seen.compute_result;
}
int on_destroy(rknn_custom_op_context* ctx) {
  ++g_seen.destroy;
  if (ctx->priv_data != &g_priv) g_seen.priv_ok = false;
  rknn_custom_op_attr a;
  rknn_custom_op_get_op_attr(ctx, "axis", &a);  // attributes stay readable until destroy returns
  if (a.dtype == RKNN_TENSOR_INT64 && a.n_elems == 1) g_seen.destroy_axis = *static_cast<int64_t*>(a.data);
  return 0;
}

rknn_custom_op cpu_op(const char* type) {
  rknn_custom_op op;
  std::memset(&op, 0, sizeof op);
  std::strncpy(op.op_type, type, RKNN_MAX_NAME_LEN - 1);
  op.version = 1;
  op.target = RKNN_TARGET_TYPE_CPU;
  op.init = on_init;
  op.prepare = on_prepare;
  op.compute = on_compute;
  op.destroy = on_destroy;
  return op;
}

class RknnCustomOp : public test::RknnFixture {
 protected:
  RknnCustomOp() : RknnFixture("rknn_custom") {}

  void SetUp() override {
    g_seen = Seen{};
    RknnFixture::SetUp();
  }

  // x [2, 3, 4] -> Add(x, c) -> `op` (domain `domain`, or ai.onnx when empty) -> Mul(., 2) -> y.
  std::vector<std::uint8_t> image(const std::string& op, const std::string& domain) {
    test::OnnxBuilder b;
    if (!domain.empty()) {
      auto* o = b.model().add_opset_import();
      o->set_domain(domain);
      o->set_version(1);
    }
    b.input("x", {2, 3, 4}).output("y", {2, 3, 4});
    b.initializer("c", {4}, {0.5f, -0.25f, 1.0f, -2.0f});
    b.initializer("two", {1}, {2.0f});
    b.node("Add", {"x", "c"}, {"s"});
    auto& n = b.node(op, {"s"}, {"t"}, "my_custom_node");
    n.set_domain(domain);
    if (!domain.empty()) {
      auto* a = n.add_attribute();
      a->set_name("alpha");
      a->set_type(onnx::AttributeProto::FLOAT);
      a->set_f(0.75f);
      a = n.add_attribute();
      a->set_name("axis");
      a->set_type(onnx::AttributeProto::INT);
      a->set_i(-1);
      a = n.add_attribute();
      a->set_name("mode");
      a->set_type(onnx::AttributeProto::STRING);
      a->set_s("fast");
      test::OnnxBuilder::attr_ints(n, "pads", {1, 2, 3});
    }
    b.node("Mul", {"t", "two"}, {"y"});
    return compile_float(b, "custom.onnx");
  }

  // `b` written to `file` and compiled for RK3588 (float); empty (a failure) if it does not compile.
  std::vector<std::uint8_t> compile_float(const test::OnnxBuilder& b, const std::string& file) {
    const std::string path = b.write((dir_ / file).string());
    compiler::CompileOptions o;
    o.model = path;
    o.soc_version = target::find_profile("RK3588");
    o.compile_mode = "float";
    o.command_line = "svp_atc --framework=5 --model=" + path + " --soc_version=RK3588";
    auto r = compiler::compile(o);
    if (!r.ok()) {
      ADD_FAILURE() << r.status().message();
      return {};
    }
    return r->model.image;
  }

  rknn_context init(std::vector<std::uint8_t> img) { return init_image(std::move(img)); }

  static std::vector<float> input() { return test::uniform(kElems, 5, -3.0f, 3.0f); }

  // 2·sigmoid(x + c): the model's answer computed here.
  static std::vector<float> reference(const std::vector<float>& x) {
    const float c[4] = {0.5f, -0.25f, 1.0f, -2.0f};
    std::vector<float> y(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = 2.0f / (1.0f + std::exp(-(x[i] + c[i % 4])));
    return y;
  }

  // Sets `x`, runs, returns output 0 as float (code of rknn_run in *rc).
  static std::vector<float> run(rknn_context ctx, std::vector<float> x, int* rc = nullptr) {
    if (rc == nullptr) return test::rknn_run_float(ctx, x.data(), x.size() * sizeof(float), RKNN_TENSOR_FLOAT32,
                                                   RKNN_TENSOR_UNDEFINED);
    rknn_input in{};
    in.buf = x.data();
    in.size = static_cast<uint32_t>(x.size() * sizeof(float));
    in.type = RKNN_TENSOR_FLOAT32;
    in.fmt = RKNN_TENSOR_UNDEFINED;
    EXPECT_EQ(rknn_inputs_set(ctx, 1, &in), RKNN_SUCC) << last_error();
    *rc = rknn_run(ctx, nullptr);
    return {};
  }

  static void expect_near(const std::vector<float>& got, const std::vector<float>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6f) << "element " << i;
  }

};

TEST_F(RknnCustomOp, CallbacksComputeTheLayerAsTheBuiltInOpDoes) {
  rknn_context ctx = init(image("cstSigmoid", kDomain));
  rknn_custom_op op = cpu_op("cstSigmoid");
  ASSERT_EQ(rknn_register_custom_ops(ctx, &op, 1), RKNN_SUCC) << last_error();
  EXPECT_EQ(g_seen.init, 1);
  EXPECT_EQ(g_seen.compute, 0);
  const std::vector<float> x = input();
  const std::vector<float> custom = run(ctx, x);
  expect_near(custom, reference(x));
  (void)run(ctx, x);
  EXPECT_EQ(g_seen.prepare, 2);
  EXPECT_EQ(g_seen.compute, 2);
  EXPECT_EQ((std::vector<std::uint32_t>{2, 3, 4}), g_seen.dims);
  EXPECT_EQ(g_seen.type, RKNN_TENSOR_FLOAT32);

  rknn_context builtin = init(image("Sigmoid", ""));
  const std::vector<float> want = run(builtin, x);
  expect_near(custom, want);

  EXPECT_EQ(g_seen.destroy, 0);
  ASSERT_EQ(rknn_destroy(ctx), RKNN_SUCC);
  opened_.erase(opened_.begin());
  EXPECT_EQ(g_seen.destroy, 1);
  EXPECT_EQ(g_seen.destroy_axis, -1);
  EXPECT_TRUE(g_seen.priv_ok);
}

TEST_F(RknnCustomOp, AttributesOfTheNodeAreReadableByName) {
  rknn_context ctx = init(image("cstSigmoid", kDomain));
  rknn_custom_op op = cpu_op("cstSigmoid");
  ASSERT_EQ(rknn_register_custom_ops(ctx, &op, 1), RKNN_SUCC) << last_error();
  (void)run(ctx, input());
  EXPECT_FLOAT_EQ(g_seen.alpha, 0.75f);
  EXPECT_EQ(g_seen.axis, -1);
  EXPECT_EQ(g_seen.mode, "fast");
  EXPECT_EQ(g_seen.ints, (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_TRUE(contains(g_seen.name, "my_custom_node")) << g_seen.name;
  EXPECT_EQ(g_seen.missing_elems, 0u);
  EXPECT_TRUE(g_seen.missing_null);
  // The instance's op_ctx serves outside the callbacks too (warnings are per thread: the
  // callbacks ran on the NPU's).
  ASSERT_NE(g_seen.ctx, nullptr);
  rknn_custom_op_attr a;
  rknn_custom_op_get_op_attr(g_seen.ctx, "no_such_attr", &a);
  EXPECT_EQ(a.n_elems, 0u);
  EXPECT_TRUE(contains(last_warning(), "no attribute \"no_such_attr\" (it has: alpha, axis, mode, pads, name)"))
      << last_warning();
  rknn_custom_op_get_op_attr(g_seen.ctx, "axis", &a);
  ASSERT_EQ(a.n_elems, 1u);
  EXPECT_EQ(*static_cast<int64_t*>(a.data), -1);
  EXPECT_STREQ(a.name, "axis");
}

TEST_F(RknnCustomOp, RunWithoutRegistrationFailsNamingTheOpType) {
  rknn_context ctx = init(image("cstSigmoid", kDomain));
  int rc = 0;
  (void)run(ctx, input(), &rc);
  EXPECT_EQ(rc, RKNN_ERR_FAIL);
  EXPECT_TRUE(contains(last_error(), "cstSigmoid")) << last_error();
  EXPECT_TRUE(contains(last_error(), "rknn_register_custom_ops")) << last_error();
  EXPECT_EQ(g_seen.compute, 0);
}

TEST_F(RknnCustomOp, SkipCodeFromInitRunsTheBuiltInOp) {
  // A node of the custom domain with a type svp-acl knows: init asks for the built-in one.
  rknn_context ctx = init(image("Sigmoid", kDomain));
  rknn_custom_op op = cpu_op("Sigmoid");
  g_seen.init_result = RKNN_WARNING_SKIP_CUSTOM_OP_COMPUTE;
  ASSERT_EQ(rknn_register_custom_ops(ctx, &op, 1), RKNN_SUCC) << last_error();
  const std::vector<float> x = input();
  expect_near(run(ctx, x), reference(x));
  EXPECT_EQ(g_seen.compute, 0);
  EXPECT_EQ(g_seen.prepare, 0);
}

TEST_F(RknnCustomOp, SkipCodeForAnOpTypeWithoutBuiltInFailsRegistration) {
  rknn_context ctx = init(image("cstSigmoid", kDomain));
  rknn_custom_op op = cpu_op("cstSigmoid");
  g_seen.init_result = RKNN_WARNING_SKIP_CUSTOM_OP_COMPUTE;
  EXPECT_EQ(rknn_register_custom_ops(ctx, &op, 1), RKNN_ERR_FAIL);
  EXPECT_TRUE(contains(last_error(), "no implementation of op type cstSigmoid")) << last_error();
  int rc = 0;
  (void)run(ctx, input(), &rc);
  EXPECT_EQ(rc, RKNN_ERR_FAIL);  // not registered
}

TEST_F(RknnCustomOp, FailingCallbacksFailRegistrationOrTheRun) {
  rknn_context ctx = init(image("cstSigmoid", kDomain));
  rknn_custom_op op = cpu_op("cstSigmoid");
  g_seen.init_result = -3;
  EXPECT_EQ(rknn_register_custom_ops(ctx, &op, 1), RKNN_ERR_FAIL);
  EXPECT_TRUE(contains(last_error(), "init callback of cstSigmoid")) << last_error();
  EXPECT_EQ(g_seen.destroy, 0);  // init failed: nothing to destroy
  g_seen.init_result = 0;
  ASSERT_EQ(rknn_register_custom_ops(ctx, &op, 1), RKNN_SUCC) << last_error();
  g_seen.compute_result = -1;
  int rc = 0;
  (void)run(ctx, input(), &rc);
  EXPECT_EQ(rc, RKNN_ERR_FAIL);
  EXPECT_TRUE(contains(last_error(), "compute callback of custom op cstSigmoid")) << last_error();
}

TEST_F(RknnCustomOp, BadArgumentsAreErrorsNeverCrashes) {
  rknn_context ctx = init(image("cstSigmoid", kDomain));
  rknn_custom_op op = cpu_op("cstSigmoid");
  EXPECT_EQ(rknn_register_custom_ops(ctx, nullptr, 1), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_register_custom_ops(ctx, &op, 0), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_register_custom_ops(0, &op, 1), RKNN_ERR_CTX_INVALID);
  EXPECT_EQ(rknn_register_custom_ops(ctx + 12345, &op, 1), RKNN_ERR_CTX_INVALID);
  rknn_custom_op bad = op;
  bad.compute = nullptr;
  EXPECT_EQ(rknn_register_custom_ops(ctx, &bad, 1), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "compute")) << last_error();
  bad = op;
  bad.op_type[0] = '\0';
  EXPECT_EQ(rknn_register_custom_ops(ctx, &bad, 1), RKNN_ERR_PARAM_INVALID);
  std::memset(bad.op_type, 'a', sizeof bad.op_type);  // no NUL
  EXPECT_EQ(rknn_register_custom_ops(ctx, &bad, 1), RKNN_ERR_PARAM_INVALID);
  bad = op;
  bad.target = static_cast<rknn_target_type>(7);
  EXPECT_EQ(rknn_register_custom_ops(ctx, &bad, 1), RKNN_ERR_PARAM_INVALID);
  bad = op;
  bad.target = RKNN_TARGET_TYPE_GPU;
  EXPECT_EQ(rknn_register_custom_ops(ctx, &bad, 1), RKNN_ERR_FAIL);
  EXPECT_TRUE(contains(last_error(), "RKNN_TARGET_TYPE_CPU")) << last_error();
  rknn_custom_op twice[2] = {op, op};
  EXPECT_EQ(rknn_register_custom_ops(ctx, twice, 2), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(g_seen.init, 0);  // every refusal came before any init
  ASSERT_EQ(rknn_register_custom_ops(ctx, &op, 1), RKNN_SUCC) << last_error();
  EXPECT_EQ(rknn_register_custom_ops(ctx, &op, 1), RKNN_ERR_PARAM_INVALID);  // once per type
  EXPECT_TRUE(contains(last_error(), "registered already")) << last_error();

  rknn_custom_op_attr attr;
  std::memset(&attr, 0x5a, sizeof attr);
  rknn_custom_op_get_op_attr(nullptr, "axis", &attr);
  EXPECT_EQ(attr.n_elems, 0u);
  EXPECT_EQ(attr.data, nullptr);
  rknn_custom_op_context made_up{};
  made_up.internal_ctx = 0x1234;
  std::memset(&attr, 0x5a, sizeof attr);
  rknn_custom_op_get_op_attr(&made_up, "axis", &attr);
  EXPECT_EQ(attr.n_elems, 0u);
  EXPECT_TRUE(contains(last_error(), "not the context of a live custom op")) << last_error();
  rknn_custom_op_get_op_attr(&made_up, nullptr, &attr);
  EXPECT_TRUE(contains(last_error(), "attr_name is NULL")) << last_error();
  rknn_custom_op_get_op_attr(&made_up, "axis", nullptr);
  EXPECT_TRUE(contains(last_error(), "op_attr is NULL")) << last_error();
}

TEST_F(RknnCustomOp, CompilingForAnSvpTargetOrInInt8IsRefusedNamingTheNode) {
  (void)image("cstSigmoid", kDomain);  // writes custom.onnx
  compiler::CompileOptions o;
  o.model = (dir_ / "custom.onnx").string();
  o.soc_version = target::find_profile("SS928V100");
  o.compile_mode = "float";
  auto svp = compiler::compile(o);
  ASSERT_FALSE(svp.ok());
  EXPECT_TRUE(contains(svp.status().message(), "my_custom_node")) << svp.status().message();
  EXPECT_TRUE(contains(svp.status().message(), "only an RKNN target")) << svp.status().message();
  o.soc_version = target::find_profile("RK3588");
  o.compile_mode = "0";
  o.image_list = test::write_calibration_list(dir_.string(), {2, 3, 4}, {input()});
  auto int8 = compiler::compile(o);
  ASSERT_FALSE(int8.ok());
  EXPECT_TRUE(contains(int8.status().message(), "compiles in float only")) << int8.status().message();
}

TEST_F(RknnCustomOp, OutputShapeDeclaredInTheModelIsKept) {
  // A custom op whose output the model declares with another shape (a flatten-like op):
  // the declared shape is the layer's.
  test::OnnxBuilder b;
  auto* o = b.model().add_opset_import();
  o->set_domain(kDomain);
  o->set_version(1);
  b.input("x", {2, 3, 4}).output("y", {2, 12});
  auto& n = b.node("cstFlatten", {"x"}, {"y"});
  n.set_domain(kDomain);
  std::vector<std::uint8_t> image = compile_float(b, "flatten.onnx");
  ASSERT_FALSE(image.empty());
  rknn_context ctx = init(image);
  rknn_tensor_attr a{};
  a.index = 0;
  ASSERT_EQ(rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &a, sizeof a), RKNN_SUCC);
  EXPECT_EQ(a.n_dims, 2u);
  EXPECT_EQ(a.dims[1], 12u);
}

}  // namespace
}  // namespace svp
