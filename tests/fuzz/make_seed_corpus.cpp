// Writes the committed seed corpus of model_loader_fuzz (tests/fuzz/corpus/): a few valid
// models covering every IR feature, and a few near-misses that fail at different stages of
// the reader. model_format_test checks that valid_* files load and bad_* files do not, so
// re-run this after a format change:
//   ninja -C build model_fuzz_seed_corpus && build/tests/model_fuzz_seed_corpus tests/fuzz/corpus
#include <cstdio>
#include <string>
#include <vector>

#include "compiler/builder.h"
#include "model/format.h"

using namespace svp::model;  // NOLINT(google-build-using-namespace)

using namespace svp::compiler;  // NOLINT(google-build-using-namespace)

namespace {

LayerOptions shaped(std::vector<std::int64_t> s) {
  LayerOptions o;
  o.output_shapes = {std::move(s)};
  return o;
}

BuiltModel small() {
  ModelBuilder b("small");
  const TensorId x = b.add_input("x", DType::kFloat32, {1, 4});
  const TensorId w = b.add_constant("w", {4}, std::vector<float>{1.f, -2.f, 3.f, -4.f});
  const TensorId t = b.add_layer("add", "Add", {x, w}, shaped({1, 4}));
  b.add_output(b.add_layer("relu", "Relu", {t}, shaped({1, 4})), "y");
  return *b.build();
}

BuiltModel rich() {
  ModelBuilder b("rich");
  const TensorId x = b.add_input("x", DType::kInt8, {1, 3, 4, 4}, Layout::kNCHW, Quant{{0.5f}, {-1}, -1});
  Quant pc;
  pc.scale = {0.5f, 0.25f};
  pc.zero_point = {0, 0};
  pc.axis = 0;
  const TensorId w = b.add_constant("w", {2, 3, 1, 1}, std::vector<std::int8_t>{1, 2, 3, 4, 5, 6}, pc);
  const TensorId bias = b.add_constant("b", {2}, std::vector<std::int32_t>{7, -7});
  LayerOptions conv = shaped({1, 2, 4, 4});
  conv.attrs.set("kernel_shape", std::vector<std::int64_t>{1, 1});
  conv.attrs.set("alpha", 0.25);
  conv.attrs.set("auto_pad", std::string("NOTSET"));
  conv.attrs.set("scales", std::vector<double>{1.5, -2.0});
  conv.output_quants = {Quant{{0.125f}, {3}, -1}};
  const TensorId c = b.add_layer("conv", "QLinearConv", {x, w, bias}, conv);
  const TensorId r = b.add_layer("relu", "Relu", {c}, shaped({1, 2, 4, 4}));
  LayerOptions deq = shaped({1, 2, 4, 4});
  deq.output_dtypes = {DType::kFloat32};
  deq.target = Target::kAiCpu;
  const TensorId f = b.add_layer("deq", "DequantizeLinear", {r, -1}, deq);
  b.add_output(b.add_layer("add", "Add", {f, f}, shaped({1, 2, 4, 4})));
  b.set_preemptible(true);
  b.set_buffer_reuse(3);
  b.set_internal_stride(64);
  b.set_dynamic_batch({4});
  b.set_dynamic_hw({{4, 4}, {2, 8}});
  b.set_inout_reuse(x, 2);
  b.set_aipp(x, R"({"aipp_mode":"dynamic","max_src_image_size_w":8,"max_src_image_size_h":8})");
  b.segment_every(2);
  b.set_compiler_info("seed", "make_seed_corpus");
  return *b.build();
}

std::vector<std::uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }

bool save(const std::string& dir, const char* name, const std::vector<std::uint8_t>& img) {
  const auto s = save_model_file(dir + "/" + name, img);
  if (!s.ok()) std::fprintf(stderr, "%s\n", s.message().c_str());
  return s.ok();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus dir>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const BuiltModel s = small();
  const BuiltModel r = rich();
  const std::string meta = encode_metadata(s.program);
  bool ok = save(dir, "valid_small.om", s.image) && save(dir, "valid_rich.om", r.image);
  ok = ok && save(dir, "valid_optional_section.om",
                  write_container({{kSectionMetadata, 0, bytes(meta)},
                                   {kSectionWeights, 0, s.weights},
                                   {99, kSectionFlagOptional, bytes("future")}}));
  // Near misses: JSON syntax, a missing key, a validation failure, foreign magic.
  std::string broken = meta;
  broken.resize(broken.size() / 2);
  ok = ok && save(dir, "bad_json.om", write_container({{kSectionMetadata, 0, bytes(broken)}, {kSectionWeights, 0, s.weights}}));
  std::string missing = meta;
  missing.replace(missing.find("\"segments\""), 10, "\"segmentz\"");
  ok = ok && save(dir, "bad_missing_key.om",
                  write_container({{kSectionMetadata, 0, bytes(missing)}, {kSectionWeights, 0, s.weights}}));
  Program invalid = s.program;
  invalid.tensors[2].offset = 64;  // outside the 64-byte work_buf
  ok = ok && save(dir, "bad_validation.om", write_model(invalid, s.weights.data(), s.weights.size()));
  std::vector<std::uint8_t> vendor = s.image;
  const char imod[8] = {'I', 'M', 'O', 'D', 0, 0, 0, 0};
  std::copy(imod, imod + 8, vendor.begin());
  ok = ok && save(dir, "bad_magic.om", vendor);
  return ok ? 0 : 1;
}
