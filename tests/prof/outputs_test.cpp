// The outputs of the reference scenario (job_fixture.h, figures worked out there):
// statistics, CSV rows, the Chrome trace's structure and the HTML page's data.
#include <limits>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "job_fixture.h"
#include "svp_prof/chrome_trace.h"
#include "svp_prof/csv_writer.h"
#include "svp_prof/html_report.h"
#include "svp_prof/job_reader.h"
#include "svp_prof/statistics.h"
#include "svp_prof/timeline.h"
#include "svp_prof/tracks.h"
#include "svp_prof/units.h"

namespace svp::prof {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::add_reference_scenario;
using test::JobWriter;
using test::read_lines;
using test::read_text;
using test::TempDir;
using ::testing::HasSubstr;
using ::testing::Not;

class SvpProfOutputs : public ::testing::Test {
 protected:
  void SetUp() override {
    JobWriter w;
    add_reference_scenario(w);
    w.shuffle(DataFile::kAicore, 7);
    w.write(tmp_.path() / "job");
    Status s = read_job(tmp_.path() / "job", {}, &job_);
    ASSERT_TRUE(s.ok()) << s.message();
    timeline_ = build_timeline(job_, &job_.warnings);
    layout_ = build_layout(job_, timeline_);
  }
  fs::path out(const char* name) const { return tmp_.path() / name; }

  TempDir tmp_;
  Job job_;
  Timeline timeline_;
  Layout layout_;
};

TEST(SvpProfUnits, MicrosecondsHaveExactlyThreeDecimals) {
  EXPECT_EQ(format_us(0), "0.000");
  EXPECT_EQ(format_us(1), "0.001");
  EXPECT_EQ(format_us(1234567), "1234.567");
  EXPECT_EQ(format_us(-5), "-0.005");
  EXPECT_EQ(format_us(-1500), "-1.500");
  EXPECT_EQ(format_us(INT64_MIN), "-9223372036854775.808");
  EXPECT_EQ(format_percent(40.880503), "40.88");
}

TEST(SvpProfCsv, FieldsWithSeparatorsOrQuotesAreQuoted) {
  EXPECT_EQ(csv_field("conv1"), "conv1");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
}

TEST_F(SvpProfOutputs, OpStatisticsMatchTheHandComputedFigures) {
  const std::vector<OpStat> stats = op_statistics(job_.ops);
  ASSERT_EQ(stats.size(), 6u);
  EXPECT_EQ(stats[0].type, "Conv");
  EXPECT_EQ(stats[0].count, 4);
  EXPECT_EQ(stats[0].total_ns, 6500);
  EXPECT_EQ(stats[0].min_ns, 500);
  EXPECT_EQ(stats[0].max_ns, 3000);
  EXPECT_EQ(stats[0].avg_ns(), 1625);
  EXPECT_NEAR(stats[0].share_pct, 100.0 * 6500 / 15900, 1e-9);
  std::vector<std::string> order;
  double shares = 0;
  for (const OpStat& s : stats) {
    order.push_back(s.type + "/" + s.unit);
    shares += s.share_pct;
  }
  // Gemm and Relu tie at 3000 ns: ties keep type order.
  EXPECT_EQ(order,
            (std::vector<std::string>{"Conv/npu", "Gemm/npu", "Relu/npu", "NMS/aicpu", "Softmax/npu", "TopK/aicpu"}));
  EXPECT_NEAR(shares, 100.0, 1e-9);
}

TEST_F(SvpProfOutputs, ApiStatisticsCountCallsAndErrors) {
  const std::vector<ApiStat> stats = api_statistics(job_.api);
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_EQ(stats[0].name, "svp_acl_mdl_execute");
  EXPECT_EQ(stats[0].count, 2);
  EXPECT_EQ(stats[0].total_ns, 1600);
  EXPECT_EQ(stats[0].avg_ns(), 800);
  EXPECT_EQ(stats[0].errors, 0);
  EXPECT_EQ(stats[1].name, "svp_acl_rt_malloc");
  EXPECT_EQ(stats[1].min_ns, 50);
  EXPECT_EQ(stats[1].max_ns, 60);
  EXPECT_EQ(stats[1].avg_ns(), 55);
  EXPECT_EQ(stats[1].errors, 1);
}

TEST(SvpProfStatistics, ExtremeTimestampsSaturateInsteadOfOverflowing) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  ApiRecord a;
  a.name = "svp_acl_mdl_execute";
  a.start_ns = kMin;
  a.end_ns = kMax;  // a span wider than int64
  ApiRecord b = a;
  b.start_ns = 0;
  b.end_ns = kMax;
  const std::vector<ApiStat> stats = api_statistics({a, b});
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].max_ns, kMax);
  EXPECT_EQ(stats[0].total_ns, kMax);
  EXPECT_GT(stats[0].avg_ns(), 0);
  OpRecord o;
  o.type = "Conv";
  o.unit = "npu";
  o.start_ns = kMax;
  o.end_ns = kMin;  // ends before it starts, by more than int64 holds
  const std::vector<OpStat> ops = op_statistics({o, o});
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].min_ns, kMin);
  EXPECT_EQ(ops[0].total_ns, kMin);
}

