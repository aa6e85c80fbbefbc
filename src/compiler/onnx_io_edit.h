// rknn.utils.onnx_edit's graph surgery (seed 004, docs/python.md): an ONNX model's input
// or output given a new shape, with Reshape/Transpose nodes between it and the graph so
// that the model computes what it did. The transform equations are parsed in Python
// (python/rknn/utils/onnx_edit.py); this file only rewrites the model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace svp::compiler {

struct OnnxIoStep {
  enum class Kind { kReshape, kTranspose };
  Kind kind = Kind::kReshape;
  std::vector<std::int64_t> values;  // the target shape, or the permutation
};

struct OnnxIoEdit {
  std::string name;      // a graph input (not an initializer) or output
  bool output = false;
  std::vector<std::int64_t> new_shape;
  // Inputs: from new_shape to the original shape (run first); outputs: from the original
  // shape to new_shape (run last).
  std::vector<OnnxIoStep> steps;
};

struct OnnxIo {
  std::string name;
  bool output = false;
  std::vector<std::int64_t> dims;  // -1 for a symbolic or missing dimension
};

// The graph's inputs (initializers excluded) and outputs with their declared dimensions.
Result<std::vector<OnnxIo>> onnx_io(const std::string& path);

// Writes `in_path` with `edits` applied to `out_path` (external data is not carried).
Status edit_onnx_io(const std::string& in_path, const std::string& out_path, const std::vector<OnnxIoEdit>& edits);

}  // namespace svp::compiler
