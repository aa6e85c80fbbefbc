#include "netzoo/networks.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace svp::netzoo {
namespace {

using model::DType;
using compiler::LayerOptions;
using model::Quant;
using compiler::TensorId;
using I = std::vector<std::int64_t>;

// Activation scale of the int8 variant: ±127 covers about ±4 (the networks keep
// activations near unit variance, see conv()).
constexpr float kActScale = 4.f / 127.f;
// ReLU6 as saturation: 127 · (6/127) = 6.
constexpr float kRelu6Scale = 6.f / 127.f;

class Net {
 public:
  Net(const NetOptions& o, const char* name) : o_(o), b_(name), seed_(o.seed * 2654435761u + 12345u) {
    if (o.segment_every > 0) b_.segment_every(o.segment_every);
  }
  bool int8() const { return o_.dtype == DType::kInt8; }

  TensorId input(std::int64_t c) {
    if (int8()) return b_.add_input("data", DType::kInt8, {o_.batch, c, o_.height, o_.width}, model::Layout::kNCHW,
                                    q(kActScale));
    return b_.add_input("data", DType::kFloat32, {o_.batch, c, o_.height, o_.width});
  }

  // Conv (+ bias) with weights scaled so that outputs keep about the input's variance;
  // `act`: "" none, "relu", "relu6". Returns the output (after the activation).
  TensorId conv(const std::string& name, TensorId x, std::int64_t cin, std::int64_t cout, std::int64_t k,
                std::int64_t stride, std::int64_t group, const std::string& act, std::int64_t pad = -1) {
    if (pad < 0) pad = k / 2;
    const std::int64_t cg = cin / group;
    const std::int64_t fan_in = cg * k * k;
    const std::size_t n = static_cast<std::size_t>(cout * fan_in);
    LayerOptions o;
    o.attrs.set("strides", I{stride, stride});
    o.attrs.set("pads", I{pad, pad, pad, pad});
    o.attrs.set("group", group);
    // Uniform weights of variance 2 / fan_in (He), bias small.
    const float a = std::sqrt(6.f / static_cast<float>(fan_in));
    TensorId w, bias;
    const float out_scale = act == "relu6" ? kRelu6Scale : kActScale;
    if (int8()) {
      std::vector<std::int8_t> wq(n);
      for (auto& v : wq) v = static_cast<std::int8_t>(static_cast<int>(next() % 255) - 127);
      Quant wquant{{}, {}, 0};
      for (std::int64_t c = 0; c < cout; ++c) {
        // Per-channel scales vary a little around a / 127, as calibrated weights do.
        wquant.scale.push_back(a / 127.f * (0.75f + 0.5f * static_cast<float>(next() % 1000) / 1000.f));
        wquant.zero_point.push_back(0);
      }
      std::vector<std::int32_t> bq(static_cast<std::size_t>(cout));
      for (std::size_t c = 0; c < bq.size(); ++c) {
        const float real = 0.1f * (static_cast<float>(next() % 2001) / 1000.f - 1.f);
        bq[c] = static_cast<std::int32_t>(std::lround(real / (kActScale * wquant.scale[c])));
      }
      w = b_.add_constant(name + ".w", {cout, cg, k, k}, wq, wquant);
      bias = b_.add_constant(name + ".b", {cout}, bq);
      o.output_quants = {q(out_scale)};
    } else {
      std::vector<float> wf(n);
      for (auto& v : wf) v = a * (static_cast<float>(next() % 2001) / 1000.f - 1.f);
      std::vector<float> bf(static_cast<std::size_t>(cout));
      for (auto& v : bf) v = 0.1f * (static_cast<float>(next() % 2001) / 1000.f - 1.f);
      w = b_.add_constant(name + ".w", {cout, cg, k, k}, wf);
      bias = b_.add_constant(name + ".b", {cout}, bf);
    }
    TensorId y = b_.add_layer(name, "Conv", {x, w, bias}, o);
    if (act.empty()) return y;
    if (act == "silu" && !int8()) {
      // SiLU as the ONNX export writes it: x · sigmoid(x).
      TensorId sig = b_.add_layer(name + ".sigmoid", "Sigmoid", {y});
      return b_.add_layer(name + ".silu", "Mul", {y, sig});
    }
    if (act == "relu" || int8()) return b_.add_layer(name + ".relu", "Relu", {y});
    LayerOptions clip;
    clip.attrs.set("min", 0.0);
    clip.attrs.set("max", 6.0);
    return b_.add_layer(name + ".relu6", "Clip", {y}, clip);
  }

  TensorId add(const std::string& name, TensorId a, TensorId b) { return b_.add_layer(name, "Add", {a, b}); }
  TensorId relu(const std::string& name, TensorId x) { return b_.add_layer(name, "Relu", {x}); }

  TensorId max_pool(const std::string& name, TensorId x, std::int64_t k = 3, std::int64_t s = 2, std::int64_t p = 1) {
    LayerOptions o;
    o.attrs.set("kernel_shape", I{k, k});
    o.attrs.set("strides", I{s, s});
    o.attrs.set("pads", I{p, p, p, p});
    return b_.add_layer(name, "MaxPool", {x}, o);
  }

