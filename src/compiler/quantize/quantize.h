// Post-training quantization of a float graph from calibration data
// (docs/quantization.md): --compile_mode=0 (A8W8: int8 activations and weights), 1 (A16W8:
// int16 activations, int8 weights), 5 and 6 (the CUBE ops — Conv, ConvTranspose, Gemm,
// MatMul, pooling — A8W8 or A16W8, every other op fp16).
//
// 1. Calibration: the float graph runs on every calibration batch with the reference
//    kernels (evaluate.h); every float activation's range is observed, and for the
//    histogram methods a second run fills its histogram (calibration.h chooses the
//    encoding: min-max = the vendor's --quant_mode=0, MSE search = our reading of its
//    --quant_mode=1, percentile and KL entropy as extensions).
// 2. Every node gets a precision (Precision below): A8W8, A16W8, fp16 (modes 5/6 outside
//    the CUBE ops) or float32 (Cast, --force_to_cpu, --high_precision_layer where A16W8 is
//    not higher than the mode's own precision).
// 3. Data-movement ops (Reshape, Flatten, Transpose, Squeeze, Unsqueeze, Slice, Split,
//    MaxPool, Identity, Dropout) pass their input's encoding to their output, so they move
//    int8 values without requantizing — as the hardware does.
// 4. A Relu that is its input's only reader gives that input its own encoding ([0, max]):
//    the producer saturates negatives exactly as the Relu would, and the runtime fuses the
//    pair. Activations between quantized nodes become int8 with their encoding — uint8 with
//    zero point 0 where the range starts at 0 (the same 256 levels, in the form the integer
//    fast paths take) — or int16 where a node reading or writing them is A16W8: symmetric
//    (zero point 0) over the whole observed range (at 65,536 levels clipping gains nothing).
//    Weights of Conv (per output channel by default), ConvTranspose (per tensor), Gemm and
//    MatMul (per tensor, or per output column with --matmul_per_channel_enable) become
//    symmetric int8 (zero point 0) in every mode; biases stay float32 (the integer kernels
//    fold them into the int32 accumulator per call).
//    The model's outputs always get their whole observed range (min-max), whatever the
//    method: clipping them saturates exactly the scores that decide the answer.
// 5. Float nodes read and write float values: a DequantizeLinear before and a
//    QuantizeLinear after them where their neighbours are quantized; their weights stay
//    float. fp16 nodes' outputs (and the float outputs of CUBE ops in modes 5/6) are
//    rounded to float16 by a Cast to float16 and back: the software NPU emulates fp16
//    storage, computing in float32 between the roundings.
// 6. Model inputs and outputs keep their float types: a QuantizeLinear after every float
//    input, a DequantizeLinear before every quantized output (the vendor's FP32 default
//    for inputs and outputs).
// The result computes on the software NPU exactly what the kernels' rules say
// (docs/kernels.md, "Element types"; int16 layers take the generic path: dequantize →
// float32 kernel → requantize). Deterministic: the same graph and batches give the same
// encodings bit for bit.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/status.h"
#include "compiler/graph.h"
#include "compiler/quantize/calibration.h"
#include "compiler/quantize/calibration_data.h"
#include "compiler/quantize/external_params.h"

