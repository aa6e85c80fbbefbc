// libFuzzer target for the .npy reader (src/common/npy.cpp): npy::parse must reject or accept
// any bytes without reading outside them, and what it accepts must survive make → parse.
// Built beside model_loader_fuzz and run by run_model_fuzz.cmake.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  svp::npy::Array a;
  std::string error;
  if (!svp::npy::parse(data, size, a, error)) return 0;
  const auto again = svp::npy::make(a.descr, a.shape, a.data.data(), a.data.size());
  svp::npy::Array b;
  if (!svp::npy::parse(again.data(), again.size(), b, error) || b.shape != a.shape || b.data != a.data ||
      b.descr != a.descr) {
    std::abort();
  }
  return 0;
}
