// Post-training int8 quantization of a float graph (--compile_mode=0, A8W8: int8
// activations and weights), from calibration data (docs/quantization.md).
//
// 1. Calibration: the float graph runs on every calibration batch with the reference
//    kernels (evaluate.h); every float activation's range is observed, and for the
//    histogram methods a second run fills its histogram (calibration.h chooses the
//    encoding: min-max = the vendor's --quant_mode=0, MSE search = our reading of its
//    --quant_mode=1, percentile and KL entropy as extensions).
// 2. Data-movement ops (Reshape, Flatten, Transpose, Squeeze, Unsqueeze, Slice, Split,
//    MaxPool, Identity, Dropout) pass their input's encoding to their output, so they move
//    int8 values without requantizing — as the hardware does.
// 3. A Relu that is its input's only reader gives that input its own encoding ([0, max]):
//    the producer saturates negatives exactly as the Relu would, and the runtime fuses the
//    pair. Activations become int8 with their encoding — uint8 with zero point 0 where the
//    range starts at 0 (the same 256 levels, in the form the integer fast paths take); weights of Conv (per output channel by
//    default), ConvTranspose (per tensor), Gemm and MatMul (per tensor, or per output
//    column with --matmul_per_channel_enable) become symmetric int8 (zero point 0); biases
//    stay float32 (the integer kernels fold them into the int32 accumulator per call).
//    The model's outputs always get their whole observed range (min-max), whatever the
//    method: clipping them saturates exactly the scores that decide the answer.
// 4. Nodes kept float (Cast, --high_precision_layer, --force_to_cpu) read and write float
//    values: a DequantizeLinear before and a QuantizeLinear after them where their
//    neighbours are int8, and their weights stay float.
// 5. Model inputs and outputs keep their float types: a QuantizeLinear after every float
//    input, a DequantizeLinear before every quantized output (the vendor's FP32 default
//    for inputs and outputs). Cast reads and writes float values, with the same
//    conversions around it.
// The result computes on the software NPU exactly what the kernels' integer rules say
// (docs/kernels.md, "Element types"). Deterministic: the same graph and batches give the
// same encodings bit for bit.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "common/status.h"
#include "compiler/graph.h"
#include "compiler/quantize/calibration.h"
#include "compiler/quantize/calibration_data.h"
#include "compiler/quantize/external_params.h"

namespace svp::compiler::quant {

struct QuantizeOptions {
  CalibrationOptions calibration;
  bool conv_per_channel = true;     // --weight_quant_per_channel (vendor default: on)
  bool matmul_per_channel = false;  // --matmul_per_channel_enable (vendor default: off)
  // --gfpq_param_file, resolved against this graph (null: calibrate everything). The
  // encodings it fixes replace the calibrated ones; the rules above still apply to them.
  const ResolvedParams* external = nullptr;
  // Called after each calibration batch of each pass: (batches done, batches in all).
  std::function<void(std::size_t, std::size_t)> progress;
};

struct QuantizeReport {
  std::size_t activations = 0;  // values made int8
  std::size_t weights = 0;      // constants made int8
  std::size_t boundaries = 0;   // QuantizeLinear / DequantizeLinear inserted
  std::size_t float_layers = 0;  // left float: --high_precision_layer and --force_to_cpu nodes
  std::size_t clips_as_relu = 0;  // Clip(0, hi) that int8 saturation makes a Relu (ReLU6)
  std::size_t batches = 0;
  std::size_t external_values = 0;  // encodings taken from --gfpq_param_file
};

// --high_precision_layer: the named nodes (graph or ONNX names) stay float — their inputs
// are dequantized, their outputs quantized again for int8 readers. The vendor raises such
// layers to A16W8 (int16 activations); float is at least as precise (docs/quantization.md).
// err::kInvalidParam naming an unknown node.
Status mark_high_precision(Graph& g, const std::vector<std::string>& names);

// Errors: those of evaluating the float graph on the data (the node and the kernel's
// message); err::kInvalidParam for an empty calibration set.
Result<QuantizeReport> quantize_a8w8(Graph& g, const CalibrationSet& data, const QuantizeOptions& options);

}  // namespace svp::compiler::quant
