// The kernel registry: op coverage, dispatch, and the checks every op gets (input counts,
// constant inputs, tensor sizes and data, output shapes and counts, absent inputs).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/invoke.h"
#include "kernels/kernels.h"
#include "model/tensor.h"

namespace svp::kernels {
namespace {

using model::DType;
using I = std::vector<std::int64_t>;

TEST(KernelsRegistry, SupportsEveryRequiredOpOnce) {
  const std::vector<std::string> want{"Add",
                                      "ArgMax",
                                      "AveragePool",
                                      "BatchNormalization",
                                      "Clip",
                                      "Concat",
                                      "Conv",
                                      "ConvTranspose",
                                      "DequantizeLinear",
                                      "Div",
                                      "Flatten",
                                      "Gemm",
                                      "GlobalAveragePool",
                                      "HardSigmoid",
                                      "HardSwish",
                                      "LeakyRelu",
                                      "MatMul",
                                      "MaxPool",
                                      "Mul",
                                      "PRelu",
                                      "Pad",
                                      "QuantizeLinear",
                                      "ReduceMax",
                                      "ReduceMean",
                                      "Relu",
                                      "Reshape",
                                      "Resize",
                                      "Sigmoid",
                                      "Slice",
                                      "Softmax",
                                      "Split",
                                      "Squeeze",
                                      "Sub",
                                      "Tanh",
                                      "Transpose",
                                      "Unsqueeze",
                                      "Pow",
                                      "Sqrt",
                                      "Cast",
                                      // typed element-wise families
                                      "CastLike", "Mod", "BitShift", "Max", "Min", "Sum", "Mean", "Equal",
                                      "Greater", "Less", "GreaterOrEqual", "LessOrEqual", "And", "Or", "Xor",
                                      "Exp", "Log", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh",
                                      "Asinh", "Acosh", "Atanh", "Erf", "Ceil", "Floor", "Round", "Reciprocal",
                                      "Softplus", "Softsign", "Abs", "Neg", "Sign", "Elu", "Celu", "Selu",
                                      "ThresholdedRelu", "Shrink", "IsNaN", "IsInf", "Not", "Identity",
                                      // reductions, pools, normalisations, losses
                                      "ReduceMin", "ReduceSum", "ReduceProd", "ReduceL1", "ReduceL2",
                                      "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp", "ArgMin", "GlobalMaxPool",
                                      "LogSoftmax", "Hardmax", "LayerNormalization", "InstanceNormalization", "LRN",
                                      "MeanVarianceNormalization", "DynamicQuantizeLinear", "Einsum", "GridSample",
                                      "ConvInteger", "QLinearConv", "MatMulInteger", "QLinearMatMul",
                                      "NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss",
                                      // index ops
                                      "Gather", "GatherElements", "GatherND", "ScatterElements", "Scatter",
                                      "ScatterND", "Expand", "Tile", "OneHot", "TopK", "Trilu", "CumSum",
                                      "DepthToSpace", "SpaceToDepth", "EyeLike", "Where", "Dropout", "Size",
                                      "ConstantOfShape", "Range", "ReverseSequence", "MaxUnpool", "Det", "DFT", "RoiAlign",
                                      // recurrent layers
                                      "LSTM", "GRU", "RNN",
                                      // spectral, text, training optimizers (ai.onnx.preview.training)
                                      "STFT", "TfIdfVectorizer", "Adagrad", "Adam", "Momentum"};
  std::vector<std::string> got = supported_ops();
  EXPECT_TRUE(std::is_sorted(got.begin(), got.end()));
  EXPECT_EQ(std::adjacent_find(got.begin(), got.end()), got.end());
  for (const auto& op : want) EXPECT_NE(std::find(got.begin(), got.end(), op), got.end()) << op;
  EXPECT_EQ(got.size(), want.size());
}

TEST(KernelsRegistry, UnknownOpAndWrongInputCountsAreInvalidParams) {
  Status s = infer_shapes("StringNormalizer", {}, {{2}}).status();
  EXPECT_EQ(s.code(), err::kInvalidParam);
  EXPECT_NE(s.message().find("StringNormalizer"), std::string::npos);
  EXPECT_EQ(infer_shapes("relu", {}, {{2}}).status().code(), err::kInvalidParam);  // names are case-sensitive
  EXPECT_EQ(infer_shapes("Relu", {}, {}).status().code(), err::kInvalidParam);
  EXPECT_EQ(infer_shapes("Relu", {}, {{2}, {2}}).status().code(), err::kInvalidParam);
  EXPECT_EQ(infer_shapes("Gemm", {}, {{2, 2}, {2, 2}, {2}, {2}}).status().code(), err::kInvalidParam);
  EXPECT_EQ(run_reference("Nope", {}, {}, {}).code(), err::kInvalidParam);
}

TEST(KernelsRegistry, ConstantInputsMustMatchTheirShapes) {
  auto shape = OwnedTensor::i64({2}, {3, 2});
  EXPECT_TRUE(infer_shapes("Reshape", {}, {{2, 3}, {2}}, {nullptr, &shape.view()}).ok());
  EXPECT_EQ(infer_shapes("Reshape", {}, {{2, 3}, {3}}, {nullptr, &shape.view()}).status().code(), err::kInvalidParam);
  EXPECT_EQ(infer_shapes("Reshape", {}, {{2, 3}}, {nullptr, &shape.view()}).status().code(), err::kInvalidParam);
  TensorView no_data = shape.view();
  no_data.data = nullptr;
  EXPECT_EQ(infer_shapes("Reshape", {}, {{2, 3}, {2}}, {nullptr, &no_data}).status().code(), err::kInvalidParam);
}

TEST(KernelsRegistry, OversizedAndNegativeShapesAreRejected) {
  EXPECT_EQ(infer_shapes("Relu", {}, {{1 << 30, 1 << 30, 1 << 30}}).status().code(), err::kInvalidParam);
  EXPECT_EQ(infer_shapes("Relu", {}, {{-1}}).status().code(), err::kInvalidParam);
  // Also empty tensors: the non-zero dims are bounded.
  EXPECT_EQ(infer_shapes("Relu", {}, {{0, 1 << 30, 1 << 30, 1 << 30}}).status().code(), err::kInvalidParam);
  EXPECT_EQ(infer_shapes("MaxPool", {{"kernel_shape", I{1 << 20}}, {"dilations", I{1 << 30}}}, {{1, 1, 1 << 20}})
                .status()
                .code(),
            err::kInvalidParam);
  auto x = OwnedTensor::f32({2}, {1, 2});
  TensorView bad = x.view();
  bad.dims = {-2};
  OwnedTensor y(DType::kFloat32, {2});
  EXPECT_EQ(run_reference("Relu", {}, {bad}, {y.view()}).code(), err::kInvalidParam);
  // Resize to a huge output.
  auto s = OwnedTensor::f32({1}, {1e12f});
  EXPECT_EQ(infer_shapes("Resize", {}, {{4}, {}, {1}}, {nullptr, nullptr, &s.view()}).status().code(),
            err::kInvalidParam);
}

TEST(KernelsRegistry, RunChecksOutputsAgainstInferredShapes) {
  auto x = OwnedTensor::f32({2, 3}, {1, 2, 3, 4, 5, 6});
  OwnedTensor ok(DType::kFloat32, {2, 3}), wrong(DType::kFloat32, {3, 2});
  EXPECT_TRUE(run_reference("Relu", {}, {x.view()}, {ok.view()}).ok());
  EXPECT_EQ(run_reference("Relu", {}, {x.view()}, {wrong.view()}).code(), err::kInvalidParam);
  EXPECT_EQ(run_reference("Relu", {}, {x.view()}, {ok.view(), ok.view()}).code(), err::kInvalidParam);
  TensorView no_out = ok.view();
  no_out.data = nullptr;
  EXPECT_EQ(run_reference("Relu", {}, {x.view()}, {no_out}).code(), err::kInvalidParam);
  TensorView bad_type = ok.view();
  bad_type.dtype = static_cast<DType>(42);
  EXPECT_EQ(run_reference("Relu", {}, {x.view()}, {bad_type}).code(), err::kUnsupportedDataType);
}

TEST(KernelsRegistry, AbsentOptionalInputsAreAcceptedButRequiredOnesAreNot) {
  auto x = OwnedTensor::f32({1, 1, 2, 2}, {1, 2, 3, 4});
  auto w = OwnedTensor::f32({1, 1, 1, 1}, {2});
  OwnedTensor y(DType::kFloat32, {1, 1, 2, 2});
  // Conv bias absent: a default view (no data, shape {}), as the model passes it.
  ASSERT_TRUE(run_reference("Conv", {}, {x.view(), w.view(), TensorView{}}, {y.view()}).ok());
  EXPECT_EQ(y.values<float>(), (std::vector<float>{2, 4, 6, 8}));
  // At build time the absent bias is shape {} without a constant.
  EXPECT_TRUE(infer_shapes("Conv", {}, {{1, 1, 2, 2}, {1, 1, 1, 1}, {}}).ok());
  // The weight is required: a default view there is missing data.
  EXPECT_EQ(run_reference("Conv", {}, {x.view(), TensorView{}}, {y.view()}).code(), err::kInvalidParam);
}

TEST(KernelsRegistry, EveryOpRejectsEmptyAttributesGracefully) {
  // Ops with inputs of rank 0..4 and no attributes: whatever the answer, no crash and a
  // Status that names the op when it fails.
  for (const std::string& op : supported_ops()) {
    for (const Shape& s : {Shape{}, Shape{0}, Shape{3}, Shape{2, 3}, Shape{1, 2, 3, 4}}) {
      for (std::size_t n = 0; n <= 5; ++n) {
        const std::vector<Shape> in(n, s);
        auto r = infer_shapes(op, {}, in);
        if (!r.ok()) {
          EXPECT_NE(r.status().message().find(op), std::string::npos) << r.status().message();
        }
      }
    }
  }
}

TEST(KernelsRegistry, RunReferenceOwnedAllocatesEveryOutput) {
  auto x = OwnedTensor::f32({4}, {1, 2, 3, 4});
  auto r = run_reference_owned("Split", {{"num_outputs", std::int64_t{2}}}, {x.view()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r.value().size(), 2u);
  EXPECT_EQ(r.value()[1].values<float>(), (std::vector<float>{3, 4}));
}

// Random shapes, element types, constant values and attributes for every op: each call
// must return (success or an error naming the op) without crashing or touching memory
// it does not own (run this under AddressSanitizer to check the latter).
TEST(KernelsRegistry, RandomInputsAndAttributesNeverCrash) {
  std::mt19937 rng(12345);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto rand_ints = [&](int n, int lo, int hi) {
    I v;
    for (int i = 0; i < n; ++i) v.push_back(pick(lo, hi));
    return v;
  };
  const char* strings[][2] = {{"auto_pad", "SAME_UPPER"}, {"auto_pad", "VALID"},
                              {"auto_pad", "SAME_LOWER"}, {"mode", "reflect"},
                              {"mode", "edge"},           {"mode", "linear"},
                              {"mode", "nearest"},        {"coordinate_transformation_mode", "align_corners"},
                              {"nearest_mode", "floor"},  {"coordinate_transformation_mode", "asymmetric"}};
  const char* int_attrs[] = {"axis",
                             "group",
                             "keepdims",
                             "transA",
                             "transB",
                             "ceil_mode",
                             "count_include_pad",
                             "select_last_index",
                             "allowzero",
                             "num_outputs",
                             "noop_with_empty_axes"};
  const char* list_attrs[] = {"axes",  "perm",           "pads",         "strides", "dilations", "kernel_shape",
                              "split", "output_padding", "output_shape", "starts",  "ends"};
  const char* float_attrs[] = {"alpha", "beta", "epsilon", "min", "max", "value"};
  std::size_t runs = 0, ok = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (const std::string& op : supported_ops()) {
    for (int iter = 0; iter < 1000; ++iter) {
      Attrs a;
      for (int k = pick(0, 4); k > 0; --k) {
        switch (pick(0, 3)) {
          case 0: {
            const auto& sv = strings[pick(0, 9)];
            a.set(sv[0], std::string(sv[1]));
            break;
          }
          case 1:
            a.set(int_attrs[pick(0, 10)], std::int64_t{pick(-3, 4)});
            break;
          case 2:
            a.set(list_attrs[pick(0, 10)], rand_ints(pick(0, 6), -2, 4));
            break;
          default:
            a.set(float_attrs[pick(0, 5)], static_cast<double>(pick(-4, 4)) / 2);
            break;
        }
      }
      std::vector<OwnedTensor> owned;
      const int n_in = pick(0, 2) == 0 ? pick(1, 5) : pick(1, 2);
      for (int i = 0; i < n_in; ++i) {
        I dims = rand_ints(pick(0, 4), 0, 4);
        if (pick(0, 4) == 0) {  // small 1-D constant, the usual shape of parameter inputs
          dims = {pick(0, 4)};
        }
        const int kind = i == 0 ? pick(0, 5) : pick(0, 3);
        if (kind <= 1) {
          OwnedTensor t(DType::kInt64, dims);
          for (std::int64_t e = 0; e < t.elements(); ++e) t.data<std::int64_t>()[e] = pick(-5, 5);
          owned.push_back(std::move(t));
        } else if (kind == 2) {
          OwnedTensor t(DType::kUint8, dims);
          for (std::int64_t e = 0; e < t.elements(); ++e)
            t.data<std::uint8_t>()[e] = static_cast<std::uint8_t>(pick(0, 255));
          if (pick(0, 3) != 0 && !dims.empty() && pick(0, 1) == 0) {
            t.set_quant(model::Quant{std::vector<float>(static_cast<std::size_t>(dims[0]), 0.5f), {}, 0});
          } else {
            t.set_quant(model::Quant{{0.25f}, {pick(0, 255)}, -1});
          }
          owned.push_back(std::move(t));
        } else {
          OwnedTensor t(DType::kFloat32, dims);
          for (std::int64_t e = 0; e < t.elements(); ++e) t.data<float>()[e] = static_cast<float>(pick(-6, 6)) / 2;
          owned.push_back(std::move(t));
        }
      }
      std::vector<TensorView> views;
      for (const auto& t : owned) views.push_back(pick(0, 9) == 0 ? TensorView{} : t.view());
      std::vector<OutputSpec> specs;
      const int out_kind = pick(0, 3);
      for (int k = 0; k < 4; ++k) {
        if (out_kind == 1) specs.push_back({DType::kInt8, model::Quant{{0.5f}, {3}, -1}});
        if (out_kind == 2) specs.push_back({DType::kInt64, {}});
      }
      auto r = run_reference_owned(op, a, views, specs);
      ++runs;
      if (r.ok()) {
        ++ok;
      } else {
        EXPECT_NE(r.status().message().find(op), std::string::npos) << r.status().message();
        EXPECT_NE(r.status().code(), err::kNone);
      }
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GT(ok, runs / 50) << "too few random cases were valid to exercise the kernels";
  std::printf("%zu random runs, %zu succeeded, %.2f s\n", runs, ok, secs);
}

// Mostly valid random geometries for the ops with many coupled parameters, in float32 and
// int8 (no crash, no out-of-bounds access under AddressSanitizer, outputs fully written).
TEST(KernelsRegistry, RandomGeometriesOfWindowedAndIndexingOps) {
  std::mt19937 rng(777);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto fill = [&](OwnedTensor& t) {
    for (std::int64_t e = 0; e < t.elements(); ++e) {
      if (t.view().dtype == DType::kFloat32) t.data<float>()[e] = static_cast<float>(pick(-8, 8)) / 4;
      if (t.view().dtype == DType::kInt8) t.data<std::int8_t>()[e] = static_cast<std::int8_t>(pick(-128, 127));
      if (t.view().dtype == DType::kUint8) t.data<std::uint8_t>()[e] = static_cast<std::uint8_t>(pick(0, 255));
    }
  };
  const std::int64_t kMin = std::numeric_limits<std::int64_t>::min(), kMax = std::numeric_limits<std::int64_t>::max();
  std::size_t ok = 0, runs = 0;
  for (int iter = 0; iter < 1500; ++iter) {
    const int which = iter % 5;
    Attrs a;
    std::vector<OwnedTensor> in;
    std::vector<OutputSpec> out;
    std::string op;
    const bool q = pick(0, 2) == 0;
    if (which <= 2) {  // Conv, ConvTranspose, pools
      const int nsp = pick(1, 3);
      const std::int64_t N = pick(1, 2), group = pick(1, 2), cg = pick(1, 3), mg = pick(1, 3);
      I xd{N, group * cg}, k, strides, dil, pads(static_cast<std::size_t>(2 * nsp)), opad;
      for (int i = 0; i < nsp; ++i) {
        xd.push_back(pick(1, 6));
        k.push_back(pick(1, 3));
        strides.push_back(pick(1, 3));
        dil.push_back(pick(1, 2));
        pads[static_cast<std::size_t>(i)] = pick(0, 2);
        pads[static_cast<std::size_t>(i + nsp)] = pick(0, 2);
        opad.push_back(pick(0, 1));
      }
      a.set("strides", strides);
      a.set("dilations", dil);
      if (pick(0, 3) == 0) {
        a.set("auto_pad", std::string(pick(0, 1) ? "SAME_UPPER" : "VALID"));
      } else {
        a.set("pads", pads);
      }
      in.emplace_back(q ? DType::kUint8 : DType::kFloat32, xd);
      if (q) in.back().set_quant(model::Quant{{0.1f}, {pick(0, 255)}, -1});
      if (which == 2) {
        op = pick(0, 1) ? "MaxPool" : "AveragePool";
        a.set("kernel_shape", k);
        a.set("ceil_mode", std::int64_t{pick(0, 1)});
        if (op == "AveragePool") a.set("count_include_pad", std::int64_t{pick(0, 1)});
      } else {
        op = which == 0 ? "Conv" : "ConvTranspose";
        a.set("group", group);
        if (which == 1) a.set("output_padding", opad);
        I wd = which == 0 ? I{group * mg, cg} : I{group * cg, mg};
        wd.insert(wd.end(), k.begin(), k.end());
        in.emplace_back(q ? DType::kInt8 : DType::kFloat32, wd);
        if (q) {
          const std::int64_t ch = wd[which == 0 ? 0 : 1];
          in.back().set_quant(
              pick(0, 1)
                  ? model::Quant{{0.02f}, {0}, -1}
                  : model::Quant{std::vector<float>(static_cast<std::size_t>(ch), 0.03f), {}, which == 0 ? 0 : 1});
        }
        if (pick(0, 1)) {
          in.emplace_back(q && pick(0, 1) ? DType::kInt32 : DType::kFloat32, I{group * mg});
        }
      }
      if (q) out.push_back({pick(0, 1) ? DType::kInt8 : DType::kFloat32, model::Quant{{0.2f}, {pick(-5, 5)}, -1}});
    } else if (which == 3) {  // Resize
      op = "Resize";
      const int r = pick(1, 4);
      I xd;
      for (int i = 0; i < r; ++i) xd.push_back(pick(1, 5));
      const char* modes[] = {"nearest", "linear"};
      const char* ctms[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"};
      const char* nms[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
      a.set("mode", std::string(modes[pick(0, 1)]));
      a.set("coordinate_transformation_mode", std::string(ctms[pick(0, 3)]));
      a.set("nearest_mode", std::string(nms[pick(0, 3)]));
      in.emplace_back(q ? DType::kInt8 : DType::kFloat32, xd);
      if (q) in.back().set_quant(model::Quant{{0.1f}, {3}, -1});
      in.emplace_back(DType::kFloat32, I{0});  // roi: empty = absent
      const bool lin = a.all().at("mode") == model::AttrValue(std::string("linear"));
      if (pick(0, 1)) {
        const float choices[] = {0.3f, 0.5f, 1, 1.5f, 2, 3};
        OwnedTensor sc(DType::kFloat32, {r});
        for (int i = 0; i < r; ++i) sc.data<float>()[i] = (lin && i + 2 < r) ? 1.0f : choices[pick(0, 5)];
        in.push_back(std::move(sc));
      } else {
        in.emplace_back(DType::kFloat32, I{0});
        OwnedTensor sz(DType::kInt64, {r});
        for (int i = 0; i < r; ++i)
          sz.data<std::int64_t>()[i] = (lin && i + 2 < r) ? xd[static_cast<std::size_t>(i)] : pick(1, 7);
        in.push_back(std::move(sz));
      }
      if (q) out.push_back({DType::kInt8, model::Quant{{0.1f}, {3}, -1}});
    } else {  // Slice or Pad
      const int r = pick(1, 3);
      I xd;
      for (int i = 0; i < r; ++i) xd.push_back(pick(0, 5));
      in.emplace_back(q ? DType::kInt8 : DType::kFloat32, xd);
      if (q) in.back().set_quant(model::Quant{{0.1f}, {3}, -1});
      const std::int64_t extremes[] = {kMin, kMax, -10, 10};
      auto any = [&]() { return pick(0, 5) == 0 ? extremes[pick(0, 3)] : std::int64_t{pick(-6, 6)}; };
      if (pick(0, 1)) {
        op = "Slice";
        const int n = pick(1, r);
        I st, en, ax, sp;
        for (int i = 0; i < n; ++i) {
          st.push_back(any());
          en.push_back(any());
          ax.push_back(i - (pick(0, 1) ? r : 0));
          std::int64_t step = any();
          sp.push_back(step == 0 ? 1 : step);
        }
        in.push_back(OwnedTensor::i64({n}, st));
        in.push_back(OwnedTensor::i64({n}, en));
        in.push_back(OwnedTensor::i64({n}, ax));
        in.push_back(OwnedTensor::i64({n}, sp));
      } else {
        op = "Pad";
        const char* pm[] = {"constant", "reflect", "edge"};
        a.set("mode", std::string(pm[pick(0, 2)]));
        I pads;
        for (int i = 0; i < 2 * r; ++i) pads.push_back(pick(-3, 3));
        in.push_back(OwnedTensor::i64({2 * r}, pads));
      }
      if (q) out.push_back({DType::kInt8, model::Quant{{0.1f}, {3}, -1}});
    }
    for (auto& t : in) {
      if (t.view().dtype != DType::kInt64) fill(t);
    }
    std::vector<TensorView> views;
    for (const auto& t : in) views.push_back(t.view());
    auto r = run_reference_owned(op, a, views, out);
    ++runs;
    if (r.ok()) {
      ++ok;
      for (const auto& t : r.value()) {
        // (MaxPool windows with no input tap give -inf, as documented.)
        if (t.view().dtype != DType::kFloat32 || op == "MaxPool") continue;
        for (float v : t.values<float>()) ASSERT_TRUE(std::isfinite(v)) << op;
      }
    } else {
      EXPECT_NE(r.status().message().find(op), std::string::npos) << r.status().message();
    }
  }
  EXPECT_GT(ok, runs / 2) << ok << " of " << runs;
  std::printf("%zu structured random runs, %zu succeeded\n", runs, ok);
}

}  // namespace
}  // namespace svp::kernels