namespace svp::compiler::quant {

// Per layer, what the quantizer chose (QuantizeReport::layers, the log, om.json).
enum class Precision {
  kA8W8,     // int8/uint8 activations, int8 weights
  kA16W8,    // int16 activations, int8 weights
  kFp16,     // float values rounded to float16 (modes 5/6 outside the CUBE ops)
  kFloat32,  // float32 (Cast, --force_to_cpu, --high_precision_layer in modes 1/6)
};
const char* precision_name(Precision p);  // "A8W8", "A16W8", "FP16", "FP32"

struct QuantizeOptions {
  CalibrationOptions calibration;
  int activation_bits = 8;  // 8: A8W8 (modes 0, 5); 16: A16W8 (modes 1, 6)
  bool cube_only = false;   // modes 5, 6: only the CUBE ops are quantized, the rest fp16
  bool conv_per_channel = true;     // --weight_quant_per_channel (vendor default: on)
  bool matmul_per_channel = false;  // --matmul_per_channel_enable (vendor default: off)
  // --bias_correction (ours, default off): each quantized Conv's bias absorbs the mean
  // output shift its weight rounding causes on the calibration data.
  bool bias_correction = false;
  // --quant_mode=1: each weight channel's scale is searched (max|w|·α, α in [0.5, 1]) for
  // the least squared rounding error instead of max|w| / 127.
  bool weight_search = false;
  // --gfpq_param_file, resolved against this graph (null: calibrate everything). The
  // encodings it fixes replace the calibrated ones; the rules above still apply to them.
  const ResolvedParams* external = nullptr;
  // Called after each calibration batch of each pass: (batches done, batches in all).
  std::function<void(std::size_t, std::size_t)> progress;
};

struct LayerPrecision {
  std::string name;  // the graph node's name
  std::string op;
  Precision precision;
};

struct QuantizeReport {
  std::size_t activations = 0;  // values made int8/uint8 or int16
  std::size_t activations16 = 0;  // of those, int16
  std::size_t weights = 0;      // constants made int8
  std::size_t boundaries = 0;   // QuantizeLinear / DequantizeLinear inserted
  std::size_t float_layers = 0;  // left float32: --force_to_cpu nodes, --high_precision_layer in modes 1/6
  std::size_t a16_layers = 0;    // A16W8 (all of mode 1/6's quantized layers; --high_precision_layer in mode 0/5)
  std::size_t fp16_layers = 0;   // fp16 (modes 5/6)
  std::size_t fp16_roundings = 0;  // Cast pairs inserted to round values to float16
  std::size_t clips_as_relu = 0;  // Clip(0, hi) that int8 saturation makes a Relu (ReLU6)
  std::size_t batches = 0;
  std::vector<LayerPrecision> layers;  // every node but the inserted boundaries, in order
  std::size_t external_values = 0;  // encodings fixed by the model (QDQ) or --gfpq_param_file
  std::size_t biases_corrected = 0;  // Conv biases adjusted by --bias_correction
};

// --high_precision_layer: marks the named nodes (graph or ONNX names). In an A8W8 layer's
// place (modes 0 and 5) they become A16W8, as the vendor does; where the mode is A16W8 or
// fp16 already (modes 1 and 6) they stay float32 (docs/quantization.md).
// err::kInvalidParam naming an unknown node.
Status mark_high_precision(Graph& g, const std::vector<std::string>& names);

// CompileOptions::float_layer: the named nodes (graph or ONNX names) stay float32 in any
// quantized mode (Node::keep_float). err::kInvalidParam naming an unknown node.
Status mark_float_layers(Graph& g, const std::vector<std::string>& names);

// A value's encodings: the calibrated 8-bit one (possibly clipped by the method) and, for
// int16, the magnitude of its whole observed range.
struct ValueEncoding {
  Encoding narrow;
  float magnitude = 0.0f;
};

// What calibration learns of a float graph: the encoding of every float activation and,
// for --bias_correction, the per-channel mean of every Conv's input. It depends on the
// float graph and the data only — not on the precisions chosen — so one calibration
// serves every round of automatic mixed precision (mixed_precision.h).
struct Calibration {
  std::map<ValueId, ValueEncoding> encodings;
  std::map<ValueId, std::vector<double>> channel_means;  // Conv input → mean per channel
  std::size_t batches = 0;
  std::size_t values = 0;  // the graph's value count: apply_quantization checks it is the same graph
};

// Step 1: runs the float graph over the data (the runtime's compiled plan, built once).
// Uses options.calibration, bias_correction and progress. Errors: those of evaluating
// the graph (the node and the kernel's message); err::kInvalidParam for no batches.
Result<Calibration> calibrate(const Graph& g, const CalibrationSet& data, const QuantizeOptions& options);

// Steps 2–6 on `g`, the graph `cal` was taken of (or a copy with the same ids and other
// precision marks). err::kInvalidParam for activation_bits not 8/16 or --gfpq_param_file
// weight scales that do not fit; err::kInternalError for a calibration of another graph.
Result<QuantizeReport> apply_quantization(Graph& g, const Calibration& cal, const QuantizeOptions& options);

// calibrate() then apply_quantization().
// Errors: those of evaluating the float graph on the data (the node and the kernel's
// message); err::kInvalidParam for an empty calibration set or activation_bits not 8/16.
Result<QuantizeReport> quantize_graph(Graph& g, const CalibrationSet& data, const QuantizeOptions& options);

}  // namespace svp::compiler::quant
