// A loaded model's layers have every input their op requires: a checksum-valid .om whose
// Conv data (or weight) input is -1 is refused at load with a message naming the layer,
// instead of a kernel reading tensors[-1] (issue 29 §5, the bad-input probe).
#include <gtest/gtest.h>

#include "compiler/builder.h"
#include "exec/model_registry.h"
#include "model/format.h"

namespace svp::model {
namespace {

// x [1, 3, 4, 4] → Conv (w, b) → y.
compiler::BuiltModel conv_model() {
  compiler::ModelBuilder b("conv");
  const compiler::TensorId x = b.add_input("x", DType::kFloat32, {1, 3, 4, 4});
  const compiler::TensorId w = b.add_constant("w", {2, 3, 1, 1}, std::vector<float>{1, 2, 3, 4, 5, 6});
  const compiler::TensorId bias = b.add_constant("b", {2}, std::vector<float>{0.5f, -0.5f});
  compiler::LayerOptions conv;
  conv.attrs.set("kernel_shape", std::vector<std::int64_t>{1, 1});
  conv.output_shapes = {{1, 2, 4, 4}};
  b.add_output(b.add_layer("conv", "Conv", {x, w, bias}, conv));
  auto m = b.build();
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(*m);
}

Status load(const Program& p, const compiler::BuiltModel& base) {
  const auto image = write_model(p, base.weights.data(), base.weights.size());
  auto m = Model::create(image.data(), image.size(), kernels::CompileOptions{});
  return m.ok() ? Status::Ok() : m.status();
}

TEST(ModelRequiredInputs, AConvWhoseDataInputIsMinusOneIsRefusedAtLoad) {
  const compiler::BuiltModel base = conv_model();
  ASSERT_TRUE(load(base.program, base).ok());
  Program p = base.program;
  p.layers[0].inputs[0] = -1;
  const Status s = load(p, base);
  EXPECT_EQ(s.code(), err::kParseModel);
  EXPECT_NE(s.message().find("layer \"conv\" (Conv) has no first input"), std::string::npos) << s.message();
}

TEST(ModelRequiredInputs, AConvWithoutWeightsIsRefusedAtLoadButItsBiasIsOptional) {
  const compiler::BuiltModel base = conv_model();
  Program p = base.program;
  p.layers[0].inputs[1] = -1;
  const Status s = load(p, base);
  EXPECT_EQ(s.code(), err::kParseModel);
  EXPECT_NE(s.message().find("layer \"conv\" (Conv): input 1 is required"), std::string::npos) << s.message();
  p = base.program;
  p.layers[0].inputs[2] = -1;  // no bias: a valid Conv
  EXPECT_TRUE(load(p, base).ok());
}

TEST(ModelRequiredInputs, ALayerWithMoreInputsThanItsOpTakesIsRefusedAtLoad) {
  const compiler::BuiltModel base = conv_model();
  Program p = base.program;
  p.layers[0].inputs.push_back(p.layers[0].inputs[0]);  // a fourth input on Conv (X, W, B)
  const Status s = load(p, base);
  EXPECT_EQ(s.code(), err::kParseModel);
  EXPECT_NE(s.message().find("layer \"conv\" (Conv): 4 inputs, but the op takes at most 3"), std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace svp::model
