// rknn_matmul_run as a task on the software NPU's device (docs/rknn.md "Matmul"): the core
// its rknn_matmul_set_core_mask selects is the one RKNN_QUERY_SVP_NPU_LOAD shows busy, a model
// on that core waits for it, AUTO runs on any core, results stay exact, the board clock
// charges the core the predicted time, and matmul and model contexts run from several
// threads at once (the lead runs this file under ThreadSanitizer too).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "compiler/compile.h"
#include "rknn/rknn_api.h"
#include "rknn/rknn_matmul_api.h"
#include "rknn_lenet.h"
#include "rknn_test_support.h"
#include "runtime/rknn_context.h"
#include "runtime/rknn_matmul_task.h"
#include "runtime/runtime.h"
#include "target/device_profile.h"

namespace svp {
namespace {

using runtime::rknn::last_error;

using test::init_lenet;
using test::run_lenet;
rknn_svp_npu_load load_of(rknn_context ctx) { return test::npu_load_of(ctx); }

// An int8 x int8 -> int32 matmul context with random operands bound, and C computed here
// exactly.
struct Int8Matmul {
  int M, K, N;
  rknn_matmul_ctx ctx = 0;
  rknn_tensor_mem *a = nullptr, *b = nullptr, *c = nullptr;
  std::vector<std::int32_t> expected;

  Int8Matmul(int m, int k, int n, unsigned seed) : M(m), K(k), N(n) {
    rknn_matmul_info info;
    std::memset(&info, 0, sizeof info);
    info.M = M;
    info.K = K;
    info.N = N;
    info.type = RKNN_INT8_MM_INT8_TO_INT32;
    rknn_matmul_io_attr io;
    std::memset(&io, 0, sizeof io);
    EXPECT_EQ(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC) << last_error();
    a = rknn_create_mem(ctx, io.A.size);
    b = rknn_create_mem(ctx, io.B.size);
    c = rknn_create_mem(ctx, io.C.size);
    std::mt19937 rng(seed);
    auto* pa = static_cast<std::int8_t*>(a->virt_addr);
    auto* pb = static_cast<std::int8_t*>(b->virt_addr);
    for (int i = 0; i < M * K; ++i) pa[i] = static_cast<std::int8_t>(static_cast<int>(rng() % 256) - 128);
    for (int i = 0; i < K * N; ++i) pb[i] = static_cast<std::int8_t>(static_cast<int>(rng() % 256) - 128);
    expected.assign(static_cast<std::size_t>(M) * N, 0);
    for (int i = 0; i < M; ++i) {
      for (int j = 0; j < N; ++j) {
        std::int32_t s = 0;
        for (int k = 0; k < K; ++k) s += pa[i * K + k] * pb[k * N + j];
        expected[static_cast<std::size_t>(i) * N + j] = s;
      }
    }
    EXPECT_EQ(rknn_matmul_set_io_mem(ctx, a, &io.A), RKNN_SUCC) << last_error();
    EXPECT_EQ(rknn_matmul_set_io_mem(ctx, b, &io.B), RKNN_SUCC) << last_error();
    EXPECT_EQ(rknn_matmul_set_io_mem(ctx, c, &io.C), RKNN_SUCC) << last_error();
  }
  ~Int8Matmul() { destroy(); }
  void destroy() {
    if (ctx == 0) return;
    for (rknn_tensor_mem* m : {a, b, c}) rknn_destroy_mem(ctx, m);
    EXPECT_EQ(rknn_matmul_destroy(ctx), RKNN_SUCC) << last_error();
    ctx = 0;
  }
  bool exact() const { return std::memcmp(c->virt_addr, expected.data(), expected.size() * sizeof(std::int32_t)) == 0; }
};

TEST(RknnMatmulCores, AMatmulOnCore1LoadsCore1NotCore0) {
  rknn_context model = init_lenet("RK3588");  // the load query is a model context's
  ASSERT_NE(model, 0u);
  if (load_of(model).n_cores != 3) GTEST_SKIP() << "the process's NPU was set up by a model of another platform";
  Int8Matmul mm(128, 256, 128, 1);
  ASSERT_EQ(rknn_matmul_set_core_mask(mm.ctx, RKNN_NPU_CORE_1), RKNN_SUCC) << last_error();
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));  // a window with no NPU work yet
  rknn_svp_npu_load l = load_of(model);
  for (int i = 0; i < 2000 && l.load[1] < 2; ++i) {
    ASSERT_EQ(rknn_matmul_run(mm.ctx), RKNN_SUCC) << last_error();
    if (i % 8 == 7) l = load_of(model);
  }
  l = load_of(model);
  EXPECT_GE(l.load[1], 2u) << l.text;
  EXPECT_EQ(l.load[0], 0u) << l.text;
  EXPECT_EQ(l.load[2], 0u) << l.text;
  EXPECT_TRUE(mm.exact());
  EXPECT_EQ(rknn_destroy(model), RKNN_SUCC);
}

