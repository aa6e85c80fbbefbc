// svp_acl_mdl.h model dump: init_dump / set_dump / finalize_dump over the runtime's model
// dump (Runtime::init_dump ..., exec::Dumper; docs/runtime.md "Model dump").
#include "acl/svp_acl_mdl.h"
#include "capi/guard.h"

using svp::Status;
using svp::capi::guard;
using svp::capi::require;
using svp::capi::with_runtime;
using svp::runtime::Runtime;

svp_acl_error svp_acl_mdl_init_dump(void) {
  return guard(__func__, [&] { return with_runtime([&](Runtime&) { return Runtime::init_dump(); }); });
}

svp_acl_error svp_acl_mdl_set_dump(const char* dump_cfg_path) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(require(dump_cfg_path != nullptr, "dump_cfg_path is NULL"));
    return with_runtime([&](Runtime&) { return Runtime::set_dump(dump_cfg_path); });
  });
}

svp_acl_error svp_acl_mdl_finalize_dump(void) {
  return guard(__func__, [&] { return with_runtime([&](Runtime&) { return Runtime::finalize_dump(); }); });
}