  // Float-only helpers (the networks that only need shapes: board time calibration).
  TensorId layer(const std::string& name, const std::string& op, std::vector<TensorId> in, LayerOptions o = {}) {
    return b_.add_layer(name, op, std::move(in), std::move(o));
  }
  TensorId weights(const std::string& name, I dims, float scale) {
    std::size_t n = 1;
    for (std::int64_t d : dims) n *= static_cast<std::size_t>(d);
    std::vector<float> v(n);
    for (auto& x : v) x = scale * (static_cast<float>(next() % 2001) / 1000.f - 1.f);
    return b_.add_constant(name, std::move(dims), v);
  }
  TensorId floats(const std::string& name, std::vector<float> values) {
    const std::int64_t n = static_cast<std::int64_t>(values.size());
    return b_.add_constant(name, {n}, std::move(values));
  }
  TensorId ints(const std::string& name, I values, bool scalar = false) {
    I dims = scalar ? I{} : I{static_cast<std::int64_t>(values.size())};
    return b_.add_constant(name, std::move(dims), values);
  }
  // x [..., k] · W [k, n] + b.
  TensorId linear(const std::string& name, TensorId x, std::int64_t k, std::int64_t n) {
    TensorId y = b_.add_layer(name, "MatMul", {x, weights(name + ".w", {k, n}, std::sqrt(3.f / float(k)))});
    return b_.add_layer(name + ".bias", "Add", {y, weights(name + ".b", {n}, 0.1f)});
  }
  void reserve(std::size_t bytes) { b_.reserve_weights(bytes); }
  Result<compiler::BuiltModel> finish(TensorId out) {
    b_.add_output(out);
    return b_.build();
  }
  Result<compiler::BuiltModel> finish(const std::vector<TensorId>& outs) {
    for (TensorId t : outs) b_.add_output(t);
    return b_.build();
  }
  // Flatten → Gemm (float32 logits), the classifier of a feature vector [N, c].
  Result<compiler::BuiltModel> fc_head(TensorId f, std::int64_t c) {
    LayerOptions gemm;
    gemm.attrs.set("transB", std::int64_t{1});
    gemm.output_names = {"logits"};
    TensorId w = weights("fc.w", {o_.classes, c}, std::sqrt(3.f / float(c)));
    TensorId bias = weights("fc.b", {o_.classes}, 0.1f);
    b_.add_output(b_.add_layer("fc", "Gemm", {f, w, bias}, gemm));
    return b_.build();
  }

  // GlobalAveragePool → Flatten → Gemm (float32 logits).
  Result<compiler::BuiltModel> head(TensorId x, std::int64_t c) {
    TensorId g = b_.add_layer("gap", "GlobalAveragePool", {x});
    LayerOptions fl;
    fl.attrs.set("axis", std::int64_t{1});
    TensorId f = b_.add_layer("flatten", "Flatten", {g}, fl);
    const std::size_t n = static_cast<std::size_t>(o_.classes * c);
    const float a = std::sqrt(3.f / static_cast<float>(c));
    LayerOptions gemm;
    gemm.attrs.set("transB", std::int64_t{1});
    TensorId w, bias;
    if (int8()) {
      std::vector<std::int8_t> wq(n);
      for (auto& v : wq) v = static_cast<std::int8_t>(static_cast<int>(next() % 255) - 127);
      w = b_.add_constant("fc.w", {o_.classes, c}, wq, Quant{{a / 127.f}, {0}, -1});
      std::vector<std::int32_t> bq(static_cast<std::size_t>(o_.classes));
      for (auto& v : bq) v = static_cast<std::int32_t>(next() % 2001) - 1000;
      bias = b_.add_constant("fc.b", {o_.classes}, bq);
      gemm.output_dtypes = {DType::kFloat32};
    } else {
      std::vector<float> wf(n);
      for (auto& v : wf) v = a * (static_cast<float>(next() % 2001) / 1000.f - 1.f);
      std::vector<float> bf(static_cast<std::size_t>(o_.classes), 0.f);
      w = b_.add_constant("fc.w", {o_.classes, c}, wf);
      bias = b_.add_constant("fc.b", {o_.classes}, bf);
    }
    gemm.output_names = {"logits"};
    b_.add_output(b_.add_layer("fc", "Gemm", {f, w, bias}, gemm));
    return b_.build();
  }

 private:
  static Quant q(float s) { return Quant{{s}, {0}, -1}; }
  std::uint32_t next() {
    seed_ = seed_ * 1664525u + 1013904223u;
    return seed_ >> 8;
  }

  NetOptions o_;
  compiler::ModelBuilder b_;
  std::uint32_t seed_;
};

}  // namespace

Result<compiler::BuiltModel> build_resnet18(const NetOptions& options) {
  Net n(options, "resnet18");
  TensorId x = n.input(3);
  x = n.conv("conv1", x, 3, 64, 7, 2, 1, "relu");
  x = n.max_pool("pool1", x);
  std::int64_t cin = 64;
  const std::int64_t widths[4] = {64, 128, 256, 512};
  for (int stage = 0; stage < 4; ++stage) {
    for (int blk = 0; blk < 2; ++blk) {
      const std::int64_t cout = widths[stage];
      const std::int64_t stride = (stage > 0 && blk == 0) ? 2 : 1;
      const std::string p = "layer" + std::to_string(stage + 1) + "." + std::to_string(blk);
      // The shortcut first, so that conv2 → Add → Relu are consecutive (fusable).
      TensorId shortcut = x;
      if (stride != 1 || cin != cout) shortcut = n.conv(p + ".downsample", x, cin, cout, 1, stride, 1, "");
      TensorId y = n.conv(p + ".conv1", x, cin, cout, 3, stride, 1, "relu");
      y = n.conv(p + ".conv2", y, cout, cout, 3, 1, 1, "");
      x = n.relu(p + ".relu", n.add(p + ".add", y, shortcut));
      cin = cout;
    }
  }
  return n.head(x, 512);
}