TEST(SvpProfApiRecord, APollingTimeoutOfProcessReportIsNotAFailure) {
  auto call = [](const char* name, std::int64_t ret) {
    ApiRecord r;
    r.name = name;
    r.ret = ret;
    return r;
  };
  EXPECT_FALSE(call("svp_acl_rt_process_report", 507012).failed());  // SVP_ACL_ERROR_RT_REPORT_TIMEOUT
  EXPECT_TRUE(call("svp_acl_rt_process_report", 100000).failed());
  EXPECT_TRUE(call("svp_acl_rt_synchronize_stream", 507012).failed());  // a timeout elsewhere is one
  EXPECT_FALSE(call("svp_acl_mdl_execute", 0).failed());
  const std::vector<ApiStat> stats = api_statistics({call("svp_acl_rt_process_report", 507012),
                                                     call("svp_acl_rt_process_report", 0)});
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].errors, 0);
}

TEST_F(SvpProfOutputs, OpSummaryHasOneRowPerOperatorInTimeOrder) {
  ASSERT_TRUE(write_op_summary(out("op_summary.csv"), job_).ok());
  const std::vector<std::string> lines = read_lines(out("op_summary.csv"));
  ASSERT_EQ(lines.size(), 11u);
  EXPECT_EQ(lines[0], "model,name,type,unit,device,stream,task,core,prio,layer,seg,batch,start_us,end_us,duration_us");
  EXPECT_EQ(lines[1], "1,conv1,Conv,npu,0,1,1,0,2,0,0,0,2.000,5.000,3.000");
  EXPECT_EQ(lines[2], "2,fc,Gemm,npu,0,2,2,0,5,0,0,0,5.000,8.000,3.000");
  EXPECT_EQ(lines[5], "1,nms,NMS,aicpu,0,1,3,-1,2,1,1,0,12.500,14.000,1.500");
  EXPECT_EQ(lines[7], ",conv3,Conv,npu,0,3,4,1,0,0,0,0,16.500,17.000,0.500");  // no model
}

TEST_F(SvpProfOutputs, OpStatisticsCsv) {
  ASSERT_TRUE(write_op_statistics(out("op_statistics.csv"), op_statistics(job_.ops)).ok());
  const std::vector<std::string> lines = read_lines(out("op_statistics.csv"));
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_EQ(lines[0], "type,unit,count,total_us,avg_us,min_us,max_us,share_pct");
  EXPECT_EQ(lines[1], "Conv,npu,4,6.500,1.625,0.500,3.000,40.88");
  EXPECT_EQ(lines[4], "NMS,aicpu,1,1.500,1.500,1.500,1.500,9.43");
}

TEST_F(SvpProfOutputs, TaskSummaryHasOneRowPerTask) {
  ASSERT_TRUE(write_task_summary(out("task_summary.csv"), job_, timeline_).ok());
  const std::vector<std::string> lines = read_lines(out("task_summary.csv"));
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_EQ(lines[0],
            "device,stream,task,model,prio,max_prio,submit_us,start_us,end_us,queue_wait_us,run_us,preemptions,"
            "preempted_us,aicpu_wait_us,ops,status");
  EXPECT_EQ(lines[1], "0,1,1,1,2,3,1.000,2.000,10.000,1.000,5.000,1,3.000,0.000,2,ok");
  EXPECT_EQ(lines[3], "0,1,3,1,2,2,10.500,11.000,16.000,0.500,2.000,0,0.000,3.000,3,ok");
  EXPECT_EQ(lines[4], "0,3,4,,0,0,16.000,16.500,19.000,0.500,2.500,0,0.000,1.000,3,error 507011");
  EXPECT_EQ(lines[5], "0,2,5,2,5,5,20.000,21.000,,1.000,9.000,0,0.000,0.000,1,incomplete");
  EXPECT_EQ(lines[6], "0,3,6,,1,,25.000,,,,,0,0.000,0.000,0,not started");
}

