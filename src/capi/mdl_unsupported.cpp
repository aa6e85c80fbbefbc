// Functions of svp_acl_mdl.h whose capability is not built yet. Each is exported (so vendor
// applications link), fails with SVP_ACL_ERROR_FEATURE_UNSUPPORTED and leaves a message
// naming the missing feature. tests/unit/unsupported_api_test.cpp lists them; delete an
// entry here when its feature lands.
#include "acl/svp_acl_mdl.h"
#include "capi/not_built.h"

using namespace svp::capi;  // NOLINT(google-build-using-namespace)

svp_acl_error svp_acl_mdl_init_dump(void) {
  return not_built(__func__, kDump);
}

svp_acl_error svp_acl_mdl_set_dump(const char *) {
  return not_built(__func__, kDump);
}

svp_acl_error svp_acl_mdl_finalize_dump(void) {
  return not_built(__func__, kDump);
}
