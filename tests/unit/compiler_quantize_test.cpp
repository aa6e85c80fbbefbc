// quantize_graph on hand-built graphs: what becomes int8, the weights' encodings, the float
// edges, and that the quantized graph computes nearly what the float graph computes.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <string>

#include "compiler/quantize/evaluate.h"
#include "common/metrics.h"
#include "compiler/quantize/layer_accuracy.h"
#include "compiler/quantize/mixed_precision.h"
#include "compiler/quantize/quantize.h"
#include "compiler/quantize/real_values.h"
#include "compiler/quantize/weight_search.h"
#include "compiler_graph.h"
#include "kernels/common.h"
#include "model_io.h"

namespace svp::compiler::quant {
namespace {

using model::DType;
using namespace testing_graph;  // NOLINT(google-build-using-namespace)

// x[1,2,6,6] → Conv(3 filters, 3×3) → Relu → Flatten → y[1,48].
struct Net {
  Graph g;
  ValueId x = -1, w = -1, c = -1, r = -1, y = -1;
  NodeId conv = -1, act = -1;
};

// act: "Relu", or "Clip" with bounds [0, clip_hi] as constant inputs (opset 11+).
// ignore_channel0: the Conv's weights on input channel 0 are zero.
Net net(const char* act = "Relu", float clip_hi = 6.0f, bool ignore_channel0 = false) {
  Net n;
  Graph& g = n.g;
  n.x = value(g, "x", {1, 2, 6, 6});
  g.inputs.push_back(n.x);
  std::vector<float> w(3 * 2 * 3 * 3);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = (static_cast<float>(i % 11) - 5.0f) * (i < 18 ? 0.1f : 0.02f);
  for (std::size_t i = 0; ignore_channel0 && i < w.size(); ++i) {
    if (i % 18 < 9) w[i] = 0.0f;  // [out][in = 0][3][3]
  }
  n.w = constant(g, "w", {3, 2, 3, 3}, w);
  n.c = value(g, "c", {1, 3, 4, 4});
  n.r = value(g, "r", {1, 3, 4, 4});
  n.y = value(g, "y", {1, 48});
  n.conv = node(g, "conv", "Conv", {n.x, n.w}, {n.c});
  if (std::string(act) == "Clip") {
    n.act = node(g, "relu6", "Clip", {n.c, constant(g, "lo", {}, {0.0f}), constant(g, "hi", {}, {clip_hi})}, {n.r});
  } else {
    n.act = node(g, "relu", act, {n.c}, {n.r});
  }
  node(g, "flat", "Flatten", {n.r}, {n.y});
  g.outputs.push_back(n.y);
  return n;
}

CalibrationSet batches(std::size_t count, unsigned seed) {
  CalibrationSet set;
  for (std::size_t b = 0; b < count; ++b) {
    std::vector<kernels::OwnedTensor> in;
    in.push_back(kernels::OwnedTensor::f32({1, 2, 6, 6}, test::random_floats(72, seed + static_cast<unsigned>(b))));
    set.batches.push_back(std::move(in));
  }
  set.items = count;
  return set;
}

TEST(QuantizeA8W8, ActivationsAndWeightsBecomeInt8BehindFloatEdges) {
  Net n = net();
  auto rep = quantize_graph(n.g, batches(4, 1), QuantizeOptions{});
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  EXPECT_EQ(rep->weights, 1u);
  EXPECT_EQ(rep->boundaries, 2u);  // a QuantizeLinear after x, a DequantizeLinear before y
  // After a ReLU the range starts at 0: uint8 with zero point 0 (all 256 levels), and the
  // Conv the ReLU reads takes the ReLU's encoding so that the runtime fuses the pair.
  EXPECT_EQ(n.g.value(n.r).dtype, DType::kUint8);
  EXPECT_EQ(n.g.value(n.r).quant.zero_point, (std::vector<std::int32_t>{0}));
  EXPECT_EQ(n.g.value(n.c).dtype, DType::kUint8);
  EXPECT_EQ(n.g.value(n.c).quant.scale, n.g.value(n.r).quant.scale);
  EXPECT_EQ(n.g.value(n.x).dtype, DType::kFloat32);  // the application's input stays float
  // The graph output keeps its name and type; the int8 value before it was renamed.
  ASSERT_EQ(n.g.outputs.size(), 1u);
  EXPECT_EQ(n.g.value(n.g.outputs[0]).name, "y");
  EXPECT_EQ(n.g.value(n.g.outputs[0]).dtype, DType::kFloat32);
  // Flatten moves int8 values: its output has its input's encoding.
  EXPECT_EQ(n.g.value(n.y).quant.scale, n.g.value(n.r).quant.scale);
  EXPECT_EQ(n.g.value(n.y).quant.zero_point, n.g.value(n.r).quant.zero_point);
  // Conv weights: symmetric per output channel, scale = max|w_c| / 127.
  const Value& w = n.g.value(n.g.node(n.conv).inputs[1]);
  EXPECT_EQ(w.dtype, DType::kInt8);
  ASSERT_EQ(w.quant.scale.size(), 3u);
  EXPECT_EQ(w.quant.axis, 0);
  EXPECT_FLOAT_EQ(w.quant.scale[0], 0.5f / 127.0f);  // filter 0: |(i % 11) - 5| · 0.1 ≤ 0.5
  EXPECT_FLOAT_EQ(w.quant.scale[2], 0.1f / 127.0f);  // filter 2: weights × 0.02
  for (std::int32_t zp : w.quant.zero_point) EXPECT_EQ(zp, 0);
}

// As the vendor does: in an A8W8 model a high-precision layer becomes A16W8 — int16 on
// both sides, int8 weights — between int8 neighbours.
TEST(QuantizeA8W8, AHighPrecisionLayerBecomesA16W8BetweenInt8Neighbours) {
  Net n = net();
  ASSERT_TRUE(mark_high_precision(n.g, {"conv"}).ok());
  auto rep = quantize_graph(n.g, batches(4, 1), QuantizeOptions{});
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  EXPECT_EQ(rep->a16_layers, 1u);
  EXPECT_EQ(rep->float_layers, 0u);
  EXPECT_EQ(rep->weights, 1u);
  const Node& conv = n.g.node(n.conv);
  EXPECT_EQ(n.g.value(conv.inputs[1]).dtype, DType::kInt8);
  EXPECT_EQ(n.g.value(conv.inputs[0]).dtype, DType::kInt16);  // the input's QuantizeLinear writes int16
  EXPECT_EQ(n.g.value(n.c).dtype, DType::kInt16);
  EXPECT_EQ(n.g.value(n.c).quant.zero_point, (std::vector<std::int32_t>{0}));
  EXPECT_EQ(n.g.value(n.r).dtype, DType::kUint8);  // the Relu after it is A8W8
  ASSERT_EQ(rep->layers.size(), 3u);
  EXPECT_EQ(rep->layers[0].precision, Precision::kA16W8);
  EXPECT_EQ(rep->layers[1].precision, Precision::kA8W8);
  EXPECT_EQ(rep->activations16, 1u);
}

// Above A16W8 there is only float: with --compile_mode=1 a high-precision layer stays float.
TEST(QuantizeA16W8, AHighPrecisionLayerStaysFloatBetweenInt16Neighbours) {
  Net n = net();
  ASSERT_TRUE(mark_high_precision(n.g, {"conv"}).ok());
  QuantizeOptions o;
  o.activation_bits = 16;
  auto rep = quantize_graph(n.g, batches(4, 1), o);
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  EXPECT_EQ(rep->float_layers, 1u);
  EXPECT_EQ(rep->weights, 0u);  // the Conv's weights stay float
  const Node& conv = n.g.node(n.conv);
  EXPECT_EQ(n.g.value(conv.inputs[1]).dtype, DType::kFloat32);
  EXPECT_EQ(n.g.value(conv.inputs[0]).dtype, DType::kFloat32);  // reads the float input itself
  EXPECT_EQ(n.g.value(n.c).dtype, DType::kFloat32);             // writes float
  EXPECT_EQ(n.g.value(n.r).dtype, DType::kInt16);
  EXPECT_EQ(rep->boundaries, 2u);
}

TEST(QuantizeA16W8, ActivationsBecomeSymmetricInt16AndWeightsStayInt8) {
  Net n = net();
  QuantizeOptions o;
  o.activation_bits = 16;
  auto rep = quantize_graph(n.g, batches(4, 1), o);
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  for (ValueId v : {n.c, n.r, n.y}) {
    EXPECT_EQ(n.g.value(v).dtype, DType::kInt16) << n.g.value(v).name;
    EXPECT_EQ(n.g.value(v).quant.zero_point, (std::vector<std::int32_t>{0})) << n.g.value(v).name;
  }
  EXPECT_EQ(rep->activations, rep->activations16);
  EXPECT_EQ(n.g.value(n.g.node(n.conv).inputs[1]).dtype, DType::kInt8);
  EXPECT_EQ(n.g.value(n.g.node(n.conv).inputs[0]).dtype, DType::kInt16);
  // The boundaries' zero points are int16 too (ONNX: the quantized side's type).
  for (NodeId id : n.g.live_nodes()) {
    const Node& b = n.g.node(id);
    if (b.op != "QuantizeLinear" && b.op != "DequantizeLinear") continue;
    EXPECT_EQ(n.g.value(b.inputs[2]).dtype, DType::kInt16) << b.name;
  }
  for (const LayerPrecision& l : rep->layers) EXPECT_EQ(l.precision, Precision::kA16W8) << l.name;
}

// A conv whose input has a few large values: int8 spends its levels on the outliers, int16
// keeps the small values too, so A16W8 lands far closer to float.
TEST(QuantizeA16W8, IsCloserToFloatThanA8W8OnAWideRangeActivation) {
  auto wide = [](unsigned seed) {
    std::vector<float> x = test::random_floats(72, seed);
    x[7] = 60.0f;
    x[40] = -45.0f;
    return x;
  };
  CalibrationSet data;
  for (unsigned s = 0; s < 4; ++s) {
    std::vector<kernels::OwnedTensor> in;
    in.push_back(kernels::OwnedTensor::f32({1, 2, 6, 6}, wide(50 + s)));
    data.batches.push_back(std::move(in));
  }
  data.items = 4;
  Net f = net(), q8 = net(), q16 = net();
  QuantizeOptions o16;
  o16.activation_bits = 16;
  ASSERT_TRUE(quantize_graph(q8.g, data, QuantizeOptions{}).ok());
  ASSERT_TRUE(quantize_graph(q16.g, data, o16).ok());
  std::vector<kernels::OwnedTensor> in;
  in.push_back(kernels::OwnedTensor::f32({1, 2, 6, 6}, wide(999)));
  auto want = evaluate(f.g, in);
  auto got8 = evaluate(q8.g, in);
  auto got16 = evaluate(q16.g, in);
  ASSERT_TRUE(want.ok() && got8.ok() && got16.ok());
  auto error = [&](const std::vector<kernels::OwnedTensor>& got) {
    double e = 0;
    for (int i = 0; i < 48; ++i) {
      const double d = (*want)[0].view().as<const float>()[i] - got[0].view().as<const float>()[i];
      e += d * d;
    }
    return std::sqrt(e);
  };
  const double e8 = error(*got8), e16 = error(*got16);
  std::printf("rms-sum error: A8W8 %.6g, A16W8 %.6g\n", e8, e16);
  EXPECT_GT(e8, 0.0);
  EXPECT_LT(e16, e8 / 4);
}

// Modes 5 and 6: the Conv (a CUBE op) reads int8 / int16 through a QuantizeLinear and
// writes float; the Relu and Flatten are fp16 — what the Conv and the Relu write is
// rounded to float16 (a Cast pair), Flatten only moves values.
TEST(QuantizeCubeOnly, TheConvIsQuantizedAndTheRestIsFp16) {
  for (int bits : {8, 16}) {
    SCOPED_TRACE(bits);
    Net n = net();
    QuantizeOptions o;
    o.activation_bits = bits;
    o.cube_only = true;
    auto rep = quantize_graph(n.g, batches(4, 1), o);
    ASSERT_TRUE(rep.ok()) << rep.status().message();
    EXPECT_EQ(rep->weights, 1u);
    EXPECT_EQ(rep->fp16_layers, 2u);
    EXPECT_EQ(rep->fp16_roundings, 2u);
    EXPECT_EQ(rep->boundaries, 1u);  // the Conv's QuantizeLinear; the output is float already
    const Node& conv = n.g.node(n.conv);
    EXPECT_EQ(n.g.value(conv.inputs[0]).dtype, bits == 16 ? DType::kInt16 : DType::kInt8);
    EXPECT_EQ(n.g.value(conv.inputs[1]).dtype, DType::kInt8);
    const Value& conv_out = n.g.value(conv.outputs[0]);
    EXPECT_EQ(conv_out.dtype, DType::kFloat32);
    ASSERT_EQ(n.g.consumers(conv.outputs[0]).size(), 1u);
    const Node& down = n.g.node(n.g.consumers(conv.outputs[0])[0]);
    EXPECT_EQ(down.op, "Cast");
    EXPECT_EQ(n.g.value(down.outputs[0]).dtype, DType::kFloat16);
    EXPECT_EQ(n.g.value(n.c).producer >= 0 ? n.g.node(n.g.value(n.c).producer).op : "", "Cast");
    EXPECT_EQ(n.g.value(n.r).producer >= 0 ? n.g.node(n.g.value(n.r).producer).op : "", "Cast");
    EXPECT_EQ(n.g.node(n.g.value(n.y).producer).op, "Flatten");
    EXPECT_EQ(n.g.value(n.y).dtype, DType::kFloat32);
    EXPECT_EQ(rep->layers[0].precision, bits == 16 ? Precision::kA16W8 : Precision::kA8W8);
    EXPECT_EQ(rep->layers[1].precision, Precision::kFp16);
  }
}

// A CUBE op's output read by an fp16 op and by another CUBE op stays float (rounded to
// fp16) for the one, and is quantized for the other.
TEST(QuantizeCubeOnly, ACubeOutputReadByFp16AndCubeOpsIsQuantizedForTheCubeOp) {
  Graph g;
  const ValueId x = value(g, "x", {1, 2, 6, 6});
  g.inputs.push_back(x);
  const std::vector<float> w{0.5f, -0.25f, 0.125f, 1.0f};
  const ValueId c = value(g, "c", {1, 2, 6, 6}), s = value(g, "s", {1, 2, 6, 6}), d = value(g, "d", {1, 2, 6, 6});
  const ValueId y = value(g, "y", {1, 2, 6, 6});
  node(g, "conv1", "Conv", {x, constant(g, "w1", {2, 2, 1, 1}, w)}, {c});
  node(g, "sig", "Sigmoid", {c}, {s});
  const NodeId conv2 = node(g, "conv2", "Conv", {c, constant(g, "w2", {2, 2, 1, 1}, w)}, {d});
  node(g, "add", "Add", {s, d}, {y});
  g.outputs.push_back(y);
  QuantizeOptions o;
  o.cube_only = true;
  auto rep = quantize_graph(g, batches(4, 1), o);
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  const Value& in2 = g.value(g.node(conv2).inputs[0]);
  EXPECT_EQ(in2.dtype, DType::kInt8);
  ASSERT_GE(in2.producer, 0);
  EXPECT_EQ(g.node(in2.producer).op, "QuantizeLinear");
  EXPECT_EQ(g.node(in2.producer).inputs[0], c);  // the fp16-rounded value the Sigmoid reads too
  EXPECT_EQ(g.value(c).dtype, DType::kFloat32);
  EXPECT_EQ(g.node(g.value(c).producer).op, "Cast");
}

TEST(QuantizeCubeOnly, ComputesNearlyWhatTheFloatGraphComputes) {
  for (int bits : {8, 16}) {
    Net f = net(), q = net();
    QuantizeOptions o;
    o.activation_bits = bits;
    o.cube_only = true;
    ASSERT_TRUE(quantize_graph(q.g, batches(8, 10), o).ok());
    std::vector<kernels::OwnedTensor> in;
    in.push_back(kernels::OwnedTensor::f32({1, 2, 6, 6}, test::random_floats(72, 1000)));
    auto want = evaluate(f.g, in);
    auto got = evaluate(q.g, in);
    ASSERT_TRUE(want.ok()) << want.status().message();
    ASSERT_TRUE(got.ok()) << got.status().message();
    const float* a = (*want)[0].view().as<const float>();
    const float* b = (*got)[0].view().as<const float>();
    float peak = 0;
    for (int i = 0; i < 48; ++i) peak = std::max(peak, std::fabs(a[i]));
    // int8: a step of the input and weight grids; int16: the weights' grid and fp16 rounding.
    const float tol = peak * (bits == 16 ? 0.01f : 0.03f);
    for (int i = 0; i < 48; ++i) EXPECT_NEAR(a[i], b[i], tol) << bits << " " << i;
    // Every output is a float16 value.
    for (int i = 0; i < 48; ++i) {
      const float v = b[i];
      int e = 0;
      const float m = std::frexp(v, &e);
      EXPECT_EQ(std::ldexp(std::nearbyint(std::ldexp(m, 11)), e - 11), v) << i;
    }
  }
}

TEST(Quantize, RefusesActivationWidthsOtherThan8And16) {
  Net n = net();
  QuantizeOptions o;
  o.activation_bits = 4;
  EXPECT_EQ(quantize_graph(n.g, batches(1, 1), o).status().code(), err::kInvalidParam);
}

TEST(QuantizeA8W8, ANodeForcedOntoTheAiCpuComputesInFloat) {
  Net n = net();
  n.g.node(n.conv).target = model::Target::kAiCpu;  // what --force_to_cpu leaves before quantization
  auto rep = quantize_graph(n.g, batches(4, 1), QuantizeOptions{});
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  EXPECT_EQ(rep->float_layers, 1u);
  EXPECT_EQ(n.g.value(n.g.node(n.conv).inputs[1]).dtype, DType::kFloat32);
  EXPECT_EQ(n.g.value(n.c).dtype, DType::kFloat32);
}

// CompileOptions::float_layer (rknn.api's hybrid_quantization_step2 float16/float32 layers):
// float32 in an A8W8 model, not one step up as --high_precision_layer.
TEST(QuantizeA8W8, AFloatLayerStaysFloat32BetweenInt8NeighboursAndAnUnknownOneIsRefusedByName) {
  Net n = net();
  ASSERT_TRUE(mark_float_layers(n.g, {"conv"}).ok());
  auto rep = quantize_graph(n.g, batches(4, 1), QuantizeOptions{});
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  EXPECT_EQ(rep->float_layers, 1u);
  EXPECT_EQ(rep->a16_layers, 0u);
  const Node& conv = n.g.node(n.conv);
  EXPECT_EQ(n.g.value(conv.inputs[1]).dtype, DType::kFloat32);
  EXPECT_EQ(n.g.value(n.c).dtype, DType::kFloat32);
  EXPECT_EQ(n.g.value(n.r).dtype, DType::kUint8);  // the Relu after it is A8W8
  Net m = net();
  const Status st = mark_float_layers(m.g, {"no_such_layer"});
  EXPECT_EQ(st.code(), err::kInvalidParam);
  EXPECT_NE(st.message().find("\"no_such_layer\" is not a node"), std::string::npos) << st.message();
}

TEST(QuantizeA8W8, AnUnknownHighPrecisionLayerIsRefusedByName) {
  Net n = net();
  const Status st = mark_high_precision(n.g, {"conv", "no_such_layer"});
  EXPECT_EQ(st.code(), err::kInvalidParam);
  EXPECT_NE(st.message().find("no_such_layer"), std::string::npos) << st.message();
}

TEST(QuantizeA16W8, AFloatHighPrecisionLayerKeepsTheGraphComputingWhatTheFloatGraphComputes) {
  Net f = net();
  Net q = net();
  ASSERT_TRUE(mark_high_precision(q.g, {"conv"}).ok());
  QuantizeOptions o;
  o.activation_bits = 16;
  ASSERT_TRUE(quantize_graph(q.g, batches(8, 10), o).ok());
  std::vector<kernels::OwnedTensor> in;
  in.push_back(kernels::OwnedTensor::f32({1, 2, 6, 6}, test::random_floats(72, 1000)));
  auto want = evaluate(f.g, in);
  auto got = evaluate(q.g, in);
  ASSERT_TRUE(want.ok() && got.ok());
  const float* a = (*want)[0].view().as<const float>();
  const float* b = (*got)[0].view().as<const float>();
  float peak = 0;
  for (int i = 0; i < 48; ++i) peak = std::max(peak, std::fabs(a[i]));
  // Only the Relu output is quantized now (int16 over [-max, max]): every value within one step.
  for (int i = 0; i < 48; ++i) EXPECT_NEAR(a[i], b[i], peak / 32767.0f * 1.01f) << i;
}

// ReLU6: when the Clip's calibrated output range ends below its upper bound, the Conv's
// saturation does the upper clip and the int8 Clip is a Relu (which the runtime fuses).
TEST(QuantizeA8W8, AClipFromZeroWithinItsRangeBecomesARelu) {
  Net n = net("Clip", 0.05f);  // cuts well inside the conv's range: still a Relu in int8
  auto rep = quantize_graph(n.g, batches(4, 1), QuantizeOptions{});
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  EXPECT_EQ(rep->clips_as_relu, 1u);
  EXPECT_EQ(n.g.node(n.act).op, "Relu");
  EXPECT_EQ(n.g.node(n.act).inputs.size(), 1u);
  EXPECT_EQ(n.g.value(n.c).quant.scale, n.g.value(n.r).quant.scale);
  EXPECT_EQ(n.g.value(n.c).quant.zero_point, n.g.value(n.r).quant.zero_point);
}

// The upper bound may cut inside the producer's range: the Clip's output encoding ends
// at or below it anyway, so the shared encoding saturates there. A lower bound other than
// 0 is not a Relu.
TEST(QuantizeA8W8, AClipNotStartingAtZeroStaysAClip) {
  Net n = net("Clip", 6.0f);
  const float lo = -0.25f;
  auto bytes = std::make_shared<std::vector<std::uint8_t>>(sizeof lo);
  std::memcpy(bytes->data(), &lo, sizeof lo);
  n.g.value(n.g.node(n.act).inputs[1]).data = bytes;
  auto rep = quantize_graph(n.g, batches(4, 1), QuantizeOptions{});
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  EXPECT_EQ(rep->clips_as_relu, 0u);
  EXPECT_EQ(n.g.node(n.act).op, "Clip");
}

TEST(QuantizeA8W8, TheQuantizedGraphComputesNearlyWhatTheFloatGraphComputes) {
  Net f = net();
  Net q = net();
  QuantizeOptions opt;
  opt.calibration.method = Method::kMse;
  ASSERT_TRUE(quantize_graph(q.g, batches(8, 10), opt).ok());
  // Inputs the calibration did not see.
  for (unsigned seed : {100u, 200u, 300u}) {
    std::vector<kernels::OwnedTensor> in;
    in.push_back(kernels::OwnedTensor::f32({1, 2, 6, 6}, test::random_floats(72, seed)));
    auto want = evaluate(f.g, in);
    auto got = evaluate(q.g, in);
    ASSERT_TRUE(want.ok()) << want.status().message();
    ASSERT_TRUE(got.ok()) << got.status().message();
    const float* a = (*want)[0].view().as<const float>();
    const float* b = (*got)[0].view().as<const float>();
    double dot = 0, na = 0, nb = 0;
    for (int i = 0; i < 48; ++i) {
      dot += static_cast<double>(a[i]) * b[i];
      na += static_cast<double>(a[i]) * a[i];
      nb += static_cast<double>(b[i]) * b[i];
    }
    EXPECT_GT(dot / std::sqrt(na * nb), 0.995) << seed;
  }
}

// Calibration observes activations through the runtime's compiled program; it must see
// what the reference evaluation sees.
TEST(CompiledEvaluator, ObservesEveryActivationAsTheReferenceEvaluationDoes) {
  Net n = net();
  auto fast = CompiledEvaluator::create(n.g);
  ASSERT_TRUE(fast.ok()) << fast.status().message();
  const CalibrationSet in = batches(1, 42);
  std::map<ValueId, std::vector<float>> ref, got;
  auto keep = [](std::map<ValueId, std::vector<float>>* into) {
    return [into](ValueId v, const model::TensorView& t) {
      const float* p = t.as<const float>();
      (*into)[v] = std::vector<float>(p, p + t.elements());
    };
  };
  ASSERT_TRUE(evaluate(n.g, in.batches[0], keep(&ref)).ok());
  auto out = (*fast)->run(in.batches[0], keep(&got));
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(got.size(), ref.size());  // conv, relu, flatten: nothing fused away
  for (const auto& [v, values] : ref) {
    ASSERT_EQ(got[v].size(), values.size()) << n.g.value(v).name;
    for (std::size_t i = 0; i < values.size(); ++i) EXPECT_NEAR(got[v][i], values[i], 1e-5f) << n.g.value(v).name;
  }
}

TEST(QuantizeA8W8, CalibrationFailuresNameTheBatchAndTheNode) {
  Net n = net();
  CalibrationSet bad = batches(1, 1);
  bad.batches[0][0] = kernels::OwnedTensor::f32({1, 2, 5, 5}, std::vector<float>(50, 0.0f));  // wrong shape
  auto r = quantize_graph(n.g, bad, QuantizeOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("calibration batch 1"), std::string::npos) << r.status().message();
  EXPECT_FALSE(quantize_graph(n.g, CalibrationSet{}, QuantizeOptions{}).ok());
}


// Quantizes `g` on `data` with the encodings of the CalibrationParam `text` fixed.
Result<QuantizeReport> quantize_with_file(Graph& g, const std::string& text, const CalibrationSet& data) {
  auto file = parse_calibration_param(text, "calibration_param.txt");
  if (!file.ok()) return file.status();
  auto resolved = resolve_external_params(g, *file);
  if (!resolved.ok()) return resolved.status();
  QuantizeOptions q;
  q.external = &*resolved;
  return quantize_graph(g, data, q);
}

// --gfpq_param_file: the file written for one quantized graph, read back for the same
// float graph calibrated on other data, fixes every layer's encodings to the first run's.
TEST(ExternalParams, ARunsWrittenParametersReproduceItsEncodingsOnOtherData) {
  Net first = net();
  ASSERT_TRUE(quantize_graph(first.g, batches(4, 1), QuantizeOptions{}).ok());
  const std::string text = calibration_param_text(external_params_of(first.g));
  ASSERT_NE(text.find("name: \"conv\""), std::string::npos) << text;

  Net other = net();  // other data, no file: other encodings (what the file must undo)
  ASSERT_TRUE(quantize_graph(other.g, batches(2, 77), QuantizeOptions{}).ok());
  ASSERT_NE(calibration_param_text(external_params_of(other.g)), text);

  Net fixed = net();
  auto rep = quantize_with_file(fixed.g, text, batches(2, 77));
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  EXPECT_EQ(rep->external_values, 3u);  // x (conv), c (relu), r (flat)
  EXPECT_EQ(calibration_param_text(external_params_of(fixed.g)), text);
  EXPECT_EQ(fixed.g.value(fixed.r).quant.scale, first.g.value(first.r).quant.scale);
}

TEST(ExternalParams, AFloatLayerInTheFileStaysFloat) {
  Net n = net();
  auto rep = quantize_with_file(n.g, "layer { name: \"conv\" calc_data_type: F32 quant_param { } }", batches(2, 1));
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  EXPECT_EQ(rep->float_layers, 1u);
  EXPECT_EQ(rep->weights, 0u);  // the float conv keeps float weights
  EXPECT_EQ(n.g.value(n.g.node(n.conv).inputs[1]).dtype, DType::kFloat32);
  // Written back, the layer is F32 again.
  EXPECT_NE(calibration_param_text(external_params_of(n.g)).find("calc_data_type: F32"), std::string::npos);
}

TEST(ExternalParams, FileWeightScalesAreUsedAndTheirCountChecked) {
  Net n = net();
  ASSERT_TRUE(quantize_with_file(
                  n.g, "layer { name: \"conv\" quant_param { weight { data_type: S8 scale: 100 scale: 200 scale: 400 } } }",
                  batches(2, 1))
                  .ok());
  EXPECT_EQ(n.g.value(n.g.node(n.conv).inputs[1]).quant.scale, (std::vector<float>{0.01f, 0.005f, 0.0025f}));

  Net bad = net();
  auto rep = quantize_with_file(
      bad.g, "layer { name: \"conv\" quant_param { weight { data_type: S8 scale: 100 scale: 200 } } }", batches(2, 1));
  ASSERT_FALSE(rep.ok());
  EXPECT_EQ(rep.status().code(), err::kInvalidParam);
  EXPECT_NE(rep.status().message().find("give 1 or 3"), std::string::npos) << rep.status().message();
}

TEST(ExternalParams, UnknownLayersAndExtraInputsNameTheFilePosition) {
  Net n = net();
  auto file = parse_calibration_param("\nlayer { name: \"conv9\" quant_param { } }", "p.txt");
  ASSERT_TRUE(file.ok());
  auto r = resolve_external_params(n.g, *file);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), err::kInvalidParam);
  EXPECT_NE(r.status().message().find("p.txt:2:1"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("conv9"), std::string::npos);

  auto extra = parse_calibration_param(
      "layer { name: \"relu\" quant_param { input { scale: 2 } input { scale: 2 } } }", "e.txt");
  ASSERT_TRUE(extra.ok()) << extra.status().message();
  auto r2 = resolve_external_params(n.g, *extra);
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.status().message().find("has 1 activation input(s); the file gives 2"), std::string::npos)
      << r2.status().message();
}


