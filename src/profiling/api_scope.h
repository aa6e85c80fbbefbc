// Times one C API call for the ACL_API data type. Used by capi::guard, so every exported
// function that goes through the error boundary is recorded; when API profiling is off
// it costs one relaxed atomic load.
#pragma once

#include "profiling/profiler.h"

namespace svp::profiling {

class ApiScope {
 public:
  explicit ApiScope(const char* fn) : fn_(fn), start_(kHooksBuilt && Profiler::api_enabled() ? now() : 0) {}
  void done(int ret) {
    if (start_ != 0) Profiler::instance().record(ApiRecord{fn_, thread_id(), start_, now(), ret});
  }

 private:
  const char* fn_;
  Nanos start_;
};

}  // namespace svp::profiling
