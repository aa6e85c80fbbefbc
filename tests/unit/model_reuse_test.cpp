// WorkBuf reuse: buffer-reuse types let the memory plan put intermediates into
// model input and output memory; execution checks the contiguity each type
// requires. Reports how much smaller the work_buf of a ResNet-like model gets.
#include <cstring>
#include <random>
#include <vector>

#include "compiler/builder.h"
#include "model_io.h"
#include "test_support.h"

namespace {

using svp::model::ArenaPart;
using svp::compiler::BuiltModel;
using svp::model::DType;
using svp::compiler::LayerOptions;
using svp::compiler::ModelBuilder;
using svp::model::Placement;
using svp::compiler::TensorId;
using svp::test::random_floats;
using svp::test::reference_outputs;

// A small ResNet: stem conv, two basic blocks with identity shortcuts, a
// strided block with a projection shortcut, global pooling and a classifier;
// 32×32 input.
BuiltModel resnet_like(std::int32_t reuse) {
  ModelBuilder b("resnet_like");
  unsigned seed = 1;
  auto conv = [&](const std::string &name, TensorId x, std::int64_t cin, std::int64_t cout, std::int64_t k,
                  std::int64_t stride) {
    LayerOptions o;
    o.attrs.set("kernel_shape", std::vector<std::int64_t>{k, k});
    o.attrs.set("pads", std::vector<std::int64_t>(4, k / 2));
    o.attrs.set("strides", std::vector<std::int64_t>{stride, stride});
    const TensorId w =
        b.add_constant(name + "_w", {cout, cin, k, k}, random_floats(static_cast<std::size_t>(cout * cin * k * k), seed++, -0.3f, 0.3f));
    const TensorId bias = b.add_constant(name + "_b", {cout}, random_floats(static_cast<std::size_t>(cout), seed++, -0.3f, 0.3f));
    return b.add_layer(name, "Conv", {x, w, bias}, o).out();
  };
  auto relu = [&](const std::string &name, TensorId x) { return b.add_layer(name, "Relu", {x}).out(); };
  TensorId x = b.add_input("image", DType::kFloat32, {1, 3, 32, 32});
  TensorId t = relu("stem_relu", conv("stem", x, 3, 16, 3, 1));
  // ResNet's stem pooling (stride 1 here). The first layer whose output may take the input's
  // memory: the stem conv reads the image until its folded Relu's output is written, so the
  // planner keeps the image alive through the Relu (plan_work_buf).
  LayerOptions pool;
  pool.attrs.set("kernel_shape", std::vector<std::int64_t>{3, 3});
  pool.attrs.set("pads", std::vector<std::int64_t>(4, 1));
  t = b.add_layer("stem_pool", "MaxPool", {t}, pool).out();
  for (int i = 0; i < 2; ++i) {
    const std::string n = "block" + std::to_string(i);
    TensorId y = relu(n + "_relu1", conv(n + "_conv1", t, 16, 16, 3, 1));
    y = conv(n + "_conv2", y, 16, 16, 3, 1);
    t = relu(n + "_relu2", b.add_layer(n + "_add", "Add", {y, t}));
  }
  TensorId y = relu("down_relu1", conv("down_conv1", t, 16, 32, 3, 2));
  y = conv("down_conv2", y, 32, 32, 3, 1);
  const TensorId shortcut = conv("down_proj", t, 16, 32, 1, 2);
  t = relu("down_relu2", b.add_layer("down_add", "Add", {y, shortcut}));
  t = b.add_layer("gap", "GlobalAveragePool", {t});
  LayerOptions flat;
  flat.attrs.set("axis", std::int64_t{1});
  t = b.add_layer("flatten", "Flatten", {t}, flat);
  const TensorId fc_w = b.add_constant("fc_w", {10, 32}, random_floats(320, seed++, -0.3f, 0.3f));
  LayerOptions gemm;
  gemm.attrs.set("transB", std::int64_t{1});
  b.add_output(b.add_layer("fc", "Gemm", {t, fc_w}, gemm), "logits");
  b.set_buffer_reuse(reuse);
  auto m = b.build();
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(*m);
}

// All buffers of one execution carved out of one allocation, in the order
// inputs, outputs, work_buf, task_buf: the layout every reuse type accepts.
class BlockRun {
 public:
  explicit BlockRun(const BuiltModel &m) {
    EXPECT_ACL_OK(svp_acl_mdl_load_from_mem(m.image.data(), m.image.size(), &id_));
    desc_ = svp_acl_mdl_create_desc();
    EXPECT_ACL_OK(svp_acl_mdl_get_desc(desc_, id_));
    const size_t ni = svp_acl_mdl_get_num_inputs(desc_);
    const size_t no = svp_acl_mdl_get_num_outputs(desc_);
    struct Slot {
      bool input;
      size_t index;
    };
    std::vector<Slot> order;
    for (size_t i = 0; i + 2 < ni; ++i) order.push_back({true, i});
    for (size_t i = 0; i < no; ++i) order.push_back({false, i});
    order.push_back({true, ni - 1});  // work_buf
    order.push_back({true, ni - 2});  // task_buf
    size_t total = 0;
    for (const Slot &s : order) total += size(s.input, s.index);
    EXPECT_ACL_OK(svp_acl_rt_malloc(&block_, total, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
    std::vector<svp_acl_data_buffer *> in(ni), out(no);
    size_t off = 0;
    for (const Slot &s : order) {
      auto *p = static_cast<uint8_t *>(block_) + off;
      const size_t n = size(s.input, s.index);
      const size_t stride = s.input ? svp_acl_mdl_get_input_default_stride(desc_, s.index)
                                    : svp_acl_mdl_get_output_default_stride(desc_, s.index);
      (s.input ? in : out)[s.index] = svp_acl_create_data_buffer(p, n, stride);
      addr_[{s.input, s.index}] = p;
      off += n;
    }
    input_ = svp_acl_mdl_create_dataset();
    output_ = svp_acl_mdl_create_dataset();
    for (auto *b : in) EXPECT_ACL_OK(svp_acl_mdl_add_dataset_buffer(input_, b));
    for (auto *b : out) EXPECT_ACL_OK(svp_acl_mdl_add_dataset_buffer(output_, b));
    buffers_ = in;
    buffers_.insert(buffers_.end(), out.begin(), out.end());
  }
  ~BlockRun() {
    for (auto *b : buffers_) EXPECT_ACL_OK(svp_acl_destroy_data_buffer(b));
    EXPECT_ACL_OK(svp_acl_mdl_destroy_dataset(input_));
    EXPECT_ACL_OK(svp_acl_mdl_destroy_dataset(output_));
    EXPECT_ACL_OK(svp_acl_mdl_destroy_desc(desc_));
    EXPECT_ACL_OK(svp_acl_rt_free(block_));
    EXPECT_ACL_OK(svp_acl_mdl_unload(id_));
  }
  size_t size(bool input, size_t i) const {
    return input ? svp_acl_mdl_get_input_size_by_index(desc_, i) : svp_acl_mdl_get_output_size_by_index(desc_, i);
  }
  uint8_t *addr(bool input, size_t i) { return addr_[{input, i}]; }
  svp_acl_error execute() { return svp_acl_mdl_execute(id_, input_, output_); }
  uint32_t id() const { return id_; }
  svp_acl_mdl_dataset *input() const { return input_; }
  svp_acl_mdl_dataset *output() const { return output_; }

 private:
  uint32_t id_ = 0;
  svp_acl_mdl_desc *desc_ = nullptr;
  void *block_ = nullptr;
  std::map<std::pair<bool, size_t>, uint8_t *> addr_;
  svp_acl_mdl_dataset *input_ = nullptr;
  svp_acl_mdl_dataset *output_ = nullptr;
  std::vector<svp_acl_data_buffer *> buffers_;
};

class ModelReuseTest : public svp::test::RuntimeTest {
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

// True when the plan put some intermediate into the memory of input 0.
bool plan_uses_input_memory(const BuiltModel &m) {
  const auto parts = svp::model::arena_parts(m.program);
  for (const ArenaPart &part : *parts) {
    if (part.kind != ArenaPart::Kind::kInput) continue;
    for (const auto &t : m.program.tensors) {
      if (t.placement == Placement::kWorkBuf && t.offset < part.offset + part.size && part.offset < t.offset + t.size) {
        return true;
      }
    }
  }
  return false;
}

TEST_F(ModelReuseTest, ReuseShrinksTheWorkBufOfAResNetLikeModel) {
  const BuiltModel none = resnet_like(SVP_ACL_BUFFER_REUSE_NONE);
  const BuiltModel reuse = resnet_like(SVP_ACL_BUFFER_REUSE_INOUTWORK_CONT);
  const auto before = none.program.flags.work_buf_size;
  const auto after = reuse.program.flags.work_buf_size;
  std::printf(
      "resnet_like work_buf: %llu bytes without reuse, %llu with "
      "INOUTWORK_CONT (%.1f%% smaller)\n",
      static_cast<unsigned long long>(before), static_cast<unsigned long long>(after),
      100.0 * (1.0 - static_cast<double>(after) / static_cast<double>(before)));
  RecordProperty("work_buf_bytes_no_reuse", std::to_string(before));
  RecordProperty("work_buf_bytes_inoutwork_cont", std::to_string(after));
  EXPECT_LT(after, before);
}

TEST_F(ModelReuseTest, EveryReuseTypeExecutesCorrectlyInOneBlock) {
  const auto x = random_floats(3 * 32 * 32, 99, -1.0f, 1.0f);
  const auto want = reference_outputs(resnet_like(SVP_ACL_BUFFER_REUSE_NONE), {x.data()})[0].values<float>();
  for (int type = SVP_ACL_BUFFER_REUSE_NONE; type <= SVP_ACL_BUFFER_REUSE_OUTWORK_CONT; ++type) {
    SCOPED_TRACE("reuse type " + std::to_string(type));
    const BuiltModel m = resnet_like(type);
    BlockRun run(m);
    svp_acl_mdl_desc *d = svp_acl_mdl_create_desc();
    ASSERT_ACL_OK(svp_acl_mdl_get_desc(d, run.id()));
    EXPECT_EQ(svp_acl_mdl_get_reuse_buffer_type(d), type);
    EXPECT_ACL_OK(svp_acl_mdl_destroy_desc(d));
    std::memcpy(run.addr(true, 0), x.data(),
                x.size() * sizeof(float));  // 32 floats: rows are dense
    ASSERT_ACL_OK(run.execute());
    std::vector<float> got(10);
    std::memcpy(got.data(), run.addr(false, 0), sizeof(float) * 10);
    EXPECT_EQ(got, want);
    if (plan_uses_input_memory(m)) {
      // Documented: with input reuse the input data is really overwritten.
      EXPECT_NE(std::memcmp(run.addr(true, 0), x.data(), x.size() * sizeof(float)), 0);
    }
  }
}

TEST_F(ModelReuseTest, DatasetsThatBreakTheRequiredContiguityAreRejected) {
  const BuiltModel m = resnet_like(SVP_ACL_BUFFER_REUSE_INOUTWORK_CONT);
  svp::test::ModelRun run(m.image);  // separate allocations
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_execute(run.id(), run.input(), run.output()));
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("start right after"), std::string::npos);

  BlockRun block(m);
  size_t dyn = 0;
  svp_acl_mdl_desc *d = svp_acl_mdl_create_desc();
  ASSERT_ACL_OK(svp_acl_mdl_get_desc(d, block.id()));
  ASSERT_ACL_OK(svp_acl_mdl_get_input_index_by_name(d, SVP_ACL_DYNAMIC_TENSOR_NAME, &dyn));
  EXPECT_ACL_OK(svp_acl_mdl_destroy_desc(d));
  ASSERT_ACL_OK(svp_acl_mdl_set_dynamic_batch_size(block.id(), block.input(), dyn, 2));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_execute(block.id(), block.input(), block.output()));
  ASSERT_ACL_OK(svp_acl_mdl_set_dynamic_batch_size(block.id(), block.input(), dyn, 1));
  EXPECT_ACL_OK(block.execute());
}

TEST(ModelReusePlanTest, TheReaderRejectsAnArenaPlanThatOverlapsALiveInput) {
  BuiltModel m = resnet_like(SVP_ACL_BUFFER_REUSE_INOUTWORK_CONT);
  // Move the stem's output onto the input, which the stem is still reading.
  for (auto &t : m.program.tensors) {
    if (t.name == "stem") t.offset = 0;
  }
  const svp::Status s = m.program.validate(m.weights.size());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("overlap"), std::string::npos) << s.message();
}

}  // namespace
