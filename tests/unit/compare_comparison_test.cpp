// Comparing hand-written dumps: quantized values are dequantized before the metrics, every
// common execution counts, unwritten and mismatched outputs are reported instead of
// compared, and the report order is execution order with worst-first ranks.
#include "svp_compare/comparison.h"

#include <gtest/gtest.h>

#include <cmath>

#include "compare_dump_builder.h"

namespace svp::compare {
namespace {

using svp::test::CompareTempDir;
using svp::test::DumpBuilder;
using svp::test::DumpQuant;

DumpDir Open(const std::filesystem::path& dir) {
  DumpDirResult r = OpenDumpDir(dir);
  EXPECT_TRUE(r.ok) << r.error;
  return r.dump;
}

DumpQuant Int8(double scale, std::int64_t zero_point) {
  DumpQuant q;
  q.scale = {scale};
  q.zero_point = {zero_point};
  return q;
}

TEST(CompareDumps, Int8OutputIsDequantizedWithItsScaleAndZeroPoint) {
  CompareTempDir tmp;
  DumpBuilder golden(tmp.path() / "golden" / "net");
  DumpBuilder actual(tmp.path() / "actual" / "net_int8");
  golden.add("fc", "Gemm", "logits", {1, 4}, {-1.0, 0.0, 0.5, 2.0});
  // 0.25 · (q − (−4)) gives exactly the golden values.
  actual.add("fc", "Gemm", "logits_int8", {1, 4}, {-8, -4, -2, 4}, Int8(0.25, -4));
  const ComparisonResult r = CompareDumps(Open(tmp.path() / "golden"), Open(tmp.path() / "actual"));
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.comparison.layers.size(), 1u);
  const LayerResult& l = r.comparison.layers[0];
  EXPECT_EQ(l.actual_dtype, "int8");
  EXPECT_EQ(l.tensor, "logits");
  EXPECT_DOUBLE_EQ(l.metrics.cosine, 1.0);
  EXPECT_DOUBLE_EQ(l.metrics.max_abs_error, 0.0);
}

TEST(CompareDumps, Uint8PerChannelScalesApplyAlongTheAxis) {
  CompareTempDir tmp;
  DumpBuilder golden(tmp.path() / "g");
  DumpBuilder actual(tmp.path() / "a");
  golden.add("relu", "Relu", "y", {1, 2, 2}, {1.0, 2.0, 30.0, 40.0});
  DumpQuant q;
  q.is_unsigned = true;
  q.scale = {0.5, 10.0};
  q.zero_point = {0, 0};
  q.axis = 1;
  actual.add("relu", "Relu", "y", {1, 2, 2}, {2, 4, 3, 4}, q);
  const ComparisonResult r = CompareDumps(Open(golden.dir()), Open(actual.dir()));
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.comparison.layers.size(), 1u);
  EXPECT_DOUBLE_EQ(r.comparison.layers[0].metrics.max_abs_error, 0.0);
}

TEST(CompareDumps, GoldenNegativesCountAsZeroWhereTheOutputEncodingStartsAtZero) {
  // A Gemm read only by a Relu gets the Relu's uint8 encoding [0, max] and saturates its
  // negatives itself; an int8 output with a zero point keeps them and is compared raw.
  CompareTempDir tmp;
  DumpBuilder golden(tmp.path() / "g");
  DumpBuilder actual(tmp.path() / "a");
  golden.add("fc1", "Gemm", "h", {4}, {-3.0, 1.0, -0.5, 2.0});
  golden.add("fc2", "Gemm", "o", {2}, {-1.0, 1.0});
  DumpQuant relu_range;
  relu_range.is_unsigned = true;
  relu_range.scale = {0.5};
  relu_range.zero_point = {0};
  actual.add("fc1", "Gemm", "h", {4}, {0, 2, 0, 4}, relu_range);
  actual.add("fc2", "Gemm", "o", {2}, {0, 4}, Int8(0.5, 2));
  const ComparisonResult r = CompareDumps(Open(golden.dir()), Open(actual.dir()));
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.comparison.layers.size(), 2u);
  EXPECT_TRUE(r.comparison.layers[0].golden_negatives_clamped);
  EXPECT_DOUBLE_EQ(r.comparison.layers[0].metrics.max_abs_error, 0.0);
  EXPECT_FALSE(r.comparison.layers[1].golden_negatives_clamped);
  EXPECT_DOUBLE_EQ(r.comparison.layers[1].metrics.max_abs_error, 0.0);
}

