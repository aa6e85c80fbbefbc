// The seed's application flows (seed 003 §8.3–8.6) with real models: the async + callback
// + memory-pool pattern of acl_resnet50_async (executeTimes / callbackInterval /
// memoryPoolSize), several models on one stream sharing a work_buf, and several threads
// each driving its own stream.
#include <condition_variable>
#include <deque>
#include <mutex>
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
using svp::compiler::TensorId;
using svp::test::ModelRun;
using svp::test::random_floats;
using svp::test::reference_outputs;

// A classifier-shaped model: conv → relu → global pool → flatten → gemm → softmax.
BuiltModel classifier(const std::string& name, unsigned seed, std::int64_t classes) {
  ModelBuilder b(name);
  const TensorId x = b.add_input("data", DType::kFloat32, {1, 3, 16, 16});
  LayerOptions conv;
  conv.attrs.set("kernel_shape", std::vector<std::int64_t>{3, 3});
  conv.attrs.set("pads", std::vector<std::int64_t>{1, 1, 1, 1});
  TensorId t = b.add_layer("conv", "Conv", {x, b.add_constant("w", {8, 3, 3, 3}, random_floats(216, seed))}, conv);
  t = b.add_layer("relu", "Relu", {t});
  t = b.add_layer("gap", "GlobalAveragePool", {t});
  LayerOptions flat;
  flat.attrs.set("axis", std::int64_t{1});
  t = b.add_layer("flat", "Flatten", {t}, flat);
  LayerOptions gemm;
  gemm.attrs.set("transB", std::int64_t{1});
  t = b.add_layer("fc", "Gemm", {t, b.add_constant("fc_w", {classes, 8}, random_floats(8 * classes, seed + 1))}, gemm);
  LayerOptions soft;
  soft.attrs.set("axis", std::int64_t{1});
  b.add_output(b.add_layer("prob", "Softmax", {t}, soft), "prob");
  auto m = b.build();
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(*m);
}

class SeedFlowTest : public svp::test::RuntimeTest {
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

TEST_F(SeedFlowTest, AsyncExecutionWithCallbacksAndAMemoryPool) {
  constexpr int kExecuteTimes = 24;
  constexpr int kCallbackInterval = 4;
  constexpr int kMemoryPoolSize = 8;
  const BuiltModel m = classifier("resnet50_async", 1, 10);
  std::vector<std::vector<float>> inputs;
  std::vector<std::vector<float>> expected;
  for (int i = 0; i < kExecuteTimes; ++i) {
    inputs.push_back(random_floats(3 * 16 * 16, 100 + i));
    expected.push_back(reference_outputs(m, {inputs.back().data()})[0].values<float>());
  }

  // The pool: dataset pairs that executions borrow and callbacks return.
  std::vector<std::unique_ptr<ModelRun>> pool;
  for (int i = 0; i < kMemoryPoolSize; ++i) pool.push_back(std::make_unique<ModelRun>(m.image));
  std::mutex mu;
  std::condition_variable cv;
  std::deque<ModelRun*> free_items;
  for (auto& p : pool) free_items.push_back(p.get());
  int checked = 0, wrong = 0;

  struct Batch {
    std::vector<std::pair<ModelRun*, int>> items;
    std::mutex* mu;
    std::condition_variable* cv;
    std::deque<ModelRun*>* free_items;
    const std::vector<std::vector<float>>* expected;
    int* checked;
    int* wrong;
  };
  auto callback = [](void* data) {
    std::unique_ptr<Batch> b(static_cast<Batch*>(data));
    for (auto& [run, i] : b->items) {
      const bool ok = run->output<float>(0) == (*b->expected)[static_cast<std::size_t>(i)];
      std::lock_guard<std::mutex> lock(*b->mu);
      ++*b->checked;
      if (!ok) ++*b->wrong;
      b->free_items->push_back(run);
    }
    b->cv->notify_all();
  };

  svp_acl_rt_stream stream = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_stream(&stream));
  svp::test::ReportThread reporter;
  ASSERT_ACL_OK(svp_acl_rt_subscribe_report(reporter.id(), stream));
  auto batch = std::make_unique<Batch>(Batch{{}, &mu, &cv, &free_items, &expected, &checked, &wrong});
  for (int i = 0; i < kExecuteTimes; ++i) {
    ModelRun* run = nullptr;
    {
      std::unique_lock<std::mutex> lock(mu);
      ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(20), [&] { return !free_items.empty(); }));
      run = free_items.front();
      free_items.pop_front();
    }
    run->set_input(0, inputs[static_cast<std::size_t>(i)].data());
    ASSERT_ACL_OK(run->execute_async(stream));
    batch->items.emplace_back(run, i);
    if (static_cast<int>(batch->items.size()) == kCallbackInterval || i + 1 == kExecuteTimes) {
      ASSERT_ACL_OK(svp_acl_rt_launch_callback(callback, batch.release(), SVP_ACL_CALLBACK_BLOCK, stream));
      batch = std::make_unique<Batch>(Batch{{}, &mu, &cv, &free_items, &expected, &checked, &wrong});
    }
  }
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(stream));
  {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(checked, kExecuteTimes);
    EXPECT_EQ(wrong, 0);
    EXPECT_EQ(free_items.size(), static_cast<std::size_t>(kMemoryPoolSize));
  }
  EXPECT_ACL_OK(svp_acl_rt_unsubscribe_report(reporter.id(), stream));
  reporter.stop();
  pool.clear();
  EXPECT_ACL_OK(svp_acl_rt_destroy_stream(stream));
}

