// libFuzzer target for the compiler's front end: any bytes through the ONNX importer
// (protobuf parsing, versions, external-data refusal, onnx::checker, per-node inference,
// constants, attributes, rewrites, folding) and, for what imports, the rest of the float
// pipeline (passes, segments, emit). Every outcome must be a model or a Status with a
// message: never a crash, hang, leak or out-of-bounds access. Built by run_model_fuzz.cmake
// with clang -fsanitize=fuzzer,address,undefined (ctest onnx_import_fuzz); seeds are the
// small models in tests/fuzz/onnx_corpus.
#include <cstddef>
#include <cstdint>
#include <string>

#include "compiler/compile.h"
#include "compiler/onnx_import.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  svp::compiler::CompileOptions options;
  options.compile_mode = "float";
  auto g = svp::compiler::import_onnx_bytes(bytes, "", options);
  if (!g.ok()) {
    if (g.status().message().empty()) __builtin_trap();  // every error explains itself
    return 0;
  }
  auto r = svp::compiler::compile_graph(std::move(*g), options);
  if (!r.ok() && r.status().message().empty()) __builtin_trap();
  return 0;
}