TEST(CompareDumps, EveryCommonExecutionIsOneSample) {
  CompareTempDir tmp;
  DumpBuilder golden(tmp.path() / "g");
  DumpBuilder actual(tmp.path() / "a");
  for (std::int64_t e = 0; e < 3; ++e) golden.add("relu", "Relu", "y", {2}, {1.0, 2.0}, std::nullopt, e);
  // The actual dump misses execution 2; execution 1 differs by 1 in one element.
  actual.add("relu", "Relu", "y", {2}, {1.0, 2.0}, std::nullopt, 0);
  actual.add("relu", "Relu", "y", {2}, {1.0, 3.0}, std::nullopt, 1);
  const ComparisonResult r = CompareDumps(Open(golden.dir()), Open(actual.dir()));
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.comparison.layers.size(), 1u);
  EXPECT_EQ(r.comparison.layers[0].samples, 2u);
  EXPECT_EQ(r.comparison.layers[0].elements, 2u);
  EXPECT_DOUBLE_EQ(r.comparison.layers[0].metrics.max_abs_error, 1.0);
  EXPECT_DOUBLE_EQ(r.comparison.layers[0].metrics.mean_abs_error, 0.25);
}

TEST(CompareDumps, ProgressCountsEveryPairedLayerOutputUpToTheTotal) {
  CompareTempDir tmp;
  DumpBuilder golden(tmp.path() / "g");
  DumpBuilder actual(tmp.path() / "a");
  for (const char* layer : {"a", "b", "c"}) {
    golden.add(layer, "Relu", layer, {1}, {1.0});
    actual.add(layer, "Relu", layer, {1}, {1.0});
  }
  std::vector<std::pair<std::size_t, std::size_t>> calls;
  const ComparisonResult r = CompareDumps(Open(golden.dir()), Open(actual.dir()),
                                          [&](std::size_t done, std::size_t total) { calls.emplace_back(done, total); });
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(calls, (std::vector<std::pair<std::size_t, std::size_t>>{{1, 3}, {2, 3}, {3, 3}}));
}

TEST(CompareDumps, FusedAndMismatchedOutputsAreNotedNotCompared) {
  CompareTempDir tmp;
  DumpBuilder golden(tmp.path() / "g");
  DumpBuilder actual(tmp.path() / "a");
  golden.add_unwritten("conv", "Conv", "c", {2}, "fused with the following layer's");
  golden.add("relu", "Relu", "y", {2}, {1.0, 2.0});
  golden.add("flat", "Flatten", "f", {2}, {1.0, 2.0});
  actual.add_unwritten("conv", "Conv", "c", {2}, "fused with the following layer's");
  actual.add("relu", "Relu", "y", {2}, {1.0, 2.0});
  actual.add("flat", "Flatten", "f", {3}, {1.0, 2.0, 3.0});
  const ComparisonResult r = CompareDumps(Open(golden.dir()), Open(actual.dir()));
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.comparison.layers.size(), 1u);
  EXPECT_EQ(r.comparison.layers[0].layer, "relu");
  ASSERT_EQ(r.comparison.not_compared.size(), 2u);
  EXPECT_EQ(r.comparison.not_compared[0].layer, "conv");
  EXPECT_NE(r.comparison.not_compared[0].reason.find("fused"), std::string::npos);
  EXPECT_EQ(r.comparison.not_compared[1].layer, "flat");
  EXPECT_NE(r.comparison.not_compared[1].reason.find("golden has 2 elements, actual 3"), std::string::npos);
}

