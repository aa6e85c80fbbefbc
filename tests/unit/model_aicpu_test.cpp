// Models with AI-CPU layers: synchronous execution runs them inline; asynchronous
// execution posts them to the AI-CPU queue served by svp_acl_ext_process_aicpu_task. A
// busy-wait model keeps the NPU core meanwhile, any other model releases it.
#include <atomic>
#include <cmath>
#include <random>
#include <thread>
#include <vector>

#include "compiler/builder.h"
#include "model_io.h"
#include "test_support.h"

namespace {

using svp::compiler::BuiltModel;
using svp::model::DType;
using svp::compiler::LayerOptions;
using svp::compiler::ModelBuilder;
using svp::model::Target;
using svp::compiler::TensorId;
using svp::test::ModelRun;
using svp::test::reference_outputs;

// x [1,4,8,8] → conv1x1 (NPU) → Softmax over channels (AI-CPU) → Sigmoid (NPU) → y.
BuiltModel aicpu_net(bool busy_wait) {
  ModelBuilder b(busy_wait ? "aicpu_busy" : "aicpu_release");
  const TensorId x = b.add_input("x", DType::kFloat32, {1, 4, 8, 8});
  std::vector<float> w(16);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 5) * 0.25f - 0.5f;
  const TensorId wt = b.add_constant("w", {4, 4, 1, 1}, w);
  LayerOptions conv;
  conv.attrs.set("kernel_shape", std::vector<std::int64_t>{1, 1});
  TensorId t = b.add_layer("conv", "Conv", {x, wt}, conv);
  LayerOptions soft;
  soft.attrs.set("axis", std::int64_t{1});
  soft.target = Target::kAiCpu;
  t = b.add_layer("softmax", "Softmax", {t}, soft);
  b.add_output(b.add_layer("sigmoid", "Sigmoid", {t}), "y");
  b.set_aicpu_busy_wait(busy_wait);
  auto m = b.build();
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(*m);
}

// x int8 [1,40,64] → LayerNormalization (AI-CPU, int8 as svp_atc's A8W8 leaves it: the
// native q8_layer_norm kernel) → Relu (NPU) → y int8.
BuiltModel aicpu_int8_layer_norm_net() {
  ModelBuilder b("aicpu_ln8");
  const svp::model::Quant q{{0.05f}, {-3}, -1};
  const TensorId x = b.add_input("x", DType::kInt8, {1, 40, 64}, svp::model::Layout::kND, q);
  std::vector<float> scale(64), bias(64);
  for (std::size_t i = 0; i < scale.size(); ++i) {
    scale[i] = 0.75f + 0.01f * static_cast<float>(i % 31);
    bias[i] = 0.02f * static_cast<float>(i % 13) - 0.1f;
  }
  LayerOptions ln;
  ln.target = Target::kAiCpu;
  ln.output_shapes = {{1, 40, 64}};
  ln.output_quants = {svp::model::Quant{{0.03f}, {2}, -1}};
  const TensorId s = b.add_constant("s", {64}, scale), bb = b.add_constant("b", {64}, bias);
  const TensorId t = b.add_layer("ln", "LayerNormalization", {x, s, bb}, ln);
  b.add_output(b.add_layer("relu", "Relu", {t}), "y");
  auto m = b.build();
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(*m);
}

// x [2,7,12] → Linear (MatMul by a constant, bias Add) → torch's erf GELU with the Erf on
// the AI-CPU (as svp_atc places it) → y. `erf_out_too`: the Erf's output is also a model
// output, so the fast path cannot fold the chain into the matmul.
BuiltModel gelu_net(bool erf_out_too) {
  ModelBuilder b(erf_out_too ? "gelu_erf_out" : "gelu");
  const TensorId x = b.add_input("x", DType::kFloat32, {2, 7, 12});
  auto scalar = [&](const char* name, float v) { return b.add_constant(name, {}, std::vector<float>{v}); };
  std::vector<float> w(120), c(10);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 7) * 0.1f - 0.3f;
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = static_cast<float>(i) * 0.05f - 0.2f;
  const TensorId mm = b.add_layer("mm", "MatMul", {x, b.add_constant("w", {12, 10}, w)});
  const TensorId h = b.add_layer("bias", "Add", {b.add_constant("c", {1, 1, 10}, c), mm});
  const TensorId s = b.add_layer("div", "Div", {h, scalar("k_sqrt2", 1.41421356f)});
  LayerOptions cpu;
  cpu.target = Target::kAiCpu;
  const TensorId e = b.add_layer("erf", "Erf", {s}, cpu);
  if (erf_out_too) b.add_output(e, "e");
  const TensorId t = b.add_layer("one", "Add", {e, scalar("k_one", 1.f)});
  b.add_output(b.add_layer("half", "Mul", {b.add_layer("gate", "Mul", {h, t}), scalar("k_half", 0.5f)}), "y");
  auto m = b.build();
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(*m);
}

