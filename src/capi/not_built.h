// Helpers for exported functions whose capability is not built yet.
#pragma once

#include "capi/guard.h"

namespace svp::capi {

// Feature names used in the messages (and checked by the unsupported-API test).
inline constexpr const char* kModels = "offline model loading and execution";
inline constexpr const char* kAipp = "AIPP image preprocessing";
inline constexpr const char* kDump = "model dump";
inline constexpr const char* kAicpu = "AI-CPU operators";

inline svp_acl_error not_built(const char* fn, const char* feature) {
  return guard(fn, [&] { return unsupported(fn, feature); });
}

template <typename T>
T not_built_value(const char* fn, const char* feature, T fallback) {
  (void)not_built(fn, feature);
  return fallback;
}

}  // namespace svp::capi