TEST_F(SeedFlowTest, TwoModelsOnOneStreamShareTheLargestWorkBuf) {
  const BuiltModel a = classifier("model_a", 10, 10);
  const BuiltModel b = classifier("model_b", 20, 5);
  ModelRun ra(a.image);
  ModelRun rb(b.image);
  // The vendor procedure: one cached work_buf of the largest size, flushed, for both.
  const size_t size = std::max(svp_acl_get_data_buffer_size(ra.in_buf(2)), svp_acl_get_data_buffer_size(rb.in_buf(2)));
  void* work = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_malloc_cached(&work, size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
  ASSERT_ACL_OK(svp_acl_rt_mem_flush(work, size));
  for (ModelRun* r : {&ra, &rb}) ASSERT_ACL_OK(svp_acl_update_data_buffer(r->in_buf(2), work, size, size));
  for (unsigned i = 0; i < 3; ++i) {
    const auto xa = random_floats(3 * 256, 30 + i);
    const auto xb = random_floats(3 * 256, 40 + i);
    ra.set_input(0, xa.data());
    rb.set_input(0, xb.data());
    ASSERT_ACL_OK(ra.execute());
    ASSERT_ACL_OK(rb.execute());
    EXPECT_EQ(ra.output<float>(0), reference_outputs(a, {xa.data()})[0].values<float>());
    EXPECT_EQ(rb.output<float>(0), reference_outputs(b, {xb.data()})[0].values<float>());
  }
  EXPECT_ACL_OK(svp_acl_rt_free(work));
}

TEST_F(SeedFlowTest, SeveralThreadsEachDriveTheirOwnStream) {
  const BuiltModel m = classifier("multi_thread", 50, 10);
  svp_acl_rt_context ctx = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_get_current_context(&ctx));
  std::atomic<int> wrong{0}, failed{0};
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      if (svp_acl_rt_set_current_context(ctx) != SVP_ACL_SUCCESS) return void(failed++);
      svp_acl_rt_stream s = nullptr;
      if (svp_acl_rt_create_stream(&s) != SVP_ACL_SUCCESS) return void(failed++);
      {
        ModelRun run(m.image);
        for (unsigned i = 0; i < 6; ++i) {
          const auto x = random_floats(3 * 256, 1000 * t + i);
          run.set_input(0, x.data());
          if (run.execute_async(s) != SVP_ACL_SUCCESS || svp_acl_rt_synchronize_stream(s) != SVP_ACL_SUCCESS) {
            failed++;
            continue;
          }
          if (run.output<float>(0) != reference_outputs(m, {x.data()})[0].values<float>()) wrong++;
        }
      }
      if (svp_acl_rt_destroy_stream(s) != SVP_ACL_SUCCESS) failed++;
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