// A depthwise 3x3 Conv whose weights all round the same way: without correction the int8
// output is biased by about the rounding error times the input mean; --bias_correction
// takes that shift out of the bias.
TEST(BiasCorrection, TheConvBiasAbsorbsTheMeanShiftOfWeightRounding) {
  auto build = [] {
    Graph g;
    const ValueId x = value(g, "x", {1, 2, 8, 8});
    g.inputs.push_back(x);
    // 127 levels over max |w| = 1: 0.3 sits 0.1 / 127 off the grid, the same way everywhere.
    std::vector<float> w(2 * 1 * 3 * 3, 0.3f + 0.4f / 127.0f);
    w[0] = 1.0f;
    w[9] = 1.0f;
    const ValueId wv = constant(g, "w", {2, 1, 3, 3}, w);
    const ValueId y = value(g, "y", {1, 2, 6, 6});
    const NodeId conv = node(g, "dw", "Conv", {x, wv}, {y});
    g.node(conv).attrs.set("group", std::int64_t{2});
    g.outputs.push_back(y);
    return g;
  };
  // Inputs with a large positive mean, so the weight error shows in the output mean.
  CalibrationSet data;
  for (int b = 0; b < 4; ++b) {
    std::vector<float> v = test::random_floats(128, 40u + static_cast<unsigned>(b));
    for (float& f : v) f = 5.0f + f;
    std::vector<kernels::OwnedTensor> in;
    in.push_back(kernels::OwnedTensor::f32({1, 2, 8, 8}, v));
    data.batches.push_back(std::move(in));
  }
  data.items = 4;
  auto mean_error = [&](bool correct) {
    Graph f = build();
    auto want = evaluate(f, data.batches[0]);
    Graph g = build();
    QuantizeOptions q;
    q.bias_correction = correct;
    auto rep = quantize_graph(g, data, q);
    EXPECT_TRUE(rep.ok()) << rep.status().message();
    EXPECT_EQ(rep->biases_corrected, correct ? 1u : 0u);
    auto got = evaluate(g, data.batches[0]);
    const float* a = (*want)[0].view().as<const float>();
    const float* b = (*got)[0].view().as<const float>();
    double sum = 0;
    for (int i = 0; i < 72; ++i) sum += b[i] - a[i];
    return std::fabs(sum / 72);
  };
  const double plain = mean_error(false), corrected = mean_error(true);
  EXPECT_GT(plain, 0.05);  // 8 weights x 0.4/127 x mean 5 ~ 0.13
  EXPECT_LT(corrected, plain / 4) << "plain " << plain << ", corrected " << corrected;
}

}  // namespace
}  // namespace svp::compiler::quant


