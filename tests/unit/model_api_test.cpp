// Model loading and description through the C API: load_from_mem / load_with_config /
// set_model_config / unload, the svp_acl_mdl_desc queries against hand-computed values
// (spec §2.2–§2.4), the vendor sample's dataset-building loop, corrupt images, model-id
// errors, the 128-model limit and the two svp_acl_ext model queries.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "compiler/builder.h"
#include "model/format.h"
#include "exec/model_registry.h"
#include "test_support.h"

namespace {

using svp::compiler::BuiltModel;
using svp::model::DType;
using svp::model::Layout;
using svp::compiler::LayerOptions;
using svp::compiler::ModelBuilder;
using svp::model::Target;
using svp::compiler::TensorId;

LayerOptions shaped(std::vector<std::int64_t> shape, Target target = Target::kNpu) {
  LayerOptions o;
  o.output_shapes = {std::move(shape)};
  o.target = target;
  return o;
}

BuiltModel built(const ModelBuilder& b) {
  auto m = b.build();
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(*m) : BuiltModel{};
}

// x f32 [1,3,8,8] → Conv(3x3, pad 1, 4 filters) → Relu → y f32 [1,4,8,8]; 2 layers.
BuiltModel conv_net() {
  ModelBuilder b("convnet");
  const TensorId x = b.add_input("x", DType::kFloat32, {1, 3, 8, 8});
  const TensorId w = b.add_constant("w", {4, 3, 3, 3}, std::vector<float>(4 * 3 * 3 * 3, 0.5f));
  LayerOptions conv = shaped({1, 4, 8, 8});
  conv.attrs.set("pads", std::vector<std::int64_t>{1, 1, 1, 1});
  conv.attrs.set("kernel_shape", std::vector<std::int64_t>{3, 3});
  const TensorId c = b.add_layer("conv", "Conv", {x, w}, conv);
  b.add_output(b.add_layer("relu", "Relu", {c}, shaped({1, 4, 8, 8})), "y");
  return built(b);
}

// Three inputs, three outputs, rows that need padding, int8/uint8 tensors and two AI-CPU
// layers; 4 layers, one 64-byte intermediate.
BuiltModel multi_io() {
  ModelBuilder b("multi");
  const TensorId a = b.add_input("a", DType::kFloat32, {1, 3, 5, 7});
  const TensorId in_b = b.add_input("b", DType::kInt8, {2, 10}, Layout::kND);
  const TensorId c = b.add_input("c", DType::kUint8, {4, 16}, Layout::kND);
  b.add_output(b.add_layer("ra", "Relu", {a}, shaped({1, 3, 5, 7})), "out_a");
  const TensorId rb = b.add_layer("rb", "Relu", {in_b}, shaped({2, 10}));
  b.add_output(rb, "out_b");
  const TensorId c1 = b.add_layer("cpu1", "Relu", {c}, shaped({4, 16}, Target::kAiCpu));
  b.add_output(b.add_layer("cpu2", "Relu", {c1}, shaped({4, 16}, Target::kAiCpu)), "out_c");
  b.set_inout_reuse(a, 2);
  b.set_inout_reuse(rb, 1);
  b.set_buffer_reuse(4);
  return built(b);
}

// uint8 [1,3,16,20] image → Relu; internal stride 64, dynamic batch 8, two gears.
BuiltModel dynamic_net() {
  ModelBuilder b("dynamic");
  const TensorId img = b.add_input("img", DType::kUint8, {1, 3, 16, 20});
  b.add_output(b.add_layer("act", "Relu", {img}, shaped({1, 3, 16, 20})), "feat");
  b.set_internal_stride(64);
  b.set_dynamic_batch({8});
  b.set_dynamic_hw({{16, 20}, {8, 10}});
  return built(b);
}

// Checks that a sentinel-returning call left a recent error naming it and its code.
void expect_recent_error(const char* fn, int code) {
  const std::string msg = svp_acl_get_recent_err_msg();
  EXPECT_NE(msg.find(fn), std::string::npos) << msg;
  EXPECT_NE(msg.find(std::to_string(code)), std::string::npos) << msg;
}

struct DescDeleter {
  void operator()(svp_acl_mdl_desc* d) const { EXPECT_EQ(svp_acl_mdl_destroy_desc(d), SVP_ACL_SUCCESS); }
};
using DescPtr = std::unique_ptr<svp_acl_mdl_desc, DescDeleter>;

class ModelApiTest : public svp::test::RuntimeTest {
 protected:
  uint32_t load(const std::vector<uint8_t>& image) {
    uint32_t id = 0xFFFFFFFFu;
    EXPECT_EQ(svp_acl_mdl_load_from_mem(image.data(), image.size(), &id), SVP_ACL_SUCCESS)
        << svp_acl_get_recent_err_msg();
    return id;
  }
  DescPtr desc_of(uint32_t id) {
    DescPtr d(svp_acl_mdl_create_desc());
    EXPECT_NE(d, nullptr);
    EXPECT_EQ(svp_acl_mdl_get_desc(d.get(), id), SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
    return d;
  }
  svp::model::Scheduling scheduling(uint32_t id) {
    auto s = runtime().models().scheduling(id);
    EXPECT_TRUE(s.ok()) << s.status().message();
    return s.ok() ? *s : svp::model::Scheduling{};
  }
};

struct Io {
  std::string name;
  std::vector<int64_t> dims;
  svp_acl_data_type dtype;
  svp_acl_format format;
  size_t stride;
  size_t size;
  svp_acl_inout_reuse_type reuse;
};

void expect_input(const svp_acl_mdl_desc* d, size_t i, const Io& want) {
  SCOPED_TRACE("input " + std::to_string(i) + " " + want.name);
  EXPECT_STREQ(svp_acl_mdl_get_input_name_by_index(d, i), want.name.c_str());
  EXPECT_EQ(svp_acl_mdl_get_input_size_by_index(d, i), want.size);
  EXPECT_EQ(svp_acl_mdl_get_input_default_stride(d, i), want.stride);
  EXPECT_EQ(svp_acl_mdl_get_input_data_type(d, i), want.dtype);
  EXPECT_EQ(svp_acl_mdl_get_input_format(d, i), want.format);
  EXPECT_EQ(svp_acl_mdl_get_input_reuse_type(d, i), want.reuse);
  svp_acl_mdl_io_dims dims;
  std::memset(&dims, 0x5A, sizeof dims);
  ASSERT_ACL_OK(svp_acl_mdl_get_input_dims(d, i, &dims));
  EXPECT_STREQ(dims.name, want.name.c_str());
  ASSERT_EQ(dims.dim_count, want.dims.size());
  EXPECT_EQ(std::vector<int64_t>(dims.dims, dims.dims + dims.dim_count), want.dims);
  size_t class_id = 99;
  EXPECT_ACL_OK(svp_acl_mdl_get_input_class_id_by_index(d, i, &class_id));
  EXPECT_EQ(class_id, 0u);
  size_t index = 99;
  EXPECT_ACL_OK(svp_acl_mdl_get_input_index_by_name(d, want.name.c_str(), &index));
  EXPECT_EQ(index, i);
}

void expect_output(const svp_acl_mdl_desc* d, size_t i, const Io& want) {
  SCOPED_TRACE("output " + std::to_string(i) + " " + want.name);
  EXPECT_STREQ(svp_acl_mdl_get_output_name_by_index(d, i), want.name.c_str());
  EXPECT_EQ(svp_acl_mdl_get_output_size_by_index(d, i), want.size);
  EXPECT_EQ(svp_acl_mdl_get_output_default_stride(d, i), want.stride);
  EXPECT_EQ(svp_acl_mdl_get_output_data_type(d, i), want.dtype);
  EXPECT_EQ(svp_acl_mdl_get_output_format(d, i), want.format);
  EXPECT_EQ(svp_acl_mdl_get_output_reuse_type(d, i), want.reuse);
  svp_acl_mdl_io_dims dims;
  std::memset(&dims, 0x5A, sizeof dims);
  ASSERT_ACL_OK(svp_acl_mdl_get_output_dims(d, i, &dims));
  EXPECT_STREQ(dims.name, want.name.c_str());
  ASSERT_EQ(dims.dim_count, want.dims.size());
  EXPECT_EQ(std::vector<int64_t>(dims.dims, dims.dims + dims.dim_count), want.dims);
  size_t class_id = 99;
  EXPECT_ACL_OK(svp_acl_mdl_get_output_class_id_by_index(d, i, &class_id));
  EXPECT_EQ(class_id, 0u);
  size_t index = 99;
  EXPECT_ACL_OK(svp_acl_mdl_get_output_index_by_name(d, want.name.c_str(), &index));
  EXPECT_EQ(index, i);
}

Io ext(const char* name, size_t bytes) {
  return {name, {static_cast<int64_t>(bytes)}, SVP_ACL_UINT8, SVP_ACL_FORMAT_ND, bytes, bytes, SVP_ACL_INOUT_REUSE_NONE};
}

TEST_F(ModelApiTest, ConvNetDescriptionMatchesHandComputedValues) {
  const BuiltModel m = conv_net();
  ASSERT_FALSE(m.image.empty());
  const uint32_t id = load(m.image);
  DescPtr d = desc_of(id);
  ASSERT_EQ(svp_acl_mdl_get_num_inputs(d.get()), 3u);
  ASSERT_EQ(svp_acl_mdl_get_num_outputs(d.get()), 1u);
  // x: rows of 8 floats = 32 bytes (already a multiple of 16); 1·3·8 rows.
  expect_input(d.get(), 0, {"x", {1, 3, 8, 8}, SVP_ACL_FLOAT, SVP_ACL_FORMAT_NCHW, 32, 768, SVP_ACL_INOUT_REUSE_NONE});
  // task_buf: 4096 + 256 per layer; work_buf: the 1024-byte conv result.
  expect_input(d.get(), 1, ext("task_buf", 4096 + 2 * 256));
  EXPECT_EQ(m.program.flags.work_buf_size, 1024u);
  expect_input(d.get(), 2, ext("work_buf", 1024));
  expect_output(d.get(), 0, {"y", {1, 4, 8, 8}, SVP_ACL_FLOAT, SVP_ACL_FORMAT_NCHW, 32, 1024, SVP_ACL_INOUT_REUSE_NONE});
  EXPECT_EQ(svp_acl_mdl_get_reuse_buffer_type(d.get()), SVP_ACL_BUFFER_REUSE_NONE);

  size_t index = 0;
  EXPECT_ACL_OK(svp_acl_mdl_get_input_index_by_name(d.get(), SVP_ACL_DYNAMIC_TENSOR_NAME, &index));
  EXPECT_EQ(index, 3u);  // M: past the dataset
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_get_input_index_by_name(d.get(), "nope", &index));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_get_output_index_by_name(d.get(), "x", &index));

