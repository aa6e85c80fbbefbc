// The compiler pipeline: the registry, the requirement check, the log and the dumps, and
// the ONNX form of a graph (onnx_export.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include <onnx/onnx_pb.h>

#include "compiler/onnx_export.h"
#include "compiler/onnx_import.h"
#include "compiler/pipeline.h"
#include "compiler/quantize/quantize_stages.h"
#include "onnx_builder.h"

namespace svp::compiler {
namespace {

using test::OnnxBuilder;

// Conv → BatchNormalization → Relu → Flatten: fold_batchnorm has work to do.
std::string conv_bn_model() {
  OnnxBuilder b;
  b.input("x", {1, 2, 4, 4});
  std::vector<float> w(3 * 2 * 1 * 1);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = 0.25f * static_cast<float>(i) - 0.5f;
  b.initializer("w", {3, 2, 1, 1}, w);
  b.initializer("scale", {3}, std::vector<float>{1.0f, 2.0f, 0.5f});
  b.initializer("bias", {3}, std::vector<float>{0.1f, -0.2f, 0.3f});
  b.initializer("mean", {3}, std::vector<float>{0.0f, 0.5f, -0.5f});
  b.initializer("var", {3}, std::vector<float>{1.0f, 4.0f, 0.25f});
  b.node("Conv", {"x", "w"}, {"c"}, "conv");
  b.node("BatchNormalization", {"c", "scale", "bias", "mean", "var"}, {"bn"}, "bn");
  b.node("Relu", {"bn"}, {"r"}, "relu");
  b.node("Flatten", {"r"}, {"y"}, "flat");
  b.output("y", {1, 48});
  return b.bytes();
}

TEST(CompilerPipeline, EveryNameOfTheDefaultPipelineIsRegisteredOnce) {
  std::set<std::string> names;
  for (const PassInfo& p : registered_passes()) {
    EXPECT_TRUE(names.insert(p.name).second) << p.name;
    EXPECT_NE(p.run, nullptr) << p.name;
    EXPECT_GT(std::string(p.does).size(), 10u) << p.name;
  }
  for (std::string_view n : default_pipeline()) EXPECT_NE(find_pass(n), nullptr) << n;
  EXPECT_EQ(find_pass("no_such_pass"), nullptr);
}

// The requirement check runs over the passes that apply, so every combination of the
// options that switch passes on must satisfy it.
TEST(CompilerPipeline, TheDefaultPipelineSatisfiesItsRequirementsUnderEveryMode) {
  for (const char* mode : {"float", "0", "1", "5", "6"}) {
    for (int precheck : {0, 3}) {
      CompileOptions o;
      o.compile_mode = mode;
      o.mode = precheck;
      o.accuracy_report = true;
      o.gfpq_param_file = "unused";
      o.insert_op_conf = "unused";
      unsigned have = kImportFacts;
      for (std::string_view n : default_pipeline()) {
        const PassInfo* p = find_pass(n);
        ASSERT_NE(p, nullptr);
        if (p->applies != nullptr && !p->applies(o)) continue;
        EXPECT_EQ(p->requires & ~have, 0u) << n << " in mode " << mode << ": lacks " << fact_names(p->requires & ~have);
        have = (have & ~p->invalidates) | p->guarantees;
      }
      EXPECT_TRUE(have & kFactSegmented);
      EXPECT_EQ((have & kFactQuantized) != 0, std::string(mode) != "float" && precheck == 0) << mode;
    }
  }
}

TEST(CompilerPipeline, APassBeforeWhatItRequiresIsRefusedBeforeAnythingRuns) {
  auto g = import_onnx_bytes(conv_bn_model(), "", CompileOptions{});
  ASSERT_TRUE(g.ok()) << g.status().message();
  const std::size_t nodes = g->live_node_count();
  CompileOptions o;
  PassContext ctx;
  ctx.options = &o;
  // fold_batchnorm would run first and shrink the graph if the list were not checked first.
  Status st = run_pipeline(*g, ctx, {"fold_batchnorm", "segments", "placement"});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), err::kInternalError);
  EXPECT_NE(st.message().find("\"segments\" requires sorted, placed"), std::string::npos) << st.message();
  EXPECT_EQ(g->live_node_count(), nodes);
  // A rewrite leaves the order unsorted until compact.
  st = run_pipeline(*g, ctx, {"fold_batchnorm", "check_kernels", "placement"});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("\"placement\" requires sorted"), std::string::npos) << st.message();
  st = run_pipeline(*g, ctx, {"no_such_pass"});
  EXPECT_EQ(st.code(), err::kInternalError);
  EXPECT_NE(st.message().find("no_such_pass"), std::string::npos);
}