namespace svp::compiler::quant {
namespace {

// quantize_like and the kernels' per-tensor QuantizeLinear (sixteen lanes at a time where
// the CPU has AVX-512, then four, then one) store exactly what the scalar rule
// (quantize_value) says: ties to even, saturation, NaN, ±Inf, the tails, every type.
template <typename T>
void expect_quantized_as_the_kernels(DType dtype, float scale, std::int32_t zp) {
  std::vector<float> x;
  for (int k = -70000; k <= 70000; ++k) x.push_back(static_cast<float>(k) * 0.5f * scale);  // every tie
  for (int k = 0; k < 5000; ++k) x.push_back(std::ldexp(static_cast<float>((k * 7919) % 2001 - 1000), k % 40 - 20));
  x.insert(x.end(), {std::nanf(""), -std::nanf(""), INFINITY, -INFINITY, 3e38f, -3e38f, 1e-40f, -1e-40f, -0.0f});
  x.insert(x.end(), {1.0f, -2.5f * scale, 2.5f * scale, 0.5f * scale, -0.5f * scale});
  ASSERT_EQ(x.size() % 16, 7u);  // a four-lane step and a scalar tail after the sixteen-lane steps
  Value like;
  like.dtype = dtype;
  like.quant.scale = {scale};
  like.quant.zero_point = {zp};
  const kernels::OwnedTensor got = quantize_like(x, {static_cast<std::int64_t>(x.size())}, like);
  std::vector<T> want(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    want[i] = static_cast<T>(kernels::detail::quantize_value(x[i], scale, zp, std::numeric_limits<T>::min(),
                                                             std::numeric_limits<T>::max()));
  }
  const T* q = got.view().as<const T>();
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(q[i], want[i]) << "x = " << x[i] << " (element " << i << ")";
}

TEST(LayerAccuracy, QuantizeLikeStoresWhatTheKernelsStore) {
  expect_quantized_as_the_kernels<std::int8_t>(DType::kInt8, 0.05f, 0);
  expect_quantized_as_the_kernels<std::int8_t>(DType::kInt8, 0.3f, -17);
  expect_quantized_as_the_kernels<std::uint8_t>(DType::kUint8, 0.02f, 0);
  expect_quantized_as_the_kernels<std::uint8_t>(DType::kUint8, 0.7f, 131);
  expect_quantized_as_the_kernels<std::int16_t>(DType::kInt16, 0.001f, 0);
  expect_quantized_as_the_kernels<std::int16_t>(DType::kInt16, 3.0f, 5);
}

// as_floats and the kernels' per-tensor DequantizeLinear (sixteen lanes, four, then one)
// give the scalar rule's (q − zp) · scale bit for bit.
template <typename T>
void expect_dequantized_as_the_kernels(DType dtype, float scale, std::int32_t zp) {
  std::vector<T> q;
  for (std::int64_t v = std::numeric_limits<T>::min(); v <= std::numeric_limits<T>::max(); ++v) q.push_back(static_cast<T>(v));
  for (int k = 0; k < 7; ++k) q.push_back(q[static_cast<std::size_t>(k * 37) % q.size()]);  // a four-lane step and a scalar tail
  kernels::OwnedTensor t(dtype, {static_cast<std::int64_t>(q.size())});
  std::memcpy(t.view().data, q.data(), q.size() * sizeof(T));
  model::Quant enc;
  enc.scale = {scale};
  enc.zero_point = {zp};
  t.set_quant(enc);
  const std::vector<float> got = as_floats(t.view());
  std::vector<float> want(q.size());
  for (std::size_t i = 0; i < q.size(); ++i) want[i] = static_cast<float>(static_cast<std::int64_t>(q[i]) - zp) * scale;
  ASSERT_EQ(got.size(), want.size());
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0);
}

TEST(LayerAccuracy, AsFloatsDequantizesAsTheKernelsDo) {
  expect_dequantized_as_the_kernels<std::int8_t>(DType::kInt8, 0.05f, 0);
  expect_dequantized_as_the_kernels<std::int8_t>(DType::kInt8, 0.3f, -17);
  expect_dequantized_as_the_kernels<std::uint8_t>(DType::kUint8, 0.7f, 131);
  expect_dequantized_as_the_kernels<std::int16_t>(DType::kInt16, 0.001f, 3);
}

// The per-layer analysis finds the layer at fault: a Conv whose output encoding is forced
// far too narrow is bad alone (single) and from there on (entire); the layers before it
// are not.
TEST(LayerAccuracy, ANarrowOutputEncodingIsNamedAloneAndInTheChain) {
  Net good = net();
  const Graph good_float = good.g;
  ASSERT_TRUE(quantize_graph(good.g, batches(4, 1), QuantizeOptions{}).ok());
  auto fine = analyse_layers(good_float, good.g, batches(4, 1));
  ASSERT_TRUE(fine.ok()) << fine.status().message();
  ASSERT_EQ(fine->size(), 3u);  // conv, relu, flat
  for (const LayerAccuracy& l : *fine) {
    EXPECT_GT(l.entire.cosine, 0.99) << l.name;
    if (l.quantized) {
      EXPECT_GT(l.single.cosine, 0.99) << l.name;
    }
  }
  EXPECT_NE(layer_accuracy_summary(*fine)[0].find("alone (single): none"), std::string::npos);

  Net bad = net();
  const Graph bad_float = bad.g;
  ResolvedParams fixed;
  Encoding narrow;
  narrow.scale = 1e-4f;  // [0, 0.0255]: nearly every positive value saturates
  narrow.zero_point = -128;
  narrow.lo = 0.0f;
  narrow.hi = 255 * 1e-4f;
  fixed.encodings.emplace_back(bad.r, narrow);  // the Relu's output, shared by the Conv
  QuantizeOptions q;
  q.external = &fixed;
  ASSERT_TRUE(quantize_graph(bad.g, batches(4, 1), q).ok());
  auto layers = analyse_layers(bad_float, bad.g, batches(4, 1));
  ASSERT_TRUE(layers.ok()) << layers.status().message();
  const LayerAccuracy& conv = (*layers)[0];
  EXPECT_EQ(conv.name, "conv");
  EXPECT_LT(conv.single.cosine, 0.9);
  EXPECT_LT(conv.entire.cosine, 0.9);
  const std::vector<std::string> summary = layer_accuracy_summary(*layers);
  EXPECT_NE(summary[0].find("alone (single): \"conv\""), std::string::npos) << summary[0];
  const std::string csv = layer_accuracy_csv(*layers);
  EXPECT_EQ(csv.find("order,layer,op,single_cosine"), 0u);
  EXPECT_NE(csv.find("\n0,\"conv\",Conv,"), std::string::npos) << csv;  // worst first
}

}  // namespace
}  // namespace svp::compiler::quant