  svp_acl_mdl_batch batch;
  std::memset(&batch, 0x5A, sizeof batch);
  EXPECT_ACL_OK(svp_acl_mdl_get_dynamic_batch(d.get(), &batch));
  EXPECT_EQ(batch.batch_count, 0u);
  svp_acl_mdl_hw hw;
  std::memset(&hw, 0x5A, sizeof hw);
  EXPECT_ACL_OK(svp_acl_mdl_get_dynamic_hw(d.get(), 0, &hw));
  EXPECT_EQ(hw.hw_count, 0u);

  uint32_t n = 99;
  EXPECT_ACL_OK(svp_acl_ext_get_mdl_aicpu_task_num(id, &n));
  EXPECT_EQ(n, 0u);
  uint32_t type = 0;
  EXPECT_ACL_OK(svp_acl_ext_get_mdl_net_type(id, &type));
  EXPECT_EQ(type, static_cast<uint32_t>(SVP_ACL_NET_TYPE_CNN));
  EXPECT_ACL_OK(svp_acl_mdl_unload(id));
}

TEST_F(ModelApiTest, MultiIoModelPadsRowsToTheDefaultStride) {
  const BuiltModel m = multi_io();
  ASSERT_FALSE(m.image.empty());
  const uint32_t id = load(m.image);
  DescPtr d = desc_of(id);
  ASSERT_EQ(svp_acl_mdl_get_num_inputs(d.get()), 5u);
  ASSERT_EQ(svp_acl_mdl_get_num_outputs(d.get()), 3u);
  // a: 7 floats = 28 bytes → stride 32; 1·3·5 rows → 480.
  expect_input(d.get(), 0, {"a", {1, 3, 5, 7}, SVP_ACL_FLOAT, SVP_ACL_FORMAT_NCHW, 32, 480, SVP_ACL_INOUT_REUSE_CONT});
  // b: 10 int8 → stride 16; 2 rows → 32.
  expect_input(d.get(), 1, {"b", {2, 10}, SVP_ACL_INT8, SVP_ACL_FORMAT_ND, 16, 32, SVP_ACL_INOUT_REUSE_NONE});
  // c: 16 uint8 → stride 16; 4 rows → 64.
  expect_input(d.get(), 2, {"c", {4, 16}, SVP_ACL_UINT8, SVP_ACL_FORMAT_ND, 16, 64, SVP_ACL_INOUT_REUSE_NONE});
  expect_input(d.get(), 3, ext("task_buf", 4096 + 4 * 256));
  expect_input(d.get(), 4, ext("work_buf", 64));
  expect_output(d.get(), 0, {"out_a", {1, 3, 5, 7}, SVP_ACL_FLOAT, SVP_ACL_FORMAT_NCHW, 32, 480, SVP_ACL_INOUT_REUSE_NONE});
  expect_output(d.get(), 1, {"out_b", {2, 10}, SVP_ACL_INT8, SVP_ACL_FORMAT_ND, 16, 32, SVP_ACL_INOUT_REUSE_DISCONT});
  expect_output(d.get(), 2, {"out_c", {4, 16}, SVP_ACL_UINT8, SVP_ACL_FORMAT_ND, 16, 64, SVP_ACL_INOUT_REUSE_NONE});
  EXPECT_EQ(svp_acl_mdl_get_reuse_buffer_type(d.get()), SVP_ACL_BUFFER_REUSE_IN_OUT_CONT);
  size_t index = 0;
  EXPECT_ACL_OK(svp_acl_mdl_get_input_index_by_name(d.get(), SVP_ACL_DYNAMIC_TENSOR_NAME, &index));
  EXPECT_EQ(index, 5u);

  uint32_t n = 0;
  EXPECT_ACL_OK(svp_acl_ext_get_mdl_aicpu_task_num(id, &n));
  EXPECT_EQ(n, 2u);  // AI-CPU layers
  EXPECT_ACL_OK(svp_acl_mdl_unload(id));
}

