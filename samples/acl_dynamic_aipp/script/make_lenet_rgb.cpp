// make_lenet_rgb IN.onnx OUT.onnx: gives the Fashion-MNIST LeNet (one grey channel) a colour
// input, so that a camera's YUV420SP frames can reach it through AIPP (a YUV420SP source
// with CSC produces three channels, and AIPP refuses a model input with another channel
// count). The input becomes [1, 3, 28, 28] and the first Conv's weight [O, 1, k, k] becomes
// [O, 3, k, k] with channel c = the trained weight × the BT.601 luma coefficient of R, G, B
// (0.299, 0.587, 0.114). The convolution is linear, so on an RGB image the net computes
// exactly what the LeNet computes on that image's luma Y = 0.299 R + 0.587 G + 0.114 B
// (up to float rounding): the trained weights, a grey classifier fed by a colour camera.
// Built in the svp-acl tree (ONNX's protobuf classes, as make_lenet_fcn); not part of the
// sample's own build.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace {

constexpr float kLuma[3] = {0.299f, 0.587f, 0.114f};

int fail(const std::string& what) {
  std::fprintf(stderr, "make_lenet_rgb: %s\n", what.c_str());
  return 1;
}

onnx::TensorProto* initializer(onnx::GraphProto* g, const std::string& name) {
  for (auto& t : *g->mutable_initializer()) {
    if (t.name() == name) return &t;
  }
  return nullptr;
}

// The float values of an initializer, stored either way ONNX allows.
std::vector<float> values(const onnx::TensorProto& t) {
  if (!t.raw_data().empty()) {
    std::vector<float> v(t.raw_data().size() / sizeof(float));
    std::memcpy(v.data(), t.raw_data().data(), v.size() * sizeof(float));
    return v;
  }
  return {t.float_data().begin(), t.float_data().end()};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return fail("usage: make_lenet_rgb IN.onnx OUT.onnx");
  onnx::ModelProto m;
  {
    std::ifstream in(argv[1], std::ios::binary);
    if (!in || !m.ParseFromIstream(&in)) return fail(std::string("cannot read ONNX model ") + argv[1]);
  }
  onnx::GraphProto* g = m.mutable_graph();
  onnx::ValueInfoProto* image = nullptr;
  for (auto& in : *g->mutable_input()) {
    if (initializer(g, in.name()) != nullptr) continue;
    if (image != nullptr) return fail("more than one data input: not the LeNet");
    image = &in;
  }
  if (image == nullptr) return fail("no data input");
  auto* shape = image->mutable_type()->mutable_tensor_type()->mutable_shape();
  if (shape->dim_size() != 4 || shape->dim(1).dim_value() != 1) return fail("the data input is not [N, 1, H, W]");
  shape->mutable_dim(1)->set_dim_value(3);

  // The one Conv that reads the image directly.
  onnx::TensorProto* w = nullptr;
  for (const auto& n : g->node()) {
    if (n.input_size() > 1 && n.input(0) == image->name()) {
      if (n.op_type() != "Conv" || w != nullptr) return fail("the image feeds something other than one Conv");
      w = initializer(g, n.input(1));
      for (const auto& a : n.attribute()) {
        if (a.name() == "group" && a.i() != 1) return fail("a grouped first Conv");
      }
    }
  }
  if (w == nullptr || w->dims_size() != 4 || w->dims(1) != 1 || w->data_type() != onnx::TensorProto::FLOAT) {
    return fail("the first Conv has no float [O, 1, k, k] weight initializer");
  }
  const std::vector<float> grey = values(*w);
  const std::int64_t out = w->dims(0), kk = w->dims(2) * w->dims(3);
  if (static_cast<std::int64_t>(grey.size()) != out * kk) return fail("the first Conv's weight has the wrong size");
  std::vector<float> rgb(static_cast<std::size_t>(out * 3 * kk));
  for (std::int64_t o = 0; o < out; ++o) {
    for (std::int64_t c = 0; c < 3; ++c) {
      for (std::int64_t k = 0; k < kk; ++k) {
        rgb[static_cast<std::size_t>((o * 3 + c) * kk + k)] = grey[static_cast<std::size_t>(o * kk + k)] * kLuma[c];
      }
    }
  }
  w->set_dims(1, 3);
  w->clear_float_data();
  w->set_raw_data(rgb.data(), rgb.size() * sizeof(float));
  g->clear_value_info();  // recomputed by the importer
  std::ofstream os(argv[2], std::ios::binary);
  if (!os || !m.SerializeToOstream(&os)) return fail(std::string("cannot write ") + argv[2]);
  std::printf("make_lenet_rgb: wrote %s\n", argv[2]);
  return 0;
}
