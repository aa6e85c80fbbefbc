// svp_prof end to end, in-process: the files it writes, what it prints, its exit codes.
#include "svp_prof/app.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

#include "job_fixture.h"

namespace svp::prof {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::add_many_tasks;
using test::add_reference_scenario;
using test::JobWriter;
using test::read_text;
using test::TempDir;
using ::testing::HasSubstr;
using ::testing::Not;

struct RunResult {
  int code = -1;
  std::string out;
  std::string err;
};

RunResult run_tool(const fs::path& job, const fs::path& out_dir = {}, std::uint64_t progress_min_bytes = 16u << 20,
                   bool quiet = false) {
  AppOptions o;
  o.job_dir = job;
  o.out_dir = out_dir;
  o.quiet = quiet;
  o.progress_min_bytes = progress_min_bytes;
  std::ostringstream out;
  std::ostringstream err;
  RunResult r;
  r.code = run(o, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

TEST(SvpProfApp, WritesEveryOutputIntoTheJobsReportDirectory) {
  TempDir tmp;
  JobWriter w;
  add_reference_scenario(w);
  w.dropped["aicore"] = 4;
  const fs::path job = tmp.path() / "JOB20261121140000_4242_0";
  w.write(job);
  RunResult r = run_tool(job);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  for (const char* f :
       {"op_summary.csv", "op_statistics.csv", "task_summary.csv", "api_statistics.csv", "trace.json", "report.html"}) {
    EXPECT_TRUE(fs::exists(job / "report" / f)) << f;
  }
  EXPECT_THAT(r.out, HasSubstr("38 records (acl_api 4, task 24, aicore 8, aicpu 2)"));
  EXPECT_THAT(r.out, HasSubstr("6 tasks (1 incomplete, 1 failed)"));
  EXPECT_THAT(r.out, HasSubstr("dropped 4 (aicore 4)"));
  EXPECT_THAT(r.out, HasSubstr("report.html to " + (job / "report").string()));
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1);  // one summary line
  EXPECT_THAT(r.err, HasSubstr("warning: 4 records were dropped"));
  EXPECT_THAT(read_text(job / "report" / "report.html"), HasSubstr("\"dropped_total\":4"));
}

TEST(SvpProfApp, TheProfilerOutputFolderStandsForItsNewestJob) {
  TempDir tmp;
  JobWriter w;
  add_reference_scenario(w);
  const fs::path older = tmp.path() / "JOB20261121140000_4242_0";
  const fs::path newer = tmp.path() / "JOB20261121150000_4243_0";
  w.write(older);
  w.write(newer);
  fs::last_write_time(older / "info.json", fs::last_write_time(newer / "info.json") - std::chrono::hours(1));
  RunResult r = run_tool(tmp.path());
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.err, HasSubstr("reading JOB20261121150000_4243_0, the newest of 2 JOB directories"));
  EXPECT_TRUE(fs::exists(newer / "report" / "trace.json"));
  EXPECT_FALSE(fs::exists(older / "report"));
  // A folder with no JOB directory is still refused as before.
  fs::create_directories(tmp.path() / "empty");
  EXPECT_EQ(run_tool(tmp.path() / "empty").code, kExitBadInput);
}

TEST(SvpProfApp, WritesIntoTheGivenOutputDirectory) {
  TempDir tmp;
  JobWriter w;
  add_reference_scenario(w);
  w.write(tmp.path() / "job");
  RunResult r = run_tool(tmp.path() / "job", tmp.path() / "out" / "nested");
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(fs::exists(tmp.path() / "out" / "nested" / "trace.json"));
  EXPECT_FALSE(fs::exists(tmp.path() / "job" / "report"));
}

TEST(SvpProfApp, CutShortJobStillGetsAReportThatSaysSo) {
  TempDir tmp;
  JobWriter w;
  add_reference_scenario(w);
  w.write_end_info = false;
  w.write(tmp.path() / "job");
  RunResult r = run_tool(tmp.path() / "job");
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.err, HasSubstr("warning:"));
  EXPECT_THAT(r.err, HasSubstr("cut short"));
  EXPECT_THAT(r.out, HasSubstr("collection cut short"));
  EXPECT_THAT(r.out, HasSubstr("dropped unknown"));
  const std::string page = read_text(tmp.path() / "job" / "report" / "report.html");
  EXPECT_THAT(page, HasSubstr("\"cut_short\":true"));
  EXPECT_THAT(read_text(tmp.path() / "job" / "report" / "trace.json"), HasSubstr("\"complete\":\"cut short\""));
}

TEST(SvpProfApp, InvalidJobExitsNonZeroWithTheReason) {
  TempDir tmp;
  JobWriter w;
  add_reference_scenario(w);
  w.lines[DataFile::kAicpu][1] = "not json";
  w.write(tmp.path() / "job");
  RunResult r = run_tool(tmp.path() / "job");
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("svp_prof: error: "));
  EXPECT_THAT(r.err, HasSubstr("data/aicpu.jsonl:2: malformed JSON"));
  EXPECT_TRUE(r.out.empty());
  EXPECT_FALSE(fs::exists(tmp.path() / "job" / "report"));
}

TEST(SvpProfApp, NotAJobDirectoryExitsNonZero) {
  TempDir tmp;
  RunResult r = run_tool(tmp.path());
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("not a JOB directory (no info.json)"));
}

TEST(SvpProfApp, UnwritableOutputDirectoryExitsNonZero) {
  TempDir tmp;
  JobWriter w;
  add_reference_scenario(w);
  w.write(tmp.path() / "job");
  std::ofstream(tmp.path() / "a_file") << "x";
  RunResult r = run_tool(tmp.path() / "job", tmp.path() / "a_file" / "out");
  EXPECT_EQ(r.code, kExitCannotWrite);
  EXPECT_THAT(r.err, HasSubstr("cannot create the output directory"));
}

TEST(SvpProfApp, JobWithoutApiDataHasNoApiTable) {
  TempDir tmp;
  JobWriter w;
  add_reference_scenario(w);
  w.lines.erase(DataFile::kAclApi);
  w.info["data_types"] = json::array({"task_time", "aicpu_trace"});
  w.write(tmp.path() / "job");
  RunResult r = run_tool(tmp.path() / "job");
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_FALSE(fs::exists(tmp.path() / "job" / "report" / "api_statistics.csv"));
  EXPECT_THAT(r.out, Not(HasSubstr("api_statistics.csv")));
  EXPECT_THAT(r.err, Not(HasSubstr("acl_api")));
}

TEST(SvpProfApp, PrintsProgressForLargeFilesUnlessQuiet) {
  TempDir tmp;
  JobWriter w;
  add_many_tasks(w, 200, 4);
  w.write(tmp.path() / "job");
  // Files over 1 KB count as large here; real runs use 16 MB.
  RunResult r = run_tool(tmp.path() / "job", {}, 1024);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.err, ::testing::ContainsRegex("svp_prof: read [0-9]+ MB / [0-9]+ MB of data/task.jsonl"));
  RunResult quiet = run_tool(tmp.path() / "job", {}, 1024, true);
  ASSERT_EQ(quiet.code, kExitOk);
  EXPECT_THAT(quiet.err, Not(HasSubstr("svp_prof: read")));
}

}  // namespace
}  // namespace svp::prof
