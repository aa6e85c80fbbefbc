// --insert_op_conf semantics: a parsed configuration (insert_op_parse.h) checked against the
// model's inputs and turned into each input's AIPP configuration as the model file stores
// it (model/aipp/model_config.h JSON), which the runtime then executes.
//
// Both dialects map onto the runtime's one pipeline (docs/aipp.md §2):
//   * Ascend: input_format *_U8, src_image_size, crop, resize, padding, csc_switch with a
//     Q8 matrix (converted to the runtime's Q10), swaps, mean/min/var_reci; static or
//     dynamic (max_src_image_size).
//   * SVP: input_format YUV420SP / RGB_PLANAR / ..., model_format RGB/BGR/GRAY/YUV444
//     (selects the colour conversion or the R/B swap), mean/var_reci; static.
// docs/compiler.md "AIPP configuration" lists the fields and the deviations.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "compiler/aipp/insert_op_parse.h"
#include "model/tensor.h"

namespace svp::compiler::aipp_conf {

// A model data input as the compiler sees it before AIPP (its first-layer tensor).
struct ModelInput {
  std::string name;
  std::vector<std::int64_t> dims;
  model::DType dtype = model::DType::kFloat32;
};

struct ModelContext {
  std::vector<ModelInput> inputs;  // in the model's input order (related_input_rank)
  // --dynamic_image_size gears (h, w); empty = the inputs' own H x W.
  std::vector<std::pair<std::int64_t, std::int64_t>> hw_gears;
  bool dynamic_batch = false;
};

struct Converted {
  std::vector<std::string> input_aipp;  // parallel to ModelContext::inputs; "" = no AIPP
  std::vector<std::string> log;         // one line per configured input, plus notes
};

// Errors name the file, line and column of the field at fault and the fix:
// err::kInvalidParam for values the vendor rejects too, err::kFeatureUnsupported for
// vendor features svp-acl does not implement (named).
Result<Converted> convert_insert_op(const InsertOpConfig& cfg, const ModelContext& model);

}  // namespace svp::compiler::aipp_conf
