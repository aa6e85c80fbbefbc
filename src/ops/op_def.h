// What an op is, written once: the traits every pass and kernel planner reads instead of
// keeping its own list of op names. One OpDef per ONNX op the project knows (op_table.cpp);
// the reference kernel and shape inference of the same op are registered by name in
// src/kernels (a unit test holds the two tables to the same set of names).
//
// What a *target* does with an op (NPU, AI-CPU fallback, refused, attribute limits) is not
// here: that is the target's device profile (src/target), which reads these traits.
//
// The table is immutable static data: every function here is safe from any thread.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace svp::ops {

// A coarse family, for the generated docs and as the default of the other traits.
enum class OpClass : std::uint8_t {
  kCube,          // convolution and matrix products (the NPU's cube unit)
  kPool,          // spatial pooling
  kNormalization, // batch/instance/layer norms, softmax, LRN
  kActivation,    // unary elementwise activations
  kElementwise,   // other elementwise math (binary, unary, comparison, logical)
  kReduction,     // reductions over axes, arg-max/min, top-k
  kDataMovement,  // reshape, transpose, slice, concat, pad, resize, ...: moves values
  kIndexing,      // gather/scatter and friends
  kRecurrent,     // LSTM, GRU, RNN
  kQuantization,  // (de)quantization and the integer ONNX ops
  kTypeCast,      // Cast, CastLike
  kSignal,        // DFT, STFT
  kTraining,      // optimizer steps and losses
  kOther,
};

// How int8/int16 quantization treats the op (docs/quantization.md).
enum class QuantRole : std::uint8_t {
  kPassThrough,  // moves or selects one input's values: the output keeps that input's encoding
  kRequantize,   // computes on its inputs' values and writes its own calibrated encoding
  kFloatOnly,    // always computes in float (type conversions)
  kBoundary,     // a quantization boundary itself (QuantizeLinear, DequantizeLinear): the
                 // quantizer inserts them; a model's own are absorbed first (quantize/qdq.h)
};

// Which dimension of the weight (input 1) gets one scale per slice with per-channel weights.
enum class WeightAxis : std::uint8_t {
  kNone,         // no int8 weight input
  kConvOutput,   // W [M, C/g, k...]: axis 0 (the output channels)
  kDeconvOutput, // W [C, M/g, k...]: axis 1 (M/g output channels, shared by the groups)
  kMatMulLast,   // B [..., K, N] when B is a constant: the last axis
  kGemmOutput,   // B [K, N] (axis 1), or [N, K] with transB (axis 0)
};

// How the cube unit's multiply-accumulates are counted (kernels/cost.h).
enum class MacRule : std::uint8_t {
  kNone,           // not a cube op: 0 MACs
  kConv,           // output elements × W's elements per output channel
  kConvTranspose,  // input elements × W's elements per input channel
  kGemm,           // output elements × K (K from A's shape and transA)
  kMatMul,         // output elements × K (A's last axis)
  kRecurrent,      // steps × batch × directions × gates·hidden × (input + hidden)
};

// How the op behaves on the software NPU's NHWC working layout (docs/kernels.md).
enum class LayoutRole : std::uint8_t {
  kLogical,      // needs its inputs in logical (NCHW) order
  kElementwise,  // layout-agnostic when its data operands share the output's shape
  kNhwcView,     // has an exact NHWC form (channel Concat, nearest Resize)
};

// The oneDNN fast path the planner tries first (src/kernels/onednn), if any; the conditions
// each one checks (constant weights, dtypes, shapes) are the planner's, listed in `fast_note`.
enum class FastPath : std::uint8_t {
  kNone,
  kConvolution,   // oneDNN convolution with fused post-ops (and int8 with requantization)
  kDeconvolution, // oneDNN deconvolution (constant weights)
  kPooling,       // oneDNN pooling
  kInnerProduct,  // oneDNN inner product (Gemm, and MatMul with a constant 2-D B)
  kEltwise,       // oneDNN eltwise on float tensors
  kBinary,        // float binary on NHWC views; int8 Add (q8_add)
  kDataMovement,  // exact NHWC views (Concat along C, nearest Resize)
};

// What the board timing model charges the op as (issue 27; docs/ops.md).
enum class TimingClass : std::uint8_t {
  kCube,      // MAC-bound on the cube unit, or DDR-bound on its operands
  kVector,    // per-element work on the vector unit: DDR/bandwidth-bound
  kMove,      // pure data movement: bytes in + bytes out
  kFree,      // no work on the device (Identity, Reshape of a contiguous tensor)
  kScalar,    // control-like or irregular work that only a CPU does well
};

struct OpDef {
  const char* name;  // ONNX op type
  OpClass op_class;
  QuantRole quant;
  // A quantizable layer of the vendor's list: in modes 5/6 (--compile_mode with CUBE-only
  // quantization) only these compute on integers, the rest in fp16.
  bool quant_cube;
  // The output's values are some of the inputs' values, unchanged (no arithmetic): what was
  // stored at fp16 stays exactly fp16, so no fresh rounding is modelled (modes 5/6, om.json).
  bool moves_values;
  WeightAxis weight_axis;
  MacRule macs;
  std::uint8_t mac_weight_input;  // the input holding the weights MacRule::kConv reads (QLinearConv: 3)
  LayoutRole layout;
  FastPath fast;
  TimingClass timing;
  // The op is part of the vendor SVP NPU's operator specification (the ops its ATC places
  // on the NPU core). Target profiles with an explicit support list ignore it.
  bool svp_npu;
  const char* fast_note;  // when the fast path applies (generated docs), "" if none
};

// All ops, sorted by name.
const std::vector<OpDef>& all_ops();

// The op's definition, or nullptr for an op the project does not know.
const OpDef* find_op(std::string_view name);

// The op's definition; an unknown op gets `unknown_op()` (float-only, logical layout,
// no cost, not an NPU op) so callers need no null check where that default is right.
const OpDef& op_def(std::string_view name);
const OpDef& unknown_op();

// Convenience predicates over the table (each reads one trait).
inline bool is_quant_cube(std::string_view op) { return op_def(op).quant_cube; }
inline bool passes_encoding(std::string_view op) { return op_def(op).quant == QuantRole::kPassThrough; }
inline bool moves_values(std::string_view op) { return op_def(op).moves_values; }
inline bool is_recurrent(std::string_view op) { return op_def(op).macs == MacRule::kRecurrent; }

const char* to_string(OpClass c);
const char* to_string(QuantRole q);
const char* to_string(LayoutRole l);
const char* to_string(FastPath f);
const char* to_string(TimingClass t);

}  // namespace svp::ops