TEST_F(SvpProfOutputs, ApiStatisticsCsv) {
  ASSERT_TRUE(write_api_statistics(out("api_statistics.csv"), api_statistics(job_.api)).ok());
  const std::vector<std::string> lines = read_lines(out("api_statistics.csv"));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "name,count,errors,total_us,avg_us,min_us,max_us");
  EXPECT_EQ(lines[1], "svp_acl_mdl_execute,2,0,1.600,0.800,0.600,1.000");
  EXPECT_EQ(lines[2], "svp_acl_rt_malloc,2,1,0.110,0.055,0.050,0.060");
}

TEST_F(SvpProfOutputs, OperatorNamesWithCommasAreQuotedInCsv) {
  job_.ops[0].name = "block1/conv,a";
  ASSERT_TRUE(write_op_summary(out("op_summary.csv"), job_).ok());
  EXPECT_THAT(read_text(out("op_summary.csv")), HasSubstr(",\"block1/conv,a\","));
}

TEST_F(SvpProfOutputs, LayoutHasATrackPerStreamCoreAndApiThread) {
  std::vector<std::string> names;
  for (const Track& t : layout_.tracks) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"stream 1", "stream 2", "stream 3", "core 0", "core 1", "AI-CPU (host)",
                                             "API thread 4243", "API thread 4244"}));
  EXPECT_EQ(layout_.items[0].size(), 2u);  // tasks 1 and 3
  EXPECT_EQ(layout_.items[2].size(), 1u);  // task 4; task 6 never started
  EXPECT_EQ(layout_.items[4].size(), 4u);  // core 1: conv2, conv3, relu2, and the wait holding it
}

TEST_F(SvpProfOutputs, OverlappingItemsGoToExtraLanes) {
  // Two application threads running AI-CPU operators at the same time.
  OpRecord second;
  for (const OpRecord& o : job_.ops) {
    if (o.name == "nms") second = o;
  }
  second.name = "nms_b";
  job_.ops.push_back(second);
  job_.ops.back().start_ns += 100;
  Layout layout = build_layout(job_, timeline_);
  std::vector<std::string> names;
  for (const Track& t : layout.tracks) names.push_back(t.name);
  EXPECT_THAT(names, ::testing::Contains("AI-CPU (host) (overlap 1)"));
}

TEST_F(SvpProfOutputs, ManyOverlappingItemsShareABoundedNumberOfLanes) {
  // Broken data: 100000 operators at the same time on one core. Quick, and not 100000 rows.
  OpRecord o = job_.ops[0];
  o.core = 0;
  for (int i = 0; i < 100000; ++i) job_.ops.push_back(o);
  Layout layout = build_layout(job_, timeline_);
  std::size_t core0_lanes = 0;
  std::size_t items = 0;
  for (std::size_t i = 0; i < layout.tracks.size(); ++i) {
    if (layout.tracks[i].kind == TrackKind::kCore && layout.tracks[i].id == 0) {
      ++core0_lanes;
      items += layout.items[i].size();
    }
  }
  EXPECT_EQ(core0_lanes, 16u);
  EXPECT_EQ(items, 100000u + 5u);  // core 0's five operators from the scenario, too
}

TEST_F(SvpProfOutputs, AHeaderClaimingMillionsOfCoresDoesNotMakeMillionsOfRows) {
  job_.info.devices[0].cores = 1000000000;
  Layout layout = build_layout(job_, timeline_);
  EXPECT_LT(layout.tracks.size(), 100u);
}

json load_trace(const fs::path& p) {
  json trace = json::parse(read_text(p));  // throws, failing the test, if not valid JSON
  return trace;
}