TEST(CompareDumps, RowsAreInExecutionOrderAndRankedWorstFirst) {
  CompareTempDir tmp;
  DumpBuilder golden(tmp.path() / "g");
  DumpBuilder actual(tmp.path() / "a");
  golden.add("first", "Conv", "t1", {2}, {1.0, 0.0});
  golden.add("second", "Relu", "t2", {2}, {1.0, 0.0});
  golden.add("third", "Gemm", "t3", {2}, {1.0, 0.0});
  actual.add("first", "Conv", "t1", {2}, {1.0, 0.0});    // cosine 1
  actual.add("second", "Relu", "t2", {2}, {0.0, 1.0});   // cosine 0
  actual.add("third", "Gemm", "t3", {2}, {1.0, 1.0});    // cosine 0.707
  const ComparisonResult r = CompareDumps(Open(golden.dir()), Open(actual.dir()));
  ASSERT_TRUE(r.ok) << r.error;
  const auto& layers = r.comparison.layers;
  ASSERT_EQ(layers.size(), 3u);
  EXPECT_EQ(layers[0].layer, "first");
  EXPECT_EQ(layers[1].layer, "second");
  EXPECT_EQ(layers[2].layer, "third");
  EXPECT_EQ(WorstFirst(layers), (std::vector<std::size_t>{1, 2, 0}));
  EXPECT_EQ(FirstBelowThreshold(layers, 0.99), 1);
  EXPECT_EQ(FirstBelowThreshold(layers, 0.5), 1);
  EXPECT_EQ(FirstBelowThreshold(layers, -1.0), -1);
}

TEST(CompareDumps, NanCosineRanksWorst) {
  std::vector<LayerResult> layers(2);
  layers[0].metrics.cosine = 0.1;
  layers[1].metrics.cosine = std::nan("");
  EXPECT_EQ(WorstFirst(layers), (std::vector<std::size_t>{1, 0}));
  EXPECT_EQ(FirstBelowThreshold(layers, -1.0), 1);
}

TEST(CompareDumps, MissingNpyFileIsAnErrorNamingItAndTheIndexLine) {
  CompareTempDir tmp;
  DumpBuilder golden(tmp.path() / "g");
  DumpBuilder actual(tmp.path() / "a");
  golden.add("relu", "Relu", "y", {2}, {1.0, 2.0});
  actual.add("relu", "Relu", "y", {2}, {1.0, 2.0});
  std::filesystem::remove(actual.dir() / "0/exec0/relu.output.0.npy");
  const ComparisonResult r = CompareDumps(Open(golden.dir()), Open(actual.dir()));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("relu.output.0.npy"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("index.jsonl:1"), std::string::npos) << r.error;
}

TEST(CompareDumpDir, FindsTheOneModelDumpBelowAResultDirectory) {
  CompareTempDir tmp;
  DumpBuilder dump(tmp.path() / "result" / "dump" / "lenet");
  dump.add("relu", "Relu", "y", {1}, {1.0});
  for (const auto& p : {tmp.path() / "result", tmp.path() / "result" / "dump", dump.dir()}) {
    const DumpDirResult r = OpenDumpDir(p);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.dump.dir, dump.dir());
    EXPECT_EQ(r.dump.entries.size(), 1u);
  }
  DumpBuilder other(tmp.path() / "result" / "dump" / "other");
  other.add("relu", "Relu", "y", {1}, {1.0});
  const DumpDirResult ambiguous = OpenDumpDir(tmp.path() / "result" / "dump");
  EXPECT_FALSE(ambiguous.ok);
  EXPECT_NE(ambiguous.error.find("2 subdirectories"), std::string::npos) << ambiguous.error;
}

}  // namespace
}  // namespace svp::compare
