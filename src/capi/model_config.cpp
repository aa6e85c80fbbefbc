// svp_acl_mdl.h config handles: the attributes of load_with_config / set_model_config.
#include "acl/svp_acl_mdl.h"
#include "capi/guard.h"
#include "capi/live_set.h"
#include "capi/model_config.h"
#include "capi/shim.h"

using svp::capi::enum_bits;

namespace svp::capi {
LiveSet<svp_acl_mdl_config_handle>& config_handles() {
  static LiveSet<svp_acl_mdl_config_handle> set("model config handle");
  return set;
}
}  // namespace svp::capi

using svp::capi::config_handles;

svp_acl_mdl_config_handle* svp_acl_mdl_create_config_handle(void) {
  return guard_value<svp_acl_mdl_config_handle*>(__func__, nullptr, [&]() -> Result<svp_acl_mdl_config_handle*> {
    auto* h = new svp_acl_mdl_config_handle();
    config_handles().add(h);
    return h;
  });
}

svp_acl_error svp_acl_mdl_destroy_config_handle(svp_acl_mdl_config_handle* handle) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(config_handles().remove(handle));
    delete handle;
    return Status::Ok();
  });
}

svp_acl_error svp_acl_mdl_set_config_opt(svp_acl_mdl_config_handle* handle, svp_acl_mdl_config_attr attr,
                                         const void* attr_value, size_t value_size) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(config_handles().check(handle));
    return handle->config.set(enum_bits(attr), attr_value, value_size);
  });
}

svp_acl_error svp_acl_mdl_get_config_opt(svp_acl_mdl_config_handle* handle, svp_acl_mdl_config_attr attr,
                                         void* attr_value, size_t value_size) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(config_handles().check(handle));
    return handle->config.get(enum_bits(attr), attr_value, value_size);
  });
}
