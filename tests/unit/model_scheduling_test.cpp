// Priority, preemption and buffer-sharing rules with real models: a long low-priority
// model and a short high-priority one on two streams of a one-core NPU.
#include <random>
#include <vector>

#include "compiler/builder.h"
#include "model_io.h"
#include "test_support.h"

namespace {

using svp::compiler::BuiltModel;
using svp::model::DType;
using svp::compiler::LayerOptions;
using svp::compiler::ModelBuilder;
using svp::compiler::TensorId;
using svp::test::ModelRun;
using svp::test::random_floats;
using svp::test::reference_outputs;

// `layers` × (conv3x3 16→16 + relu), one segment per layer: tens of milliseconds with the
// reference kernels.
// With `aicpu_head` the first layer runs on the AI-CPU: a test that serves it with
// svp_acl_ext_process_aicpu_task knows the execution has started (its first segment wrote
// the task_buf descriptor) before it submits anything else.
// With `aicpu_gate` a second AI-CPU layer sits halfway: the execution cannot finish until
// the test serves it, however fast the host runs the convolutions.
BuiltModel long_model(bool preemptible, int layers = 24, bool aicpu_head = false, bool aicpu_gate = false) {
  ModelBuilder b(preemptible ? "long_preemptible" : "long_fixed");
  // Large enough that even the oneDNN fast path takes milliseconds per conv: the tests
  // below need the long model to be still running when the short one completes.
  TensorId t = b.add_input("x", DType::kFloat32, {1, 32, 48, 48});
  if (aicpu_head) {
    LayerOptions cpu;
    cpu.target = svp::model::Target::kAiCpu;
    t = b.add_layer("head", "Relu", {t}, cpu);
  }
  LayerOptions conv;
  conv.attrs.set("kernel_shape", std::vector<std::int64_t>{3, 3});
  conv.attrs.set("pads", std::vector<std::int64_t>{1, 1, 1, 1});
  for (int i = 0; i < layers; ++i) {
    if (aicpu_gate && i == layers / 2) {
      LayerOptions cpu;
      cpu.target = svp::model::Target::kAiCpu;
      t = b.add_layer("gate", "Relu", {t}, cpu);
    }
    const TensorId w = b.add_constant("w" + std::to_string(i), {32, 32, 3, 3}, random_floats(32 * 32 * 9, 100 + i, -0.3f, 0.3f));
    t = b.add_layer("conv" + std::to_string(i), "Conv", {t, w}, conv);
    t = b.add_layer("relu" + std::to_string(i), "Relu", {t});
  }
  b.add_output(t, "y");
  b.segment_every(2);
  b.set_preemptible(preemptible);
  return std::move(*b.build());
}

BuiltModel short_model() {
  ModelBuilder b("short");
  const TensorId x = b.add_input("x", DType::kFloat32, {1, 4, 8, 8});
  b.add_output(b.add_layer("sig", "Sigmoid", {x}), "y");
  return std::move(*b.build());
}

void set_priority(uint32_t id, int32_t priority) {
  svp_acl_mdl_config_handle* h = svp_acl_mdl_create_config_handle();
  ASSERT_ACL_OK(svp_acl_mdl_set_config_opt(h, SVP_ACL_MDL_PRIORITY_INT32, &priority, sizeof priority));
  ASSERT_ACL_OK(svp_acl_mdl_set_model_config(id, h));
  ASSERT_ACL_OK(svp_acl_mdl_destroy_config_handle(h));
}

class ModelSchedulingTest : public svp::test::RuntimeTest {
 protected:
  std::string config_json() const override { return R"({"softnpu": {"cores": 1}})"; }
  void SetUp() override {
    RuntimeTest::SetUp();
    ASSERT_ACL_OK(svp_acl_rt_set_device(0));
    ASSERT_ACL_OK(svp_acl_rt_create_stream(&a_));
    ASSERT_ACL_OK(svp_acl_rt_create_stream(&b_));
    ASSERT_ACL_OK(svp_acl_rt_create_event(&a_done_));
  }
  void TearDown() override {
    EXPECT_ACL_OK(svp_acl_rt_destroy_event(a_done_));
    EXPECT_ACL_OK(svp_acl_rt_destroy_stream(a_));
    EXPECT_ACL_OK(svp_acl_rt_destroy_stream(b_));
    EXPECT_ACL_OK(svp_acl_rt_reset_device(0));
    RuntimeTest::TearDown();
  }
  svp_acl_rt_event_status a_status() {
    svp_acl_rt_event_status st = SVP_ACL_EVENT_STATUS_NOT_READY;
    EXPECT_ACL_OK(svp_acl_rt_query_event(a_done_, &st));
    return st;
  }

