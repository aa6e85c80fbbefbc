// make_lenet_fcn IN.onnx OUT.onnx: turns the Fashion-MNIST LeNet into a fully convolutional
// net with the same trained weights, so it accepts any image size (acl_dynamic_hw's
// resolution gears). The Flatten goes; each Gemm (transB=1, weight [out, in]) becomes a
// Conv: the first one a k x k kernel over conv2's channels (weight [out, 16, 5, 5], the
// same bytes: Flatten's order is C, H, W), the others 1x1. On a 28x28 image the output
// [1, 10, 1, 1] is the LeNet's logits; on a larger image every output position (y, x) is
// the LeNet applied to the 28x28 window at (4y, 4x) (with the image's neighbours where a
// lone image would see conv1's zero padding).
// Built in the svp-acl tree (ONNX's protobuf classes, as tests/onnx_builder.h); not part of
// the sample's own build.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include <onnx/onnx_pb.h>

namespace {

int fail(const std::string& what) {
  std::fprintf(stderr, "make_lenet_fcn: %s\n", what.c_str());
  return 1;
}

onnx::TensorProto* initializer(onnx::GraphProto* g, const std::string& name) {
  for (auto& t : *g->mutable_initializer()) {
    if (t.name() == name) return &t;
  }
  return nullptr;
}

void symbolic_shape(onnx::ValueInfoProto* v, std::int64_t d0, std::int64_t d1, const char* h, const char* w) {
  auto* shape = v->mutable_type()->mutable_tensor_type()->mutable_shape();
  shape->clear_dim();
  shape->add_dim()->set_dim_value(d0);
  shape->add_dim()->set_dim_value(d1);
  shape->add_dim()->set_dim_param(h);
  shape->add_dim()->set_dim_param(w);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return fail("usage: make_lenet_fcn IN.onnx OUT.onnx");
  onnx::ModelProto m;
  {
    std::ifstream in(argv[1], std::ios::binary);
    if (!in || !m.ParseFromIstream(&in)) return fail(std::string("cannot read ONNX model ") + argv[1]);
  }
  onnx::GraphProto* g = m.mutable_graph();
  std::string flat_in, flat_out;
  std::int64_t conv_channels = 0;
  auto* nodes = g->mutable_node();
  for (int i = 0; i < nodes->size(); ++i) {
    const onnx::NodeProto& n = nodes->Get(i);
    if (n.op_type() == "Conv") {
      const onnx::TensorProto* w = initializer(g, n.input(1));
      if (w == nullptr || w->dims_size() != 4) return fail("a Conv without a 4-D weight initializer");
      conv_channels = w->dims(0);
    } else if (n.op_type() == "Flatten") {
      flat_in = n.input(0);
      flat_out = n.output(0);
      nodes->DeleteSubrange(i, 1);
      --i;
    }
  }
  if (flat_in.empty() || conv_channels == 0) return fail("no Conv followed by a Flatten: not the LeNet");
  bool first = true;
  for (auto& n : *nodes) {
    if (n.op_type() != "Gemm") continue;
    for (const auto& a : n.attribute()) {
      if ((a.name() == "transB" && a.i() != 1) || (a.name() == "transA" && a.i() != 0) ||
          ((a.name() == "alpha" || a.name() == "beta") && a.f() != 1.0f)) {
        return fail("a Gemm other than Y = X W^T + b");
      }
    }
    onnx::TensorProto* w = initializer(g, n.input(1));
    if (w == nullptr || w->dims_size() != 2) return fail("a Gemm without a 2-D weight initializer");
    const std::int64_t out = w->dims(0), in = w->dims(1);
    std::int64_t k = 1, c = in;
    if (first) {
      c = conv_channels;
      k = static_cast<std::int64_t>(std::lround(std::sqrt(static_cast<double>(in / c))));
      if (c * k * k != in) return fail("the first Gemm's input is not channels x k x k");
    }
    w->clear_dims();
    for (std::int64_t d : {out, c, k, k}) w->add_dims(d);
    n.set_op_type("Conv");
    n.clear_attribute();
    if (n.input(0) == flat_out) n.set_input(0, flat_in);
    first = false;
  }
  if (first) return fail("no Gemm after the Flatten");
  if (g->input_size() < 1 || g->output_size() != 1) return fail("expected the LeNet's one input and one output");
  for (auto& in : *g->mutable_input()) {
    if (initializer(g, in.name()) == nullptr) symbolic_shape(&in, 1, 1, "H", "W");
  }
  symbolic_shape(g->mutable_output(0), 1, 10, "OH", "OW");
  g->clear_value_info();
  std::ofstream out(argv[2], std::ios::binary);
  if (!out || !m.SerializeToOstream(&out)) return fail(std::string("cannot write ") + argv[2]);
  std::printf("make_lenet_fcn: wrote %s\n", argv[2]);
  return 0;
}