TEST_F(SvpProfOutputs, ChromeTraceIsValidJsonWithTheExpectedEvents) {
  TraceCounts counts;
  ASSERT_TRUE(write_chrome_trace(out("trace.json"), job_, timeline_, layout_, &counts).ok());
  const json trace = load_trace(out("trace.json"));
  ASSERT_TRUE(trace.is_object());
  EXPECT_EQ(trace["displayTimeUnit"], "ns");
  const json& events = trace["traceEvents"];
  ASSERT_TRUE(events.is_array());

  std::map<std::string, int> by_phase;
  std::map<std::string, int> by_cat;
  std::set<std::string> thread_names;
  std::set<std::string> process_names;
  for (const json& e : events) {
    ++by_phase[e["ph"].get<std::string>()];
    if (e.contains("cat")) ++by_cat[e["cat"].get<std::string>()];
    if (e["ph"] == "M" && e["name"] == "thread_name") thread_names.insert(e["args"]["name"].get<std::string>());
    if (e["ph"] == "M" && e["name"] == "process_name") process_names.insert(e["args"]["name"].get<std::string>());
    ASSERT_TRUE(e.contains("pid") && e.contains("tid"));
    if (e["ph"] == "X") {
      EXPECT_GE(e["dur"].get<double>(), 0.0);
      EXPECT_TRUE(e["ts"].is_number());
    }
  }
  // Task runs: A 2, B 1, C 2, D 2 (split by its held AI-CPU wait), E 1.
  EXPECT_EQ(by_cat["task"], 8);
  // A's preemption, C's released wait, D's held wait on its stream and on core 1.
  EXPECT_EQ(by_cat["preempt"], 2);  // the slice and the instant marker
  EXPECT_EQ(by_cat["aicpu"], 3);
  EXPECT_EQ(by_cat["npu_op"], 8);
  EXPECT_EQ(by_cat["aicpu_op"], 2);
  EXPECT_EQ(by_cat["api"], 4);
  EXPECT_EQ(by_phase["i"], 1);
  EXPECT_EQ(by_phase["X"], 8 + 1 + 3 + 10 + 4);
  // Metadata: 2 for device 0, 3 for the host API process, 2 per track.
  EXPECT_EQ(by_phase["M"], 2 + 3 + 2 * 8);
  EXPECT_EQ(counts.events, events.size());
  EXPECT_EQ(counts.task_slices, 8u);
  EXPECT_EQ(counts.op_slices, 10u);
  EXPECT_EQ(thread_names, (std::set<std::string>{"stream 1", "stream 2", "stream 3", "core 0", "core 1",
                                                 "AI-CPU (host)", "API thread 4243", "API thread 4244"}));
  EXPECT_EQ(process_names, (std::set<std::string>{"device 0", "host API"}));
}

TEST_F(SvpProfOutputs, ChromeTraceShowsPreemptionsAndOperatorDetails) {
  TraceCounts counts;
  ASSERT_TRUE(write_chrome_trace(out("trace.json"), job_, timeline_, layout_, &counts).ok());
  const json trace = load_trace(out("trace.json"));
  const json* preempted = nullptr;
  const json* conv1 = nullptr;
  std::map<int, std::string> thread_of;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") thread_of[e["tid"].get<int>()] = e["args"]["name"];
    if (e["ph"] == "X" && e["name"] == "preempted") preempted = &e;
    if (e["ph"] == "X" && e["name"] == "conv1") conv1 = &e;
  }
  ASSERT_NE(preempted, nullptr);
  EXPECT_DOUBLE_EQ((*preempted)["ts"].get<double>(), 5.0);  // µs from start_ns
  EXPECT_DOUBLE_EQ((*preempted)["dur"].get<double>(), 3.0);
  EXPECT_EQ((*preempted)["args"]["by_task"], 2);
  EXPECT_EQ(thread_of[(*preempted)["tid"].get<int>()], "stream 1");
  ASSERT_NE(conv1, nullptr);
  EXPECT_EQ(thread_of[(*conv1)["tid"].get<int>()], "core 0");
  const json& args = (*conv1)["args"];
  EXPECT_EQ(args["type"], "Conv");
  EXPECT_EQ(args["model"], 1);
  EXPECT_EQ(args["task"], 1);
  EXPECT_EQ(args["prio"], 2);
  EXPECT_EQ(args["layer"], 0);
  EXPECT_EQ(args["seg"], 0);
  EXPECT_EQ(args["batch"], 0);
}

