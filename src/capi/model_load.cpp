// svp_acl_mdl.h loading: load_from_mem, load_with_config, set_model_config, unload; and the
// two svp_acl_ext.h model queries. Models live in the runtime's ModelRegistry
// (src/model/model_registry.h); the image is never copied.
#include "acl/svp_acl_ext.h"
#include "acl/svp_acl_mdl.h"
#include "capi/guard.h"
#include "capi/model_config.h"
#include "exec/model_registry.h"
#include "profiling/profiler.h"

using svp::Result;
using svp::Status;
using svp::capi::config_handles;
using svp::capi::guard;
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
    const svp::model::LoadConfig& config = handle->config;
    SVP_RETURN_IF_ERROR(config.check_loadable());
    svp::model::Scheduling scheduling;
    config.apply_scheduling(&scheduling);
    return with_runtime([&](Runtime& rt) -> Status {
      auto id = rt.load_model(config.mem, config.mem_size, scheduling);
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
    return with_runtime([&](Runtime& rt) -> Status {
      // The subscription ends first: the id may be reused by the next load.
      SVP_RETURN_IF_ERROR(rt.models().lookup(model_id).status());
      svp::profiling::Profiler::instance().model_unloaded(model_id);
      return rt.models().unload(model_id);
    });
  });
}

svp_acl_error svp_acl_ext_get_mdl_aicpu_task_num(uint32_t model_id, uint32_t* num) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(require(num != nullptr, "num is NULL"));
    return with_runtime([&](Runtime& rt) -> Status {
      auto m = rt.models().get(model_id);
      if (!m.ok()) return m.status();
      *num = (*m)->aicpu_layers;
      return Status::Ok();
    });
  });
}

// A model with recurrent layers (LSTM/GRU/RNN) carries its compiled time steps in
// flags.max_total_t (0 for every other model): that flag is the net type.
svp_acl_error svp_acl_ext_get_mdl_net_type(uint32_t model_id, uint32_t* net_type) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(require(net_type != nullptr, "net_type is NULL"));
    return with_runtime([&](Runtime& rt) -> Status {
      auto m = rt.models().get(model_id);
      if (!m.ok()) return m.status();
      *net_type = (**m).program.flags.max_total_t > 0 ? SVP_ACL_NET_TYPE_RECURRENT : SVP_ACL_NET_TYPE_CNN;
      return Status::Ok();
    });
  });
}
