// The reference op table: each op family file contributes its ops' shape inference and
// reference run functions; registry.cpp dispatches op name → entry.
#pragma once

#include <cstddef>
#include <vector>

#include "kernels/common.h"

namespace svp::kernels::detail {

using InferFn = Result<std::vector<Shape>> (*)(const InferCtx&);
using RunFn = Status (*)(const RunCtx&);

struct OpDef {
  const char* name;
  std::size_t min_inputs;
  std::size_t max_inputs;
  InferFn infer;
  RunFn run;
};

inline constexpr std::size_t kVariadic = 1u << 20;

// Shape inference of the ops whose one output has their first input's shape.
inline Result<std::vector<Shape>> infer_same(const InferCtx& c) { return std::vector<Shape>{c.in[0]}; }

void add_conv_ops(std::vector<OpDef>& ops);     // Conv, ConvTranspose
void add_pool_ops(std::vector<OpDef>& ops);     // MaxPool, AveragePool, GlobalAveragePool
void add_eltwise_ops(std::vector<OpDef>& ops);  // Relu, LeakyRelu, Sigmoid, Tanh, HardSigmoid, HardSwish, Clip
void add_binary_ops(std::vector<OpDef>& ops);   // arithmetic, variadic, comparison, logical; PRelu
void add_matmul_ops(std::vector<OpDef>& ops);   // MatMul, Gemm
void add_norm_ops(std::vector<OpDef>& ops);     // BatchNormalization, Softmax
void add_shape_ops(
    std::vector<OpDef>& ops);  // Concat, Reshape, Flatten, Transpose, Squeeze, Unsqueeze, Slice, Split, Pad
void add_resize_ops(std::vector<OpDef>& ops);  // Resize
void add_reduce_ops(std::vector<OpDef>& ops);  // ReduceMean, ReduceMax, ArgMax
void add_quant_ops(std::vector<OpDef>& ops);   // QuantizeLinear, DequantizeLinear
void add_math_ops(std::vector<OpDef>& ops);    // Sqrt, Cast, CastLike
void add_unary_ops(std::vector<OpDef>& ops);   // math functions, Abs/Neg/Sign, activations, IsNaN/IsInf, Not
void add_index_ops(std::vector<OpDef>& ops);   // Gather*, Scatter*, Expand, Tile, OneHot, TopK, Trilu, CumSum, ...
void add_einsum_ops(std::vector<OpDef>& ops);   // Einsum
void add_grid_sample_ops(std::vector<OpDef>& ops);  // GridSample
void add_dft_ops(std::vector<OpDef>& ops);          // DFT, STFT
void add_roi_align_ops(std::vector<OpDef>& ops);    // RoiAlign
void add_recurrent_ops(std::vector<OpDef>& ops);   // LSTM, GRU, RNN
void add_loss_ops(std::vector<OpDef>& ops);    // NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
void add_tfidf_ops(std::vector<OpDef>& ops);   // TfIdfVectorizer
void add_optimizer_ops(std::vector<OpDef>& ops);  // Adagrad, Adam, Momentum (ai.onnx.preview.training)

}  // namespace svp::kernels::detail
