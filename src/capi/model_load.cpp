// svp_acl_mdl.h loading: load_from_mem, load_with_config, set_model_config, unload; and the
// two svp_acl_ext.h model queries. Models live in the runtime's ModelRegistry
// (src/exec/model_registry.h); the image is never copied.
#include "acl/svp_acl_ext.h"
#include "acl/svp_acl_mdl.h"
#include "capi/guard.h"
#include "capi/model_config.h"
#include "capi/shim.h"
#include "runtime/runtime.h"

using svp::capi::config_handles;
using svp::capi::require;
using svp::capi::with_runtime;
using svp::runtime::Runtime;

svp_acl_error svp_acl_mdl_load_from_mem(const void* model, size_t model_size, uint32_t* model_id) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(require(model != nullptr, "model is NULL"));
    SVP_RETURN_IF_ERROR(require(model_id != nullptr, "model_id is NULL"));
    return with_runtime([&](Runtime& rt) -> Status {
      auto id = rt.load_model(model, model_size, svp::model::Scheduling{});
      if (!id.ok()) return id.status();
      *model_id = *id;
      return Status::Ok();
    });
  });
}

svp_acl_error svp_acl_mdl_load_with_config(const svp_acl_mdl_config_handle* handle, uint32_t* model_id) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(config_handles().check(handle));
    SVP_RETURN_IF_ERROR(require(model_id != nullptr, "model_id is NULL"));
    auto scheduling = Runtime::load_scheduling(handle->config);
    if (!scheduling.ok()) return scheduling.status();
    return with_runtime([&](Runtime& rt) -> Status {
      auto id = rt.load_model(handle->config.mem, handle->config.mem_size, *scheduling);
      if (!id.ok()) return id.status();
      *model_id = *id;
      return Status::Ok();
    });
  });
}

svp_acl_error svp_acl_mdl_set_model_config(uint32_t model_id, const svp_acl_mdl_config_handle* handle) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(config_handles().check(handle));
    return with_runtime([&](Runtime& rt) { return rt.models().set_scheduling(model_id, handle->config); });
  });
}

svp_acl_error svp_acl_mdl_unload(uint32_t model_id) {
  return guard(__func__, [&]() -> Status {
    return with_runtime([&](Runtime& rt) { return rt.unload_model(model_id); });
  });
}

svp_acl_error svp_acl_ext_get_mdl_aicpu_task_num(uint32_t model_id, uint32_t* num) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(require(num != nullptr, "num is NULL"));
    return with_runtime([&](Runtime& rt) -> Status {
      auto n = rt.model_aicpu_layers(model_id);
      if (!n.ok()) return n.status();
      *num = *n;
      return Status::Ok();
    });
  });
}

svp_acl_error svp_acl_ext_get_mdl_net_type(uint32_t model_id, uint32_t* net_type) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(require(net_type != nullptr, "net_type is NULL"));
    return with_runtime([&](Runtime& rt) -> Status {
      auto recurrent = rt.model_is_recurrent(model_id);
      if (!recurrent.ok()) return recurrent.status();
      *net_type = *recurrent ? SVP_ACL_NET_TYPE_RECURRENT : SVP_ACL_NET_TYPE_CNN;
      return Status::Ok();
    });
  });
}
