// libFuzzer target for svp_run's .npy reader: parse_npy must reject or accept any bytes
// without reading outside them, and what it accepts must survive make_npy → parse_npy.
// Built beside model_loader_fuzz and run by run_model_fuzz.cmake.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "svp_run/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  svp::run::NpyArray a;
  std::string error;
  if (!svp::run::parse_npy(data, size, a, error)) return 0;
  const auto again = svp::run::make_npy(a.descr, a.shape, a.data.data(), a.data.size());
  svp::run::NpyArray b;
  if (!svp::run::parse_npy(again.data(), again.size(), b, error) || b.shape != a.shape || b.data != a.data ||
      b.descr != a.descr) {
    std::abort();
  }
  return 0;
}
