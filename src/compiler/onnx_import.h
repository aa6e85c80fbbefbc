// The ONNX importer: an ONNX model file in, the compiler's Graph out, with every value's
// dtype and static shape known and every constant computable ahead of time already folded.
//
// Steps (docs/compiler.md "Import"): parse the ModelProto (bounded, clear error for a file
// that is not ONNX), check versions (IR ≤ 8, ai.onnx opset 7..17 — what Debian's libonnx
// 1.12 knows), inline external data (files beside the model, bounds-checked), run
// onnx::checker and ONNX shape inference, apply --input_shape, then convert: initializers
// and Constant nodes become constants (IR-3 inputs that have initializers too), nodes keep
// their op and attributes, and old-opset semantics are rewritten to the IR's op contract
// (Softmax family before opset 13, Upsample, Resize-10). Shapes come from the reference
// kernels' shape inference, the one the runtime uses; ONNX's own is the fallback for ops
// the kernels do not know.
//
// Errors name the node, its op type and opset, what is wrong and the way out
// (err::kParseModel for a malformed or unsupported model, err::kInvalidParam for options
// that do not fit the model). Thread-compatible: no global state.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "compiler/graph.h"
#include "compiler/options.h"

namespace onnx {
class ModelProto;
}

namespace svp::compiler {

// An ONNX file parsed once and imported at one or more option sets: --dynamic_image_size
// imports the model at several gears to compare their folded constants
// (gear_constants.h). Each import() works on a copy of the parsed model; take() imports
// the parsed model itself, with no copy, and leaves the file empty. Errors are prefixed
// with the path. Thread-compatible.
class OnnxFile {
 public:
  // err::kInvalidParam for a file that cannot be read, err::kParseModel for one that is
  // not an ONNX model or is 2 GiB or more.
  static Result<OnnxFile> read(const std::string& path);
  OnnxFile(OnnxFile&&) noexcept;
  OnnxFile& operator=(OnnxFile&&) noexcept;
  ~OnnxFile();
  Result<Graph> import(const CompileOptions& options) const;
  Result<Graph> take(const CompileOptions& options) &&;
  // The graph's input names in order, initializers excluded (what --input_shape names;
  // rknn_convert maps dynamic_input shapes onto them without importing).
  std::vector<std::string> input_names() const;
  // Their declared dimensions, in the same order; -1 for a symbolic or missing one, an empty
  // list for an input without a declared shape (the Python package's build(rknn_batch_size)).
  std::vector<std::vector<std::int64_t>> input_dims() const;

 private:
  OnnxFile(std::string path, std::unique_ptr<onnx::ModelProto> model);
  std::string path_;
  std::unique_ptr<onnx::ModelProto> model_;
};

// Imports the ONNX model at `path` (external data files are looked up beside it).
Result<Graph> import_onnx(const std::string& path, const CompileOptions& options);
// Imports an in-memory model; external data is looked up in `base_dir` ("" = refused).
Result<Graph> import_onnx_bytes(const std::string& bytes, const std::string& base_dir, const CompileOptions& options);

// The newest IR version and ai.onnx opset the importer reads, and the oldest opset.
inline constexpr std::int64_t kMaxIrVersion = 8;
inline constexpr std::int64_t kMaxOpset = 17;
inline constexpr std::int64_t kMinOpset = 7;
// The one other operator domain read (version 1): its optimizers Adagrad, Adam, Momentum.
inline constexpr const char* kTrainingDomain = "ai.onnx.preview.training";

}  // namespace svp::compiler
