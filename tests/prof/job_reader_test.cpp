// Reading and validating JOB directories: what is accepted, and that every refusal names
// the file and line.
#include "svp_prof/job_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "job_fixture.h"

namespace svp::prof {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::add_reference_scenario;
using test::ev;
using test::JobWriter;
using test::kT0;
using test::TempDir;
using ::testing::AllOf;
using ::testing::HasSubstr;

Status read(const JobWriter& w, const fs::path& dir, Job* job, const ReadOptions& options = {}) {
  w.write(dir);
  return read_job(dir, options, job);
}

bool has_warning(const Job& job, const std::string& text) {
  for (const std::string& w : job.warnings) {
    if (w.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(SvpProfJobReader, ReadsEveryFileOfAValidJob) {
  TempDir tmp;
  JobWriter w;
  add_reference_scenario(w);
  Job job;
  Status s = read(w, tmp.path(), &job);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(job.info.pid, 4242);
  EXPECT_EQ(job.info.start_ns, kT0);
  ASSERT_EQ(job.info.devices.size(), 1u);
  EXPECT_EQ(job.info.devices[0].cores, 2);
  EXPECT_EQ(job.info.library, "svp-acl 0.1.0");
  EXPECT_TRUE(job.end.present);
  EXPECT_FALSE(job.cut_short());
  EXPECT_EQ(job.task_events.size(), 24u);
  EXPECT_EQ(job.ops.size(), 10u);
  EXPECT_EQ(job.api.size(), 4u);
  EXPECT_EQ(job.file_lines[static_cast<int>(DataFile::kAicpu)], 2u);
  EXPECT_TRUE(job.warnings.empty()) << job.warnings.front();
}

TEST(SvpProfJobReader, ModelNamesLabelModelIdsAndOlderJobsWithoutThemStillRead) {
  TempDir tmp;
  JobWriter w;
  add_reference_scenario(w);
  w.info["models"] = {{"1", "resnet50.om"}, {"7", "yolo.om"}};
  Job job;
  ASSERT_TRUE(read(w, tmp.path() / "named", &job).ok());
  EXPECT_EQ(job.info.model_label(1), "1 (resnet50.om)");
  EXPECT_EQ(job.info.model_label(2), "2");
  w.info["models"] = {{"one", "resnet50.om"}};
  Job bad;
  const Status s = read(w, tmp.path() / "bad", &bad);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("\"models\" maps model ids to names"), std::string::npos) << s.message();
}

// The board clock (docs/profiling.md): a device's task records carry predicted board time
// since the device was set; the reader places them from start_ns on, host devices as before.
TEST(SvpProfJobReader, TaskTimesOfABoardClockDeviceCountFromTheSessionStart) {
  TempDir tmp;
  JobWriter w;
  w.info["devices"] = json::array({{{"id", 0}, {"cores", 1}, {"task_clock", "board SS928V100 (predicted)"}},
                                   {{"id", 1}, {"cores", 1}, {"task_clock", "host"}}});
  // Board records as the runtime writes them: board nanoseconds, not kT0-based.
  auto board_ev = [](const char* kind, std::int64_t board_ns, json extra) {
    json e = ev(kind, 1, 1, 0, std::move(extra));
    e["t"] = board_ns;
    return e;
  };
  w.add(DataFile::kTask, board_ev("submit", 0, {{"model", 1}, {"prio", 3}, {"segments", 1}}));
  w.add(DataFile::kTask, board_ev("start", 0, {{"core", 0}, {"prio", 3}}));
  w.add(DataFile::kTask, board_ev("end", 71777, {{"core", 0}, {"status", 0}}));
  w.add(DataFile::kTask, ev("submit", 2, 2, 500, {{"model", 1}, {"prio", 3}, {"segments", 1}}, 1));
  Job job;
  const Status s = read(w, tmp.path(), &job);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(job.info.devices.size(), 2u);
  EXPECT_TRUE(job.info.devices[0].board_clock());
  EXPECT_FALSE(job.info.devices[1].board_clock());
  std::vector<std::int64_t> board, host_t;
  for (const auto& e : job.task_events) (e.device == 0 ? board : host_t).push_back(e.t - kT0);
  EXPECT_THAT(board, ::testing::UnorderedElementsAre(0, 0, 71777));
  EXPECT_THAT(host_t, ::testing::ElementsAre(500));
}

TEST(SvpProfJobReader, RefusesADirectoryWithoutInfoJson) {
  TempDir tmp;
  Job job;
  Status s = read_job(tmp.path(), {}, &job);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), AllOf(HasSubstr(tmp.path().string()), HasSubstr("not a JOB directory")));
}

TEST(SvpProfJobReader, RefusesAMissingDirectory) {
  TempDir tmp;
  Job job;
  Status s = read_job(tmp.path() / "nope", {}, &job);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("no such directory"));
}

TEST(SvpProfJobReader, RefusesAnInfoJsonOfAnotherFormat) {
  TempDir tmp;
  JobWriter w;
  w.info["format"] = "something-else";
  Job job;
  Status s = read(w, tmp.path(), &job);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(),
              AllOf(HasSubstr("info.json"), HasSubstr("not a JOB directory"), HasSubstr("\"something-else\"")));
}

