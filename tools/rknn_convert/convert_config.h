// rknn-toolkit2's rknn_convert YAML (`python -m rknn.api.rknn_convert -t rk3588 -i
// model_config.yml -o out/`), read with yaml-cpp and mapped onto the compiler library's
// CompileOptions (docs/rknn.md, "rknn_convert"). Every key of the vendor's format is either
// honoured, refused with err::kFeatureUnsupported naming it, or warned about when it cannot
// change the model svp-acl builds; unknown keys are errors (a typo must not be a silently
// different model).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "compiler/options.h"

namespace svp::rknn_convert {

struct ConvertPlan {
  compiler::CompileOptions options;   // model, soc_version, quantization, input shapes
  std::string name;                   // models.name: the output is <out_dir>/<name>.rknn
  bool rgb2bgr = false;               // configs.quant_img_RGB2BGR: dataset images read as BGR
  bool model_pruning = false;         // configs.model_pruning: compiler/onnx_prune.h before compiling
  bool sparse_infer = false;          // configs.sparse_infer (rk3576): sparsity.h's per-layer check
  // configs.dynamic_input: shape sets, each one shape per input (mapped onto the compiler's
  // batch or resolution gears by read_convert_config).
  std::vector<std::vector<std::vector<std::int64_t>>> dynamic_input;
  std::vector<std::string> input_names;  // subgraphs.inputs, when given
  std::vector<std::string> warnings;  // keys accepted without effect, each naming the key
};

// The RKNN device profile for a vendor platform name (rk3588, rv1106, ...; any case), or an
// err::kInvalidParam error listing the accepted names.
Result<const target::DeviceProfile*> rknn_platform(const std::string& name);

// Reads `yml_path` for `target_platform` (the -t flag). Relative paths in the file
// (model_file_path, dataset) are resolved beside the file, as the vendor does. Errors:
// err::kInvalidParam for malformed YAML, a missing key or a wrong type (naming the key and
// its line), err::kInvalidFile for a file that does not exist, err::kFeatureUnsupported
// for a vendor option svp-acl does not implement yet.
Result<ConvertPlan> read_convert_config(const std::string& yml_path, const std::string& target_platform);

}  // namespace svp::rknn_convert