TEST_F(ModelApiTest, DynamicBatchAndResolutionGearsAreReported) {
  const BuiltModel m = dynamic_net();
  ASSERT_FALSE(m.image.empty());
  const uint32_t id = load(m.image);
  DescPtr d = desc_of(id);
  // Internal stride 64: 20-byte rows → 64; task_buf 4352 and work_buf 64 are multiples of 64.
  expect_input(d.get(), 0, {"img", {1, 3, 16, 20}, SVP_ACL_UINT8, SVP_ACL_FORMAT_NCHW, 64, 3 * 16 * 64,
                            SVP_ACL_INOUT_REUSE_NONE});
  expect_input(d.get(), 1, ext("task_buf", 4096 + 256));
  expect_input(d.get(), 2, ext("work_buf", 64));
  expect_output(d.get(), 0, {"feat", {1, 3, 16, 20}, SVP_ACL_UINT8, SVP_ACL_FORMAT_NCHW, 64, 3 * 16 * 64,
                             SVP_ACL_INOUT_REUSE_NONE});
  svp_acl_mdl_batch batch;
  EXPECT_ACL_OK(svp_acl_mdl_get_dynamic_batch(d.get(), &batch));
  ASSERT_EQ(batch.batch_count, 1u);
  EXPECT_EQ(batch.batch[0], 8u);
  svp_acl_mdl_hw hw;
  EXPECT_ACL_OK(svp_acl_mdl_get_dynamic_hw(d.get(), 0, &hw));
  ASSERT_EQ(hw.hw_count, 2u);
  EXPECT_EQ(hw.hw[0][0], 16u);
  EXPECT_EQ(hw.hw[0][1], 20u);
  EXPECT_EQ(hw.hw[1][0], 8u);
  EXPECT_EQ(hw.hw[1][1], 10u);
  EXPECT_ACL_OK(svp_acl_mdl_unload(id));
}

