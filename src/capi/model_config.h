// The svp_acl_mdl_config_handle object, shared by model_config.cpp (create/set/get/destroy)
// and model_load.cpp (load_with_config, set_model_config).
#pragma once

#include "acl/svp_acl_mdl.h"
#include "capi/live_set.h"
#include "runtime/runtime.h"

struct svp_acl_mdl_config_handle {
  svp::runtime::ModelConfig config;
};

namespace svp::capi {
// Every live config handle (model_config.cpp).
LiveSet<svp_acl_mdl_config_handle>& config_handles();
}  // namespace svp::capi
