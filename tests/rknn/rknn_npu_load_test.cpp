// Which emulated NPU cores an rknn context's runs use (rknn_set_core_mask /
// rknn_set_batch_core_num; docs/rknn.md "Multi-core") and each core's load as
// RKNN_QUERY_SVP_NPU_LOAD reports it, the figures of the board's /sys/kernel/debug/rknpu/load.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "compiler/compile.h"
#include "rknn/rknn_api.h"
#include "rknn_lenet.h"
#include "rknn_test_support.h"
#include "runtime/rknn_context.h"
#include "runtime/rknn_ctx.h"
#include "target/device_profile.h"

namespace svp {
namespace {

using runtime::rknn::last_error;
using test::contains;

rknn_context init_for(const char* soc) { return test::init_lenet(soc); }
void run_once(rknn_context ctx) { ASSERT_EQ(test::run_lenet(ctx), RKNN_SUCC) << last_error(); }
rknn_svp_npu_load load_of(rknn_context ctx) { return test::npu_load_of(ctx); }

// Runs `ctx` until core `core` shows at least 2% load (a few ms of busy time in the last
// second), after a second with no NPU work in this process (the window then holds only these
// runs). The device must have the RK3588's three cores (the first model of the process sets
// them, as on a board: a process whose first model is an RK3576 one has two).
rknn_svp_npu_load busy_until_loaded(rknn_context ctx, std::uint32_t core) {
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  rknn_svp_npu_load l = load_of(ctx);
  for (int i = 0; i < 20000 && l.load[core] < 2; ++i) {
    run_once(ctx);
    if (i % 16 == 15) l = load_of(ctx);
  }
  return load_of(ctx);
}

TEST(RknnNpuLoad, ARunOnCore2LoadsCore2Only) {
  rknn_context ctx = init_for("RK3588");
  ASSERT_NE(ctx, 0u);
  if (load_of(ctx).n_cores != 3) GTEST_SKIP() << "the process's NPU was set up by a model of another platform";
  ASSERT_EQ(rknn_set_core_mask(ctx, RKNN_NPU_CORE_2), RKNN_SUCC) << last_error();
  const rknn_svp_npu_load l = busy_until_loaded(ctx, 2);
  EXPECT_GE(l.load[2], 2u) << l.text;
  EXPECT_EQ(l.load[0], 0u) << l.text;
  EXPECT_EQ(l.load[1], 0u) << l.text;
  EXPECT_EQ(std::string(l.text), "NPU load:  Core0: 0%, Core1: 0%, Core2: " + std::to_string(l.load[2]) + "%");
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
}

TEST(RknnNpuLoad, ARunOnCores012LoadsAllThreeEqually) {
  rknn_context ctx = init_for("RK3588");
  ASSERT_NE(ctx, 0u);
  if (load_of(ctx).n_cores != 3) GTEST_SKIP() << "the process's NPU was set up by a model of another platform";
  ASSERT_EQ(rknn_set_core_mask(ctx, RKNN_NPU_CORE_0_1_2), RKNN_SUCC) << last_error();
  const rknn_svp_npu_load l = busy_until_loaded(ctx, 0);
  EXPECT_GE(l.load[0], 2u) << l.text;
  EXPECT_EQ(l.load[1], l.load[0]) << l.text;
  EXPECT_EQ(l.load[2], l.load[0]) << l.text;
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
}

TEST(RknnNpuLoad, TooSmallABufferIsRefused) {
  rknn_context ctx = init_for("RK3588");
  ASSERT_NE(ctx, 0u);
  rknn_svp_npu_load l{};
  EXPECT_EQ(rknn_query(ctx, RKNN_QUERY_SVP_NPU_LOAD, &l, sizeof l - 1), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "sizeof(rknn_svp_npu_load)")) << last_error();
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
}

// core_use: the cores each mask names on RK3588 (3 cores) and RK3576 (2).
runtime::rknn::CoreUse use(const char* soc, int mask, int batch_core_num = 1) {
  runtime::rknn::Ctx c;
  c.platform = target::find_profile(soc);
  c.core_mask = mask;
  c.batch_core_num = batch_core_num;
  return runtime::rknn::core_use(c);
}

TEST(RknnCoreUse, SingleCoreMasksBindOneCoreAndMultiCoreMasksSplitAcrossTheirCores) {
  EXPECT_EQ(use("RK3588", RKNN_NPU_CORE_AUTO).mask, 0u);  // any idle core
  EXPECT_FALSE(use("RK3588", RKNN_NPU_CORE_AUTO).split);
  EXPECT_EQ(use("RK3588", RKNN_NPU_CORE_1).mask, 0b010u);
  EXPECT_FALSE(use("RK3588", RKNN_NPU_CORE_1).split);
  EXPECT_EQ(use("RK3588", RKNN_NPU_CORE_0_1).mask, 0b011u);
  EXPECT_TRUE(use("RK3588", RKNN_NPU_CORE_0_1).split);
  EXPECT_EQ(use("RK3588", RKNN_NPU_CORE_0_1_2).mask, 0b111u);
  EXPECT_TRUE(use("RK3588", RKNN_NPU_CORE_0_1_2).split);
  EXPECT_EQ(use("RK3588", RKNN_NPU_CORE_ALL).mask, 0b111u);
  EXPECT_EQ(use("RK3576", RKNN_NPU_CORE_ALL).mask, 0b011u);
  EXPECT_TRUE(use("RK3576", RKNN_NPU_CORE_ALL).split);
}

TEST(RknnCoreUse, BatchCoreNumSplitsAnAutoContextsRunsOverTheFirstNCores) {
  EXPECT_EQ(use("RK3588", RKNN_NPU_CORE_AUTO, 2).mask, 0b011u);
  EXPECT_TRUE(use("RK3588", RKNN_NPU_CORE_AUTO, 2).split);
  EXPECT_EQ(use("RK3588", RKNN_NPU_CORE_AUTO, 3).mask, 0b111u);
  EXPECT_EQ(use("RK3576", RKNN_NPU_CORE_AUTO, 2).mask, 0b011u);
  // An explicit mask names the cores itself.
  EXPECT_EQ(use("RK3588", RKNN_NPU_CORE_2, 3).mask, 0b100u);
  EXPECT_FALSE(use("RK3588", RKNN_NPU_CORE_2, 3).split);
  EXPECT_EQ(use("RK3566", RKNN_NPU_CORE_AUTO).mask, 0u);
}

}  // namespace
}  // namespace svp
