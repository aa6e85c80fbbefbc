// The independent oracle from C++ tests: onnxruntime (npm onnxruntime-node) run by
// tests/oracle/ort_run.mjs in a process of its own, never linked into a test. Needs the
// test's SVP_SOURCE_DIR definition and the npm packages (scripts/npm_deps.sh).
#pragma once

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace svp::test {

// node_modules holding the npm test packages: SVP_NPM_MODULES (scripts/test.sh exports it),
// else the source tree's build/npm/node_modules.
inline std::string npm_modules() {
  const char* env = std::getenv("SVP_NPM_MODULES");
  return env != nullptr && env[0] != '\0' ? env : std::string(SVP_SOURCE_DIR) + "/build/npm/node_modules";
}

// The command that writes onnxruntime's outputs of `onnx` on `inputs` (input name, .npy
// path) into `out_dir` as <output name>.npy; run it with std::system (exit 0 = success).
inline std::string onnxruntime_command(const std::string& onnx, const std::string& out_dir,
                                       const std::vector<std::pair<std::string, std::string>>& inputs) {
  std::string cmd = "SVP_NPM_MODULES='" + npm_modules() + "' node '" SVP_SOURCE_DIR "/tests/oracle/ort_run.mjs' '" +
                    onnx + "' '" + out_dir + "'";
  for (const auto& [name, path] : inputs) cmd += " '" + name + "=" + path + "'";
  return cmd;
}

}  // namespace svp::test
