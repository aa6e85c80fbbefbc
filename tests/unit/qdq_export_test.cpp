// svp_atc --export_qdq (compiler/qdq_export.h): the quantized graph as a QDQ ONNX model.
// onnxruntime runs the export in ppocr_det_int8_vs_textbook_quantizer (the independent
// check); these tests check its form and that the compiler, reading it back, reproduces the
// model it was exported from.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "model_io.h"
#include "onnx_builder.h"

namespace svp::compiler {
namespace {

namespace fs = std::filesystem;
using test::OnnxBuilder;

// x [1, 3, 8, 8] → Conv (4 filters, per-channel int8) → x * HardSigmoid(x) (fuse_hardswish
// makes it HardSwish) → GlobalAveragePool → Flatten.
OnnxBuilder conv_hardswish(std::int64_t opset) {
  OnnxBuilder b(opset);
  b.input("x", {1, 3, 8, 8});
  std::vector<float> w(4 * 3 * 3 * 3);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 7) * 0.1f * static_cast<float>(1 + i / 27) - 0.3f;
  b.initializer("w", {4, 3, 3, 3}, w);
  auto& conv = b.node("Conv", {"x", "w"}, {"c"}, "conv");
  OnnxBuilder::attr_ints(conv, "pads", {1, 1, 1, 1});
  auto& hs = b.node("HardSigmoid", {"c"}, {"h"}, "hsig");
  auto* alpha = hs.add_attribute();
  alpha->set_name("alpha");
  alpha->set_type(onnx::AttributeProto::FLOAT);
  alpha->set_f(1.0f / 6.0f);
  auto* beta = hs.add_attribute();
  beta->set_name("beta");
  beta->set_type(onnx::AttributeProto::FLOAT);
  beta->set_f(0.5f);
  b.node("Mul", {"c", "h"}, {"s"}, "swish");
  b.node("GlobalAveragePool", {"s"}, {"g"}, "gap");
  b.node("Flatten", {"g"}, {"y"}, "flat");
  b.output("y", {1, 4});
  return b;
}

std::vector<float> input_item(int item) {
  std::vector<float> x(3 * 8 * 8);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(((i * 7 + item * 13) % 50) / 25.0 - 1.0);
  return x;
}

class QdqExport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("svp_qdq_export_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    std::ofstream list(dir_ / "cal.txt");
    for (int item = 0; item < 4; ++item) {
      for (float v : input_item(item)) list << v << " ";
      list << "\n";
    }
  }
  void TearDown() override { fs::remove_all(dir_); }

  CompileOptions options(const OnnxBuilder& b, const std::string& name, const std::string& mode = "0") {
    CompileOptions o;
    o.model = b.write((dir_ / (name + ".onnx")).string());
    o.image_list = "x:" + (dir_ / "cal.txt").string();
    o.compile_mode = mode;
    o.export_qdq = (dir_ / (name + "_qdq.onnx")).string();
    return o;
  }

  static onnx::ModelProto parse(const std::string& bytes) {
    onnx::ModelProto m;
    EXPECT_TRUE(m.ParseFromString(bytes));
    return m;
  }

  // The node writing `value`, nullptr if none.
  static const onnx::NodeProto* producer(const onnx::GraphProto& g, const std::string& value) {
    for (const auto& n : g.node()) {
      for (const auto& o : n.output()) {
        if (o == value) return &n;
      }
    }
    return nullptr;
  }
  static const onnx::TensorProto* initializer(const onnx::GraphProto& g, const std::string& name) {
    for (const auto& t : g.initializer()) {
      if (t.name() == name) return &t;
    }
    return nullptr;
  }
  static float scalar_float(const onnx::TensorProto& t) {
    float f = 0;
    EXPECT_EQ(t.raw_data().size(), sizeof f);
    std::memcpy(&f, t.raw_data().data(), sizeof f);
    return f;
  }

  fs::path dir_;
};

