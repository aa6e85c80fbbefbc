// Writes the model of samples/rknn/rknn_custom_op_sample.c: x [1, 4, 16] -> Mul by 0.5 ->
// cstSoftmax (domain "com.example.custom", axis -1) -> y, compiled for RK3588 (float).
//   rknn_custom_op_model OUT.rknn
#include <cstdio>
#include <fstream>
#include <string>

#include "compiler/compile.h"
#include "onnx_builder.h"
#include "target/device_profile.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT.rknn\n", argv[0]);
    return 2;
  }
  const std::string out = argv[1];
  svp::test::OnnxBuilder b;
  auto* o = b.model().add_opset_import();
  o->set_domain("com.example.custom");
  o->set_version(1);
  b.input("x", {1, 4, 16}).output("y", {1, 4, 16});
  b.initializer("half", {1}, {0.5f});
  b.node("Mul", {"x", "half"}, {"s"});
  auto& n = b.node("cstSoftmax", {"s"}, {"y"}, "softmax_custom");
  n.set_domain("com.example.custom");
  auto* a = n.add_attribute();
  a->set_name("axis");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(-1);
  const std::string onnx_path = b.write(out + ".onnx");
  svp::compiler::CompileOptions opt;
  opt.model = onnx_path;
  opt.soc_version = svp::target::find_profile("RK3588");
  opt.compile_mode = "float";
  opt.command_line = "svp_atc --framework=5 --model=" + onnx_path + " --soc_version=RK3588";
  auto r = svp::compiler::compile(opt);
  if (!r.ok()) {
    std::fprintf(stderr, "%s\n", r.status().message().c_str());
    return 1;
  }
  std::ofstream(out, std::ios::binary)
      .write(reinterpret_cast<const char*>(r->model.image.data()), static_cast<std::streamsize>(r->model.image.size()));
  std::printf("wrote %s\n", out.c_str());
  return 0;
}