// The vendor sample (sample_common_svp_npu_model.c, spec §2.2 steps 1–5), as written there.
TEST_F(ModelApiTest, VendorSampleDatasetLoopBuildsEveryBuffer) {
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  for (const BuiltModel& m : {conv_net(), multi_io(), dynamic_net()}) {
    SCOPED_TRACE(m.program.name);
    const uint32_t id = load(m.image);
    DescPtr d = desc_of(id);
    svp_acl_mdl_batch batch;
    ASSERT_ACL_OK(svp_acl_mdl_get_dynamic_batch(d.get(), &batch));
    const size_t max_batch = batch.batch_count > 0 ? batch.batch[0] : 1;
    size_t dyn_index = 0;
    ASSERT_ACL_OK(svp_acl_mdl_get_input_index_by_name(d.get(), SVP_ACL_DYNAMIC_TENSOR_NAME, &dyn_index));

    std::vector<void*> memory;
    std::vector<svp_acl_data_buffer*> buffers;
    auto add = [&](svp_acl_mdl_dataset* ds, size_t size, size_t stride) {
      ASSERT_GT(size, 0u);
      ASSERT_GT(stride, 0u);
      EXPECT_EQ(stride % 16, 0u);
      EXPECT_EQ(size % stride, 0u);
      void* p = nullptr;
      ASSERT_ACL_OK(svp_acl_rt_malloc(&p, size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
      std::memset(p, 0, size);
      memory.push_back(p);
      svp_acl_data_buffer* buf = svp_acl_create_data_buffer(p, size, stride);
      ASSERT_NE(buf, nullptr);
      buffers.push_back(buf);
      ASSERT_ACL_OK(svp_acl_mdl_add_dataset_buffer(ds, buf));
    };

    svp_acl_mdl_dataset* input = svp_acl_mdl_create_dataset();
    const size_t num_inputs = svp_acl_mdl_get_num_inputs(d.get());
    ASSERT_GE(num_inputs, 3u);
    EXPECT_EQ(dyn_index, num_inputs);
    for (size_t i = 0; i < num_inputs - 2; ++i) {
      add(input, svp_acl_mdl_get_input_size_by_index(d.get(), i) * max_batch,
          svp_acl_mdl_get_input_default_stride(d.get(), i));
    }
    if (svp_acl_mdl_get_dataset_num_buffers(input) == num_inputs - 2) {
      add(input, svp_acl_mdl_get_input_size_by_index(d.get(), num_inputs - 2),
          svp_acl_mdl_get_input_default_stride(d.get(), num_inputs - 2));
    }
    if (svp_acl_mdl_get_dataset_num_buffers(input) == num_inputs - 1) {
      add(input, svp_acl_mdl_get_input_size_by_index(d.get(), num_inputs - 1),
          svp_acl_mdl_get_input_default_stride(d.get(), num_inputs - 1));
    }
    EXPECT_EQ(svp_acl_mdl_get_dataset_num_buffers(input), num_inputs);
    svp_acl_mdl_dataset* output = svp_acl_mdl_create_dataset();
    const size_t num_outputs = svp_acl_mdl_get_num_outputs(d.get());
    for (size_t i = 0; i < num_outputs; ++i) {
      add(output, svp_acl_mdl_get_output_size_by_index(d.get(), i) * max_batch,
          svp_acl_mdl_get_output_default_stride(d.get(), i));
    }
    EXPECT_EQ(svp_acl_mdl_get_dataset_num_buffers(output), num_outputs);
    // task_buf / work_buf are never scaled by the batch.
    EXPECT_EQ(svp_acl_get_data_buffer_size(svp_acl_mdl_get_dataset_buffer(input, num_inputs - 2)),
              m.program.flags.task_buf_size);

    for (void* p : memory) EXPECT_ACL_OK(svp_acl_rt_free(p));
    for (svp_acl_data_buffer* b : buffers) EXPECT_ACL_OK(svp_acl_destroy_data_buffer(b));
    EXPECT_ACL_OK(svp_acl_mdl_destroy_dataset(input));
    EXPECT_ACL_OK(svp_acl_mdl_destroy_dataset(output));
    EXPECT_ACL_OK(svp_acl_mdl_unload(id));
  }
  EXPECT_ACL_OK(svp_acl_rt_reset_device(0));
}

TEST_F(ModelApiTest, LoadFromMemUsesDefaultSchedulingAndIdsAreSmallestFree) {
  const BuiltModel m = conv_net();
  EXPECT_EQ(load(m.image), 0u);
  EXPECT_EQ(load(m.image), 1u);
  EXPECT_EQ(load(m.image), 2u);
  const svp::model::Scheduling s = scheduling(1);
  EXPECT_EQ(s.priority, 3);
  EXPECT_TRUE(s.preempt_enable);
  EXPECT_EQ(s.step_timeout_ms, 0u);
  EXPECT_EQ(s.top_timeout_ms, 0u);
  EXPECT_ACL_OK(svp_acl_mdl_unload(1));
  EXPECT_EQ(load(m.image), 1u);
  EXPECT_EQ(runtime().models().size(), 3u);
  for (uint32_t id : {0u, 1u, 2u}) EXPECT_ACL_OK(svp_acl_mdl_unload(id));
}

TEST_F(ModelApiTest, LoadWithConfigAppliesSchedulingAndSetModelConfigChangesIt) {
  const BuiltModel m = conv_net();
  svp_acl_mdl_config_handle* h = svp_acl_mdl_create_config_handle();
  ASSERT_NE(h, nullptr);
  uint32_t id = 0;
  // Nothing set yet: not loadable.
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_load_with_config(h, &id));
  const size_t type = SVP_ACL_MDL_LOAD_FROM_MEM;
  const void* addr = m.image.data();
  const size_t size = m.image.size();
  const int32_t priority = 5;
  const uint32_t step = 1200;
  ASSERT_ACL_OK(svp_acl_mdl_set_config_opt(h, SVP_ACL_MDL_LOAD_TYPE_SIZET, &type, sizeof type));
  ASSERT_ACL_OK(svp_acl_mdl_set_config_opt(h, SVP_ACL_MDL_MEM_ADDR_PTR, &addr, sizeof addr));
  ASSERT_ACL_OK(svp_acl_mdl_set_config_opt(h, SVP_ACL_MDL_MEM_SIZET, &size, sizeof size));
  ASSERT_ACL_OK(svp_acl_mdl_set_config_opt(h, SVP_ACL_MDL_PRIORITY_INT32, &priority, sizeof priority));
  ASSERT_ACL_OK(svp_acl_mdl_set_config_opt(h, SVP_ACL_MDL_PRIORITY_UP_STEP_TIMEOUT_UINT32, &step, sizeof step));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_load_with_config(h, nullptr));
  ASSERT_ACL_OK(svp_acl_mdl_load_with_config(h, &id));
  ASSERT_ACL_OK(svp_acl_mdl_destroy_config_handle(h));  // allowed right after the load
  svp::model::Scheduling s = scheduling(id);
  EXPECT_EQ(s.priority, 5);
  EXPECT_TRUE(s.preempt_enable);
  EXPECT_EQ(s.step_timeout_ms, 1200u);
  DescPtr d = desc_of(id);
  EXPECT_EQ(svp_acl_mdl_get_num_inputs(d.get()), 3u);

  // set_model_config: only the attributes set on the handle change.
  svp_acl_mdl_config_handle* h2 = svp_acl_mdl_create_config_handle();
  const int32_t urgent = 1;
  const int32_t no_preempt = 0;  // a 4-byte hi_bool, as the vendor sample passes it
  ASSERT_ACL_OK(svp_acl_mdl_set_config_opt(h2, SVP_ACL_MDL_PRIORITY_INT32, &urgent, sizeof urgent));
  ASSERT_ACL_OK(svp_acl_mdl_set_config_opt(h2, SVP_ACL_MDL_PRIORITY_PREEMP_EN_BOOL, &no_preempt, sizeof no_preempt));
  EXPECT_ACL_OK(svp_acl_mdl_set_model_config(id, h2));
  s = scheduling(id);
  EXPECT_EQ(s.priority, 1);
  EXPECT_FALSE(s.preempt_enable);
  EXPECT_EQ(s.step_timeout_ms, 1200u);
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_MODEL_ID, svp_acl_mdl_set_model_config(id + 1, h2));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_set_model_config(id, nullptr));
  EXPECT_ACL_OK(svp_acl_mdl_destroy_config_handle(h2));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_set_model_config(id, h2));  // destroyed
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_load_with_config(nullptr, &id));
  EXPECT_ACL_OK(svp_acl_mdl_unload(id));
}

