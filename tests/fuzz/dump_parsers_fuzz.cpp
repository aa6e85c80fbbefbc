// libFuzzer target for svp_compare's dump readers: the .npy parser and the index.jsonl
// parser get the same bytes. Either must return an error or a result; never crash, hang or
// allocate beyond the element limit.
#include <cstddef>
#include <cstdint>
#include <string>

#include "svp_compare/dump_index.h"
#include "svp_compare/npy_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)svp::compare::ParseNpy(data, size);
  (void)svp::compare::ParseDumpIndex(std::string(reinterpret_cast<const char*>(data), size), "fuzz");
  return 0;
}
