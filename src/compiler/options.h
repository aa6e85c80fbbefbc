// What a compilation is asked to do: the vendor ATC's options after parsing (the parser
// lives in atc_options.{h,cpp}; this struct is what the library consumes). Field names
// follow the flags (`--input_shape` → input_shape). Defaults are the vendor's.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/tensor.h"
#include "target/device_profile.h"

namespace svp::compiler {

// (x - mean) / std per channel at a graph input, inside the model (RKNN's mean_values /
// std_values; passes/input_normalization.h). One value broadcasts over every channel.
struct InputNormalization {
  std::vector<float> mean;
  std::vector<float> std;
};

struct CompileOptions {
  std::string model;                 // --model: ONNX file
  std::int32_t framework = 5;        // --framework: 5 = ONNX (the only one supported)
  std::string output;                // --output: path without ".om"
  // --soc_version: the target's device profile (src/target), never null.
  const target::DeviceProfile* soc_version = &target::default_profile();
  // --input_shape="name:1,3,224,224;name2:..."; -1 marks a gear dim.
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> input_shape;
  std::string input_format = "NCHW";
  // --input_type="name:UINT8;..." (feature-map inputs).
  std::map<std::string, model::DType> input_type;
  // --output_type: a global type (key "") or "op:idx" → type.
  std::map<std::string, model::DType> output_type;
  // --out_nodes="node:idx;...": extra/replacement outputs.
  std::vector<std::pair<std::string, std::int32_t>> out_nodes;
  std::string insert_op_conf;        // --insert_op_conf: AIPP config file
  // Per graph input, in order (fewer entries than inputs: the rest are not normalised).
  // No svp_atc flag: rknn_convert sets it from mean_values/std_values.
  std::vector<InputNormalization> input_normalization;
  // --dynamic_image_size="h1,w1;h2,w2" (first gear the largest).
  std::vector<std::pair<std::int64_t, std::int64_t>> dynamic_image_size;
  std::vector<std::int64_t> dynamic_batch_size;  // --dynamic_batch_size="1,2,4,8"
  std::vector<std::string> force_to_cpu;         // --force_to_cpu="a;b"
  std::vector<std::string> high_precision_layer;  // --high_precision_layer="a;b": float in an int8 model
  // Layers kept float32 in a quantized model whatever the mode (Node::keep_float). No
  // svp_atc flag: rknn.api's hybrid_quantization_step2 sets it from the layers its
  // quantization cfg marks float16/float32.
  std::vector<std::string> float_layer;
  std::int32_t online_model_type = 2;
  bool save_original_model = false;
  std::int32_t log_level = 2;        // 0 debug .. 3 error; 2: warnings and progress
  std::int32_t mode = 0;             // 0 compile, 1 model → json, 3 pre-check
  std::string om;                    // --om (mode 1)
  std::string json;                  // --json (mode 1)
  std::string compile_mode = "0";    // "float" = no quantization (our extension)
  // Quantization (--compile_mode 0): --image_list, the calibration method (--quant_mode 0
  // = min-max, 1 = search; our --calibration overrides it), per-channel weights.
  std::string image_list;
  std::int32_t quant_mode = 0;
  std::string calibration;           // "" = from quant_mode; minmax | percentile | entropy | mse
  bool weight_quant_per_channel = true;
  bool matmul_per_channel = false;
  bool bias_correction = false;      // --bias_correction (ours): Conv biases absorb weight rounding's mean shift
  // --auto_mixed_precision (ours; quantize/mixed_precision.h): the output cosine target
  // (0 = off), the single-layer threshold and the number of rounds.
  double auto_mixed_precision = 0.0;
  double auto_mixed_precision_layer = 0.99;
  std::int32_t auto_mixed_precision_rounds = 8;
  bool auto_mixed_precision_float = false;  // raise straight to float32
  // --accuracy_inputs (ours): inputs in --image_list's format that the per-layer report
  // analyses (all of them) instead of the first 4 calibration batches; implies the report.
  std::string accuracy_inputs;
  bool accuracy_report = false;      // --accuracy_report (ours): per-layer single/entire accuracy on the calibration data
  // --gfpq_param_file: encodings for the layers it lists (quantize/calibration_param.h);
  // the others are calibrated from --image_list as usual.
  std::string gfpq_param_file;
  // --export_qdq=FILE (ours): the quantized graph as a QDQ ONNX model (qdq_export.h);
  // compile() fills CompileResult::qdq_onnx, svp_atc writes it.
  std::string export_qdq;
  // With export_qdq: a model the QDQ form cannot express (opset below 10, ...) still
  // compiles; CompileResult::qdq_onnx stays empty and qdq_error says why (rknn.api's int8
  // builds keep the export for RKNN.export_qdq without depending on it).
  bool export_qdq_optional = false;
  // Called after each calibration batch: (done, total). svp_atc prints progress with it.
  std::function<void(std::size_t, std::size_t)> calibration_progress;
  // Called after each input --accuracy_report analysed: (done, total).
  std::function<void(std::size_t, std::size_t)> accuracy_progress;
  std::string dump_graph;            // --dump_graph=DIR: Graphviz after each stage
  std::int32_t buffer_reuse = 0;     // svp_acl_buffer_reuse_type of the compiled model
  // The model may be preempted between segments by higher-priority tasks (seed 003 §8.6:
  // "the preempted low-priority model must enable priority preemption when it is
  // generated"). Our flag name: the ATC guide's is not in our sources.
  bool preemptible = false;
  // Segments (the preemption unit): the longest segment's estimated cost stays within
  // this many MACs where single layers allow.
  std::uint64_t max_segment_macs = 50'000'000;
  std::string command_line;          // recorded in the model (CompilerInfo)
};

}  // namespace svp::compiler
