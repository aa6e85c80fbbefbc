// The HAL backends the conformance suite (hal_conformance_test.cpp) runs against.
//
// Adding a backend = one line in hal_backends_under_test(): a name (the gtest parameter
// suffix, [A-Za-z0-9_]) and a function that builds the backend from the BackendConfig
// each test asks for (device and core count, clock, cache mode). Backends registered
// with hal::register_backend need only registered("their-name"). Every test of the suite
// then runs against it, through hal.h (and the Fence of hal/fence.h) only.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "hal/hal.h"

namespace svp::hal::conformance {

struct BackendUnderTest {
  std::string name;
  std::function<Result<std::unique_ptr<Backend>>(BackendConfig)> create;
};

// gtest prints a parameter of a failing test by its name.
inline void PrintTo(const BackendUnderTest& backend, std::ostream* os) { *os << backend.name; }

// A backend known to hal::create_backend by `backend`, with backend-specific `options`.
inline std::function<Result<std::unique_ptr<Backend>>(BackendConfig)> registered(
    std::string backend, std::map<std::string, std::string> options = {}) {
  return [backend = std::move(backend), options = std::move(options)](BackendConfig config) {
    config.backend = backend;
    config.options = options;
    return create_backend(config);
  };
}

inline std::vector<BackendUnderTest> hal_backends_under_test() {
  return {
      {"softnpu", registered("softnpu")},
      // The fault-injecting wrapper with no fault armed must be indistinguishable from
      // the software NPU it wraps.
      {"fault_unarmed", registered("fault")},
  };
}

}  // namespace svp::hal::conformance
