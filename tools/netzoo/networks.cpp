#include "netzoo/networks.h"

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
                std::int64_t stride, std::int64_t group, const std::string& act) {
    const std::int64_t cg = cin / group;
    const std::int64_t fan_in = cg * k * k;
    const std::size_t n = static_cast<std::size_t>(cout * fan_in);
    LayerOptions o;
    o.attrs.set("strides", I{stride, stride});
    o.attrs.set("pads", I{k / 2, k / 2, k / 2, k / 2});
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
    if (act == "relu" || int8()) return b_.add_layer(name + ".relu", "Relu", {y});
    LayerOptions clip;
    clip.attrs.set("min", 0.0);
    clip.attrs.set("max", 6.0);
    return b_.add_layer(name + ".relu6", "Clip", {y}, clip);
  }

  TensorId add(const std::string& name, TensorId a, TensorId b) { return b_.add_layer(name, "Add", {a, b}); }
  TensorId relu(const std::string& name, TensorId x) { return b_.add_layer(name, "Relu", {x}); }

  TensorId max_pool(const std::string& name, TensorId x) {
    LayerOptions o;
    o.attrs.set("kernel_shape", I{3, 3});
    o.attrs.set("strides", I{2, 2});
    o.attrs.set("pads", I{1, 1, 1, 1});
    return b_.add_layer(name, "MaxPool", {x}, o);
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

}  // namespace svp::netzoo