TEST_F(ModelApiTest, CorruptImagesAreRejectedWithTheirCodesAndNeverCrash) {
  const BuiltModel m = conv_net();
  const std::vector<uint8_t>& good = m.image;
  ASSERT_GT(good.size(), 64u);
  uint32_t id = 77;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_load_from_mem(nullptr, good.size(), &id));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_load_from_mem(good.data(), good.size(), nullptr));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_MODEL_SIZE_INVALID, svp_acl_mdl_load_from_mem(good.data(), 0, &id));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_MODEL_SIZE_INVALID, svp_acl_mdl_load_from_mem(good.data(), 8, &id));
  // Truncated: the last section runs past the end.
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_DESERIALIZE_MODEL, svp_acl_mdl_load_from_mem(good.data(), good.size() - 1, &id));
  // Another magic (e.g. a vendor .om).
  std::vector<uint8_t> other = good;
  std::memcpy(other.data(), "IMOD\0\0\0\0", 8);
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_DESERIALIZE_MODEL, svp_acl_mdl_load_from_mem(other.data(), other.size(), &id));
  // A flipped bit in the METADATA section fails its CRC.
  std::vector<uint8_t> flipped = good;
  uint32_t first_type = 0;
  std::memcpy(&first_type, good.data() + svp::model::kHeaderSize, sizeof first_type);
  ASSERT_EQ(first_type, static_cast<uint32_t>(svp::model::kSectionMetadata));
  uint64_t meta_offset = 0;
  std::memcpy(&meta_offset, good.data() + svp::model::kHeaderSize + 8, sizeof meta_offset);
  ASSERT_LT(meta_offset + 10, good.size());
  flipped[meta_offset + 10] ^= 0x04;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_DESERIALIZE_MODEL, svp_acl_mdl_load_from_mem(flipped.data(), flipped.size(), &id));
  // A well-formed container whose program is invalid.
  svp::model::Program bad = m.program;
  bad.flags.task_buf_size = 0;
  const std::vector<uint8_t> invalid = svp::model::write_model(bad, m.weights.data(), m.weights.size());
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_PARSE_MODEL, svp_acl_mdl_load_from_mem(invalid.data(), invalid.size(), &id));
  EXPECT_EQ(id, 77u);  // untouched on failure

  // Single-bit flips across the image: rejected with a model error, or (a harmless bit) loaded.
  for (size_t pos = 0; pos < good.size(); pos += 7) {
    std::vector<uint8_t> img = good;
    img[pos] ^= static_cast<uint8_t>(1u << (pos % 8));
    const svp_acl_error rc = svp_acl_mdl_load_from_mem(img.data(), img.size(), &id);
    if (rc == SVP_ACL_SUCCESS) {
      EXPECT_ACL_OK(svp_acl_mdl_unload(id));
      continue;
    }
    EXPECT_TRUE(rc == SVP_ACL_ERROR_DESERIALIZE_MODEL || rc == SVP_ACL_ERROR_PARSE_MODEL ||
                rc == SVP_ACL_ERROR_MODEL_MISSING_ATTR || rc == SVP_ACL_ERROR_MODEL_SIZE_INVALID)
        << "byte " << pos << ": " << rc << " " << svp_acl_get_recent_err_msg();
  }
  EXPECT_EQ(runtime().models().size(), 0u);
}