std::vector<float> input(unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-2.0f, 2.0f);
  std::vector<float> v(4 * 64);
  for (float& f : v) f = d(rng);
  return v;
}

class ModelAicpuTest : public svp::test::RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    ASSERT_ACL_OK(svp_acl_rt_set_device(0));
    ASSERT_ACL_OK(svp_acl_rt_create_stream(&a_));
    ASSERT_ACL_OK(svp_acl_rt_create_stream(&b_));
  }
  void TearDown() override {
    EXPECT_ACL_OK(svp_acl_rt_destroy_stream(a_));
    EXPECT_ACL_OK(svp_acl_rt_destroy_stream(b_));
    EXPECT_ACL_OK(svp_acl_rt_reset_device(0));
    RuntimeTest::TearDown();
  }
  bool done(svp_acl_rt_stream s) {
    svp_acl_rt_event ev = nullptr;
    svp_acl_rt_event_status st = SVP_ACL_EVENT_STATUS_NOT_READY;
    if (svp_acl_rt_create_event(&ev) != SVP_ACL_SUCCESS) return false;
    svp_acl_rt_record_event(ev, s);
    svp_acl_rt_query_event(ev, &st);
    svp_acl_rt_destroy_event(ev);
    return st == SVP_ACL_EVENT_STATUS_COMPLETE;
  }
  static svp_acl_error mark(void* d, uint32_t) {
    static_cast<std::atomic<bool>*>(d)->store(true);
    return SVP_ACL_SUCCESS;
  }
  svp_acl_rt_stream a_ = nullptr;
  svp_acl_rt_stream b_ = nullptr;
};

TEST_F(ModelAicpuTest, TheModelReportsItsAicpuLayers) {
  const BuiltModel m = aicpu_net(false);
  ModelRun run(m.image);
  uint32_t n = 0;
  ASSERT_ACL_OK(svp_acl_ext_get_mdl_aicpu_task_num(run.id(), &n));
  EXPECT_EQ(n, 1u);
}

TEST_F(ModelAicpuTest, SyncExecutionRunsAicpuLayersInternally) {
  const BuiltModel m = aicpu_net(false);
  ModelRun run(m.image);
  const auto x = input(1);
  run.set_input(0, x.data());
  ASSERT_ACL_OK(run.execute());  // no thread serves the AI-CPU queue: it must not be needed
  EXPECT_EQ(run.output<float>(0), reference_outputs(m, {x.data()})[0].values<float>());
}

TEST_F(ModelAicpuTest, AsyncReleaseModelLetsAnotherStreamUseTheCoreWhileItsOperatorWaits) {
  const BuiltModel m = aicpu_net(false);
  ModelRun run(m.image);
  const auto x = input(2);
  run.set_input(0, x.data());
  ASSERT_ACL_OK(run.execute_async(a_));
  std::atomic<bool> other{false};
  ASSERT_ACL_OK(svp_acl_ext_launch_segmented_task(mark, &other, 1, nullptr, b_));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(b_));  // nobody served the operator yet
  EXPECT_TRUE(other.load());
  EXPECT_FALSE(done(a_));
  ASSERT_ACL_OK(svp_acl_ext_process_aicpu_task(1000));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(a_));
  EXPECT_EQ(run.output<float>(0), reference_outputs(m, {x.data()})[0].values<float>());
}

TEST_F(ModelAicpuTest, AsyncBusyWaitModelKeepsTheCoreUntilItsOperatorReturns) {
  const BuiltModel m = aicpu_net(true);
  ModelRun run(m.image);
  const auto x = input(3);
  run.set_input(0, x.data());
  ASSERT_ACL_OK(run.execute_async(a_));
  std::atomic<bool> other{false};
  ASSERT_ACL_OK(svp_acl_ext_launch_segmented_task(mark, &other, 1, nullptr, b_));
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_FALSE(other.load()) << "the core must stay with the busy-wait model while its operator is pending";
  ASSERT_ACL_OK(svp_acl_ext_process_aicpu_task(1000));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(a_));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(b_));
  EXPECT_TRUE(other.load());
  EXPECT_EQ(run.output<float>(0), reference_outputs(m, {x.data()})[0].values<float>());
}