TEST_F(SvpProfOutputs, ChromeTraceEscapesOperatorNames) {
  job_.ops[0].name = "weird \"name\" </script> \\ end";
  TraceCounts counts;
  ASSERT_TRUE(write_chrome_trace(out("trace.json"), job_, timeline_, layout_, &counts).ok());
  const json trace = load_trace(out("trace.json"));
  bool found = false;
  for (const json& e : trace["traceEvents"]) found = found || e["name"] == job_.ops[0].name;
  EXPECT_TRUE(found);
}

// The page's embedded data, parsed back.
json embedded_data(const std::string& page) {
  const std::string open = R"(<script type="application/json" id="svp-prof-data">)";
  const std::size_t at = page.find(open);
  EXPECT_NE(at, std::string::npos);
  const std::size_t begin = at + open.size();
  const std::size_t end = page.find("</script>", begin);
  return json::parse(page.substr(begin, end - begin));
}

TEST_F(SvpProfOutputs, HtmlReportIsSelfContainedWithItsDataEmbedded) {
  job_.ops[0].name = "</script><script>alert(1)</script>";
  HtmlCounts counts;
  ASSERT_TRUE(write_html_report(out("report.html"), job_, timeline_, layout_, op_statistics(job_.ops),
                                api_statistics(job_.api), HtmlOptions{}, &counts)
                  .ok());
  const std::string page = read_text(out("report.html"));
  EXPECT_THAT(page, Not(HasSubstr("@SVP_PROF_DATA@")));
  // Nothing loaded from elsewhere.
  EXPECT_THAT(page, Not(HasSubstr("http://")));
  EXPECT_THAT(page, Not(HasSubstr("https://")));
  EXPECT_THAT(page, Not(HasSubstr("<script src")));
  EXPECT_THAT(page, Not(HasSubstr("<link")));
  EXPECT_THAT(page, Not(HasSubstr("@import")));
  // The hostile operator name stays inside the data.
  EXPECT_THAT(page, Not(HasSubstr("<script>alert(1)")));

  const json data = embedded_data(page);
  EXPECT_EQ(counts.task_bars, 5u);  // started tasks
  EXPECT_EQ(counts.op_slices, 10u);
  EXPECT_EQ(data["tasks"].size(), 5u);
  EXPECT_EQ(data["ops"].size(), 10u);
  EXPECT_EQ(data["gaps"].size(), 3u);
  EXPECT_EQ(data["held"].size(), 1u);
  EXPECT_EQ(data["api"].size(), 4u);
  EXPECT_EQ(data["tracks"].size(), 8u);
  EXPECT_EQ(data["task_table"].size(), 6u);
  EXPECT_EQ(data["op_stats"].size(), 6u);
  EXPECT_EQ(data["api_stats"].size(), 2u);
  EXPECT_EQ(data["meta"]["pid"], 4242);
  EXPECT_EQ(data["meta"]["cut_short"], false);
  EXPECT_EQ(data["meta"]["complete"], true);
  // Rows are read by column name: every row is as long as its column list.
  for (const char* kind : {"tasks", "gaps", "ops", "held", "api", "task_table", "op_stats", "api_stats"}) {
    for (const json& row : data[kind]) EXPECT_EQ(row.size(), data["columns"][kind].size()) << kind;
  }
  bool hostile_name_kept = false;
  for (const json& s : data["strings"]) hostile_name_kept = hostile_name_kept || s == job_.ops[0].name;
  EXPECT_TRUE(hostile_name_kept);
}

TEST_F(SvpProfOutputs, HtmlReportEmbedsAtMostMaxOpsOperators) {
  HtmlOptions options;
  options.max_ops = 3;
  HtmlCounts counts;
  ASSERT_TRUE(write_html_report(out("report.html"), job_, timeline_, layout_, op_statistics(job_.ops),
                                api_statistics(job_.api), options, &counts)
                  .ok());
  const json data = embedded_data(read_text(out("report.html")));
  EXPECT_EQ(counts.op_slices, 3u);
  ASSERT_EQ(data["ops"].size(), 3u);
  EXPECT_EQ(data["meta"]["ops_total"], 10);
  EXPECT_EQ(data["meta"]["ops_embedded"], 3);
  // The earliest three: conv1 (2 µs), fc (5 µs), relu1 (8 µs).
  std::set<double> begins;
  for (const json& o : data["ops"]) begins.insert(o[1].get<double>());
  EXPECT_EQ(begins, (std::set<double>{2.0, 5.0, 8.0}));
}

}  // namespace
}  // namespace svp::prof