namespace svp::compiler::quant {
namespace {

// --quant_mode=1's weight search on a heavy-tailed channel (Laplace-like, 288 weights as
// in a 3×3 filter over 32 channels): a scale below max|w| / 127 stores it with less squared
// error; a short channel with one large weight keeps max|w| (clipping it costs more than
// the finer steps gain).
TEST(WeightSearch, AHeavyTailedChannelGetsAClippedScaleWithLessError) {
  std::vector<float> w(288);
  unsigned s = 7;
  for (float& x : w) {
    s = s * 1103515245u + 12345u;
    const double u = ((s >> 8) & 0xffff) / 65536.0 + 1e-6;
    x = static_cast<float>((s & 1 ? 1 : -1) * -0.05 * std::log(u));  // Laplace(0, 0.05)
  }
  float peak = 0;
  for (float x : w) peak = std::max(peak, std::fabs(x));
  auto error = [&](float scale) {
    double e = 0;
    for (float x : w) {
      const double d = x - std::clamp(std::nearbyint(x / scale), -127.0f, 127.0f) * scale;
      e += d * d;
    }
    return e;
  };
  const float full = peak / 127.0f;
  // Two runs of 144 (the channel's weights, split as a per-channel layout would have them).
  std::vector<float> strided(2 * 200, 0.0f);
  std::copy(w.begin(), w.begin() + 144, strided.begin());
  std::copy(w.begin() + 144, w.end(), strided.begin() + 200);
  const float chosen = search_weight_scale(strided.data(), 2, 200, 144, full);
  std::printf("max|w| %.4f: scale %.6g -> %.6g, squared error %.6g -> %.6g\n", peak, full, chosen, error(full),
              error(chosen));
  EXPECT_LT(chosen, full);
  EXPECT_GE(chosen, full * 0.5f * 0.999f);
  EXPECT_LT(error(chosen), error(full));

  std::vector<float> outlier = {4.0f, 0.3f, -0.2f, 0.1f, 0.45f, -0.5f, 0.05f, 0.25f, -0.35f};
  EXPECT_EQ(search_weight_scale(outlier.data(), 1, 9, 9, 4.0f / 127.0f), 4.0f / 127.0f);
}

// Input channel 0 in ±500, which the Conv of net(..., ignore_channel0) does not read: the
// int8 input encoding spends its levels on it and rounds channel 1 (±1) to nothing, so the
// Conv is bad alone in A8W8 and nearly exact in A16W8.
CalibrationSet wide_batches(std::size_t count, unsigned seed) {
  CalibrationSet set = batches(count, seed);
  for (auto& batch : set.batches) {
    float* x = batch[0].data<float>();
    for (int i = 0; i < 36; ++i) x[i] *= 500.0f;
  }
  return set;
}

std::map<std::string, Precision> precisions(const QuantizeReport& r) {
  std::map<std::string, Precision> p;
  for (const LayerPrecision& l : r.layers) p[l.name] = l.precision;
  return p;
}

TEST(MixedPrecision, RaisesTheLayerBadAloneUntilTheOutputMeetsTheTarget) {
  const CalibrationSet data = wide_batches(4, 70);
  MixedPrecisionOptions o;
  o.output_target = 0.999;
  Net n = net("Relu", 6.0f, true);
  auto r = quantize_mixed_precision(n.g, data, QuantizeOptions{}, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (const std::string& line : r->log) std::printf("%s\n", line.c_str());
  ASSERT_GE(r->output_cosine.size(), 2u);
  EXPECT_LT(r->output_cosine.front(), o.output_target);  // plain A8W8 misses it
  EXPECT_TRUE(r->target_met);
  EXPECT_GE(r->output_cosine.back(), o.output_target);
  ASSERT_FALSE(r->raised.empty());
  EXPECT_EQ(r->raised[0].name, "conv");
  EXPECT_EQ(r->raised[0].to, Precision::kA16W8);
  EXPECT_LT(r->raised[0].single_cosine, o.layer_threshold);
  EXPECT_EQ(precisions(r->quantize).at("conv"), Precision::kA16W8);
  // The graph is the last round's: its output is as close to float as reported.
  Net f = net("Relu", 6.0f, true);
  std::vector<double> want, got;
  for (const auto& batch : data.batches) {
    auto a = evaluate(f.g, batch);
    auto b = evaluate(n.g, batch);
    ASSERT_TRUE(a.ok() && b.ok());
    for (int i = 0; i < 48; ++i) {
      want.push_back((*a)[0].view().as<const float>()[i]);
      got.push_back((*b)[0].view().as<const float>()[i]);
    }
  }
  EXPECT_NEAR(compare::ComputeMetrics(want, got).cosine, r->output_cosine.back(), 1e-9);
}

TEST(MixedPrecision, TheFloatGraphIsCalibratedOnceForEveryRound) {
  const CalibrationSet data = wide_batches(4, 70);
  MixedPrecisionOptions o;
  o.output_target = 0.999;
  QuantizeOptions q;
  std::size_t calls = 0;
  q.progress = [&](std::size_t, std::size_t) { ++calls; };
  Net n = net("Relu", 6.0f, true);
  auto r = quantize_mixed_precision(n.g, data, q, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_GE(r->output_cosine.size(), 2u);  // more than one round
  EXPECT_EQ(calls, data.batches.size());   // min-max: one pass over the batches in all
}

TEST(MixedPrecision, AModelThatMeetsTheTargetIsQuantizedAsUsual) {
  const CalibrationSet data = batches(4, 1);
  MixedPrecisionOptions o;
  o.output_target = 0.9;
  Net mixed = net(), plain = net();
  auto r = quantize_mixed_precision(mixed.g, data, QuantizeOptions{}, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->target_met);
  EXPECT_TRUE(r->raised.empty());
  EXPECT_EQ(r->output_cosine.size(), 1u);
  ASSERT_TRUE(quantize_graph(plain.g, data, QuantizeOptions{}).ok());
  ASSERT_EQ(mixed.g.node_count(), plain.g.node_count());
  for (NodeId id = 0; id < static_cast<NodeId>(plain.g.node_count()); ++id) {
    EXPECT_EQ(mixed.g.node(id).op, plain.g.node(id).op);
    for (std::size_t k = 0; k < plain.g.node(id).outputs.size(); ++k) {
      const Value& a = mixed.g.value(mixed.g.node(id).outputs[k]);
      const Value& b = plain.g.value(plain.g.node(id).outputs[k]);
      EXPECT_EQ(a.dtype, b.dtype);
      EXPECT_EQ(a.quant.scale, b.quant.scale);
    }
  }
}

// When no layer is below the threshold but the output misses the target, the threshold
// tightens; when the rounds run out, the best round's model is kept and the log says the
// target was missed.
TEST(MixedPrecision, TheThresholdTightensAndTheBestRoundIsKept) {
  MixedPrecisionOptions o;
  o.output_target = 1.0;     // float-exact: not reachable while anything is int8
  o.layer_threshold = 0.01;  // no layer is that bad
  o.max_rounds = 1;
  Net n = net();
  auto r = quantize_mixed_precision(n.g, batches(4, 1), QuantizeOptions{}, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->target_met);
  const bool tightened = std::any_of(r->log.begin(), r->log.end(), [](const std::string& line) {
    return line.find("the threshold tightens") != std::string::npos;
  });
  EXPECT_TRUE(tightened);
  ASSERT_EQ(r->output_cosine.size(), 2u);
  const std::size_t best = r->output_cosine[1] > r->output_cosine[0] ? 1 : 0;
  EXPECT_EQ(r->raised.empty(), best == 0);
  EXPECT_NE(r->log.back().find(fmt::format("the model is the one after {} round(s)", best)), std::string::npos) << r->log.back();
  EXPECT_NE(r->log.back().find("the target 1 is not met"), std::string::npos) << r->log.back();
}

TEST(MixedPrecision, ToFloatRaisesStraightToFloat32) {
  const CalibrationSet data = wide_batches(4, 70);
  MixedPrecisionOptions o;
  o.output_target = 0.999;
  o.to_float = true;
  Net n = net("Relu", 6.0f, true);
  auto r = quantize_mixed_precision(n.g, data, QuantizeOptions{}, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->target_met);
  ASSERT_FALSE(r->raised.empty());
  EXPECT_EQ(r->raised[0].name, "conv");
  EXPECT_EQ(r->raised[0].to, Precision::kFloat32);
  EXPECT_EQ(precisions(r->quantize).at("conv"), Precision::kFloat32);
}

// A layer raised twice goes A8W8 → A16W8 → float32; the rounds bound holds.
TEST(MixedPrecision, ALayerStillBadInA16W8BecomesFloat) {
  MixedPrecisionOptions o;
  o.output_target = 1.0;
  o.layer_threshold = 1.0;  // every quantized layer counts as bad
  o.max_rounds = 8;
  Net n = net();
  auto r = quantize_mixed_precision(n.g, batches(4, 1), QuantizeOptions{}, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_LE(r->output_cosine.size(), o.max_rounds + 1);
  std::map<std::string, std::vector<Precision>> steps;
  for (const RaisedLayer& l : r->raised) steps[l.name].push_back(l.to);
  ASSERT_TRUE(steps.count("conv"));
  EXPECT_EQ(steps["conv"], (std::vector<Precision>{Precision::kA16W8, Precision::kFloat32}));
  EXPECT_EQ(precisions(r->quantize).at("conv"), Precision::kFloat32);
}

TEST(MixedPrecision, RefusesTargetsThatAreNotCosines) {
  Net n = net();
  MixedPrecisionOptions o;
  o.output_target = 1.5;
  auto r = quantize_mixed_precision(n.g, batches(1, 1), QuantizeOptions{}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), err::kInvalidParam);
  EXPECT_NE(r.status().message().find("(0, 1]"), std::string::npos);
}

}  // namespace
}  // namespace svp::compiler::quant