// A matmul whose segment holds core 1 until the test opens its gate, so the arbitration is
// asserted on the order of events, not on host timing: a model on core 0 finishes while core 1
// is held; one on core 1 cannot finish until the gate opens. (Comparing the two runs' end times
// was flaky: on a loaded 2-CPU machine the matmul caller's wake-up can come after a short model
// that started on the freed core.) The matmul goes through MatmulDevice, the code
// rknn_matmul_run submits with; AMatmulOnCore1LoadsCore1NotCore0 covers the C API's mask.
TEST(RknnMatmulCores, AModelOnTheMatmulsCoreWaitsForItAndOneOnAnotherCoreDoesNot) {
  rknn_context model = init_lenet("RK3588");
  ASSERT_NE(model, 0u);
  if (load_of(model).n_cores != 3) GTEST_SKIP() << "the process's NPU was set up by a model of another platform";
  runtime::rknn::MatmulDevice device;
  ASSERT_EQ(device.open("test", "RK3588"), RKNN_SUCC) << last_error();
  runtime::rknn::MatmulWork work;
  work.M = 64, work.K = 64, work.N = 64;
  work.a = RKNN_TENSOR_INT8;
  work.platform = "RK3588";
  std::promise<void> open_gate;
  std::shared_future<void> gate = open_gate.get_future().share();
  std::atomic<bool> holding{false};
  std::thread mm([&] {
    EXPECT_EQ(device.run("test", RKNN_NPU_CORE_1, 3, work,
                         [&] {
                           holding = true;
                           gate.wait();
                           return RKNN_SUCC;
                         }),
              RKNN_SUCC)
        << last_error();
  });
  // Whatever fails below, the gate opens and the thread is joined.
  struct Release {
    std::promise<void>& p;
    std::thread& t;
    ~Release() {
      try {
        p.set_value();
      } catch (const std::future_error&) {
      }
      t.join();
    }
  } release{open_gate, mm};
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!holding && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(holding) << "the matmul never reached core 1";

  ASSERT_EQ(rknn_set_core_mask(model, RKNN_NPU_CORE_0), RKNN_SUCC) << last_error();
  auto on_core0 = std::async(std::launch::async, [&] { return run_lenet(model); });
  ASSERT_EQ(on_core0.wait_for(std::chrono::seconds(30)), std::future_status::ready)
      << "a model on core 0 did not finish while a matmul held core 1";
  EXPECT_EQ(on_core0.get(), RKNN_SUCC) << last_error();

  ASSERT_EQ(rknn_set_core_mask(model, RKNN_NPU_CORE_1), RKNN_SUCC) << last_error();
  auto on_core1 = std::async(std::launch::async, [&] { return run_lenet(model); });
  // A LeNet run takes milliseconds; half a second on a held core must not be enough.
  EXPECT_EQ(on_core1.wait_for(std::chrono::milliseconds(500)), std::future_status::timeout)
      << "a model on core 1 finished while the matmul held core 1";
  open_gate.set_value();
  ASSERT_EQ(on_core1.wait_for(std::chrono::seconds(30)), std::future_status::ready)
      << "the model on core 1 did not run once the matmul let the core go";
  EXPECT_EQ(on_core1.get(), RKNN_SUCC) << last_error();
  EXPECT_EQ(rknn_destroy(model), RKNN_SUCC);
}