TEST_F(ModelAicpuTest, WorkerThreadsServeManyAsyncExecutionsOnTwoStreams) {
  // The seed's AI-CPU flow: worker threads loop on process_aicpu_task(1000) while two
  // streams execute the model asynchronously.
  const BuiltModel m = aicpu_net(false);
  std::atomic<bool> exit{false};
  svp_acl_rt_context ctx = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_get_current_context(&ctx));
  std::vector<std::thread> workers;
  for (int i = 0; i < 2; ++i) {
    workers.emplace_back([&] {
      svp_acl_rt_set_current_context(ctx);
      while (!exit.load()) svp_acl_ext_process_aicpu_task(50);
    });
  }
  std::vector<std::unique_ptr<ModelRun>> runs;
  std::vector<std::vector<float>> xs;
  for (unsigned i = 0; i < 8; ++i) {
    runs.push_back(std::make_unique<ModelRun>(m.image));
    xs.push_back(input(10 + i));
    runs.back()->set_input(0, xs.back().data());
    ASSERT_ACL_OK(runs.back()->execute_async(i % 2 ? b_ : a_));
  }
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(a_));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(b_));
  exit.store(true);
  for (auto& w : workers) w.join();
  for (unsigned i = 0; i < 8; ++i) {
    EXPECT_EQ(runs[i]->output<float>(0), reference_outputs(m, {xs[i].data()})[0].values<float>()) << i;
  }
}

// The erf GELU after a Linear layer runs inside its matmul (fast path): the Erf's AI-CPU
// segment has nothing left to do and runs on the core (docs/runtime.md, the deviation), so
// asynchronous execution completes with no thread serving the AI-CPU queue. When the Erf's
// output is needed on its own, the segment still waits for that thread.
TEST_F(ModelAicpuTest, AnAicpuSegmentFoldedIntoTheNpuLayerBeforeItNeedsNoAicpuThread) {
  std::vector<float> x(2 * 7 * 12);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 23) * 0.13f - 1.4f;
  {
    const BuiltModel m = gelu_net(false);
    ModelRun run(m.image);
    run.set_input(0, x.data());
    ASSERT_ACL_OK(run.execute_async(a_));
    bool finished = false;  // with no AI-CPU thread serving the queue
    for (int i = 0; i < 200 && !(finished = done(a_)); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_TRUE(finished) << "the folded Erf's segment waited for an AI-CPU thread";
    if (!finished) {
      EXPECT_ACL_OK(svp_acl_ext_process_aicpu_task(1000));
    }
    ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(a_));
    const auto want = reference_outputs(m, {x.data()})[0].values<float>();
    const auto got = run.output<float>(0);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5f + 1e-5f * std::fabs(want[i])) << i;
  }
  {
    const BuiltModel m = gelu_net(true);
    ModelRun run(m.image);
    run.set_input(0, x.data());
    ASSERT_ACL_OK(run.execute_async(a_));
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    EXPECT_FALSE(done(a_)) << "the Erf runs on its own: its segment waits for an AI-CPU thread";
    ASSERT_ACL_OK(svp_acl_ext_process_aicpu_task(1000));
    ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(a_));
  }
}

TEST_F(ModelAicpuTest, WorkerThreadsRunTheNativeInt8LayerNormalization) {
  // The AI-CPU layer's fast kernel on the worker threads (ThreadSanitizer: no shared state).
  const BuiltModel m = aicpu_int8_layer_norm_net();
  std::atomic<bool> exit{false};
  svp_acl_rt_context ctx = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_get_current_context(&ctx));
  std::vector<std::thread> workers;
  for (int i = 0; i < 2; ++i) {
    workers.emplace_back([&] {
      svp_acl_rt_set_current_context(ctx);
      while (!exit.load()) svp_acl_ext_process_aicpu_task(50);
    });
  }
  std::vector<std::unique_ptr<ModelRun>> runs;
  std::vector<std::vector<std::int8_t>> xs;
  for (unsigned i = 0; i < 8; ++i) {
    runs.push_back(std::make_unique<ModelRun>(m.image));
    std::mt19937 rng(20 + i);
    xs.emplace_back(40 * 64);
    for (auto& v : xs.back()) v = static_cast<std::int8_t>(rng());
    runs.back()->set_input(0, xs.back().data());
    ASSERT_ACL_OK(runs.back()->execute_async(i % 2 ? b_ : a_));
  }
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(a_));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(b_));
  exit.store(true);
  for (auto& w : workers) w.join();
  for (unsigned i = 0; i < 8; ++i) {
    EXPECT_EQ(runs[i]->output<std::int8_t>(0), reference_outputs(m, {xs[i].data()})[0].values<std::int8_t>()) << i;
  }
}

}  // namespace
