// The CalibrationParam file: reading --gfpq_param_file (the vendor's
// CalibrationParam protobuf, text or binary: a previous svp_atc or vendor ATC run's
// calibration_param.txt, or AMCT's quant_param_record.txt) and writing
// calibration_param.txt, so that a compile can be repeated with the same encodings, or a
// user can edit one layer's. The schema and its conventions are in calibration_param.proto;
// external_params.h matches a file's layers to a graph; docs/quantization.md "External
// parameters" says how and what is not supported. No graph here: the fuzz target reads
// files with this alone.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "compiler/quantize/calibration.h"

namespace svp::compiler::quant {

// How a listed layer computes (calc_data_type).
enum class CalcDataType {
  kA8W8,   // S8 / U8
  kA16W8,  // S16 / U16
  kFloat,  // F16 / F32: the layer computes in float32 (Node::keep_float)
};

// One layer of the file, in ONNX's convention (x = (q - zero_point) * scale).
struct LayerParams {
  std::string name;                 // ONNX node name
  std::string where;                // "file:line:column" of the layer, for messages
  CalcDataType precision = CalcDataType::kA8W8;
  // The layer's activation (non-constant) inputs, in order; none = F16/F32 in the file,
  // a value the layer reads as float.
  std::vector<std::optional<Encoding>> inputs;
  std::vector<float> weight_scale;  // symmetric int8 weights: one scale, or one per channel; empty = calibrate
};

struct ExternalParams {
  std::string file;
  std::vector<LayerParams> layers;
};

// Larger files are refused before parsing (a ResNet-50's file is ~40 KB).
inline constexpr std::size_t kMaxCalibrationParamBytes = 64u << 20;

// Parses `bytes` (protobuf text, or binary when it is not text); `file` names it in
// messages. err::kParseFile with "file:line:column" for syntax errors, unknown fields and
// enum names; err::kInvalidParam naming the layer for values out of range (scale not
// positive and finite, offsets not integers of the data type, weights with offsets);
// err::kFeatureUnsupported for 4-bit weights (S4/U4) and 16-bit activations.
Result<ExternalParams> parse_calibration_param(const std::string& bytes, const std::string& file);

// Reads `path` (err::kInvalidFile when it cannot be read) and parses it.
Result<ExternalParams> read_calibration_param(const std::string& path);

// The scale nearest `s` that the file can carry exactly: the vendor stores 1/s as a float
// and about one float in seven is not the float reciprocal of any float. quantize_graph
// uses these scales so that its calibration_param.txt reproduces them bit for bit.
float representable_scale(float s);

// The file for `params` (protobuf text): per layer its calc_data_type, its inputs' scale
// and offset in the vendor's convention (an encoding with zero point -128, the [0, max]
// one, is written as U8 with offset 0), its weights' scales. parse_calibration_param gives
// back the same float scales bit for bit where they are representable_scale()s.
std::string calibration_param_text(const ExternalParams& params);

}  // namespace svp::compiler::quant
