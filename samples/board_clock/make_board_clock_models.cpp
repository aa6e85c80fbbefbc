// Writes the two models of the board clock sample (board_clock_sample.c) as .om files, built
// with the project's model builder (it stands in for svp_atc; weights are random, only the
// shapes matter for timing):
//   detector.om    a small single-shot detector: three stride-2 3x3 convolutions and a 1x1
//                  head on a 1x3x160x160 image (18 outputs per cell: 3 anchors x (4 + 2)),
//                  one segment per block; not preemptible (short);
//   background.om  a MobileNet-style model (depthwise 3x3 + pointwise 1x1 blocks) on
//                  1x16x64x64, compiled preemptible, two layers per segment.
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "compiler/builder.h"

namespace {

using svp::compiler::BuiltModel;
using svp::compiler::LayerOptions;
using svp::compiler::ModelBuilder;
using svp::compiler::TensorId;
using svp::model::DType;

std::vector<float> randoms(std::int64_t n, std::mt19937& rng, float scale) {
  std::uniform_real_distribution<float> d(-scale, scale);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (float& f : v) f = d(rng);
  return v;
}

TensorId conv(ModelBuilder& b, std::mt19937& rng, const std::string& name, TensorId x, std::int64_t cin,
              std::int64_t cout, std::int64_t k, std::int64_t stride, std::int64_t group) {
  LayerOptions o;
  o.attrs.set("kernel_shape", std::vector<std::int64_t>{k, k});
  const std::int64_t p = k / 2;
  o.attrs.set("pads", std::vector<std::int64_t>{p, p, p, p});
  o.attrs.set("strides", std::vector<std::int64_t>{stride, stride});
  if (group > 1) o.attrs.set("group", group);
  const std::int64_t per_group = cin / group;
  const TensorId w = b.add_constant(name + "_w", {cout, per_group, k, k},
                                    randoms(cout * per_group * k * k, rng, 1.0f / static_cast<float>(per_group * k)));
  const TensorId bias = b.add_constant(name + "_b", {cout}, randoms(cout, rng, 0.1f));
  const TensorId y = b.add_layer(name, "Conv", {x, w, bias}, o).out();
  return b.add_layer(name + "_relu", "Relu", {y}).out();
}

svp::Result<BuiltModel> detector() {
  std::mt19937 rng(30);
  ModelBuilder b("detector");
  TensorId t = b.add_input("image", DType::kFloat32, {1, 3, 160, 160});
  t = conv(b, rng, "stem", t, 3, 16, 3, 2, 1);
  t = conv(b, rng, "stage1", t, 16, 32, 3, 2, 1);
  t = conv(b, rng, "stage2", t, 32, 64, 3, 2, 1);
  LayerOptions head;
  head.attrs.set("kernel_shape", std::vector<std::int64_t>{1, 1});
  const TensorId w = b.add_constant("head_w", {18, 64, 1, 1}, randoms(18 * 64, rng, 0.125f));
  b.add_output(b.add_layer("head", "Conv", {t, w}, head), "boxes");
  b.segment_every(2);
  return b.build();
}

svp::Result<BuiltModel> background() {
  std::mt19937 rng(7);
  ModelBuilder b("background");
  TensorId t = b.add_input("x", DType::kFloat32, {1, 16, 64, 64});
  for (int i = 0; i < 4; ++i) {
    const std::string n = "block" + std::to_string(i);
    t = conv(b, rng, n + "_dw", t, 16, 16, 3, 1, 16);
    t = conv(b, rng, n + "_pw", t, 16, 16, 1, 1, 1);
  }
  b.add_output(t, "features");
  b.segment_every(4);
  b.set_preemptible(true);
  return b.build();
}

bool write(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <output dir>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  auto det = detector();
  auto bg = background();
  if (!det.ok() || !bg.ok()) {
    std::fprintf(stderr, "building the models failed: %s\n",
                 (!det.ok() ? det.status() : bg.status()).message().c_str());
    return 1;
  }
  if (!write(dir + "/detector.om", det->image) || !write(dir + "/background.om", bg->image)) {
    std::fprintf(stderr, "cannot write into %s\n", dir.c_str());
    return 1;
  }
  std::printf("wrote %s/detector.om and %s/background.om\n", dir.c_str(), dir.c_str());
  return 0;
}
