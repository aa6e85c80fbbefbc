// One conversion as rknn-toolkit2 does it (a ConvertPlan from the YAML mapping of
// convert_config.h → an svp-acl model image for librknnrt): dataset images turned into
// tensors, the compile, the command line recorded in the image. Shared by the rknn_convert
// executable and the Python package's rknn.api.RKNN.build (python/), so both build the same
// model from the same configuration.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "convert_config.h"

namespace svp::rknn_convert {

struct Converted {
  std::vector<std::uint8_t> image;  // the model image (what <name>.rknn holds)
  std::vector<std::string> log;     // the compiler's log, stage by stage
  std::vector<std::string> warnings;  // settings accepted without effect, each naming its key
  // With plan.options.accuracy_report (rknn.api.RKNN.accuracy_analysis): the compiler's
  // per-layer report (compile.h) and the svp_atc command line it equals.
  std::string layer_accuracy_csv;
  std::vector<std::string> accuracy_summary;
  std::string command_line;
  // With plan.options.export_qdq non-empty: the quantized model as a QDQ ONNX model
  // (compiler/qdq_export.h), the very encodings `image` holds; the caller writes it.
  std::string qdq_onnx;
  std::string qdq_error;  // CompileResult::qdq_error
};

// Compiles `plan`. `caller` is what the image records before its svp_atc equivalent (the
// tool's own command line, or the Python call); rknn_init reads the target from the
// recorded --soc_version. Dataset images are converted in a temporary directory removed
// before returning.
Result<Converted> convert(ConvertPlan plan, const std::string& caller);

}  // namespace svp::rknn_convert
