// libFuzzer target for acl.json, svp_acl_init's configuration (src/runtime/config.cpp and
// the dump section's parser): any bytes give a configuration or a Status with a message —
// never a crash, hang or stack overflow (a file nested 100,000 deep overflowed a recursive
// depth check: the bad-input probe). Built by run_model_fuzz.cmake (ctest model_fuzz);
// seeds in tests/fuzz/acl_json_corpus.
#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto config = svp::runtime::parse_config(text, "fuzz");
  if (!config.ok() && config.status().message().empty()) __builtin_trap();  // every error explains itself
  return 0;
}
