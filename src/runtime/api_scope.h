// The runtime's record of one C API call (the ACL_API profiling data type): the C API's
// error boundary (capi/guard.h) opens one per exported call. When API profiling is off it
// costs one relaxed atomic load (profiling/api_scope.h).
#pragma once

#include "profiling/api_scope.h"

namespace svp::runtime {

using ApiScope = profiling::ApiScope;

}  // namespace svp::runtime
