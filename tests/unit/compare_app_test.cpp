// svp_compare's run as main() calls it: exit codes for bad arguments, malformed dumps and
// dumps with nothing in common, and the table, compare.csv and compare.html of a good pair.
#include "svp_compare/app.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "compare_dump_builder.h"

namespace svp::compare {
namespace {

using svp::test::CompareTempDir;
using svp::test::DumpBuilder;

std::string ReadText(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::size_t CountOf(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

struct RunOutcome {
  int code;
  std::string out, err;
};

RunOutcome RunWith(const AppOptions& options) {
  std::ostringstream out, err;
  const int code = RunCompare(options, out, err);
  return {code, out.str(), err.str()};
}

// A float golden and an actual whose second layer is off: one row each, the second worst.
void WriteTwoLayerDumps(const std::filesystem::path& root) {
  DumpBuilder golden(root / "golden" / "net");
  DumpBuilder actual(root / "actual" / "net_int8");
  golden.add("/conv/Conv", "Conv", "c", {3}, {1.0, 2.0, 3.0});
  golden.add("/fc/Gemm", "Gemm", "logits", {3}, {3.0, -1.0, 0.5});
  actual.add("/conv/Conv", "Conv", "c", {3}, {1.0, 2.0, 3.0});
  actual.add("/fc/Gemm", "Gemm", "logits", {3}, {-3.0, 1.0, 0.5});
}

TEST(CompareApp, MissingDumpOrBadThresholdIsAUsageError) {
  AppOptions o;
  o.golden = "/nonexistent";
  EXPECT_EQ(RunWith(o).code, kExitUsage);
  o.actual = "/nonexistent";
  o.threshold = 1.5;
  const RunOutcome r = RunWith(o);
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("--threshold"), std::string::npos);
}

TEST(CompareApp, UnreadableDumpDirectoryExitsThree) {
  CompareTempDir tmp;
  AppOptions o;
  o.golden = (tmp.path() / "nowhere").string();
  o.actual = o.golden;
  const RunOutcome r = RunWith(o);
  EXPECT_EQ(r.code, kExitBadDump);
  EXPECT_NE(r.err.find("nowhere"), std::string::npos) << r.err;
}

TEST(CompareApp, MalformedIndexLineExitsThreeNamingFileAndLine) {
  CompareTempDir tmp;
  WriteTwoLayerDumps(tmp.path());
  DumpBuilder actual(tmp.path() / "actual" / "net_int8");
  actual.append_raw_line(R"({"model": "net_int8", "layer": 7})");
  AppOptions o;
  o.golden = (tmp.path() / "golden").string();
  o.actual = (tmp.path() / "actual").string();
  const RunOutcome r = RunWith(o);
  EXPECT_EQ(r.code, kExitBadDump);
  EXPECT_NE(r.err.find("index.jsonl:3"), std::string::npos) << r.err;
}

TEST(CompareApp, DumpsWithoutCommonLayersExitFour) {
  CompareTempDir tmp;
  DumpBuilder golden(tmp.path() / "g");
  DumpBuilder actual(tmp.path() / "a");
  golden.add("a", "Relu", "x", {1}, {1.0});
  actual.add("b", "Relu", "y", {1}, {1.0});
  AppOptions o;
  o.golden = golden.dir().string();
  o.actual = actual.dir().string();
  const RunOutcome r = RunWith(o);
  EXPECT_EQ(r.code, kExitNothingMatched);
  EXPECT_NE(r.out.find("golden only: a"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("actual only: b"), std::string::npos) << r.out;
}

TEST(CompareApp, DumpsOfDifferentModelsGetAWarningBeforeTheTable) {
  CompareTempDir tmp;
  DumpBuilder golden(tmp.path() / "g" / "resnet");
  DumpBuilder actual(tmp.path() / "a" / "lenet");
  golden.add("/conv1/Conv", "Conv", "c1", {2}, {1.0, 2.0});  // a name many networks share
  for (const char* layer : {"/layer1/Conv", "/layer2/Conv", "/fc/Gemm"}) golden.add(layer, "Conv", layer, {1}, {1.0});
  actual.add("/conv1/Conv", "Conv", "c1", {2}, {1.0, 2.5});
  actual.add("/fc1/Gemm", "Gemm", "f", {1}, {1.0});
  AppOptions o;
  o.golden = golden.dir().string();
  o.actual = actual.dir().string();
  const RunOutcome r = RunWith(o);
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.err.find("warning: only 1 of 4 golden layer outputs have a partner"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("golden model \"resnet\", actual \"lenet\""), std::string::npos) << r.err;
  // The same model's own dumps get no warning.
  WriteTwoLayerDumps(tmp.path());
  o.golden = (tmp.path() / "golden").string();
  o.actual = (tmp.path() / "actual").string();
  EXPECT_EQ(RunWith(o).err.find("warning"), std::string::npos);
}

TEST(CompareApp, AReportOf250LayersThinsItsChartLabelsButKeepsTheLayersBelowThreshold) {
  CompareTempDir tmp;
  DumpBuilder golden(tmp.path() / "golden" / "net");
  DumpBuilder actual(tmp.path() / "actual" / "net");
  for (int i = 0; i < 250; ++i) {
    const std::string layer = "/backbone/stage" + std::to_string(i / 50) + "/block" + std::to_string(i) + "/conv/Conv";
    golden.add(layer, "Conv", "t" + std::to_string(i), {2}, {1.0, 2.0});
    // Layer 137 alone is off.
    actual.add(layer, "Conv", "t" + std::to_string(i), {2}, i == 137 ? std::vector<double>{2.0, -1.0} : std::vector<double>{1.0, 2.0});
  }
  AppOptions o;
  o.golden = (tmp.path() / "golden").string();
  o.actual = (tmp.path() / "actual").string();
  o.output = (tmp.path() / "report").string();
  ASSERT_EQ(RunWith(o).code, kExitOk);
  const std::string html = ReadText(tmp.path() / "report" / "compare.html");
  EXPECT_EQ(CountOf(html, "<rect class=\"bar"), 250u);
  const std::size_t labels = CountOf(html, "<text class=\"label\"");
  EXPECT_GT(labels, 20u);
  EXPECT_LT(labels, 250u / 1.5);  // ~14 px apart at 8 px per bar
  EXPECT_NE(html.find(">...stage2/block137/conv/Conv</text>"), std::string::npos) << "the layer below threshold is labelled";
  EXPECT_NE(html.find("<div class=\"chart\">"), std::string::npos);  // scrolls by itself, not the page
}

TEST(CompareApp, ReportNamesFirstLayerBelowThresholdAndWritesCsvAndHtml) {
  CompareTempDir tmp;
  WriteTwoLayerDumps(tmp.path());
  AppOptions o;
  o.golden = (tmp.path() / "golden").string();
  o.actual = (tmp.path() / "actual").string();
  o.output = (tmp.path() / "report").string();
  const RunOutcome r = RunWith(o);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("first layer below 0.99 (marked *): /fc/Gemm (#2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("worst first: /fc/Gemm"), std::string::npos) << r.out;

  const std::string csv = ReadText(tmp.path() / "report" / "compare.csv");
  EXPECT_EQ(CountOf(csv, "\n"), 3u) << csv;  // header + one row per layer
  EXPECT_EQ(csv.rfind("order,rank,layer,op,", 0), 0u);
  EXPECT_NE(csv.find("\n1,2,/conv/Conv,Conv,/conv/Conv,c,float32,1,3,1,0,0,0,0,3,0,0,0,0,0,0\n"), std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\n2,1,/fc/Gemm,Gemm,"), std::string::npos) << csv;

  const std::string html = ReadText(tmp.path() / "report" / "compare.html");
  EXPECT_EQ(CountOf(html, "<rect class=\"bar"), 2u);
  EXPECT_EQ(CountOf(html, "<tr class=\"below\">"), 1u);
  // Worst first: the Gemm row precedes the Conv row; nothing is loaded from elsewhere.
  EXPECT_LT(html.find("<td class=\"name\" title=\"/fc/Gemm\">/fc/Gemm"), html.find("<td class=\"name\" title=\"/conv/Conv\">"));
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("href="), std::string::npos);
}

}  // namespace
}  // namespace svp::compare
