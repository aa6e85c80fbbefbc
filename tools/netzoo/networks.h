// svp_acl_netzoo: ImageNet-style networks with random weights (fixed seed), built with
// compiler::ModelBuilder, for benchmarks and tests.
//
//   NetOptions o;                      // 224×224, batch 1, float32
//   o.dtype = model::DType::kInt8;     // quantized variant
//   Result<compiler::BuiltModel> m = netzoo::build_resnet18(o);
//
// Shapes follow the torchvision models with batch norm folded into the convolutions
// (every Conv has a bias). One model input "data" [N, 3, H, W] (NCHW), one model output
// "logits" [N, classes] in float32.
//
// int8 variant: int8 activations quantized per tensor (zero point 0, one scale for all
// activations), int8 weights per output channel, int32 biases; ReLU6 (MobileNetV2) is
// expressed as Relu with an activation scale that saturates at 6 — the usual way
// quantized MobileNetV2 models fold it into the quantization range; the classifier
// (Gemm) writes float32 logits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/status.h"
#include "compiler/builder.h"

namespace svp::netzoo {

struct NetOptions {
  model::DType dtype = model::DType::kFloat32;  // kFloat32 or kInt8
  std::int64_t batch = 1;
  std::int64_t height = 224;
  std::int64_t width = 224;
  std::int64_t classes = 1000;
  std::uint32_t seed = 1;
  // Segments (the preemption unit): 0 = one per layer (the builder's default); n > 0 =
  // consecutive groups of n layers.
  std::size_t segment_every = 0;
};

Result<compiler::BuiltModel> build_resnet18(const NetOptions& options);
Result<compiler::BuiltModel> build_mobilenet_v2(const NetOptions& options);
// Float32 only (err::kFeatureUnsupported otherwise): the board timing model's calibration
// networks, shapes as torchvision's (ViT: the attention as the ONNX export writes it, GELU
// through Erf). SqueezeNet's logits come from its final convolution and average pool.
Result<compiler::BuiltModel> build_resnet50(const NetOptions& options);
// The held-out check's networks (docs/board_time.md), float32 only like the above.
Result<compiler::BuiltModel> build_resnet101(const NetOptions& options);
Result<compiler::BuiltModel> build_shufflenet_v2(const NetOptions& options);  // x1.0
// More calibration networks (docs/board_time.md), float32 only: SE-ResNet50 (senet.pytorch's,
// the SE gating as its ONNX export writes it, Expand included) and PFLD at 112x112.
Result<compiler::BuiltModel> build_se_resnet50(const NetOptions& options);
Result<compiler::BuiltModel> build_pfld(const NetOptions& options);
// YOLOv5s v6+ without box decoding, three outputs; act "silu" or "relu" (set height and
// width, e.g. 640).
Result<compiler::BuiltModel> build_yolov5s(const NetOptions& options, const std::string& act);
// YOLOv8 scale 'n' or 's' without the DFL and decoding, six outputs (box bins and class
// sigmoid per level).
Result<compiler::BuiltModel> build_yolov8(const NetOptions& options, char scale);
Result<compiler::BuiltModel> build_vgg16(const NetOptions& options);
Result<compiler::BuiltModel> build_squeezenet1_1(const NetOptions& options);
Result<compiler::BuiltModel> build_vit_b16(const NetOptions& options);

}  // namespace svp::netzoo