  // Starts `low` on stream A, then `high` on stream B and waits for B. Returns whether A was
  // still running when B finished. A `low` built with an AI-CPU head is known to have
  // started (this thread ran its first segment) before `high` is submitted.
  bool low_still_running_when_high_finishes(ModelRun& low, ModelRun& high, bool aicpu_head = false) {
    EXPECT_ACL_OK(low.execute_async(a_));
    EXPECT_ACL_OK(svp_acl_rt_record_event(a_done_, a_));
    if (aicpu_head) {
      EXPECT_ACL_OK(svp_acl_ext_process_aicpu_task(5000));
    }
    EXPECT_ACL_OK(high.execute_async(b_));
    EXPECT_ACL_OK(svp_acl_rt_synchronize_stream(b_));
    return a_status() != SVP_ACL_EVENT_STATUS_COMPLETE;
  }

  svp_acl_rt_stream a_ = nullptr;
  svp_acl_rt_stream b_ = nullptr;
  svp_acl_rt_event a_done_ = nullptr;
};

TEST_F(ModelSchedulingTest, AHighPriorityModelPreemptsAPreemptibleOneAndBothResultsAreExact) {
  // The AI-CPU head proves the long model has started, and 48 layers leave it running far
  // longer than the submission of the short one takes, even on a loaded machine (with 24
  // and no head, a test thread descheduled for ~12 ms once let it finish first in CI-like
  // load).
  const BuiltModel lm = long_model(true, 48, /*aicpu_head=*/true);
  const BuiltModel sm = short_model();
  ModelRun low(lm.image);
  ModelRun high(sm.image);
  set_priority(low.id(), 6);
  set_priority(high.id(), 1);
  const auto xl = random_floats(32 * 48 * 48, 1, -0.3f, 0.3f);
  const auto xh = random_floats(4 * 64, 2, -0.3f, 0.3f);
  low.set_input(0, xl.data());
  high.set_input(0, xh.data());
  EXPECT_TRUE(low_still_running_when_high_finishes(low, high, /*aicpu_head=*/true))
      << "the short model must run at the next segment boundary of the long one";
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(a_));
  // Preempted and resumed: bit-identical to the uninterrupted reference.
  EXPECT_EQ(low.output<float>(0), reference_outputs(lm, {xl.data()})[0].values<float>());
  EXPECT_EQ(high.output<float>(0), reference_outputs(sm, {xh.data()})[0].values<float>());
}

TEST_F(ModelSchedulingTest, ANonPreemptibleModelRunsToCompletionFirst) {
  const BuiltModel lm = long_model(false, 24, /*aicpu_head=*/true);
  const BuiltModel sm = short_model();
  ModelRun low(lm.image);
  ModelRun high(sm.image);
  set_priority(low.id(), 6);
  set_priority(high.id(), 1);
  const auto xl = random_floats(32 * 48 * 48, 3, -0.3f, 0.3f);
  low.set_input(0, xl.data());
  EXPECT_FALSE(low_still_running_when_high_finishes(low, high, /*aicpu_head=*/true));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(a_));
  EXPECT_EQ(low.output<float>(0), reference_outputs(lm, {xl.data()})[0].values<float>());
}

