// The op table: one row per op. A row starts from its class's defaults (op_row) and states
// only what differs. Add an op here when its reference kernel is registered in src/kernels
// (OpTable.EveryKernelHasOneRowAndEveryRowAKernel fails until both exist).
//
// Sources of the traits:
//  * svp_npu: the vendor SVP ATC operator specification, restricted to the ops svp-acl has
//    kernels for (everything else is placed on the AI-CPU);
//  * quant_cube: the vendor's list of quantizable layers (Convolution, Deconvolution,
//    DepthwiseConv, InnerProduct, MatMul, Pooling) in ONNX terms;
//  * pass-through and moves_values: ops whose output values are input 0's values. Their
//    kernels move raw elements and require the output's encoding to be the input's, so an
//    int8 model with one of them must pass the encoding on (issue 29: Gather, the ViT class
//    token x[:, 0], failed every execution when it was calibrated like a computing op).
//    Marking another changes compiled int8 and fp16 models (docs/quantization.md).
#include <algorithm>
#include <string>

#include "ops/op_def.h"

namespace svp::ops {
namespace {

// A row under construction: class defaults, then the differences.
struct Row {
  OpDef d;
  Row& cube() { d.quant_cube = true; return *this; }
  Row& quant(QuantRole q) { d.quant = q; return *this; }
  Row& passes() { d.quant = QuantRole::kPassThrough; d.moves_values = true; return *this; }
  Row& moves() { d.moves_values = true; return *this; }
  Row& weights(WeightAxis a) { d.weight_axis = a; return *this; }
  Row& macs(MacRule r, std::uint8_t weight_input = 1) { d.macs = r; d.mac_weight_input = weight_input; return *this; }
  Row& layout(LayoutRole l) { d.layout = l; return *this; }
  Row& fast(FastPath f, const char* note) { d.fast = f; d.fast_note = note; return *this; }
  Row& timing(TimingClass t) { d.timing = t; return *this; }
  Row& npu() { d.svp_npu = true; return *this; }
};

TimingClass default_timing(OpClass c) {
  switch (c) {
    case OpClass::kCube:
    case OpClass::kRecurrent: return TimingClass::kCube;
    case OpClass::kPool:
    case OpClass::kNormalization:
    case OpClass::kActivation:
    case OpClass::kElementwise:
    case OpClass::kReduction:
    case OpClass::kQuantization:
    case OpClass::kTypeCast: return TimingClass::kVector;
    case OpClass::kDataMovement:
    case OpClass::kIndexing: return TimingClass::kMove;
    case OpClass::kSignal:
    case OpClass::kTraining:
    case OpClass::kOther: break;
  }
  return TimingClass::kScalar;
}

Row op_row(const char* name, OpClass c) {
  Row r{};
  r.d.name = name;
  r.d.op_class = c;
  r.d.quant = QuantRole::kRequantize;
  r.d.quant_cube = false;
  r.d.moves_values = false;
  r.d.weight_axis = WeightAxis::kNone;
  r.d.macs = MacRule::kNone;
  r.d.mac_weight_input = 1;
  r.d.layout = LayoutRole::kLogical;
  r.d.fast = FastPath::kNone;
  r.d.timing = default_timing(c);
  r.d.svp_npu = false;
  r.d.fast_note = "";
  return r;
}

constexpr const char* kEltwiseNote = "float tensors of one shape (the flat tensor, any layout)";
constexpr const char* kBinaryNote =
    "float operands of the output's shape, a scalar constant or a per-channel [n,C,1,1] operand, on NHWC views";
constexpr const char* kAddNote =
    "float operands of the output's shape, a scalar constant or a per-channel [n,C,1,1] operand, on NHWC views; "
    "int8 Add of two same-shape operands (q8_add)";

std::vector<OpDef> build() {
  using C = OpClass;
  using Q = QuantRole;
  using T = TimingClass;
  const Row rows[] = {
      // Cube ops.
      op_row("Conv", C::kCube).npu().cube().weights(WeightAxis::kConvOutput).macs(MacRule::kConv)
          .fast(FastPath::kConvolution, "constant weights, 1-D/2-D kernels; float, or int8 (oneDNN with VNNI, "
                                        "vnni_dw_int8 for depthwise layers filling its 64-channel blocks, avx2_int8 "
                                        "on AVX2 without VNNI: docs/kernels.md); activation and scalar affine steps "
                                        "fused as post-ops"),
      op_row("ConvTranspose", C::kCube).npu().cube().weights(WeightAxis::kDeconvOutput).macs(MacRule::kConvTranspose)
          .fast(FastPath::kDeconvolution, "constant weights and bias"),
      op_row("Gemm", C::kCube).npu().cube().weights(WeightAxis::kGemmOutput).macs(MacRule::kGemm)
          .fast(FastPath::kInnerProduct, "constant B and C; int8 (oneDNN with VNNI, avx2_int8 on AVX2 without)"),
      op_row("MatMul", C::kCube).npu().cube().weights(WeightAxis::kMatMulLast).macs(MacRule::kMatMul)
          .fast(FastPath::kInnerProduct, "constant 2-D B (inner product); other float shapes through oneDNN's sgemm"),
      op_row("ConvInteger", C::kQuantization).macs(MacRule::kConv).timing(T::kCube),
      op_row("QLinearConv", C::kQuantization).macs(MacRule::kConv, 3).timing(T::kCube),
      op_row("MatMulInteger", C::kQuantization).macs(MacRule::kMatMul).timing(T::kCube),
      op_row("QLinearMatMul", C::kQuantization).macs(MacRule::kMatMul).timing(T::kCube),
      op_row("Einsum", C::kCube).timing(T::kScalar),
      // Pools.
      op_row("MaxPool", C::kPool).npu().cube().passes().fast(FastPath::kPooling, "2-D, no indices output"),
      op_row("AveragePool", C::kPool).npu().cube().fast(FastPath::kPooling, "2-D"),
      op_row("GlobalAveragePool", C::kPool).npu().cube()
          .fast(FastPath::kPooling, "4-D float; int8 through q8_gap"),
      op_row("GlobalMaxPool", C::kPool).npu().cube().passes(),
      op_row("MaxUnpool", C::kPool).timing(T::kMove),
      // Normalisation.
      op_row("BatchNormalization", C::kNormalization).npu(),
      op_row("InstanceNormalization", C::kNormalization).npu(),
      op_row("LayerNormalization", C::kNormalization),
      op_row("MeanVarianceNormalization", C::kNormalization),
      op_row("LRN", C::kNormalization).npu(),
      op_row("Softmax", C::kNormalization).npu(),
      op_row("LogSoftmax", C::kNormalization),
      op_row("Hardmax", C::kNormalization),
      // Activations.
      op_row("Relu", C::kActivation).npu().layout(LayoutRole::kElementwise).fast(FastPath::kEltwise, kEltwiseNote),
      op_row("LeakyRelu", C::kActivation).npu().layout(LayoutRole::kElementwise)
          .fast(FastPath::kEltwise, kEltwiseNote),
      op_row("PRelu", C::kActivation).npu(),
      op_row("Sigmoid", C::kActivation).npu().layout(LayoutRole::kElementwise).fast(FastPath::kEltwise, kEltwiseNote),
      op_row("Tanh", C::kActivation).npu().layout(LayoutRole::kElementwise).fast(FastPath::kEltwise, kEltwiseNote),
      op_row("HardSigmoid", C::kActivation).npu().layout(LayoutRole::kElementwise)
          .fast(FastPath::kEltwise, "none in oneDNN 2.6's form: reference kernel on NHWC views"),
      op_row("HardSwish", C::kActivation).npu().layout(LayoutRole::kElementwise)
          .fast(FastPath::kEltwise, kEltwiseNote),
      op_row("Clip", C::kActivation).npu().layout(LayoutRole::kElementwise)
          .fast(FastPath::kEltwise, "float, constant bounds"),
      op_row("Elu", C::kActivation).npu(),
      op_row("Celu", C::kActivation),
      op_row("Selu", C::kActivation),
      op_row("Softplus", C::kActivation).npu(),
      op_row("Softsign", C::kActivation),
      op_row("ThresholdedRelu", C::kActivation),
      op_row("Shrink", C::kActivation),
      // Elementwise math.
      op_row("Add", C::kElementwise).npu().layout(LayoutRole::kElementwise).fast(FastPath::kBinary, kAddNote),
      op_row("Sub", C::kElementwise).npu().layout(LayoutRole::kElementwise).fast(FastPath::kBinary, kBinaryNote),
      op_row("Mul", C::kElementwise).npu().layout(LayoutRole::kElementwise).fast(FastPath::kBinary, kBinaryNote),
      op_row("Div", C::kElementwise).npu().layout(LayoutRole::kElementwise).fast(FastPath::kBinary, kBinaryNote),
      op_row("Pow", C::kElementwise).npu(),
      op_row("Sqrt", C::kElementwise).npu(),
      op_row("Max", C::kElementwise).npu(),
      op_row("Min", C::kElementwise).npu(),
      op_row("Abs", C::kElementwise).npu(),
      op_row("Exp", C::kElementwise).npu(),
      op_row("Sum", C::kElementwise),
      op_row("Mean", C::kElementwise),
      op_row("Mod", C::kElementwise),
      op_row("Neg", C::kElementwise),
      op_row("Reciprocal", C::kElementwise),
      op_row("Log", C::kElementwise),
      op_row("Erf", C::kElementwise),
      op_row("Sign", C::kElementwise),
      op_row("Ceil", C::kElementwise),
      op_row("Floor", C::kElementwise),
      op_row("Round", C::kElementwise),
      op_row("Sin", C::kElementwise),
      op_row("Cos", C::kElementwise),
      op_row("Tan", C::kElementwise),
      op_row("Asin", C::kElementwise),
      op_row("Acos", C::kElementwise),
      op_row("Atan", C::kElementwise),
      op_row("Sinh", C::kElementwise),
      op_row("Cosh", C::kElementwise),
      op_row("Asinh", C::kElementwise),
      op_row("Acosh", C::kElementwise),
      op_row("Atanh", C::kElementwise),
      op_row("BitShift", C::kElementwise),
      op_row("Equal", C::kElementwise),
      op_row("Greater", C::kElementwise),
      op_row("GreaterOrEqual", C::kElementwise),
      op_row("Less", C::kElementwise),
      op_row("LessOrEqual", C::kElementwise),
      op_row("And", C::kElementwise),
      op_row("Or", C::kElementwise),
      op_row("Xor", C::kElementwise),
      op_row("Not", C::kElementwise),
      op_row("IsNaN", C::kElementwise),
      op_row("IsInf", C::kElementwise),
      op_row("Where", C::kElementwise),
      op_row("CumSum", C::kElementwise),
      op_row("Det", C::kElementwise).timing(T::kScalar),
      // Reductions.
      op_row("ReduceMean", C::kReduction).npu(),
      op_row("ReduceMax", C::kReduction).npu(),
      op_row("ArgMax", C::kReduction).npu(),
      op_row("ArgMin", C::kReduction),
      op_row("ReduceMin", C::kReduction),
      op_row("ReduceSum", C::kReduction),
      op_row("ReduceSumSquare", C::kReduction),
      op_row("ReduceProd", C::kReduction),
      op_row("ReduceL1", C::kReduction),
      op_row("ReduceL2", C::kReduction),
      op_row("ReduceLogSum", C::kReduction),
      op_row("ReduceLogSumExp", C::kReduction),
      op_row("TopK", C::kReduction).timing(T::kScalar),
      // Data movement.
      op_row("Reshape", C::kDataMovement).npu().passes().timing(T::kFree),
      op_row("Flatten", C::kDataMovement).npu().passes().timing(T::kFree),
      op_row("Squeeze", C::kDataMovement).npu().passes().timing(T::kFree),
      op_row("Unsqueeze", C::kDataMovement).npu().passes().timing(T::kFree),
      op_row("Identity", C::kDataMovement).npu().passes().timing(T::kFree),
      op_row("Dropout", C::kDataMovement).npu().passes().timing(T::kFree),
      op_row("Transpose", C::kDataMovement).npu().passes(),
      op_row("Slice", C::kDataMovement).npu().passes(),
      op_row("Split", C::kDataMovement).npu().passes(),
      op_row("Concat", C::kDataMovement).npu().moves().layout(LayoutRole::kNhwcView)
          .fast(FastPath::kDataMovement, "4-D along the channels when an input is NHWC already"),
      op_row("Resize", C::kDataMovement).npu().layout(LayoutRole::kNhwcView)
          .fast(FastPath::kDataMovement, "nearest mode on an NHWC input"),
      op_row("Pad", C::kDataMovement).npu(),
      op_row("DepthToSpace", C::kDataMovement).npu().passes(),
      op_row("SpaceToDepth", C::kDataMovement).npu().passes(),
      op_row("Expand", C::kDataMovement).passes(),
      op_row("Tile", C::kDataMovement).passes(),
      op_row("Trilu", C::kDataMovement),
      op_row("ReverseSequence", C::kDataMovement).passes(),
      op_row("GridSample", C::kDataMovement).timing(T::kScalar),
      op_row("RoiAlign", C::kDataMovement).timing(T::kScalar),
      // Indexing.
      op_row("Gather", C::kIndexing).passes(),
      op_row("GatherElements", C::kIndexing).passes(),
      op_row("GatherND", C::kIndexing).passes(),
      op_row("Scatter", C::kIndexing),
      op_row("ScatterElements", C::kIndexing),
      op_row("ScatterND", C::kIndexing),
      op_row("OneHot", C::kIndexing),
      op_row("EyeLike", C::kIndexing),
      op_row("Range", C::kIndexing).timing(T::kScalar),
      op_row("ConstantOfShape", C::kIndexing),
      op_row("Size", C::kIndexing).timing(T::kScalar),
      // Recurrent cells.
      op_row("LSTM", C::kRecurrent).npu().macs(MacRule::kRecurrent),
      op_row("GRU", C::kRecurrent).npu().macs(MacRule::kRecurrent),
      op_row("RNN", C::kRecurrent).npu().macs(MacRule::kRecurrent),
      // Quantization and types.
      op_row("QuantizeLinear", C::kQuantization).npu().quant(Q::kBoundary),
      op_row("DequantizeLinear", C::kQuantization).npu().quant(Q::kBoundary),
      op_row("DynamicQuantizeLinear", C::kQuantization),
      op_row("Cast", C::kTypeCast).npu().quant(Q::kFloatOnly),
      op_row("CastLike", C::kTypeCast).quant(Q::kFloatOnly),
      // Signal processing, training, text.
      op_row("DFT", C::kSignal),
      op_row("STFT", C::kSignal),
      op_row("Adagrad", C::kTraining),
      op_row("Adam", C::kTraining),
      op_row("Momentum", C::kTraining),
      op_row("NegativeLogLikelihoodLoss", C::kTraining),
      op_row("SoftmaxCrossEntropyLoss", C::kTraining),
      op_row("TfIdfVectorizer", C::kOther),
  };
  std::vector<OpDef> v;
  for (const Row& r : rows) v.push_back(r.d);
  std::sort(v.begin(), v.end(), [](const OpDef& a, const OpDef& b) { return std::string_view(a.name) < b.name; });
  return v;
}

}  // namespace

const std::vector<OpDef>& all_ops() {
  static const std::vector<OpDef> ops = build();
  return ops;
}

const OpDef* find_op(std::string_view name) {
  const auto& ops = all_ops();
  auto it = std::lower_bound(ops.begin(), ops.end(), name,
                             [](const OpDef& d, std::string_view n) { return std::string_view(d.name) < n; });
  return it != ops.end() && it->name == name ? &*it : nullptr;
}

const OpDef& unknown_op() {
  static const OpDef d = op_row("", OpClass::kOther).d;
  return d;
}

const OpDef& op_def(std::string_view name) {
  const OpDef* d = find_op(name);
  return d != nullptr ? *d : unknown_op();
}

const char* to_string(OpClass c) {
  switch (c) {
    case OpClass::kCube: return "cube";
    case OpClass::kPool: return "pool";
    case OpClass::kNormalization: return "normalization";
    case OpClass::kActivation: return "activation";
    case OpClass::kElementwise: return "elementwise";
    case OpClass::kReduction: return "reduction";
    case OpClass::kDataMovement: return "data movement";
    case OpClass::kIndexing: return "indexing";
    case OpClass::kRecurrent: return "recurrent";
    case OpClass::kQuantization: return "quantization";
    case OpClass::kTypeCast: return "type cast";
    case OpClass::kSignal: return "signal";
    case OpClass::kTraining: return "training";
    case OpClass::kOther: break;
  }
  return "other";
}

const char* to_string(QuantRole q) {
  switch (q) {
    case QuantRole::kPassThrough: return "pass-through";
    case QuantRole::kRequantize: return "requantized";
    case QuantRole::kFloatOnly: return "float only";
    case QuantRole::kBoundary: break;
  }
  return "boundary";
}

const char* to_string(LayoutRole l) {
  switch (l) {
    case LayoutRole::kElementwise: return "any (elementwise)";
    case LayoutRole::kNhwcView: return "NHWC view";
    case LayoutRole::kLogical: break;
  }
  return "logical";
}

const char* to_string(FastPath f) {
  switch (f) {
    case FastPath::kConvolution: return "convolution";
    case FastPath::kDeconvolution: return "deconvolution";
    case FastPath::kPooling: return "pooling";
    case FastPath::kInnerProduct: return "inner product";
    case FastPath::kEltwise: return "eltwise";
    case FastPath::kBinary: return "binary";
    case FastPath::kDataMovement: return "NHWC view";
    case FastPath::kNone: break;
  }
  return "";
}

const char* to_string(TimingClass t) {
  switch (t) {
    case TimingClass::kCube: return "cube";
    case TimingClass::kVector: return "vector";
    case TimingClass::kMove: return "move";
    case TimingClass::kFree: return "free";
    case TimingClass::kScalar: break;
  }
  return "scalar";
}

}  // namespace svp::ops
