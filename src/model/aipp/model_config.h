// The AIPP configuration a model input carries in the model file (Tensor::aipp, a JSON
// object kept verbatim by the model format; docs/aipp.md §3 is the schema).
//
// Keys follow the vendor ATC aipp config file, so the compiler can translate those files
// one to one:
//   static:  {"aipp_mode": "static", "input_format": "YUV420SP_U8", "src_image_size_w": 1920,
//             "src_image_size_h": 1080, "crop": true, "load_start_pos_w": 0, ..., "csc_switch": true,
//             "matrix_r0c0": 1192, ..., "mean_chn_0": 0.0, ...}
//   dynamic: {"aipp_mode": "dynamic", "max_src_image_size_w": 1920, "max_src_image_size_h": 1080}
// Unknown keys are ignored (model format §6); wrong types and values are errors.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "model/aipp/params.h"
#include "common/status.h"
#include "model/program.h"

namespace svp::aipp {

struct ModelAipp {
  enum class Mode { kNone, kStatic, kDynamic };
  Mode mode = Mode::kNone;
  AippParams params;  // kStatic: the compiled parameters (one entry, applies to every batch image)
  // kDynamic: the largest source image; the description reports it until set_input_aipp.
  std::int32_t max_src_w = 0, max_src_h = 0;
  // kDynamic: the vendor's "max_src_image_size", the largest source image in bytes (dense,
  // in the source's own format). When set it is the limit (each source must fit it, whatever
  // its shape) and max_src_w/h only shape the description before set_input_aipp; 0: the
  // limit is max_src_w x max_src_h.
  std::uint64_t max_src_bytes = 0;
  // kDynamic: source format the description assumes before set_input_aipp ("input_format",
  // default YUV420SP_U8).
  std::int32_t initial_format = fmt_id::kYuv420Sp;
};

// Parses Tensor::aipp ("" = kNone). err::kParseModel naming the key at fault.
Result<ModelAipp> parse_model_aipp(const std::string& json);

// The JSON text of a static configuration / of a dynamic one (what the builder stores).
std::string static_aipp_json(const AippParams& p);
std::string dynamic_aipp_json(std::int32_t max_src_w, std::int32_t max_src_h,
                              std::int32_t initial_format = fmt_id::kYuv420Sp, std::uint64_t max_src_bytes = 0);

// The description of a dynamic input whose limit is `max_src_bytes` (before set_input_aipp):
// rows as wide as the model input (`model_w`) and as many as the budget holds (even, at least
// 2), or, when the budget is below two such rows, two rows as wide as it holds.
std::pair<std::int32_t, std::int32_t> budget_description(std::int32_t format, std::uint64_t max_src_bytes,
                                                         std::int64_t model_w);

// What AIPP must produce for model input `t` of a model with `flags`.
Target target_for(const model::Tensor& t, const model::ModelFlags& flags, const ModelAipp& a);

// The model-side rules (Program::validate): a rank-4 NCHW/NHWC float32/int8/uint8 input
// (integer types per-tensor quantized) whose channel count the format produces; static
// parameters valid for the input; a dynamic maximum source size at least every dynamic-HW
// gear. err::kParseModel.
Status check_model_input(const model::Tensor& t, const model::ModelFlags& flags, const ModelAipp& a);

}  // namespace svp::aipp