TEST(RknnMatmulCores, AnAutoMatmulRunsOnSomeCoreWithExactResults) {
  Int8Matmul mm(33, 70, 45, 2);
  ASSERT_EQ(rknn_matmul_set_core_mask(mm.ctx, RKNN_NPU_CORE_AUTO), RKNN_SUCC) << last_error();
  ASSERT_EQ(rknn_matmul_run(mm.ctx), RKNN_SUCC) << last_error();
  EXPECT_TRUE(mm.exact());
  // A multi-core mask splits the task across its cores: the same exact product.
  Int8Matmul split(33, 70, 45, 2);
  ASSERT_EQ(rknn_matmul_set_core_mask(split.ctx, RKNN_NPU_CORE_0_1_2), RKNN_SUCC) << last_error();
  ASSERT_EQ(rknn_matmul_run(split.ctx), RKNN_SUCC) << last_error();
  EXPECT_TRUE(split.exact());
}

TEST(RknnMatmulCores, AMaskOfCoresTheSocLacksIsRefusedAndTheMaskKept) {
  Int8Matmul mm(4, 32, 32, 3);
  ASSERT_EQ(rknn_matmul_set_core_mask(mm.ctx, RKNN_NPU_CORE_2), RKNN_SUCC) << last_error();
  EXPECT_EQ(rknn_matmul_set_core_mask(mm.ctx, static_cast<rknn_core_mask>(8)), RKNN_ERR_PARAM_INVALID);
  ASSERT_EQ(rknn_matmul_run(mm.ctx), RKNN_SUCC) << last_error();
  EXPECT_TRUE(mm.exact());
}

TEST(RknnMatmulCores, MatmulAndModelContextsRunFromSeveralThreadsAtOnce) {
  rknn_context model = init_lenet("RK3588");
  ASSERT_NE(model, 0u);
  rknn_context model2 = 0;
  ASSERT_EQ(rknn_dup_context(&model, &model2), RKNN_SUCC) << last_error();
  ASSERT_EQ(rknn_set_core_mask(model2, RKNN_NPU_CORE_1), RKNN_SUCC) << last_error();
  Int8Matmul m0(16, 64, 32, 4), m1(24, 96, 16, 5);
  ASSERT_EQ(rknn_matmul_set_core_mask(m0.ctx, RKNN_NPU_CORE_1), RKNN_SUCC) << last_error();
  std::atomic<int> failures{0};
  auto matmuls = [&](Int8Matmul& m) {
    for (int i = 0; i < 30; ++i) {
      if (rknn_matmul_run(m.ctx) != RKNN_SUCC || !m.exact()) ++failures;
    }
  };
  auto models = [&](rknn_context ctx) {
    for (int i = 0; i < 10; ++i) {
      if (run_lenet(ctx) != RKNN_SUCC) ++failures;
    }
  };
  std::thread t0(matmuls, std::ref(m0)), t1(matmuls, std::ref(m1)), t2(models, model), t3(models, model2);
  t0.join();
  t1.join();
  t2.join();
  t3.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(rknn_destroy(model2), RKNN_SUCC);
  EXPECT_EQ(rknn_destroy(model), RKNN_SUCC);
}