TEST_F(ModelSchedulingTest, ALowerPriorityModelDoesNotPreempt) {
  const BuiltModel lm = long_model(true);
  const BuiltModel sm = short_model();
  ModelRun first(lm.image);
  ModelRun second(sm.image);
  set_priority(first.id(), 2);
  set_priority(second.id(), 5);
  EXPECT_FALSE(low_still_running_when_high_finishes(first, second));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(a_));
}

TEST_F(ModelSchedulingTest, ATaskBufSharedByExecutionsInFlightIsDetected) {
  // The gate keeps the long model in flight until the short one has finished, on a host of
  // any speed (CI once saw 24 convolutions finish before the short model was submitted).
  const BuiltModel lm = long_model(true, 24, /*aicpu_head=*/true, /*aicpu_gate=*/true);
  const BuiltModel sm = short_model();
  ModelRun low(lm.image);
  ModelRun high(sm.image);
  set_priority(low.id(), 6);
  set_priority(high.id(), 1);
  // The high-priority execution borrows the low one's task_buf.
  svp_acl_data_buffer* shared = low.in_buf(1);
  ASSERT_ACL_OK(svp_acl_update_data_buffer(high.in_buf(1), svp_acl_get_data_buffer_addr(shared),
                                           svp_acl_get_data_buffer_size(shared), svp_acl_get_data_buffer_stride(shared)));
  // The long model starts first; the short one preempts it at a segment boundary and
  // writes its own descriptor into the shared task_buf; the long one notices on resuming.
  ASSERT_ACL_OK(low.execute_async(a_));
  ASSERT_ACL_OK(svp_acl_rt_record_event(a_done_, a_));
  ASSERT_ACL_OK(svp_acl_ext_process_aicpu_task(5000));  // the long model has started
  ASSERT_ACL_OK(high.execute_async(b_));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(b_));
  // The long model either resumed at a segment boundary and already failed, or waits at the
  // gate; serving the gate lets it resume and fail there.
  for (int i = 0; i < 500 && a_status() != SVP_ACL_EVENT_STATUS_COMPLETE; ++i) {
    (void)svp_acl_ext_process_aicpu_task(10);
  }
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_synchronize_stream(a_));
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("task_buf"), std::string::npos);
}

class StrictSchedulingTest : public ModelSchedulingTest {
 protected:
  std::string config_json() const override { return R"({"softnpu": {"cores": 1, "strict": true}})"; }
};

TEST_F(StrictSchedulingTest, AWorkBufSharedAcrossStreamsIsRefusedWhenExecutionsCanInterleave) {
  const BuiltModel preemptible = long_model(true, 2);
  const BuiltModel fixed = long_model(false, 2);
  ModelRun a(preemptible.image);
  ModelRun b(preemptible.image);
  svp_acl_data_buffer* work = a.in_buf(2);
  ASSERT_ACL_OK(svp_acl_update_data_buffer(b.in_buf(2), svp_acl_get_data_buffer_addr(work),
                                           svp_acl_get_data_buffer_size(work), svp_acl_get_data_buffer_stride(work)));
  ASSERT_ACL_OK(a.execute_async(a_));
  ASSERT_ACL_OK(a.execute_async(a_));  // same stream: fine
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_execute_async(b.id(), b.input(), b.output(), b_));
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("work_buf"), std::string::npos);
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(a_));

  // Non-preemptible models on a one-core NPU never interleave: sharing is tolerated.
  ModelRun c(fixed.image);
  ModelRun d(fixed.image);
  svp_acl_data_buffer* work_c = c.in_buf(2);
  ASSERT_ACL_OK(svp_acl_update_data_buffer(d.in_buf(2), svp_acl_get_data_buffer_addr(work_c),
                                           svp_acl_get_data_buffer_size(work_c), svp_acl_get_data_buffer_stride(work_c)));
  EXPECT_ACL_OK(c.execute_async(a_));
  EXPECT_ACL_OK(d.execute_async(b_));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(a_));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(b_));
}

}  // namespace
