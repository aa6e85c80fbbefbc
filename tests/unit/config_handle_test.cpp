// Model config handles (svp_acl_mdl_set_config_opt / get_config_opt): every attribute of
// spec §2.6 with its value size, range and the STEP/TOP exclusion rule.
#include <cstdint>

#include "model/load_config.h"
#include "test_support.h"

namespace {

class ConfigHandleTest : public ::testing::Test {
 protected:
  void SetUp() override { h_ = svp_acl_mdl_create_config_handle(); }
  void TearDown() override {
    if (h_ != nullptr) {
      EXPECT_ACL_OK(svp_acl_mdl_destroy_config_handle(h_));
    }
  }
  template <typename T>
  svp_acl_error set(svp_acl_mdl_config_attr a, T v) {
    return svp_acl_mdl_set_config_opt(h_, a, &v, sizeof v);
  }
  svp_acl_mdl_config_handle* h_ = nullptr;
};

TEST_F(ConfigHandleTest, UnsetSchedulingAttributesReadAsTheLoadFromMemDefaults) {
  int32_t prio = -1;
  uint32_t preempt = 7;
  uint32_t step = 9;
  uint32_t top = 9;
  ASSERT_ACL_OK(svp_acl_mdl_get_config_opt(h_, SVP_ACL_MDL_PRIORITY_INT32, &prio, sizeof prio));
  ASSERT_ACL_OK(svp_acl_mdl_get_config_opt(h_, SVP_ACL_MDL_PRIORITY_PREEMP_EN_BOOL, &preempt, sizeof preempt));
  ASSERT_ACL_OK(svp_acl_mdl_get_config_opt(h_, SVP_ACL_MDL_PRIORITY_UP_STEP_TIMEOUT_UINT32, &step, sizeof step));
  ASSERT_ACL_OK(svp_acl_mdl_get_config_opt(h_, SVP_ACL_MDL_PRIORITY_UP_TOP_TIMEOUT_UINT32, &top, sizeof top));
  EXPECT_EQ(prio, 3);
  EXPECT_EQ(preempt, 1u);
  EXPECT_EQ(step, 0u);
  EXPECT_EQ(top, 0u);
}

TEST_F(ConfigHandleTest, ValuesSetAreReadBack) {
  int dummy = 0;
  const void* image = &dummy;
  ASSERT_ACL_OK(set(SVP_ACL_MDL_PRIORITY_INT32, int32_t{6}));
  ASSERT_ACL_OK(set(SVP_ACL_MDL_LOAD_TYPE_SIZET, size_t{SVP_ACL_MDL_LOAD_FROM_MEM}));
  ASSERT_ACL_OK(set(SVP_ACL_MDL_MEM_ADDR_PTR, image));
  ASSERT_ACL_OK(set(SVP_ACL_MDL_MEM_SIZET, size_t{4096}));
  ASSERT_ACL_OK(set(SVP_ACL_MDL_PRIORITY_UP_STEP_TIMEOUT_UINT32, uint32_t{1200}));
  int32_t prio = 0;
  size_t type = 0;
  const void* addr = nullptr;
  size_t size = 0;
  uint32_t step = 0;
  ASSERT_ACL_OK(svp_acl_mdl_get_config_opt(h_, SVP_ACL_MDL_PRIORITY_INT32, &prio, sizeof prio));
  ASSERT_ACL_OK(svp_acl_mdl_get_config_opt(h_, SVP_ACL_MDL_LOAD_TYPE_SIZET, &type, sizeof type));
  ASSERT_ACL_OK(svp_acl_mdl_get_config_opt(h_, SVP_ACL_MDL_MEM_ADDR_PTR, &addr, sizeof addr));
  ASSERT_ACL_OK(svp_acl_mdl_get_config_opt(h_, SVP_ACL_MDL_MEM_SIZET, &size, sizeof size));
  ASSERT_ACL_OK(svp_acl_mdl_get_config_opt(h_, SVP_ACL_MDL_PRIORITY_UP_STEP_TIMEOUT_UINT32, &step, sizeof step));
  EXPECT_EQ(prio, 6);
  EXPECT_EQ(type, size_t{SVP_ACL_MDL_LOAD_FROM_MEM});
  EXPECT_EQ(addr, image);
  EXPECT_EQ(size, 4096u);
  EXPECT_EQ(step, 1200u);
}

TEST_F(ConfigHandleTest, PreemptEnableAcceptsTheVendorFourByteBoolAndAOneByteBool) {
  const uint32_t off4 = 0;
  ASSERT_ACL_OK(svp_acl_mdl_set_config_opt(h_, SVP_ACL_MDL_PRIORITY_PREEMP_EN_BOOL, &off4, 4));
  uint8_t got1 = 9;
  ASSERT_ACL_OK(svp_acl_mdl_get_config_opt(h_, SVP_ACL_MDL_PRIORITY_PREEMP_EN_BOOL, &got1, 1));
  EXPECT_EQ(got1, 0);
  const uint8_t on1 = 1;
  ASSERT_ACL_OK(svp_acl_mdl_set_config_opt(h_, SVP_ACL_MDL_PRIORITY_PREEMP_EN_BOOL, &on1, 1));
  uint32_t got4 = 9;
  ASSERT_ACL_OK(svp_acl_mdl_get_config_opt(h_, SVP_ACL_MDL_PRIORITY_PREEMP_EN_BOOL, &got4, 4));
  EXPECT_EQ(got4, 1u);
  const uint32_t two = 2;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_set_config_opt(h_, SVP_ACL_MDL_PRIORITY_PREEMP_EN_BOOL, &two, 4));
  const uint16_t wrong_size = 1;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM,
                   svp_acl_mdl_set_config_opt(h_, SVP_ACL_MDL_PRIORITY_PREEMP_EN_BOOL, &wrong_size, 2));
}

