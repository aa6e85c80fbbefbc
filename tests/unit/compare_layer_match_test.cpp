// Pairing the quantized model's layer outputs with the float model's: by layer name, then
// by tensor name with the quantizer's renames undone, each golden output at most once.
#include "svp_compare/layer_match.h"

#include <gtest/gtest.h>

namespace svp::compare {
namespace {

DumpEntry Output(const std::string& layer, const std::string& op, const std::string& tensor, std::int64_t execution = 0) {
  DumpEntry e;
  e.layer = layer;
  e.op = op;
  e.tensor = tensor;
  e.execution = execution;
  e.file = layer + ".npy";
  return e;
}

TEST(CompareLayerMatch, QuantizerRenamesAreUndone) {
  EXPECT_EQ(UnquantizedTensorName("logits_int8"), "logits");
  EXPECT_EQ(UnquantizedTensorName("logits_int8_3"), "logits");
  EXPECT_EQ(UnquantizedTensorName("logits_int16"), "logits");  // A16W8 (--compile_mode 1, 6)
  EXPECT_EQ(UnquantizedTensorName("/Relu_output_0_float"), "/Relu_output_0");
  EXPECT_EQ(UnquantizedTensorName("/Relu_output_0"), "/Relu_output_0");
  EXPECT_EQ(UnquantizedTensorName("_int8"), "_int8");
}

TEST(CompareLayerMatch, LayerOutputsKeepTheOrderOfTheirFirstLineOverExecutions) {
  const std::vector<DumpEntry> entries = {Output("a", "Conv", "x"), Output("b", "Relu", "y"),
                                          Output("a", "Conv", "x", 1), Output("b", "Relu", "y", 1)};
  const std::vector<LayerOutput> outputs = GroupLayerOutputs(entries);
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[0].layer, "a");
  EXPECT_EQ(outputs[0].entries, (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(outputs[1].layer, "b");
  EXPECT_EQ(outputs[1].entries, (std::vector<std::size_t>{1, 3}));
}

TEST(CompareLayerMatch, QuantizedModelPairsByLayerNameAndItsDequantizeIsNotASecondRow) {
  // As svp_atc's int8 LeNet dumps: an input QuantizeLinear, the layers under their ONNX
  // names, the last one's output renamed "logits_int8", and a DequantizeLinear to "logits".
  const auto golden = GroupLayerOutputs({Output("/fc2/Gemm", "Gemm", "/fc2/Gemm_output_0"),
                                         Output("/fc3/Gemm", "Gemm", "logits")});
  const auto actual = GroupLayerOutputs({Output("image_quantize", "QuantizeLinear", "image_int8"),
                                         Output("/fc2/Gemm", "Gemm", "/fc2/Gemm_output_0"),
                                         Output("/fc3/Gemm", "Gemm", "logits_int8"),
                                         Output("logits_int8_dequantize", "DequantizeLinear", "logits")});
  const LayerMatch m = MatchLayers(golden, actual);
  ASSERT_EQ(m.pairs.size(), 2u);
  EXPECT_EQ(actual[m.pairs[0].actual].layer, "/fc2/Gemm");
  EXPECT_EQ(actual[m.pairs[1].actual].layer, "/fc3/Gemm");
  EXPECT_EQ(m.pairs[1].golden, 1u);
  EXPECT_TRUE(m.pairs[1].by_layer_name);
  ASSERT_EQ(m.actual_repeats.size(), 1u);
  EXPECT_EQ(actual[m.actual_repeats[0].first].layer, "logits_int8_dequantize");
  ASSERT_EQ(m.actual_unmatched.size(), 1u);
  EXPECT_EQ(actual[m.actual_unmatched[0]].layer, "image_quantize");
  EXPECT_TRUE(m.golden_unmatched.empty());
}

TEST(CompareLayerMatch, RenamedLayerPairsByItsTensorName) {
  const auto golden = GroupLayerOutputs({Output("conv", "Conv", "feat"), Output("head", "Gemm", "out")});
  const auto actual = GroupLayerOutputs({Output("conv_fused_7", "Conv", "feat_int8")});
  const LayerMatch m = MatchLayers(golden, actual);
  ASSERT_EQ(m.pairs.size(), 1u);
  EXPECT_FALSE(m.pairs[0].by_layer_name);
  EXPECT_EQ(golden[m.pairs[0].golden].layer, "conv");
  ASSERT_EQ(m.golden_unmatched.size(), 1u);
  EXPECT_EQ(golden[m.golden_unmatched[0]].layer, "head");
}

}  // namespace
}  // namespace svp::compare
