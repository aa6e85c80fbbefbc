// svp_atc refuses what the runtime refuses: models whose layers pass the load-time checks
// but that a kernel refuses when it runs (operand types, attributes only the kernel reads)
// compiled, and every execution then failed (issue 29 §5, the bad-input probe: 16 models).
// The compiler now runs the emitted model once through the runtime's kernels before
// writing it (src/compiler/first_execution.h) and names the node.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "onnx_builder.h"

namespace svp::compiler {
namespace {

namespace fs = std::filesystem;
using test::OnnxBuilder;

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name)
      : path(fs::temp_directory_path() / (name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

Result<CompileResult> compile_float(const OnnxBuilder& b, const std::string& name) {
  TempDir dir("svp_first_exec_" + name);
  CompileOptions o;
  o.model = b.write((dir.path / (name + ".onnx")).string());
  o.compile_mode = "float";
  return compile(o);
}

void int64_initializer(OnnxBuilder& b, const std::string& name, std::vector<std::int64_t> dims,
                       const std::vector<std::int64_t>& v) {
  auto* t = b.model().mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  for (auto d : dims) t->add_dims(d);
  for (auto x : v) t->add_int64_data(x);
}

void expect_refused_naming(const Result<CompileResult>& r, const std::string& node, const std::string& what) {
  ASSERT_FALSE(r.ok()) << "compiled a model the runtime refuses (" << node << ")";
  EXPECT_EQ(r.status().code(), err::kParseModel) << r.status().message();
  EXPECT_NE(r.status().message().find("\"" + node + "\""), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find(what), std::string::npos) << r.status().message();
}

TEST(FirstExecution, AConvWithInt64WeightsIsRefusedByTheCompilerNamingTheNode) {
  OnnxBuilder b;
  b.input("x", {1, 2, 4, 4});
  int64_initializer(b, "w", {3, 2, 3, 3}, std::vector<std::int64_t>(54, 1));
  b.node("Conv", {"x", "w"}, {"y"}, "conv_i64");
  b.output("y", {1, 3, 2, 2});
  const auto r = compile_float(b, "conv_i64");
  expect_refused_naming(r, "conv_i64", "first execution");
  EXPECT_NE(r.status().message().find("int64"), std::string::npos) << r.status().message();
}

TEST(FirstExecution, AConvWithAnUnquantizedInt64BiasIsRefusedByTheCompiler) {
  OnnxBuilder b;
  b.input("x", {1, 2, 4, 4});
  b.initializer("w", {3, 2, 3, 3}, std::vector<float>(54, 0.5f));
  int64_initializer(b, "bias", {3}, {1, 2, 3});
  b.node("Conv", {"x", "w", "bias"}, {"y"}, "conv_bias_i64");
  b.output("y", {1, 3, 2, 2});
  expect_refused_naming(compile_float(b, "conv_bias_i64"), "conv_bias_i64", "first execution");
}

// A Clip bound of another type than the data (int64 on float32): ONNX's checker passes it,
// the load too; the kernel refuses it when it runs.
TEST(FirstExecution, AClipWithABoundOfAnotherTypeIsRefusedByTheCompiler) {
  OnnxBuilder b;
  b.input("x", {1, 2, 4, 4});
  int64_initializer(b, "lo", {}, {0});
  b.node("Clip", {"x", "lo"}, {"y"}, "clip_i64_min");
  b.output("y", {1, 2, 4, 4});
  const auto r = compile_float(b, "clip_i64_min");
  expect_refused_naming(r, "clip_i64_min", "first execution");
  EXPECT_NE(r.status().message().find("int64"), std::string::npos) << r.status().message();
}

// A Conv whose kernel_shape attribute contradicts its weights: refused, naming the node
// (whichever check finds it first).
TEST(FirstExecution, AConvWhoseKernelShapeContradictsItsWeightsIsRefusedNamingTheNode) {
  OnnxBuilder b;
  b.input("x", {1, 2, 8, 8});
  b.initializer("w", {3, 2, 3, 3}, std::vector<float>(54, 0.5f));
  OnnxBuilder::attr_ints(b.node("Conv", {"x", "w"}, {"y"}, "conv_ks5"), "kernel_shape", {5, 5});
  b.output("y", {1, 3, 6, 6});
  expect_refused_naming(compile_float(b, "conv_ks5"), "conv_ks5", "kernel_shape");
}

TEST(FirstExecution, AConvWhoseGroupDoesNotDivideTheChannelsIsRefusedNamingTheNode) {
  OnnxBuilder b;
  b.input("x", {1, 2, 4, 4});
  b.initializer("w", {3, 1, 3, 3}, std::vector<float>(27, 0.5f));
  auto& n = b.node("Conv", {"x", "w"}, {"y"}, "conv_group3");
  auto* g = n.add_attribute();
  g->set_name("group");
  g->set_type(onnx::AttributeProto::INT);
  g->set_i(3);
  b.output("y", {1, 3, 2, 2});
  expect_refused_naming(compile_float(b, "conv_group3"), "conv_group3", "group");
}

TEST(FirstExecution, AConvWithNegativePadsIsRefusedNamingTheNode) {
  OnnxBuilder b;
  b.input("x", {1, 2, 8, 8});
  b.initializer("w", {3, 2, 3, 3}, std::vector<float>(54, 0.5f));
  OnnxBuilder::attr_ints(b.node("Conv", {"x", "w"}, {"y"}, "conv_negative_pads"), "pads", {-1, -1, -1, -1});
  b.output("y", {1, 3, 4, 4});
  expect_refused_naming(compile_float(b, "conv_negative_pads"), "conv_negative_pads", "pads");
}

// A check on values the zero inputs may have caused (a quantization scale that is a model
// input, 0 here) is not a refusal: the runtime checks the real inputs. The ONNX test suite's
// QuantizeLinear cases feed their scale so (found by onnx_node_conformance).
TEST(FirstExecution, AValueCheckTheZeroInputsMayHaveCausedIsNotedNotRefused) {
  OnnxBuilder b;
  b.input("x", {1, 4});
  b.input("scale", {1});
  b.node("QuantizeLinear", {"x", "scale"}, {"y"}, "quantize");
  b.output("y", {1, 4}, onnx::TensorProto::UINT8);
  auto r = compile_float(b, "scale_input");
  ASSERT_TRUE(r.ok()) << r.status().message();
  bool noted = false;
  for (const std::string& line : r->log) {
    noted = noted || (line.find("\"quantize\"") != std::string::npos && line.find("not refused") != std::string::npos);
  }
  EXPECT_TRUE(noted) << "no note on the zero-scale failure in the compile log";
}

TEST(FirstExecution, AValidModelStillCompilesAndTheCheckIsInTheLog) {
  OnnxBuilder b;
  b.input("x", {1, 2, 4, 4});
  b.initializer("w", {3, 2, 3, 3}, std::vector<float>(54, 0.5f));
  b.node("Conv", {"x", "w"}, {"c"}, "conv");
  b.node("Relu", {"c"}, {"y"}, "relu");
  b.output("y", {1, 3, 2, 2});
  auto r = compile_float(b, "valid");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->model.image.empty());
  bool logged = false;
  for (const std::string& line : r->log) logged = logged || line.find("first execution: 2 layers") == 0;
  EXPECT_TRUE(logged) << "no \"first execution\" line in the compile log";
}

// With an I/O buffer-reuse type the work_buf tensors' arena runs on into the input and
// output memory; the first execution once wrote past its work buffer there (heap
// corruption found by the acl_workbuf sample; the sanitizer builds see it).
TEST(FirstExecution, AModelWithAnIoBufferReuseTypeRunsWithinItsArena) {
  OnnxBuilder b;
  b.input("x", {1, 2, 8, 8});
  b.initializer("w", {4, 2, 3, 3}, std::vector<float>(72, 0.25f));
  b.node("Conv", {"x", "w"}, {"c"}, "conv");
  b.node("Relu", {"c"}, {"r"}, "relu");
  b.initializer("w2", {2, 4, 3, 3}, std::vector<float>(72, 0.5f));
  b.node("Conv", {"r", "w2"}, {"y"}, "conv2");
  b.output("y", {1, 2, 4, 4});
  for (std::int32_t reuse : {1, 2, 3, 4, 5}) {
    TempDir dir("svp_first_exec_reuse");
    CompileOptions o;
    o.model = b.write((dir.path / "reuse.onnx").string());
    o.compile_mode = "float";
    o.buffer_reuse = reuse;
    auto r = compile(o);
    EXPECT_TRUE(r.ok()) << "buffer_reuse " << reuse << ": " << r.status().message();
  }
}

}  // namespace
}  // namespace svp::compiler
