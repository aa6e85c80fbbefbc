// The op table (src/ops): one row per op with a kernel, and traits that agree with each
// other and with what the passes did before they read the table.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "kernels/kernels.h"
#include "ops/op_def.h"

namespace svp::ops {
namespace {

TEST(OpTable, EveryKernelHasOneRowAndEveryRowAKernel) {
  std::set<std::string> kernels(kernels::supported_ops().begin(), kernels::supported_ops().end());
  std::set<std::string> rows;
  for (const OpDef& d : all_ops()) {
    EXPECT_TRUE(rows.insert(d.name).second) << d.name << " has two rows";
    EXPECT_TRUE(kernels.count(d.name)) << d.name << " has a row but no reference kernel";
  }
  for (const std::string& k : kernels) EXPECT_TRUE(rows.count(k)) << k << " has a kernel but no row in op_table.cpp";
}

TEST(OpTable, LookupFindsEveryRowAndNothingElse) {
  EXPECT_TRUE(std::is_sorted(all_ops().begin(), all_ops().end(), [](const OpDef& a, const OpDef& b) {
    return std::string_view(a.name) < b.name;
  }));
  for (const OpDef& d : all_ops()) EXPECT_EQ(find_op(d.name), &d);
  EXPECT_EQ(find_op("NoSuchOp"), nullptr);
  EXPECT_EQ(find_op(""), nullptr);
  // An unknown op gets the conservative default: no cost, logical layout, not an NPU op.
  const OpDef& u = op_def("NoSuchOp");
  EXPECT_EQ(&u, &unknown_op());
  EXPECT_EQ(u.macs, MacRule::kNone);
  EXPECT_EQ(u.layout, LayoutRole::kLogical);
  EXPECT_EQ(u.fast, FastPath::kNone);
  EXPECT_FALSE(u.svp_npu);
  EXPECT_FALSE(u.moves_values);
}

TEST(OpTable, TraitsAgreeWithEachOther) {
  for (const OpDef& d : all_ops()) {
    SCOPED_TRACE(d.name);
    // Quantizable cube layers are the cube and pool ops of the vendor's list.
    if (d.quant_cube) {
      EXPECT_TRUE(d.op_class == OpClass::kCube || d.op_class == OpClass::kPool);
    }
    // An op that keeps its input's encoding moves values.
    if (d.quant == QuantRole::kPassThrough) {
      EXPECT_TRUE(d.moves_values);
    }
    // Ops with cube MACs are timed as cube work; int8 weights belong to cube layers.
    if (d.macs != MacRule::kNone) {
      EXPECT_EQ(d.timing, TimingClass::kCube);
    }
    if (d.weight_axis != WeightAxis::kNone) {
      EXPECT_TRUE(d.quant_cube);
    }
    // The layout-agnostic path is the elementwise fast paths' (unary eltwise and binary).
    EXPECT_EQ(d.layout == LayoutRole::kElementwise, d.fast == FastPath::kEltwise || d.fast == FastPath::kBinary);
    EXPECT_EQ(d.layout == LayoutRole::kNhwcView, d.fast == FastPath::kDataMovement);
    EXPECT_EQ(d.fast == FastPath::kNone, std::string(d.fast_note).empty());
    EXPECT_NE(std::string(to_string(d.op_class)), "");
  }
}

// The sets the passes kept before the table, written out once more: a row edited by
// mistake changes compiled models, which this catches before the model tests do.
TEST(OpTable, QuantizationSetsAreTheOnesCompiledModelsDependOn) {
  std::set<std::string> cube, pass, movers, npu;
  for (const OpDef& d : all_ops()) {
    if (d.quant_cube) cube.insert(d.name);
    if (d.quant == QuantRole::kPassThrough) pass.insert(d.name);
    if (d.moves_values) movers.insert(d.name);
    if (d.svp_npu) npu.insert(d.name);
  }
  EXPECT_EQ(cube, (std::set<std::string>{"AveragePool", "Conv", "ConvTranspose", "Gemm", "GlobalAveragePool",
                                         "GlobalMaxPool", "MatMul", "MaxPool"}));
  EXPECT_EQ(pass, (std::set<std::string>{"DepthToSpace", "Dropout", "Expand", "Flatten", "Gather", "GatherElements",
                                         "GatherND", "GlobalMaxPool", "Identity", "MaxPool", "Reshape",
                                         "ReverseSequence", "Slice", "SpaceToDepth", "Split", "Squeeze", "Tile",
                                         "Transpose", "Unsqueeze"}));
  std::set<std::string> expected_movers = pass;
  expected_movers.insert("Concat");
  EXPECT_EQ(movers, expected_movers);
  // The vendor SVP ATC operator list among the ops with kernels (placement before the table).
  EXPECT_EQ(npu, (std::set<std::string>{
      "Abs", "Add", "ArgMax", "AveragePool", "BatchNormalization", "Cast", "Clip", "Concat", "Conv",
      "ConvTranspose", "DepthToSpace", "DequantizeLinear", "Div", "Dropout", "Elu", "Exp",
      "Flatten", "GRU", "Gemm", "GlobalAveragePool", "GlobalMaxPool", "HardSigmoid", "HardSwish",
      "Identity", "InstanceNormalization", "LRN", "LSTM", "LeakyRelu", "MatMul", "Max", "MaxPool",
      "Min", "Mul", "PRelu", "Pad", "Pow", "QuantizeLinear", "RNN", "ReduceMax", "ReduceMean",
      "Relu", "Reshape", "Resize", "Sigmoid", "Slice", "Softmax", "Softplus", "SpaceToDepth",
      "Split", "Sqrt", "Squeeze", "Sub", "Tanh", "Transpose", "Unsqueeze"}));
  EXPECT_EQ(op_def("Cast").quant, QuantRole::kFloatOnly);
  EXPECT_EQ(op_def("QuantizeLinear").quant, QuantRole::kBoundary);
  EXPECT_TRUE(is_recurrent("LSTM") && is_recurrent("GRU") && is_recurrent("RNN") && !is_recurrent("MatMul"));
}

}  // namespace
}  // namespace svp::ops