TEST_F(ConfigHandleTest, OutOfRangeValuesAndWrongSizesAreRejected) {
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, set(SVP_ACL_MDL_PRIORITY_INT32, int32_t{8}));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, set(SVP_ACL_MDL_PRIORITY_INT32, int32_t{-1}));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, set(SVP_ACL_MDL_PRIORITY_INT32, int64_t{2}));  // wrong size
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, set(SVP_ACL_MDL_PRIORITY_UP_STEP_TIMEOUT_UINT32, uint32_t{14}));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, set(SVP_ACL_MDL_PRIORITY_UP_TOP_TIMEOUT_UINT32, uint32_t{600000}));
  EXPECT_ACL_OK(set(SVP_ACL_MDL_PRIORITY_UP_TOP_TIMEOUT_UINT32, uint32_t{599999}));
  EXPECT_ACL_OK(set(SVP_ACL_MDL_PRIORITY_UP_TOP_TIMEOUT_UINT32, uint32_t{15}));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, set(SVP_ACL_MDL_LOAD_TYPE_SIZET, size_t{0}));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, set(SVP_ACL_MDL_LOAD_TYPE_SIZET, size_t{7}));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_set_config_opt(h_, SVP_ACL_MDL_PRIORITY_INT32, nullptr, 4));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, set(static_cast<svp_acl_mdl_config_attr>(99), int32_t{0}));
}

TEST_F(ConfigHandleTest, StepAndTopPromotionCannotBothBeEnabled) {
  ASSERT_ACL_OK(set(SVP_ACL_MDL_PRIORITY_UP_STEP_TIMEOUT_UINT32, uint32_t{100}));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, set(SVP_ACL_MDL_PRIORITY_UP_TOP_TIMEOUT_UINT32, uint32_t{100}));
  ASSERT_ACL_OK(set(SVP_ACL_MDL_PRIORITY_UP_STEP_TIMEOUT_UINT32, uint32_t{0}));
  EXPECT_ACL_OK(set(SVP_ACL_MDL_PRIORITY_UP_TOP_TIMEOUT_UINT32, uint32_t{100}));
}

TEST_F(ConfigHandleTest, AttributesTheSvpNpuDoesNotSupportSaySo) {
  const size_t n = 1;
  for (auto a : {SVP_ACL_MDL_WEIGHT_SIZET, SVP_ACL_MDL_WORKSPACE_SIZET, SVP_ACL_MDL_INPUTQ_NUM_SIZET,
                 SVP_ACL_MDL_OUTPUTQ_NUM_SIZET}) {
    EXPECT_ACL_ERROR(SVP_ACL_ERROR_API_NOT_SUPPORT, svp_acl_mdl_set_config_opt(h_, a, &n, sizeof n));
  }
  const char* path = "/tmp/x.om";
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_API_NOT_SUPPORT, svp_acl_mdl_set_config_opt(h_, SVP_ACL_MDL_PATH_PTR, &path, sizeof path));
}

TEST_F(ConfigHandleTest, ReadingAnUnsetLoadAttributeFails) {
  size_t v = 0;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_get_config_opt(h_, SVP_ACL_MDL_MEM_SIZET, &v, sizeof v));
}

TEST_F(ConfigHandleTest, BadHandlesAreRejected) {
  int32_t v = 1;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM,
                   svp_acl_mdl_set_config_opt(nullptr, SVP_ACL_MDL_PRIORITY_INT32, &v, sizeof v));
  auto* garbage = reinterpret_cast<svp_acl_mdl_config_handle*>(&v);
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM,
                   svp_acl_mdl_set_config_opt(garbage, SVP_ACL_MDL_PRIORITY_INT32, &v, sizeof v));
  svp_acl_mdl_config_handle* h = svp_acl_mdl_create_config_handle();
  ASSERT_ACL_OK(svp_acl_mdl_destroy_config_handle(h));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_mdl_destroy_config_handle(h));
}

TEST(LoadConfigTest, LoadingNeedsLoadFromMemWithAnAddressAndASize) {
  svp::model::LoadConfig c;
  EXPECT_FALSE(c.check_loadable().ok());
  const size_t type = 1;  // LOAD_FROM_FILE
  ASSERT_TRUE(c.set(svp::model::kAttrLoadType, &type, sizeof type).ok());
  EXPECT_EQ(c.check_loadable().code(), svp::err::kApiNotSupport);
  const size_t mem_type = svp::model::kLoadFromMem;
  ASSERT_TRUE(c.set(svp::model::kAttrLoadType, &mem_type, sizeof mem_type).ok());
  EXPECT_EQ(c.check_loadable().code(), svp::err::kInvalidParam);
  const void* p = &c;
  const size_t size = 64;
  ASSERT_TRUE(c.set(svp::model::kAttrMemAddr, &p, sizeof p).ok());
  ASSERT_TRUE(c.set(svp::model::kAttrMemSize, &size, sizeof size).ok());
  EXPECT_TRUE(c.check_loadable().ok());
}

TEST(LoadConfigTest, SetModelConfigAppliesOnlyTheAttributesThatWereSet) {
  svp::model::Scheduling s;
  s.priority = 5;
  s.step_timeout_ms = 200;
  svp::model::LoadConfig c;
  const uint32_t top = 50;
  ASSERT_TRUE(c.set(svp::model::kAttrTopTimeout, &top, sizeof top).ok());
  c.apply_scheduling(&s);
  EXPECT_EQ(s.priority, 5) << "priority was not set on the handle";
  EXPECT_EQ(s.top_timeout_ms, 50u);
  EXPECT_EQ(s.step_timeout_ms, 0u) << "enabling TOP switches STEP off (never both)";
}

}  // namespace