TEST(SvpProfJobReader, RefusesAnUnsupportedVersion) {
  TempDir tmp;
  JobWriter w;
  w.info["version"] = 2;
  Job job;
  Status s = read(w, tmp.path(), &job);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), AllOf(HasSubstr("info.json"), HasSubstr("unsupported format version 2")));
}

TEST(SvpProfJobReader, RefusesAnInfoJsonWithoutStartTime) {
  TempDir tmp;
  JobWriter w;
  w.info.erase("start_ns");
  Job job;
  Status s = read(w, tmp.path(), &job);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), AllOf(HasSubstr("info.json"), HasSubstr("missing field \"start_ns\"")));
}

TEST(SvpProfJobReader, ReportsMalformedJsonWithFileAndLine) {
  TempDir tmp;
  JobWriter w;
  add_reference_scenario(w);
  w.lines[DataFile::kTask][6] = R"({"ev":"start","device":0,"stream":2,)";
  Job job;
  Status s = read(w, tmp.path(), &job);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), AllOf(HasSubstr("data/task.jsonl:7:"), HasSubstr("malformed JSON")));
}

TEST(SvpProfJobReader, ReportsAMissingFieldWithFileLineAndName) {
  TempDir tmp;
  JobWriter w;
  add_reference_scenario(w);
  json bad = test::op({1, "x", "Conv", "npu", 1, 1, 0, 2, 0, 0, 0, 10});
  bad.erase("end_ns");
  w.add(DataFile::kAicore, bad);
  Job job;
  Status s = read(w, tmp.path(), &job);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), AllOf(HasSubstr("data/aicore.jsonl:9:"), HasSubstr("missing field \"end_ns\"")));
}

TEST(SvpProfJobReader, ReportsAFieldOfTheWrongType) {
  TempDir tmp;
  JobWriter w;
  w.add(DataFile::kTask, ev("start", 1, 1, 0, {{"core", "zero"}, {"prio", 1}}));
  Job job;
  Status s = read(w, tmp.path(), &job);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(),
              AllOf(HasSubstr("data/task.jsonl:1:"), HasSubstr("\"core\" must be an integer"), HasSubstr("\"start\"")));
}

TEST(SvpProfJobReader, RefusesAnOperatorThatEndsBeforeItStarts) {
  TempDir tmp;
  JobWriter w;
  w.add(DataFile::kAicore, test::op({1, "x", "Conv", "npu", 1, 1, 0, 2, 0, 0, 500, 100}));
  Job job;
  Status s = read(w, tmp.path(), &job);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), AllOf(HasSubstr("data/aicore.jsonl:1:"), HasSubstr("before")));
}

TEST(SvpProfJobReader, RefusesATruncatedLastLine) {
  TempDir tmp;
  JobWriter w;
  add_reference_scenario(w);
  w.partial_tail[DataFile::kAicore] = R"({"model":1,"name":"conv9","ty)";
  Job job;
  Status s = read(w, tmp.path(), &job);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), AllOf(HasSubstr("data/aicore.jsonl:9:"), HasSubstr("truncated")));
}

TEST(SvpProfJobReader, RefusesACompleteLastLineWithoutNewline) {
  // Even a parsable last line without '\n' means the writer stopped mid-write.
  TempDir tmp;
  JobWriter w;
  w.enable(DataFile::kAclApi);
  w.partial_tail[DataFile::kAclApi] = test::api("svp_acl_init", 1, 0, 10, 0).dump();
  w.records_override["acl_api"] = 1;
  Job job;
  Status s = read(w, tmp.path(), &job);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), AllOf(HasSubstr("data/acl_api.jsonl:1:"), HasSubstr("does not end in a newline")));
}

TEST(SvpProfJobReader, RefusesAFileWithFewerRecordsThanEndInfoCounts) {
  TempDir tmp;
  JobWriter w;
  add_reference_scenario(w);
  w.records_override["task"] = 30;
  Job job;
  Status s = read(w, tmp.path(), &job);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), AllOf(HasSubstr("data/task.jsonl"), HasSubstr("truncated"), HasSubstr("24 records"),
                                 HasSubstr("counts 30")));
}

TEST(SvpProfJobReader, RefusesAFileWithMoreRecordsThanEndInfoCounts) {
  TempDir tmp;
  JobWriter w;
  add_reference_scenario(w);
  w.records_override["aicpu"] = 1;
  Job job;
  Status s = read(w, tmp.path(), &job);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), AllOf(HasSubstr("data/aicpu.jsonl"), HasSubstr("more than the 1")));
}

TEST(SvpProfJobReader, RefusesAMissingFileThatEndInfoCounts) {
  TempDir tmp;
  JobWriter w;
  add_reference_scenario(w);
  w.write(tmp.path());
  fs::remove(tmp.path() / "data/aicpu.jsonl");
  Job job;
  Status s = read_job(tmp.path(), {}, &job);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), AllOf(HasSubstr("data/aicpu.jsonl"), HasSubstr("missing")));
}