TEST(RknnMatmulCores, DestroyRacingRunsEndsThemOrRefusesThemWithoutACrash) {
  for (int round = 0; round < 5; ++round) {
    Int8Matmul mm(64, 128, 64, 6 + static_cast<unsigned>(round));
    const rknn_matmul_ctx ctx = mm.ctx;
    std::atomic<bool> started{false};
    std::atomic<int> unexpected{0};
    std::thread runner([&] {
      for (int i = 0; i < 50; ++i) {
        const int r = rknn_matmul_run(ctx);
        started = true;
        if (r == RKNN_ERR_CTX_INVALID) break;  // destroyed: every later call is refused
        if (r != RKNN_SUCC) ++unexpected;
      }
    });
    while (!started) std::this_thread::yield();
    // The memory stays the test's until both threads are done (the runner may still use it).
    EXPECT_EQ(rknn_matmul_destroy(ctx), RKNN_SUCC) << last_error();
    runner.join();
    EXPECT_EQ(unexpected.load(), 0);
    EXPECT_EQ(rknn_matmul_run(ctx), RKNN_ERR_CTX_INVALID);
    mm.ctx = 0;
    for (rknn_tensor_mem* m : {mm.a, mm.b, mm.c}) rknn_destroy_mem(ctx, m);
  }
}

// Each core's busy time on the process's device (board time on the board clock).
std::vector<hal::Nanos> busy_per_core() {
  auto rt = runtime::Runtime::get();
  EXPECT_TRUE(rt.ok());
  if (!rt.ok()) return {};
  auto ctx = (*rt)->create_context(0);
  EXPECT_TRUE(ctx.ok());
  std::vector<hal::Nanos> out;
  if (auto usage = (*rt)->core_usage(1'000'000'000); usage.ok()) {
    for (const auto& s : *usage) out.push_back(s.busy);
  }
  (void)(*rt)->destroy_context(*ctx);
  return out;
}

TEST(RknnMatmulBoardTime, OnTheBoardClockAMatmulOnCore2BusiesCore2ForItsPredictedTime) {
  ASSERT_EQ(runtime::rknn::live_contexts(), 0u);
  (void)runtime::Runtime::finalize();  // started by an earlier test: this one needs the board clock
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("svp_matmul_board_" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << R"({"softnpu": {"clock": "board", "cores": 3, "soc_version": "RK3588"}})";
  ASSERT_EQ(::setenv("SVP_ACL_RKNN_CONFIG", path.c_str(), 1), 0);
  {
    Int8Matmul mm(64, 256, 128, 12);
    ASSERT_EQ(rknn_matmul_set_core_mask(mm.ctx, RKNN_NPU_CORE_2), RKNN_SUCC) << last_error();
    ASSERT_EQ(rknn_matmul_run(mm.ctx), RKNN_SUCC) << last_error();
    EXPECT_TRUE(mm.exact());
    const std::vector<hal::Nanos> busy = busy_per_core();
    ASSERT_EQ(busy.size(), 3u);
    const hal::Nanos predicted =
        runtime::rknn::matmul_board_ns(runtime::rknn::MatmulWork{64, 256, 128, RKNN_TENSOR_INT8, "RK3588"}, "RK3588");
    EXPECT_GT(predicted, 0u);
    EXPECT_EQ(busy[2], predicted);
    EXPECT_EQ(busy[0], 0u);
    EXPECT_EQ(busy[1], 0u);
  }
  ::unsetenv("SVP_ACL_RKNN_CONFIG");
  std::filesystem::remove(path);
  (void)runtime::Runtime::finalize();  // the next test starts it afresh
}

TEST(RknnMatmulBoardTime, APredictionGrowsWithTheWorkAndFloat16IsSlowerThanInt8) {
  using runtime::rknn::matmul_board_ns;
  using runtime::rknn::MatmulWork;
  const auto small = matmul_board_ns(MatmulWork{64, 64, 64, RKNN_TENSOR_INT8, "RK3588"}, "RK3588");
  const auto big = matmul_board_ns(MatmulWork{512, 1024, 512, RKNN_TENSOR_INT8, "RK3588"}, "RK3588");
  const auto big_fp16 = matmul_board_ns(MatmulWork{512, 1024, 512, RKNN_TENSOR_FLOAT16, "RK3588"}, "RK3588");
  EXPECT_GT(small, 0u);
  EXPECT_GT(big, small);
  EXPECT_GT(big_fp16, big);
}

}  // namespace
}  // namespace svp