TEST_F(ModelApiTest, UnknownModelIdsAreRejected) {
  DescPtr d(svp_acl_mdl_create_desc());
  uint32_t n = 0;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_MODEL_ID, svp_acl_mdl_get_desc(d.get(), 42));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_MODEL_ID, svp_acl_mdl_unload(42));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_MODEL_ID, svp_acl_ext_get_mdl_aicpu_task_num(42, &n));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_MODEL_ID, svp_acl_ext_get_mdl_net_type(42, &n));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_ext_get_mdl_net_type(42, nullptr));
  const BuiltModel m = conv_net();
  const uint32_t id = load(m.image);
  EXPECT_ACL_OK(svp_acl_mdl_unload(id));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_MODEL_ID, svp_acl_mdl_unload(id));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_MODEL_ID, svp_acl_mdl_get_desc(d.get(), id));
}

TEST_F(ModelApiTest, AtMost128ModelsAreLoadedAtOnce) {
  const BuiltModel m = conv_net();
  for (uint32_t i = 0; i < 128; ++i) ASSERT_EQ(load(m.image), i);
  uint32_t id = 0;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_STORAGE_OVER_LIMIT, svp_acl_mdl_load_from_mem(m.image.data(), m.image.size(), &id));
  EXPECT_ACL_OK(svp_acl_mdl_unload(5));
  EXPECT_EQ(load(m.image), 5u);
  for (uint32_t i = 0; i < 128; ++i) EXPECT_ACL_OK(svp_acl_mdl_unload(i));
  EXPECT_EQ(runtime().models().size(), 0u);
}