TEST_F(QdqExport, EveryQuantizedTensorIsAQuantizeLinearWithTheEncodingTheCompilerChose) {
  auto r = compile(options(conv_hardswish(13), "m13"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_FALSE(r->qdq_onnx.empty());
  const onnx::ModelProto m = parse(r->qdq_onnx);
  const onnx::GraphProto& g = m.graph();
  std::map<std::string, const model::Tensor*> chosen;
  for (const model::Tensor& t : r->model.program.tensors) {
    if (t.quant.scale.size() == 1 && (t.dtype == model::DType::kInt8 || t.dtype == model::DType::kUint8)) {
      chosen[t.name] = &t;
    }
  }
  std::size_t checked = 0;
  for (const auto& n : g.node()) {
    if (n.op_type() != "QuantizeLinear") continue;
    auto it = chosen.find(n.output(0));
    if (it == chosen.end()) continue;
    const onnx::TensorProto* s = initializer(g, n.input(1));
    const onnx::TensorProto* z = initializer(g, n.input(2));
    ASSERT_NE(s, nullptr);
    ASSERT_NE(z, nullptr);
    EXPECT_EQ(scalar_float(*s), it->second->quant.scale[0]) << n.output(0);
    EXPECT_EQ(z->data_type(), it->second->dtype == model::DType::kUint8 ? onnx::TensorProto::UINT8 : onnx::TensorProto::INT8);
    const std::int32_t zp = it->second->dtype == model::DType::kUint8 ? static_cast<std::uint8_t>(z->raw_data()[0])
                                                                       : static_cast<std::int8_t>(z->raw_data()[0]);
    EXPECT_EQ(zp, it->second->quant.zero_point[0]) << n.output(0);
    ++checked;
  }
  EXPECT_GE(checked, 3u);  // the input, the conv and the HardSwish outputs at least
  // The convolution computes in float on dequantized operands; its weight stays int8,
  // dequantized per output channel.
  const onnx::NodeProto* conv = nullptr;
  for (const auto& n : g.node()) conv = n.op_type() == "Conv" ? &n : conv;
  ASSERT_NE(conv, nullptr);
  const onnx::NodeProto* x_dq = producer(g, conv->input(0));
  const onnx::NodeProto* w_dq = producer(g, conv->input(1));
  ASSERT_NE(x_dq, nullptr);
  ASSERT_NE(w_dq, nullptr);
  EXPECT_EQ(x_dq->op_type(), "DequantizeLinear");
  EXPECT_EQ(w_dq->op_type(), "DequantizeLinear");
  const onnx::TensorProto* w = initializer(g, w_dq->input(0));
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->data_type(), onnx::TensorProto::INT8);
  const onnx::TensorProto* ws = initializer(g, w_dq->input(1));
  ASSERT_NE(ws, nullptr);
  EXPECT_EQ(ws->dims_size() == 1 ? ws->dims(0) : 0, 4);
  EXPECT_EQ(producer(g, g.output(0).name())->op_type(), "DequantizeLinear");
}

TEST_F(QdqExport, CompilingTheExportAgainGivesTheSameOutputs) {
  const CompileOptions o = options(conv_hardswish(13), "again");
  auto first = compile(o);
  ASSERT_TRUE(first.ok()) << first.status().message();
  CompileOptions o2 = o;
  o2.model = (dir_ / "exported.onnx").string();
  std::ofstream(o2.model, std::ios::binary) << first->qdq_onnx;
  o2.export_qdq.clear();
  auto second = compile(o2);
  ASSERT_TRUE(second.ok()) << second.status().message();
  // The pairs became the encodings again and the weights the same int8 values, so the two
  // models compute the same thing (on inputs the calibration never saw).
  for (int item = 10; item < 14; ++item) {
    const std::vector<float> x = input_item(item);
    const auto a = test::reference_outputs(first->model, {x.data()})[0].values<float>();
    const auto b = test::reference_outputs(second->model, {x.data()})[0].values<float>();
    EXPECT_EQ(a, b) << "item " << item;
  }
}

TEST_F(QdqExport, BelowOpset10TheExportIsRefusedNotWrittenInvalid) {
  // Opset 9 has no QuantizeLinear: the compile fails naming the opset, instead of writing
  // a file onnxruntime refuses to load.
  auto r = compile(options(conv_hardswish(9), "m9"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("opset 9"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("opset 10"), std::string::npos) << r.status().message();
  // Asked for as optional (rknn.api's int8 builds), the model compiles without its QDQ form.
  CompileOptions o = options(conv_hardswish(9), "m9_optional");
  o.export_qdq_optional = true;
  auto optional = compile(o);
  ASSERT_TRUE(optional.ok()) << optional.status().message();
  EXPECT_TRUE(optional->qdq_onnx.empty());
  EXPECT_NE(optional->qdq_error.find("opset 9"), std::string::npos) << optional->qdq_error;
}

TEST_F(QdqExport, BelowOpset13PerChannelWeightsAndHardSwishAreWrittenAsTheirArithmetic) {
  auto r = compile(options(conv_hardswish(11), "m11"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const onnx::ModelProto m = parse(r->qdq_onnx);
  const onnx::GraphProto& g = m.graph();
  EXPECT_EQ(m.opset_import(0).version(), 11);
  std::map<std::string, int> ops;
  for (const auto& n : g.node()) {
    ++ops[n.op_type()];
    if (n.op_type() == "DequantizeLinear" || n.op_type() == "QuantizeLinear") {
      for (const auto& a : n.attribute()) EXPECT_NE(a.name(), "axis") << n.name() << ": axis needs opset 13";
    }
  }
  EXPECT_EQ(ops["HardSwish"], 0) << "HardSwish is opset 14";
  EXPECT_GE(ops["HardSigmoid"], 1);
  const onnx::NodeProto* conv = nullptr;
  for (const auto& n : g.node()) conv = n.op_type() == "Conv" ? &n : conv;
  ASSERT_NE(conv, nullptr);
  const onnx::NodeProto* scaled = producer(g, conv->input(1));
  ASSERT_NE(scaled, nullptr);
  EXPECT_EQ(scaled->op_type(), "Mul");  // the int8 weights (DequantizeLinear, scale 1) times the channel scales
  const onnx::NodeProto* ints = producer(g, scaled->input(0));
  ASSERT_NE(ints, nullptr);
  EXPECT_EQ(ints->op_type(), "DequantizeLinear");
  EXPECT_EQ(scalar_float(*initializer(g, ints->input(1))), 1.0f);
}

TEST_F(QdqExport, Int16TensorsBecomeRoundedFloatBecauseQuantizeLinearTakesThemOnlyFromOpset21) {
  auto r = compile(options(conv_hardswish(13), "a16", "1"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const onnx::ModelProto m = parse(r->qdq_onnx);
  std::size_t rounds = 0;
  for (const auto& n : m.graph().node()) rounds += n.op_type() == "Round";
  EXPECT_GE(rounds, 2u);
  for (const auto& vi : m.graph().value_info()) {
    EXPECT_NE(vi.type().tensor_type().elem_type(), onnx::TensorProto::INT16) << vi.name();
  }
  for (const auto& t : m.graph().initializer()) EXPECT_NE(t.data_type(), onnx::TensorProto::INT16) << t.name();
}

TEST_F(QdqExport, AFloatCompileIsRefusedBecauseThereIsNoQuantizationToExport) {
  CompileOptions o = options(conv_hardswish(13), "float", "float");
  o.image_list.clear();
  auto r = compile(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), err::kInvalidParam);
  EXPECT_NE(r.status().message().find("--export_qdq"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace svp::compiler
