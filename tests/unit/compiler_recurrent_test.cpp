// The compiler's side of recurrent nets: ONNX LSTM/GRU/RNN nodes import with their
// positional optional outputs and the activation list, the model's max_total_t is the
// layers' time dimension, they are placed on the NPU core (the vendor's NPU runs recurrent
// layers: --recurrent_max_total_t, --batch_num "FC/RNN"), and what the format cannot hold
// is refused with a message. Numbers are checked against onnxruntime elsewhere
// (tests/accuracy/recurrent_vs_onnxruntime_test.cpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/compile.h"
#include "compiler/onnx_import.h"
#include "compiler/om_json.h"
#include "onnx_builder.h"

namespace svp::compiler {
namespace {

using test::OnnxBuilder;

void add_strings(onnx::NodeProto& n, const std::string& name, const std::vector<std::string>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRINGS);
  for (const auto& s : v) a->add_strings(s);
}

void add_int(onnx::NodeProto& n, const std::string& name, std::int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

// An RNN (hidden 3) over x [T, 1, 2] named `prefix`, outputs as given.
void add_rnn(OnnxBuilder& b, const std::string& prefix, std::int64_t steps, std::vector<std::string> outputs,
             const std::vector<std::string>& activations = {"Relu"}) {
  b.input(prefix + "x", {steps, 1, 2});
  b.initializer(prefix + "W", {1, 3, 2}, std::vector<float>(6, 0.1f));
  b.initializer(prefix + "R", {1, 3, 3}, std::vector<float>(9, 0.2f));
  onnx::NodeProto& n = b.node("RNN", {prefix + "x", prefix + "W", prefix + "R"}, outputs, prefix + "rnn");
  add_int(n, "hidden_size", 3);
  add_strings(n, "activations", activations);
}

Result<CompileResult> compile_bytes(const OnnxBuilder& b) {
  CompileOptions o;
  o.compile_mode = "float";
  auto g = import_onnx_bytes(b.bytes(), "", o);
  if (!g.ok()) return g.status();
  return compile_graph(std::move(*g), o);
}

const model::Layer* find_layer(const model::Program& p, const std::string& op) {
  for (const auto& l : p.layers) {
    if (l.op == op) return &l;
  }
  return nullptr;
}

TEST(CompilerRecurrent, ALeftOutOutputKeepsItsSlotAndTheStepsBecomeMaxTotalT) {
  OnnxBuilder b(14);
  add_rnn(b, "", 5, {"", "y_h"});  // Y left out, Y_h used: the kernel's output 1
  b.output("y_h", {1, 1, 3});
  auto r = compile_bytes(b);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const model::Program& p = r->model.program;
  EXPECT_EQ(p.flags.max_total_t, 5u);
  const model::Layer* rnn = find_layer(p, "RNN");
  ASSERT_NE(rnn, nullptr);
  ASSERT_EQ(rnn->outputs.size(), 2u);
  EXPECT_EQ(p.tensors[static_cast<std::size_t>(rnn->outputs[0])].dims, (std::vector<std::int64_t>{5, 1, 1, 3}));
  EXPECT_EQ(p.tensors[static_cast<std::size_t>(rnn->outputs[1])].name, "y_h");
  EXPECT_EQ(p.tensors[static_cast<std::size_t>(rnn->outputs[1])].placement, model::Placement::kModelOutput);
  EXPECT_EQ(rnn->target, model::Target::kNpu);
  // The activation list, stored as one comma-separated string (the IR has no string lists).
  auto acts = rnn->attrs.get_string("activations", "");
  ASSERT_TRUE(acts.ok());
  EXPECT_EQ(*acts, "Relu");
  // om.json names it with the NPU as its device and its cube MACs.
  const nlohmann::json om = om_json(p, r->model.weights.size());
  bool seen = false;
  for (const auto& op : om.at("ops")) {
    if (op.at("type") != "RNN") continue;
    seen = true;
    EXPECT_EQ(op.at("device_type"), "NPU");
    EXPECT_EQ(op.at("macs"), 5u * 1u * 3u * (2u + 3u));
  }
  EXPECT_TRUE(seen) << om.dump(1);
}

TEST(CompilerRecurrent, AModelWithoutRecurrentLayersHasNoMaxTotalT) {
  OnnxBuilder b;
  b.input("x", {1, 4});
  b.node("Relu", {"x"}, {"y"});
  b.output("y", {1, 4});
  auto r = compile_bytes(b);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->model.program.flags.max_total_t, 0u);
}

// One total_t per execution: every recurrent layer of a model runs the same time steps.
TEST(CompilerRecurrent, RecurrentLayersWithDifferentStepsAreRefused) {
  OnnxBuilder b(14);
  add_rnn(b, "a_", 4, {"a_y"});
  add_rnn(b, "b_", 3, {"b_y"});
  b.output("a_y", {4, 1, 1, 3});
  b.output("b_y", {3, 1, 1, 3});
  auto r = compile_bytes(b);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("time steps"), std::string::npos) << r.status().message();
}

// The activation names are joined with commas: a name holding one cannot be stored.
// (Other ai.onnx string-list attributes belong to string-tensor ops, which have no kernel;
// the importer names such an attribute and refuses it.)
TEST(CompilerRecurrent, AnActivationNameWithACommaIsRefused) {
  OnnxBuilder bad(14);
  add_rnn(bad, "", 2, {"y"}, {"Re,lu"});
  bad.output("y", {2, 1, 1, 3});
  auto comma = compile_bytes(bad);
  ASSERT_FALSE(comma.ok());
  EXPECT_NE(comma.status().message().find("\"Re,lu\" is not valid"), std::string::npos) << comma.status().message();
}

}  // namespace
}  // namespace svp::compiler