TEST_F(ModelApiTest, ConcurrentLoadsGetDistinctIds) {
  const BuiltModel m = multi_io();
  constexpr int kThreads = 4;
  constexpr int kRounds = 25;
  std::vector<std::vector<uint32_t>> ids(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        uint32_t id = 0;
        if (svp_acl_mdl_load_from_mem(m.image.data(), m.image.size(), &id) != SVP_ACL_SUCCESS) continue;
        svp_acl_mdl_desc* d = svp_acl_mdl_create_desc();
        if (svp_acl_mdl_get_desc(d, id) == SVP_ACL_SUCCESS && svp_acl_mdl_get_num_inputs(d) == 5) ids[t].push_back(id);
        (void)svp_acl_mdl_destroy_desc(d);
        if (r % 2 == 0) (void)svp_acl_mdl_unload(id);
      }
    });
  }
  for (auto& th : threads) th.join();
  std::vector<uint32_t> kept;
  size_t total = 0;
  for (int t = 0; t < kThreads; ++t) {
    total += ids[t].size();
    for (size_t i = 1; i < ids[t].size(); i += 2) kept.push_back(ids[t][i]);  // odd rounds stay loaded
  }
  EXPECT_EQ(total, static_cast<size_t>(kThreads * kRounds));
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(std::adjacent_find(kept.begin(), kept.end()), kept.end()) << "an id was handed out twice";
  EXPECT_EQ(runtime().models().size(), kept.size());
  for (uint32_t id : kept) EXPECT_ACL_OK(svp_acl_mdl_unload(id));
}

TEST_F(ModelApiTest, DescriptionOutlivesUnloadAndFinalize) {
  const BuiltModel m = conv_net();
  const uint32_t id = load(m.image);
  DescPtr d = desc_of(id);
  const char* name = svp_acl_mdl_get_input_name_by_index(d.get(), 0);
  EXPECT_ACL_OK(svp_acl_mdl_unload(id));
  EXPECT_EQ(svp_acl_mdl_get_num_inputs(d.get()), 3u);
  EXPECT_STREQ(svp_acl_mdl_get_input_name_by_index(d.get(), 0), name);
  EXPECT_STREQ(name, "x");
  const uint32_t id2 = load(m.image);
  finalize_now();  // unloads id2 too
  EXPECT_EQ(svp_acl_mdl_get_output_size_by_index(d.get(), 0), 1024u);
  init("");
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_MODEL_ID, svp_acl_mdl_unload(id2));
}

TEST_F(ModelApiTest, LoadingNeedsAnInitialisedLibrary) {
  const BuiltModel m = conv_net();
  finalize_now();
  uint32_t id = 0;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_UNINITIALIZE, svp_acl_mdl_load_from_mem(m.image.data(), m.image.size(), &id));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_UNINITIALIZE, svp_acl_mdl_unload(0));
  init("");
}