Result<compiler::BuiltModel> build_mobilenet_v2(const NetOptions& options) {
  Net n(options, "mobilenet_v2");
  TensorId x = n.input(3);
  x = n.conv("features.0", x, 3, 32, 3, 2, 1, "relu6");
  std::int64_t cin = 32;
  struct Stage {
    std::int64_t t, c, n, s;
  };
  const Stage stages[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                          {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  int block = 1;
  for (const Stage& st : stages) {
    for (std::int64_t i = 0; i < st.n; ++i, ++block) {
      const std::int64_t stride = i == 0 ? st.s : 1;
      const std::int64_t hidden = cin * st.t;
      const std::string p = "features." + std::to_string(block);
      TensorId y = x;
      if (st.t != 1) y = n.conv(p + ".expand", y, cin, hidden, 1, 1, 1, "relu6");
      y = n.conv(p + ".dw", y, hidden, hidden, 3, stride, hidden, "relu6");
      y = n.conv(p + ".project", y, hidden, st.c, 1, 1, 1, "");
      if (stride == 1 && cin == st.c) y = n.add(p + ".add", y, x);
      x = y;
      cin = st.c;
    }
  }
  x = n.conv("features.18", x, cin, 1280, 1, 1, 1, "relu6");
  return n.head(x, 1280);
}

namespace {

Status float_only(const NetOptions& o, const char* net) {
  if (o.dtype == DType::kFloat32) return Status::Ok();
  return Status(err::kFeatureUnsupported,
                std::string("netzoo: ") + net + " is built in float32 only (int8: not implemented yet); use NetOptions::dtype = kFloat32");
}

}  // namespace

namespace {

// Squeeze-and-excitation gating of x [N, c, h, w] as moskomule/senet.pytorch's SELayer
// (reduction 16, bias-free Linears) exports to ONNX at opset 11: GlobalAveragePool →
// Reshape [N, c] → MatMul → Relu → MatMul → Sigmoid → Reshape [N, c, 1, 1] → Expand to x's
// shape (`expand_as`) → Mul.
TensorId se_gate(Net& n, const NetOptions& o, const std::string& p, TensorId x, std::int64_t c, std::int64_t h,
                 std::int64_t w) {
  TensorId g = n.layer(p + ".avg_pool", "GlobalAveragePool", {x});
  g = n.layer(p + ".view", "Reshape", {g, n.ints(p + ".view.shape", {o.batch, c})});
  g = n.layer(p + ".fc.0", "MatMul", {g, n.weights(p + ".fc.0.w", {c, c / 16}, std::sqrt(3.f / float(c)))});
  g = n.relu(p + ".fc.1", g);
  g = n.layer(p + ".fc.2", "MatMul", {g, n.weights(p + ".fc.2.w", {c / 16, c}, std::sqrt(3.f * 16 / float(c)))});
  g = n.layer(p + ".fc.3", "Sigmoid", {g});
  g = n.layer(p + ".view2", "Reshape", {g, n.ints(p + ".view2.shape", {o.batch, c, 1, 1})});
  g = n.layer(p + ".expand", "Expand", {g, n.ints(p + ".expand.shape", {o.batch, c, h, w})});
  return n.layer(p + ".scale", "Mul", {x, g});
}

// torchvision's bottleneck ResNets (v1.5: the stride on the 3x3 convolution), `blocks` per
// stage; `se`: each block's residual branch gated by se_gate before the add (SE-ResNet).
Result<compiler::BuiltModel> bottleneck_resnet(const NetOptions& options, const char* name, const int (&blocks)[4],
                                               bool se = false) {
  if (Status s = float_only(options, name); !s.ok()) return s;
  Net n(options, name);
  std::int64_t h = (options.height + 1) / 2, wd = (options.width + 1) / 2;  // after conv1
  h = (h + 1) / 2;  // after the max pool
  wd = (wd + 1) / 2;
  TensorId x = n.input(3);
  x = n.conv("conv1", x, 3, 64, 7, 2, 1, "relu");
  x = n.max_pool("pool1", x);
  std::int64_t cin = 64;
  const std::int64_t widths[4] = {64, 128, 256, 512};
  for (int stage = 0; stage < 4; ++stage) {
    for (int blk = 0; blk < blocks[stage]; ++blk) {
      const std::int64_t w = widths[stage], cout = w * 4;
      const std::int64_t stride = (stage > 0 && blk == 0) ? 2 : 1;
      const std::string p = "layer" + std::to_string(stage + 1) + "." + std::to_string(blk);
      TensorId shortcut = x;
      if (stride != 1 || cin != cout) shortcut = n.conv(p + ".downsample", x, cin, cout, 1, stride, 1, "");
      TensorId y = n.conv(p + ".conv1", x, cin, w, 1, 1, 1, "relu");
      y = n.conv(p + ".conv2", y, w, w, 3, stride, 1, "relu");
      y = n.conv(p + ".conv3", y, w, cout, 1, 1, 1, "");
      if (stride == 2) {
        h = (h + 1) / 2;
        wd = (wd + 1) / 2;
      }
      if (se) y = se_gate(n, options, p + ".se", y, cout, h, wd);
      x = n.relu(p + ".relu", n.add(p + ".add", y, shortcut));
      cin = cout;
    }
  }
  return n.head(x, 2048);
}

}  // namespace

Result<compiler::BuiltModel> build_resnet50(const NetOptions& options) {
  static constexpr int kBlocks[4] = {3, 4, 6, 3};
  return bottleneck_resnet(options, "resnet50", kBlocks);
}

Result<compiler::BuiltModel> build_resnet101(const NetOptions& options) {
  static constexpr int kBlocks[4] = {3, 4, 23, 3};
  return bottleneck_resnet(options, "resnet101", kBlocks);
}

Result<compiler::BuiltModel> build_se_resnet50(const NetOptions& options) {
  static constexpr int kBlocks[4] = {3, 4, 6, 3};
  return bottleneck_resnet(options, "se_resnet50", kBlocks, true);
}

// polarisZhao/PFLD-pytorch's PFLDInference (the backbone the HiSpark zoo exports, batch norm
// folded by onnxsim) at 112x112: MobileNetV2-style inverted residuals (ReLU, depthwise 3x3),
// the multi-scale head (two average pools and a 7x7 convolution, concatenated into the
// 196-landmark Gemm); outputs block3_5's features and the landmarks.
Result<compiler::BuiltModel> build_pfld(const NetOptions& options) {
  if (Status s = float_only(options, "pfld"); !s.ok()) return s;
  Net n(options, "pfld");
  TensorId x = n.input(3);
  x = n.conv("conv1", x, 3, 64, 3, 2, 1, "relu");
  x = n.conv("conv2", x, 64, 64, 3, 1, 64, "relu");
  auto inverted = [&](const std::string& p, TensorId v, std::int64_t inp, std::int64_t oup, std::int64_t stride,
                      bool residual, std::int64_t expand) {
    const std::int64_t hidden = inp * expand;
    TensorId y = n.conv(p + ".pw", v, inp, hidden, 1, 1, 1, "relu");
    y = n.conv(p + ".dw", y, hidden, hidden, 3, stride, hidden, "relu");
    y = n.conv(p + ".pwl", y, hidden, oup, 1, 1, 1, "");
    return residual ? n.add(p + ".add", v, y) : y;
  };
  x = inverted("conv3_1", x, 64, 64, 2, false, 2);
  for (int i = 2; i <= 5; ++i) x = inverted("block3_" + std::to_string(i), x, 64, 64, 1, true, 2);
  const TensorId out1 = x;
  x = inverted("conv4_1", x, 64, 128, 2, false, 2);
  x = inverted("conv5_1", x, 128, 128, 1, false, 4);
  for (int i = 2; i <= 6; ++i) x = inverted("block5_" + std::to_string(i), x, 128, 128, 1, true, 4);
  x = inverted("conv6_1", x, 128, 16, 1, false, 2);
  auto avg_flat = [&](const std::string& p, TensorId v, std::int64_t k) {
    LayerOptions pool;
    pool.attrs.set("kernel_shape", I{k, k});
    pool.attrs.set("strides", I{k, k});
    LayerOptions fl;
    fl.attrs.set("axis", std::int64_t{1});
    return n.layer(p + ".flatten", "Flatten", {n.layer(p, "AveragePool", {v}, pool)}, fl);
  };
  const std::int64_t s14 = (options.height + 7) / 8;  // 14 at 112
  const TensorId x1 = avg_flat("avg_pool1", x, s14);
  x = n.conv("conv7", x, 16, 32, 3, 2, 1, "relu");
  const TensorId x2 = avg_flat("avg_pool2", x, (s14 + 1) / 2);
  x = n.conv("conv8", x, 32, 128, (s14 + 1) / 2, 1, 1, "relu", 0);
  LayerOptions fl;
  fl.attrs.set("axis", std::int64_t{1});
  const TensorId x3 = n.layer("conv8.flatten", "Flatten", {x}, fl);
  LayerOptions cat;
  cat.attrs.set("axis", std::int64_t{1});
  const TensorId ms = n.layer("multi_scale", "Concat", {x1, x2, x3}, cat);
  LayerOptions gemm;
  gemm.attrs.set("transB", std::int64_t{1});
  const TensorId landmarks =
      n.layer("fc", "Gemm", {ms, n.weights("fc.w", {196, 176}, 0.13f), n.weights("fc.b", {196}, 0.1f)}, gemm);
  return n.finish(std::vector<TensorId>{out1, landmarks});
}

// torchvision's shufflenet_v2_x1_0 as its ONNX export writes it: the channel split as two
// Slices, the channel shuffle as Reshape → Transpose → Reshape.
Result<compiler::BuiltModel> build_shufflenet_v2(const NetOptions& options) {
  if (Status s = float_only(options, "shufflenet_v2"); !s.ok()) return s;
  Net n(options, "shufflenet_v2");
  TensorId x = n.input(3);
  x = n.conv("conv1", x, 3, 24, 3, 2, 1, "relu");
  x = n.max_pool("maxpool", x);
  std::int64_t h = (options.height + 3) / 4, w = (options.width + 3) / 4, cin = 24;
  const std::int64_t outs[3] = {116, 232, 464};
  const int repeats[3] = {4, 8, 4};
  auto shuffle = [&](const std::string& p, TensorId v, std::int64_t c) {
    v = n.layer(p + ".shuffle.r", "Reshape", {v, n.ints(p + ".shuffle.s1", {options.batch, 2, c / 2, h, w})});
    LayerOptions tr;
    tr.attrs.set("perm", I{0, 2, 1, 3, 4});
    v = n.layer(p + ".shuffle.t", "Transpose", {v}, tr);
    return n.layer(p + ".shuffle.b", "Reshape", {v, n.ints(p + ".shuffle.s2", {options.batch, c, h, w})});
  };
  for (int stage = 0; stage < 3; ++stage) {
    const std::int64_t oup = outs[stage], bf = oup / 2;
    for (int i = 0; i < repeats[stage]; ++i) {
      const std::string p = "stage" + std::to_string(stage + 2) + "." + std::to_string(i);
      TensorId left, right;
      std::int64_t rin;
      if (i == 0) {
        left = n.conv(p + ".branch1.0", x, cin, cin, 3, 2, cin, "");
        left = n.conv(p + ".branch1.2", left, cin, bf, 1, 1, 1, "relu");
        right = x;
        rin = cin;
      } else {
        auto slice = [&](const char* part, std::int64_t start) {
          return n.layer(p + "." + part, "Slice",
                         {x, n.ints(p + "." + part + ".starts", {start}), n.ints(p + "." + part + ".ends", {start + bf}),
                          n.ints(p + "." + part + ".axes", {1})});
        };
        left = slice("x1", 0);
        right = slice("x2", bf);
        rin = bf;
      }
      const std::int64_t stride = i == 0 ? 2 : 1;
      right = n.conv(p + ".branch2.0", right, rin, bf, 1, 1, 1, "relu");
      right = n.conv(p + ".branch2.3", right, bf, bf, 3, stride, bf, "");
      right = n.conv(p + ".branch2.5", right, bf, bf, 1, 1, 1, "relu");
      if (i == 0) {
        h = (h + 1) / 2;
        w = (w + 1) / 2;
      }
      LayerOptions cat;
      cat.attrs.set("axis", std::int64_t{1});
      x = shuffle(p, n.layer(p + ".cat", "Concat", {left, right}, cat), oup);
      cin = oup;
    }
  }
  x = n.conv("conv5", x, cin, 1024, 1, 1, 1, "relu");
  return n.head(x, 1024);
}

// Ultralytics YOLOv5s v6+ (depth 0.33, width 0.5) as airockchip/yolov5 exports it for RKNN
// and the HiSpark zoo compiles it: backbone, SPPF, PANet neck and the three 1x1 detection
// convolutions with their sigmoid, box decoding left to the application. `act`: "silu" (the
// released model) or "relu" (Rockchip's yolov5s_relu).
Result<compiler::BuiltModel> build_yolov5s(const NetOptions& options, const std::string& act) {
  if (Status s = float_only(options, "yolov5s"); !s.ok()) return s;
  Net n(options, act == "relu" ? "yolov5s_relu" : "yolov5s");
  auto conv = [&](const std::string& p, TensorId x, std::int64_t cin, std::int64_t cout, std::int64_t k,
                  std::int64_t s) { return n.conv(p, x, cin, cout, k, s, 1, act); };
  LayerOptions cat;
  cat.attrs.set("axis", std::int64_t{1});
  auto c3 = [&](const std::string& p, TensorId x, std::int64_t cin, std::int64_t cout, int blocks, bool shortcut) {
    const std::int64_t h = cout / 2;
    TensorId a = conv(p + ".cv1", x, cin, h, 1, 1);
    TensorId b = conv(p + ".cv2", x, cin, h, 1, 1);
    for (int i = 0; i < blocks; ++i) {
      const std::string q = p + ".m." + std::to_string(i);
      TensorId y = conv(q + ".cv2", conv(q + ".cv1", a, h, h, 1, 1), h, h, 3, 1);
      a = shortcut ? n.add(q + ".add", a, y) : y;
    }
    return conv(p + ".cv3", n.layer(p + ".cat", "Concat", {a, b}, cat), 2 * h, cout, 1, 1);
  };
  LayerOptions up;
  up.attrs.set("mode", std::string("nearest"));
  auto upsample = [&](const std::string& p, TensorId x) {
    return n.layer(p, "Resize", {x, -1, n.floats(p + ".scales", {1, 1, 2, 2})}, up);
  };
  TensorId x = n.input(3);
  x = n.conv("model.0", x, 3, 32, 6, 2, 1, act, 2);  // k6 s2 p2: the former Focus
  x = conv("model.1", x, 32, 64, 3, 2);
  x = c3("model.2", x, 64, 64, 1, true);
  x = conv("model.3", x, 64, 128, 3, 2);
  const TensorId p3 = c3("model.4", x, 128, 128, 2, true);
  x = conv("model.5", p3, 128, 256, 3, 2);
  const TensorId p4 = c3("model.6", x, 256, 256, 3, true);
  x = conv("model.7", p4, 256, 512, 3, 2);
  x = c3("model.8", x, 512, 512, 1, true);
  // SPPF: three chained 5x5 max pools.
  x = conv("model.9.cv1", x, 512, 256, 1, 1);
  TensorId y1 = n.max_pool("model.9.m1", x, 5, 1, 2);
  TensorId y2 = n.max_pool("model.9.m2", y1, 5, 1, 2);
  TensorId y3 = n.max_pool("model.9.m3", y2, 5, 1, 2);
  x = conv("model.9.cv2", n.layer("model.9.cat", "Concat", {x, y1, y2, y3}, cat), 1024, 512, 1, 1);
  const TensorId h10 = conv("model.10", x, 512, 256, 1, 1);
  x = n.layer("model.12", "Concat", {upsample("model.11", h10), p4}, cat);
  x = c3("model.13", x, 512, 256, 1, false);
  const TensorId h14 = conv("model.14", x, 256, 128, 1, 1);
  x = n.layer("model.16", "Concat", {upsample("model.15", h14), p3}, cat);
  const TensorId o3 = c3("model.17", x, 256, 128, 1, false);
  x = n.layer("model.19", "Concat", {conv("model.18", o3, 128, 128, 3, 2), h14}, cat);
  const TensorId o4 = c3("model.20", x, 256, 256, 1, false);
  x = n.layer("model.22", "Concat", {conv("model.21", o4, 256, 256, 3, 2), h10}, cat);
  const TensorId o5 = c3("model.23", x, 512, 512, 1, false);
  std::vector<TensorId> outs;
  const TensorId levels[3] = {o3, o4, o5};
  const std::int64_t widths[3] = {128, 256, 512};
  for (int i = 0; i < 3; ++i) {
    const std::string p = "model.24.m." + std::to_string(i);
    outs.push_back(n.layer(p + ".sigmoid", "Sigmoid", {n.conv(p, levels[i], widths[i], 255, 1, 1, 1, "")}));
  }
  return n.finish(outs);
}

// Ultralytics YOLOv8 n (width 0.25) or s (width 0.5), depth 0.33, as airockchip's
// ultralytics_yolov8 exports it for RKNN: backbone of C2f stages (the split as two Slices),
// SPPF, PAN neck, and per level the box branch's 64 DFL-bin outputs and the class branch's 80
// sigmoid outputs, the DFL and decoding left to the application (the per-level score sum of
// that export, a ReduceSum over 80 channels, is not built).
Result<compiler::BuiltModel> build_yolov8(const NetOptions& options, char scale) {
  if (Status s = float_only(options, "yolov8"); !s.ok()) return s;
  if (scale != 'n' && scale != 's') {
    return Status(err::kFeatureUnsupported, std::string("netzoo: yolov8 scale '") + scale +
                                                "' is not implemented yet (n and s are); use 'n' or 's'");
  }
  const std::int64_t w = scale == 'n' ? 16 : 32;  // channels of the first layer: 64 × width
  Net n(options, scale == 'n' ? "yolov8n" : "yolov8s");
  auto conv = [&](const std::string& p, TensorId x, std::int64_t cin, std::int64_t cout, std::int64_t k,
                  std::int64_t s) { return n.conv(p, x, cin, cout, k, s, 1, "silu"); };
  LayerOptions cat;
  cat.attrs.set("axis", std::int64_t{1});
  auto c2f = [&](const std::string& p, TensorId x, std::int64_t cin, std::int64_t cout, int blocks, bool shortcut) {
    const std::int64_t c = cout / 2;
    TensorId y = conv(p + ".cv1", x, cin, 2 * c, 1, 1);
    auto slice = [&](const char* part, std::int64_t start) {
      return n.layer(p + "." + part, "Slice",
                     {y, n.ints(p + "." + part + ".starts", {start}), n.ints(p + "." + part + ".ends", {start + c}),
                      n.ints(p + "." + part + ".axes", {1})});
    };
    std::vector<TensorId> parts = {slice("y0", 0), slice("y1", c)};
    for (int i = 0; i < blocks; ++i) {
      const std::string q = p + ".m." + std::to_string(i);
      TensorId b = conv(q + ".cv2", conv(q + ".cv1", parts.back(), c, c, 3, 1), c, c, 3, 1);
      parts.push_back(shortcut ? n.add(q + ".add", parts.back(), b) : b);
    }
    return conv(p + ".cv2", n.layer(p + ".cat", "Concat", parts, cat), static_cast<std::int64_t>(parts.size()) * c,
                cout, 1, 1);
  };
  LayerOptions up;
  up.attrs.set("mode", std::string("nearest"));
  auto upsample = [&](const std::string& p, TensorId x) {
    return n.layer(p, "Resize", {x, -1, n.floats(p + ".scales", {1, 1, 2, 2})}, up);
  };
  TensorId x = n.input(3);
  x = conv("model.0", x, 3, w, 3, 2);
  x = conv("model.1", x, w, 2 * w, 3, 2);
  x = c2f("model.2", x, 2 * w, 2 * w, 1, true);
  x = conv("model.3", x, 2 * w, 4 * w, 3, 2);
  const TensorId p3 = c2f("model.4", x, 4 * w, 4 * w, 2, true);
  x = conv("model.5", p3, 4 * w, 8 * w, 3, 2);
  const TensorId p4 = c2f("model.6", x, 8 * w, 8 * w, 2, true);
  x = conv("model.7", p4, 8 * w, 16 * w, 3, 2);
  x = c2f("model.8", x, 16 * w, 16 * w, 1, true);
  x = conv("model.9.cv1", x, 16 * w, 8 * w, 1, 1);
  TensorId y1 = n.max_pool("model.9.m1", x, 5, 1, 2);
  TensorId y2 = n.max_pool("model.9.m2", y1, 5, 1, 2);
  TensorId y3 = n.max_pool("model.9.m3", y2, 5, 1, 2);
  const TensorId p5 = conv("model.9.cv2", n.layer("model.9.cat", "Concat", {x, y1, y2, y3}, cat), 32 * w, 16 * w, 1, 1);
  x = n.layer("model.11", "Concat", {upsample("model.10", p5), p4}, cat);
  const TensorId h12 = c2f("model.12", x, 24 * w, 8 * w, 1, false);
  x = n.layer("model.14", "Concat", {upsample("model.13", h12), p3}, cat);
  const TensorId o3 = c2f("model.15", x, 12 * w, 4 * w, 1, false);
  x = n.layer("model.17", "Concat", {conv("model.16", o3, 4 * w, 4 * w, 3, 2), h12}, cat);
  const TensorId o4 = c2f("model.18", x, 12 * w, 8 * w, 1, false);
  x = n.layer("model.20", "Concat", {conv("model.19", o4, 8 * w, 8 * w, 3, 2), p5}, cat);
  const TensorId o5 = c2f("model.21", x, 24 * w, 16 * w, 1, false);
  // Detect: box branch width max(16, c3/4, 64), class branch max(c3, 80), c3 = P3's width.
  const std::int64_t cbox = std::max<std::int64_t>({16, 4 * w / 4, 64}), ccls = std::max<std::int64_t>(4 * w, 80);
  std::vector<TensorId> outs;
  const TensorId levels[3] = {o3, o4, o5};
  const std::int64_t widths[3] = {4 * w, 8 * w, 16 * w};
  for (int i = 0; i < 3; ++i) {
    const std::string p = "model.22." + std::to_string(i);
    TensorId b = conv(p + ".cv2.1", conv(p + ".cv2.0", levels[i], widths[i], cbox, 3, 1), cbox, cbox, 3, 1);
    outs.push_back(n.conv(p + ".cv2.2", b, cbox, 64, 1, 1, 1, ""));
    TensorId c = conv(p + ".cv3.1", conv(p + ".cv3.0", levels[i], widths[i], ccls, 3, 1), ccls, ccls, 3, 1);
    outs.push_back(n.layer(p + ".sigmoid", "Sigmoid", {n.conv(p + ".cv3.2", c, ccls, 80, 1, 1, 1, "")}));
  }
  return n.finish(outs);
}

Result<compiler::BuiltModel> build_vgg16(const NetOptions& options) {
  if (Status s = float_only(options, "vgg16"); !s.ok()) return s;
  Net n(options, "vgg16");
  n.reserve(std::size_t{560} << 20);
  TensorId x = n.input(3);
  const std::int64_t cfg[] = {64, 64, 0, 128, 128, 0, 256, 256, 256, 0, 512, 512, 512, 0, 512, 512, 512, 0};
  std::int64_t cin = 3;
  int i = 0;
  for (std::int64_t c : cfg) {
    const std::string p = "features." + std::to_string(i++);
    if (c == 0) {
      x = n.max_pool(p, x, 2, 2, 0);
      continue;
    }
    x = n.conv(p, x, cin, c, 3, 1, 1, "relu");
    cin = c;
  }
  // At 224x224 the adaptive 7x7 average pool is the identity.
  LayerOptions fl;
  fl.attrs.set("axis", std::int64_t{1});
  TensorId f = n.layer("flatten", "Flatten", {x}, fl);
  const std::int64_t flat = 512 * (options.height / 32) * (options.width / 32);
  LayerOptions gemm;
  gemm.attrs.set("transB", std::int64_t{1});
  f = n.layer("classifier.0", "Gemm", {f, n.weights("classifier.0.w", {4096, flat}, 0.01f), n.weights("classifier.0.b", {4096}, 0.1f)}, gemm);
  f = n.relu("classifier.1", f);
  f = n.layer("classifier.3", "Gemm", {f, n.weights("classifier.3.w", {4096, 4096}, 0.02f), n.weights("classifier.3.b", {4096}, 0.1f)}, gemm);
  f = n.relu("classifier.4", f);
  return n.fc_head(f, 4096);
}

Result<compiler::BuiltModel> build_squeezenet1_1(const NetOptions& options) {
  if (Status s = float_only(options, "squeezenet1_1"); !s.ok()) return s;
  Net n(options, "squeezenet1_1");
  TensorId x = n.input(3);
  x = n.conv("features.0", x, 3, 64, 3, 2, 1, "relu", 0);
  x = n.max_pool("features.2", x, 3, 2, 0);
  struct Fire {
    std::int64_t cin, squeeze, expand;
    bool pool_after;
  };
  const Fire fires[] = {{64, 16, 64, false},   {128, 16, 64, true},   {128, 32, 128, false}, {256, 32, 128, true},
                        {256, 48, 192, false}, {384, 48, 192, false}, {384, 64, 256, false}, {512, 64, 256, false}};
  int i = 3;
  for (const Fire& f : fires) {
    const std::string p = "features." + std::to_string(i++);
    TensorId s = n.conv(p + ".squeeze", x, f.cin, f.squeeze, 1, 1, 1, "relu");
    TensorId e1 = n.conv(p + ".expand1x1", s, f.squeeze, f.expand, 1, 1, 1, "relu");
    TensorId e3 = n.conv(p + ".expand3x3", s, f.squeeze, f.expand, 3, 1, 1, "relu");
    LayerOptions cat;
    cat.attrs.set("axis", std::int64_t{1});
    x = n.layer(p + ".cat", "Concat", {e1, e3}, cat);
    if (f.pool_after) x = n.max_pool("features." + std::to_string(i++), x, 3, 2, 0);
  }
  x = n.conv("classifier.1", x, 512, options.classes, 1, 1, 1, "relu");
  TensorId g = n.layer("classifier.3", "GlobalAveragePool", {x});
  LayerOptions fl;
  fl.attrs.set("axis", std::int64_t{1});
  fl.output_names = {"logits"};
  return n.finish(n.layer("flatten", "Flatten", {g}, fl));
}

Result<compiler::BuiltModel> build_vit_b16(const NetOptions& options) {
  if (Status s = float_only(options, "vit_b16"); !s.ok()) return s;
  constexpr std::int64_t d = 768, heads = 12, hd = 64, mlp = 3072, layers = 12, patch = 16;
  const std::int64_t tokens = (options.height / patch) * (options.width / patch) + 1;
  Net n(options, "vit_b16");
  n.reserve(std::size_t{360} << 20);
  TensorId x = n.input(3);
  x = n.conv("conv_proj", x, 3, d, patch, patch, 1, "", 0);
  x = n.layer("patches", "Reshape", {x, n.ints("patches.shape", {options.batch, d, tokens - 1})});
  LayerOptions tr;
  tr.attrs.set("perm", I{0, 2, 1});
  x = n.layer("tokens", "Transpose", {x}, tr);
  LayerOptions cat;
  cat.attrs.set("axis", std::int64_t{1});
  x = n.layer("class_token", "Concat", {n.weights("cls", {options.batch, 1, d}, 0.02f), x}, cat);
  x = n.layer("pos_embedding", "Add", {x, n.weights("pos", {1, tokens, d}, 0.02f)});
  auto layer_norm = [&](const std::string& name, TensorId v) {
    LayerOptions ln;
    ln.attrs.set("axis", std::int64_t{-1});
    ln.attrs.set("epsilon", 1e-6);
    return n.layer(name, "LayerNormalization", {v, n.weights(name + ".g", {d}, 1.f), n.weights(name + ".b", {d}, 0.1f)}, ln);
  };
  for (std::int64_t l = 0; l < layers; ++l) {
    const std::string p = "encoder.layer" + std::to_string(l);
    TensorId y = layer_norm(p + ".ln_1", x);
    y = n.linear(p + ".in_proj", y, d, 3 * d);
    y = n.layer(p + ".qkv", "Reshape", {y, n.ints(p + ".qkv.shape", {tokens, 3, heads, hd})});
    LayerOptions split;
    split.attrs.set("perm", I{1, 2, 0, 3});
    y = n.layer(p + ".qkv_t", "Transpose", {y}, split);
    LayerOptions g0;
    g0.attrs.set("axis", std::int64_t{0});
    TensorId q = n.layer(p + ".q", "Gather", {y, n.ints(p + ".i0", {0}, true)}, g0);
    TensorId k = n.layer(p + ".k", "Gather", {y, n.ints(p + ".i1", {1}, true)}, g0);
    TensorId v = n.layer(p + ".v", "Gather", {y, n.ints(p + ".i2", {2}, true)}, g0);
    q = n.layer(p + ".q_scale", "Mul", {q, n.weights(p + ".scale", {1}, 0.125f)});
    LayerOptions kt;
    kt.attrs.set("perm", I{0, 2, 1});
    k = n.layer(p + ".k_t", "Transpose", {k}, kt);
    TensorId a = n.layer(p + ".scores", "MatMul", {q, k});
    LayerOptions sm;
    sm.attrs.set("axis", std::int64_t{-1});
    a = n.layer(p + ".softmax", "Softmax", {a}, sm);
    a = n.layer(p + ".attn", "MatMul", {a, v});
    LayerOptions back;
    back.attrs.set("perm", I{1, 0, 2});
    a = n.layer(p + ".attn_t", "Transpose", {a}, back);
    a = n.layer(p + ".attn_r", "Reshape", {a, n.ints(p + ".attn.shape", {options.batch, tokens, d})});
    a = n.linear(p + ".out_proj", a, d, d);
    x = n.add(p + ".add_1", a, x);
    y = layer_norm(p + ".ln_2", x);
    y = n.linear(p + ".mlp.0", y, d, mlp);
    // GELU as the ONNX export writes it: x · 0.5 · (1 + erf(x / √2)).
    TensorId e = n.layer(p + ".gelu.div", "Div", {y, n.weights(p + ".sqrt2", {1}, 1.4142135f)});
    e = n.layer(p + ".gelu.erf", "Erf", {e});
    e = n.layer(p + ".gelu.add", "Add", {e, n.weights(p + ".one", {1}, 1.f)});
    e = n.layer(p + ".gelu.mul", "Mul", {y, e});
    e = n.layer(p + ".gelu.half", "Mul", {e, n.weights(p + ".half", {1}, 0.5f)});
    y = n.linear(p + ".mlp.3", e, mlp, d);
    x = n.add(p + ".add_2", y, x);
  }
  x = layer_norm("encoder.ln", x);
  LayerOptions g1;
  g1.attrs.set("axis", std::int64_t{1});
  x = n.layer("class_out", "Gather", {x, n.ints("class_out.i", {0}, true)}, g1);
  return n.fc_head(x, d);
}

}  // namespace svp::netzoo
