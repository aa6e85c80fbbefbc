// svp_acl.h: process initialisation.
#include "acl/svp_acl.h"

#include "capi/guard.h"

using svp::capi::guard;
using svp::runtime::Runtime;

svp_acl_error svp_acl_init(const char* config_path) {
  return guard(__func__, [&] { return Runtime::init(config_path); });
}

svp_acl_error svp_acl_finalize(void) {
  return guard(__func__, [&] { return Runtime::finalize(); });
}
