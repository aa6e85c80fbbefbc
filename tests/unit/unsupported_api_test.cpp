// Every API function whose capability is not built yet must say so: it is exported,
// returns SVP_ACL_ERROR_FEATURE_UNSUPPORTED (or its sentinel value) and leaves a message
// naming the missing feature. The test prints the list so the gap is visible in CI logs.
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>

#include "capi/not_built.h"
#include "test_support.h"


namespace {

using namespace svp::capi;  // feature names

class UnsupportedApiTest : public svp::test::RuntimeTest {};

// The failure value of a function without an error code: NULL, 0 or an UNDEFINED (-1)
// enumerator.
template <typename T>
void expect_sentinel(T v, const char* fn) {
  if constexpr (std::is_pointer_v<T>) {
    EXPECT_EQ(v, nullptr) << fn;
  } else if constexpr (std::is_enum_v<T>) {
    EXPECT_EQ(static_cast<int>(v), -1) << fn;
  } else {
    EXPECT_EQ(v, T{0}) << fn;
  }
}

TEST_F(UnsupportedApiTest, EveryUnbuiltFunctionReportsFeatureUnsupportedAndNamesTheFeature) {
  int count = 0;
  std::string listing;
#define UNSUPPORTED_CHECK_status(fn, args) EXPECT_EQ((fn)args, SVP_ACL_ERROR_FEATURE_UNSUPPORTED) << #fn
#define UNSUPPORTED_CHECK_value(fn, args) expect_sentinel((fn)args, #fn)
#define UNSUPPORTED_CALL(fn, kind, args, feature)                                                     \
  {                                                                                                  \
    ++count;                                                                                         \
    UNSUPPORTED_CHECK_##kind(fn, args);                                                              \
    const std::string msg = svp_acl_get_recent_err_msg();                                            \
    EXPECT_NE(msg.find(#fn), std::string::npos) << msg;                                              \
    EXPECT_NE(msg.find(feature), std::string::npos) << msg;                                          \
    EXPECT_NE(msg.find("200006"), std::string::npos) << msg;                                         \
    listing += std::string("  ") + #fn + "  [" + feature + "]\n";                                    \
  }
#include "unit/unsupported_calls.inc"
#undef UNSUPPORTED_CALL
  std::printf("%d API functions are exported but not built yet:\n%s", count, listing.c_str());
  EXPECT_GT(count, 0);
}

}  // namespace