TEST_F(ModelApiTest, BadDescriptionArgumentsReturnSentinelsWithARecentError) {
  const BuiltModel m = conv_net();
  const uint32_t id = load(m.image);
  DescPtr d = desc_of(id);
  const svp_acl_mdl_desc* good = d.get();
  svp_acl_mdl_desc* empty = svp_acl_mdl_create_desc();  // never filled
  constexpr int kInvalid = SVP_ACL_ERROR_INVALID_PARAM;

  for (const svp_acl_mdl_desc* bad : {static_cast<const svp_acl_mdl_desc*>(nullptr),
                                      static_cast<const svp_acl_mdl_desc*>(empty)}) {
    EXPECT_EQ(svp_acl_mdl_get_num_inputs(bad), 0u);
    expect_recent_error("svp_acl_mdl_get_num_inputs", kInvalid);
    EXPECT_EQ(svp_acl_mdl_get_num_outputs(bad), 0u);
    expect_recent_error("svp_acl_mdl_get_num_outputs", kInvalid);
    EXPECT_EQ(svp_acl_mdl_get_reuse_buffer_type(bad), SVP_ACL_BUFFER_REUSE_UNDEFINED);
    expect_recent_error("svp_acl_mdl_get_reuse_buffer_type", kInvalid);
    svp_acl_mdl_batch batch;
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_get_dynamic_batch(bad, &batch));
  }
  // Out-of-range indices (inputs: 3 = M is the dynamic-tensor index, not a tensor).
  EXPECT_EQ(svp_acl_mdl_get_input_size_by_index(good, 3), 0u);
  expect_recent_error("svp_acl_mdl_get_input_size_by_index", kInvalid);
  EXPECT_EQ(svp_acl_mdl_get_output_size_by_index(good, 1), 0u);
  expect_recent_error("svp_acl_mdl_get_output_size_by_index", kInvalid);
  EXPECT_EQ(svp_acl_mdl_get_input_default_stride(good, 3), 0u);
  expect_recent_error("svp_acl_mdl_get_input_default_stride", kInvalid);
  EXPECT_EQ(svp_acl_mdl_get_output_default_stride(good, 1), 0u);
  expect_recent_error("svp_acl_mdl_get_output_default_stride", kInvalid);
  EXPECT_EQ(svp_acl_mdl_get_input_name_by_index(good, 3), nullptr);
  expect_recent_error("svp_acl_mdl_get_input_name_by_index", kInvalid);
  EXPECT_EQ(svp_acl_mdl_get_output_name_by_index(good, 1), nullptr);
  expect_recent_error("svp_acl_mdl_get_output_name_by_index", kInvalid);
  EXPECT_EQ(svp_acl_mdl_get_input_format(good, 3), SVP_ACL_FORMAT_UNDEFINED);
  expect_recent_error("svp_acl_mdl_get_input_format", kInvalid);
  EXPECT_EQ(svp_acl_mdl_get_output_format(good, 1), SVP_ACL_FORMAT_UNDEFINED);
  expect_recent_error("svp_acl_mdl_get_output_format", kInvalid);
  EXPECT_EQ(svp_acl_mdl_get_input_data_type(good, 3), SVP_ACL_DT_UNDEFINED);
  expect_recent_error("svp_acl_mdl_get_input_data_type", kInvalid);
  EXPECT_EQ(svp_acl_mdl_get_output_data_type(good, 1), SVP_ACL_DT_UNDEFINED);
  expect_recent_error("svp_acl_mdl_get_output_data_type", kInvalid);
  EXPECT_EQ(svp_acl_mdl_get_input_reuse_type(good, 3), SVP_ACL_INOUT_REUSE_UNDEFINED);
  expect_recent_error("svp_acl_mdl_get_input_reuse_type", kInvalid);
  EXPECT_EQ(svp_acl_mdl_get_output_reuse_type(good, 1), SVP_ACL_INOUT_REUSE_UNDEFINED);
  expect_recent_error("svp_acl_mdl_get_output_reuse_type", kInvalid);

  svp_acl_mdl_io_dims dims;
  size_t v = 0;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_get_input_dims(good, 3, &dims));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_get_output_dims(good, 1, &dims));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_get_input_dims(good, 0, nullptr));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_get_input_class_id_by_index(good, 3, &v));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_get_output_class_id_by_index(good, 0, nullptr));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_get_input_index_by_name(good, nullptr, &v));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_get_input_index_by_name(good, "x", nullptr));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_get_dynamic_batch(good, nullptr));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_get_dynamic_hw(good, 0, nullptr));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_get_desc(nullptr, id));
  uint32_t n = 0;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_ext_get_mdl_aicpu_task_num(id, nullptr));
  (void)n;

  EXPECT_ACL_OK(svp_acl_mdl_destroy_desc(empty));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_destroy_desc(empty));  // twice
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_destroy_desc(nullptr));
  EXPECT_ACL_OK(svp_acl_mdl_unload(id));
}

}  // namespace
