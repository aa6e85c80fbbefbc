// Functions of svp_acl_ext.h whose capability is not built yet. Each is exported (so vendor
// applications link), fails with SVP_ACL_ERROR_FEATURE_UNSUPPORTED and leaves a message
// naming the missing feature. tests/unit/unsupported_api_test.cpp lists them; delete an
// entry here when its feature lands.
#include "acl/svp_acl_ext.h"
#include "capi/not_built.h"

using namespace svp::capi;  // NOLINT(google-build-using-namespace)

svp_acl_error svp_acl_query_status(svp_acl_status *) {
  return not_built(__func__, kStatus);
}