TEST(CompilerPipeline, APassRunsAloneByNameAndIsLoggedWithItsNodeCounts) {
  auto g = import_onnx_bytes(conv_bn_model(), "", CompileOptions{});
  ASSERT_TRUE(g.ok()) << g.status().message();
  ASSERT_EQ(g->live_node_count(), 4u);
  CompileOptions o;
  PassContext ctx;
  ctx.options = &o;
  ASSERT_TRUE(run_pipeline(*g, ctx, {"fold_batchnorm", "compact"}).ok());
  EXPECT_EQ(g->live_node_count(), 3u);
  ASSERT_EQ(ctx.log.size(), 2u);
  EXPECT_EQ(ctx.log[0].rfind("fold_batchnorm: 4 → 3 nodes (", 0), 0u) << ctx.log[0];
  EXPECT_EQ(ctx.log[1].rfind("compact: 3 → 3 nodes (", 0), 0u) << ctx.log[1];
}

TEST(CompilerPipeline, PassesThatDoNotApplyToTheOptionsDoNotRun) {
  auto g = import_onnx_bytes(conv_bn_model(), "", CompileOptions{});
  ASSERT_TRUE(g.ok());
  CompileOptions o;
  o.compile_mode = "float";
  PassContext ctx;
  ctx.options = &o;
  ASSERT_TRUE(run_pipeline(*g, ctx, {"io_types", "load_calibration", "calibrate", "quantize"}).ok());
  EXPECT_TRUE(ctx.log.empty());
  EXPECT_EQ(ctx.quant, nullptr);
}

// The ONNX a dump writes is a model again: the importer reads it back to the same graph.
TEST(OnnxExport, AGraphAfterThePassesReadsBackAsTheSameGraph) {
  auto g = import_onnx_bytes(conv_bn_model(), "", CompileOptions{});
  ASSERT_TRUE(g.ok());
  CompileOptions o;
  PassContext ctx;
  ctx.options = &o;
  ASSERT_TRUE(run_pipeline(*g, ctx, {"fold_batchnorm", "compact", "check_kernels", "placement"}).ok());
  auto bytes = to_onnx(*g, "after placement");
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  auto back = import_onnx_bytes(*bytes, "", CompileOptions{});
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->live_node_count(), g->live_node_count());
  const auto a = g->live_nodes(), b = back->live_nodes();
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(back->node(b[i]).op, g->node(a[i]).op);
    EXPECT_EQ(back->node(b[i]).name, g->node(a[i]).name);
    EXPECT_TRUE(back->node(b[i]).attrs.all() == g->node(a[i]).attrs.all()) << g->node(a[i]).name;
    for (std::size_t k = 0; k < g->node(a[i]).inputs.size(); ++k) {
      const Value& x = g->value(g->node(a[i]).inputs[k]);
      const Value& y = back->value(back->node(b[i]).inputs[k]);
      EXPECT_EQ(y.shape, x.shape);
      EXPECT_EQ(y.dtype, x.dtype);
      if (x.is_constant()) {
        ASSERT_TRUE(y.is_constant());
        EXPECT_EQ(*y.data, *x.data) << x.name;  // the folded weights, bit for bit
      }
    }
  }
}

TEST(OnnxExport, QuantizedValuesCarryTheirScalesAsAnnotations) {
  Graph g;
  g.opset = 13;
  Value x;
  x.name = "x";
  x.shape = {1, 4};
  const ValueId xi = g.add_value(x);
  Value q;
  q.name = "q";
  q.dtype = model::DType::kInt8;
  q.shape = {1, 4};
  q.quant.scale = {0.5f};
  q.quant.zero_point = {3};
  const ValueId qi = g.add_value(q);
  Node n;
  n.name = "quant";
  n.op = "Identity";
  n.inputs = {xi};
  n.outputs = {qi};
  n.target = model::Target::kAiCpu;
  g.add_node(n);
  g.inputs = {xi};
  g.outputs = {qi};
  auto bytes = to_onnx(g, "test");
  ASSERT_TRUE(bytes.ok());
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(*bytes));
  ASSERT_EQ(m.graph().quantization_annotation_size(), 1);
  const auto& a = m.graph().quantization_annotation(0);
  EXPECT_EQ(a.tensor_name(), "q");
  ASSERT_EQ(a.quant_parameter_tensor_names_size(), 2);
  EXPECT_EQ(a.quant_parameter_tensor_names(0).value(), "q_scale");
  bool found = false;
  for (const auto& t : m.graph().initializer()) {
    if (t.name() != "q_zero_point") continue;
    found = true;
    std::int32_t zp = 0;
    ASSERT_EQ(t.raw_data().size(), sizeof zp);
    std::memcpy(&zp, t.raw_data().data(), sizeof zp);
    EXPECT_EQ(zp, 3);
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(m.graph().node(0).doc_string(), "target: AI-CPU");
  EXPECT_EQ(m.graph().output(0).type().tensor_type().elem_type(), onnx::TensorProto::INT8);
}

}  // namespace
}  // namespace svp::compiler
