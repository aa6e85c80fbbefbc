// make_sample_model: writes the offline model the model sample runs, plus its test data.
//
//   make_sample_model <dir>   →  <dir>/classifier.om             the model (svp-acl .om)
//                                <dir>/classifier.input.bin      N images, dense float32 NCHW
//                                <dir>/classifier.expected.bin   N × 10 probabilities
//                                <dir>/classifier.layers.txt     one line per layer, in execution
//                                                                order: "<name> <type> npu|aicpu"
//
// The model is a small image classifier (3×64×64 → 10 classes): a ResNet-style stem,
// two residual blocks, global pooling, a fully connected layer and a softmax that runs on
// the AI-CPU; compiled preemptible, with fused-layer segments of two layers. Weights are
// random (fixed seed). The expected outputs come from evaluating the same layers directly
// with the reference kernels, independently of the runtime, so the C sample can check what
// the software NPU computes. The layer list lets the profiling samples check the operator
// records they receive against what the model really contains, without trusting the runtime.
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/kernels.h"
#include "kernels/tensor_buffer.h"
#include "compiler/builder.h"

using svp::compiler::BuiltModel;
using svp::model::DType;
using svp::compiler::LayerOptions;
using svp::compiler::ModelBuilder;
using svp::compiler::TensorId;

namespace {

constexpr int kImages = 8;

std::vector<float> randoms(std::size_t n, std::mt19937& rng, float scale) {
  std::uniform_real_distribution<float> d(-scale, scale);
  std::vector<float> v(n);
  for (float& f : v) f = d(rng);
  return v;
}

svp::Result<BuiltModel> classifier() {
  std::mt19937 rng(2026);
  ModelBuilder b("classifier");
  auto conv = [&](const std::string& name, TensorId x, std::int64_t cin, std::int64_t cout, std::int64_t stride) {
    LayerOptions o;
    o.attrs.set("kernel_shape", std::vector<std::int64_t>{3, 3});
    o.attrs.set("pads", std::vector<std::int64_t>{1, 1, 1, 1});
    o.attrs.set("strides", std::vector<std::int64_t>{stride, stride});
    const float scale = 1.0f / static_cast<float>(cin * 3);
    const TensorId w = b.add_constant(name + "_w", {cout, cin, 3, 3}, randoms(cout * cin * 9, rng, scale));
    const TensorId bias = b.add_constant(name + "_b", {cout}, randoms(cout, rng, 0.1f));
    return b.add_layer(name, "Conv", {x, w, bias}, o).out();
  };
  auto relu = [&](const std::string& name, TensorId x) { return b.add_layer(name, "Relu", {x}).out(); };
  const TensorId img = b.add_input("image", DType::kFloat32, {1, 3, 64, 64});
  TensorId t = relu("stem_relu", conv("stem", img, 3, 16, 2));
  for (int i = 0; i < 2; ++i) {
    const std::string n = "block" + std::to_string(i);
    TensorId y = relu(n + "_relu1", conv(n + "_conv1", t, 16, 16, 1));
    y = conv(n + "_conv2", y, 16, 16, 1);
    t = relu(n + "_relu2", b.add_layer(n + "_add", "Add", {y, t}));
  }
  t = b.add_layer("pool", "GlobalAveragePool", {t});
  LayerOptions flat;
  flat.attrs.set("axis", std::int64_t{1});
  t = b.add_layer("flatten", "Flatten", {t}, flat);
  LayerOptions gemm;
  gemm.attrs.set("transB", std::int64_t{1});
  const TensorId fc_w = b.add_constant("fc_w", {10, 16}, randoms(160, rng, 0.5f));
  const TensorId fc_b = b.add_constant("fc_b", {10}, randoms(10, rng, 0.1f));
  t = b.add_layer("fc", "Gemm", {t, fc_w, fc_b}, gemm);
  LayerOptions soft;
  soft.attrs.set("axis", std::int64_t{1});
  soft.target = svp::model::Target::kAiCpu;
  b.add_output(b.add_layer("prob", "Softmax", {t}, soft), "prob");
  b.segment_every(2);
  b.set_preemptible(true);
  b.set_compiler_info("svp-acl make_sample_model", "make_sample_model <dir>");
  return b.build();
}

// The model's layers evaluated directly with the reference kernels.
std::vector<float> evaluate(const BuiltModel& m, const float* image) {
  const auto& p = m.program;
  std::vector<svp::kernels::OwnedTensor> v(p.tensors.size());
  for (std::size_t i = 0; i < p.tensors.size(); ++i) {
    const auto& t = p.tensors[i];
    v[i].reset(t.dtype, t.dims);
    if (t.placement == svp::model::Placement::kModelInput) std::memcpy(v[i].view().data, image, t.size);
    if (t.placement == svp::model::Placement::kWeights) {
      std::memcpy(v[i].view().data, m.weights.data() + t.offset, t.size);
    }
  }
  for (const auto& l : p.layers) {
    std::vector<svp::model::TensorView> in, out;
    for (auto t : l.inputs) in.push_back(v[static_cast<std::size_t>(t)].view());
    for (auto t : l.outputs) out.push_back(v[static_cast<std::size_t>(t)].view());
    const svp::Status s = svp::kernels::run_reference(l.op, l.attrs, in, out);
    if (!s.ok()) {
      std::fprintf(stderr, "layer %s: %s\n", l.name.c_str(), s.message().c_str());
      std::exit(1);
    }
  }
  return v[static_cast<std::size_t>(p.output_tensors()[0])].values<float>();
}

bool write(const std::string& path, const void* data, std::size_t size) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(data, 1, size, f) == size;
  return std::fclose(f) == 0 && ok;
}

std::string layer_list(const BuiltModel& m) {
  std::string s;
  for (const auto& l : m.program.layers) {
    s += l.name + " " + l.op + (l.target == svp::model::Target::kAiCpu ? " aicpu\n" : " npu\n");
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <output dir>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  auto m = classifier();
  if (!m.ok()) {
    std::fprintf(stderr, "building the model failed: %s\n", m.status().message().c_str());
    return 1;
  }
  std::mt19937 rng(7);
  std::vector<float> images, expected;
  for (int i = 0; i < kImages; ++i) {
    const auto img = randoms(3 * 64 * 64, rng, 1.0f);
    const auto prob = evaluate(*m, img.data());
    images.insert(images.end(), img.begin(), img.end());
    expected.insert(expected.end(), prob.begin(), prob.end());
  }
  const std::string layers = layer_list(*m);
  if (!write(dir + "/classifier.om", m->image.data(), m->image.size()) ||
      !write(dir + "/classifier.input.bin", images.data(), images.size() * sizeof(float)) ||
      !write(dir + "/classifier.expected.bin", expected.data(), expected.size() * sizeof(float)) ||
      !write(dir + "/classifier.layers.txt", layers.data(), layers.size())) {
    std::fprintf(stderr, "cannot write into %s\n", dir.c_str());
    return 1;
  }
  std::printf("wrote %s/classifier.om (%zu bytes, %zu layers, %zu segments, work_buf %llu bytes) and %d test images\n",
              dir.c_str(), m->image.size(), m->program.layers.size(), m->program.segments.size(),
              static_cast<unsigned long long>(m->program.flags.work_buf_size), kImages);
  return 0;
}
