// rknn_set_core_mask / rknn_set_batch_core_num (docs/rknn.md "Multi-core"): each platform's
// valid masks are accepted and recorded (RKNN_QUERY_PERF_DETAIL names the mask), invalid ones
// refused with RKNN_ERR_PARAM_INVALID, one-core platforms answer RKNN_ERR_FAIL; a context
// runs the same answers on any mask.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "rknn/rknn_api.h"
#include "rknn_lenet.h"
#include "rknn_test_support.h"
#include "runtime/rknn_context.h"

namespace svp {
namespace {

using runtime::rknn::last_error;
using test::contains;

rknn_context init_for(const char* soc, std::uint32_t flags = 0) { return test::init_lenet(soc, flags); }

// One run's output (empty after a failure, which is reported).
std::vector<float> run_masked(rknn_context ctx) {
  if (test::run_lenet(ctx) != RKNN_SUCC) {
    ADD_FAILURE() << last_error();
    return {};
  }
  return test::lenet_output(ctx);
}

TEST(RknnCoreMask, Rk3588TakesItsSevenMasksAndRefusesOthers) {
  rknn_context ctx = init_for("RK3588", RKNN_FLAG_COLLECT_PERF_MASK);
  ASSERT_NE(ctx, 0u);
  const std::vector<float> want = run_masked(ctx);
  for (rknn_core_mask m : {RKNN_NPU_CORE_0, RKNN_NPU_CORE_1, RKNN_NPU_CORE_2, RKNN_NPU_CORE_0_1, RKNN_NPU_CORE_ALL,
                           RKNN_NPU_CORE_AUTO, RKNN_NPU_CORE_0_1_2}) {
    EXPECT_EQ(rknn_set_core_mask(ctx, m), RKNN_SUCC) << m << ": " << last_error();
  }
  for (int bad : {5, 6, 8, 0x10, -1, static_cast<int>(RKNN_NPU_CORE_UNDEFINED)}) {
    EXPECT_EQ(rknn_set_core_mask(ctx, static_cast<rknn_core_mask>(bad)), RKNN_ERR_PARAM_INVALID) << bad;
    EXPECT_TRUE(contains(last_error(), "is not a core mask of RK3588 (3 cores")) << last_error();
  }
  EXPECT_EQ(run_masked(ctx), want) << "the same kernels on any mask";
  rknn_perf_detail d{};
  ASSERT_EQ(rknn_query(ctx, RKNN_QUERY_PERF_DETAIL, &d, sizeof d), RKNN_SUCC) << last_error();
  EXPECT_TRUE(contains(d.perf_data, "RKNN_NPU_CORE_0_1_2 (3 NPU cores), batch core num 1")) << d.perf_data;
  EXPECT_EQ(rknn_set_batch_core_num(ctx, 3), RKNN_SUCC) << last_error();
  EXPECT_EQ(rknn_set_batch_core_num(ctx, 4), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "not in 1..3")) << last_error();
  (void)run_masked(ctx);
  ASSERT_EQ(rknn_query(ctx, RKNN_QUERY_PERF_DETAIL, &d, sizeof d), RKNN_SUCC) << last_error();
  EXPECT_TRUE(contains(d.perf_data, "batch core num 3")) << d.perf_data;
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
  EXPECT_EQ(rknn_set_core_mask(ctx, RKNN_NPU_CORE_0), RKNN_ERR_CTX_INVALID);
}

TEST(RknnCoreMask, Rk3576HasTwoCores) {
  rknn_context ctx = init_for("RK3576");
  ASSERT_NE(ctx, 0u);
  for (rknn_core_mask m :
       {RKNN_NPU_CORE_0, RKNN_NPU_CORE_1, RKNN_NPU_CORE_0_1, RKNN_NPU_CORE_AUTO, RKNN_NPU_CORE_ALL}) {
    EXPECT_EQ(rknn_set_core_mask(ctx, m), RKNN_SUCC) << m << ": " << last_error();
  }
  EXPECT_EQ(rknn_set_core_mask(ctx, RKNN_NPU_CORE_2), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_set_core_mask(ctx, RKNN_NPU_CORE_0_1_2), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "RK3576 (2 cores")) << last_error();
  EXPECT_EQ(rknn_set_batch_core_num(ctx, 2), RKNN_SUCC) << last_error();
  EXPECT_EQ(rknn_set_batch_core_num(ctx, 3), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
}

TEST(RknnCoreMask, OneCorePlatformsRefuseCoreSelection) {
  rknn_context ctx = init_for("RK3566");
  ASSERT_NE(ctx, 0u);
  EXPECT_EQ(rknn_set_core_mask(ctx, RKNN_NPU_CORE_0), RKNN_ERR_FAIL);
  EXPECT_TRUE(contains(last_error(), "RK3566 has one NPU core")) << last_error();
  EXPECT_EQ(rknn_set_batch_core_num(ctx, 1), RKNN_ERR_FAIL);
  EXPECT_EQ(rknn_destroy(ctx), RKNN_SUCC);
}

}  // namespace
}  // namespace svp