TEST(SvpProfJobReader, MissingEndInfoMeansCutShortWithAWarning) {
  TempDir tmp;
  JobWriter w;
  add_reference_scenario(w);
  w.write_end_info = false;
  Job job;
  Status s = read(w, tmp.path(), &job);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(job.cut_short());
  EXPECT_TRUE(has_warning(job, "cut short"));
  EXPECT_EQ(job.ops.size(), 10u);
}

TEST(SvpProfJobReader, CutShortJobDropsAPartialLastLineWithAWarning) {
  // Killed mid-write: the half line is expected, the lines before it are good data.
  TempDir tmp;
  JobWriter w;
  add_reference_scenario(w);
  w.write_end_info = false;
  w.partial_tail[DataFile::kTask] = R"({"ev":"end","dev)";
  Job job;
  Status s = read(w, tmp.path(), &job);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(job.task_events.size(), 24u);
  EXPECT_TRUE(has_warning(job, "data/task.jsonl:25: the last line is incomplete"));
}

TEST(SvpProfJobReader, IgnoresUnknownFieldsAndWarnsOnceAboutUnknownEvents) {
  TempDir tmp;
  JobWriter w;
  json e = ev("submit", 1, 1, 0, {{"prio", 1}, {"segments", 1}, {"future_field", {{"x", 1}}}});
  w.add(DataFile::kTask, e);
  w.add(DataFile::kTask, ev("throttle", 1, 1, 5, {{"level", 3}}));
  w.add(DataFile::kTask, ev("throttle", 1, 1, 6, {{"level", 4}}));
  w.info["new_header_field"] = "ignored";
  Job job;
  Status s = read(w, tmp.path(), &job);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(job.task_events.size(), 1u);
  EXPECT_TRUE(has_warning(job, "ignored 2 event(s) of unknown kind (first: line 2, \"ev\": \"throttle\")"));
}

TEST(SvpProfJobReader, AcceptsEmptyFilesAndWarnsAboutMissingEnabledOnes) {
  TempDir tmp;
  JobWriter w;
  w.enable(DataFile::kTask);
  w.enable(DataFile::kAicore);
  // acl_api and aicpu_trace are enabled in info.json but have no files.
  Job job;
  Status s = read(w, tmp.path(), &job);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(job.task_events.empty());
  EXPECT_TRUE(has_warning(job, "\"acl_api\" is enabled in info.json but data/acl_api.jsonl is missing"));
  EXPECT_TRUE(has_warning(job, "\"aicpu_trace\" is enabled"));
}

TEST(SvpProfJobReader, WarnsAboutDroppedRecords) {
  TempDir tmp;
  JobWriter w;
  add_reference_scenario(w);
  w.dropped["aicore"] = 12;
  w.dropped["task"] = 3;
  Job job;
  Status s = read(w, tmp.path(), &job);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(job.dropped_total(), 15);
  EXPECT_EQ(job.dropped(DataFile::kAicore), 12);
  EXPECT_TRUE(has_warning(job, "15 records were dropped by the collector (buffer full): task 3, aicore 12"));
}

TEST(SvpProfJobReader, ReportsProgressForEachDataFile) {
  TempDir tmp;
  JobWriter w;
  add_reference_scenario(w);
  std::vector<std::string> files;
  ReadOptions options;
  options.on_progress = [&](const std::string& file, std::uint64_t done, std::uint64_t total) {
    EXPECT_LE(done, total);
    if (done == total) files.push_back(file);
  };
  Job job;
  Status s = read(w, tmp.path(), &job, options);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(files, (std::vector<std::string>{"data/acl_api.jsonl", "data/task.jsonl", "data/aicore.jsonl",
                                             "data/aicpu.jsonl"}));
}

// Mangled lines of every kind: each read either succeeds or fails with a message naming
// the file; none crashes (run under ASan/UBSan in CI).
TEST(SvpProfJobReader, SurvivesRandomlyMangledLines) {
  JobWriter base;
  add_reference_scenario(base);
  std::mt19937 rng(12345);
  const std::string junk = "{}[]\":,0123456789-+.eEtrufalsn \\u00\xff\x01";
  int refused = 0;
  for (int round = 0; round < 300; ++round) {
    TempDir tmp;
    JobWriter w = base;
    const DataFile f = kDataFiles[rng() % kDataFiles.size()];
    std::vector<std::string>& lines = w.lines[f];
    std::string& line = lines[rng() % lines.size()];
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !line.empty(); ++e) {
      const std::size_t at = rng() % line.size();
      switch (rng() % 3) {
        case 0:
          line[at] = junk[rng() % junk.size()];
          break;
        case 1:
          line.erase(at, 1 + rng() % 8);
          break;
        default:
          line.insert(at, 1, junk[rng() % junk.size()]);
          break;
      }
    }
    Job job;
    Status s = read(w, tmp.path(), &job);
    if (!s.ok()) {
      ++refused;
      EXPECT_THAT(s.message(), HasSubstr(data_file_path(f))) << "round " << round;
    }
  }
  EXPECT_GT(refused, 100);  // the mangling really breaks lines
}

}  // namespace
}  // namespace svp::prof
