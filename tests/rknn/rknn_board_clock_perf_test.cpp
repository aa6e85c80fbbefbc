// RKNN_QUERY_PERF_RUN / _PERF_DETAIL on the board clock (SVP_ACL_RKNN_CONFIG with
// softnpu.clock "board"; docs/rknn.md "Performance queries"): the last run's predicted board
// time on the model's platform, whatever the host does. The expectations come from the board
// timing model's own entry (compiler::predict_board_time on the model's program), not from
// what the runtime stored. Each test stops the runtime first, so that its rknn_init starts
// it again with the test's configuration.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "compiler/board_time.h"
#include "compiler/compile.h"
#include "cpu_hog.h"
#include "model/format.h"
#include "rknn/rknn_api.h"
#include "rknn_lenet.h"
#include "rknn_test_support.h"
#include "runtime/rknn_context.h"
#include "runtime/rknn_mem.h"
#include "runtime/runtime.h"
#include "target/device_profile.h"

namespace svp {
namespace {

namespace fs = std::filesystem;
using runtime::rknn::last_error;
using test::contains;

constexpr const char* kSoc = "RK3588";  // LeNet's Flatten runs on the CPU there: NPU/CPU switches
using test::CpuHog;

std::vector<std::uint8_t> lenet_for(const char* soc) { return test::compile_lenet(soc); }

std::int64_t ns_of(double us) { return std::llround(us * 1000.0); }
std::int64_t us_of(std::int64_t ns) { return (ns + 500) / 1000; }

// The timing model's prediction for the image's program on `soc`.
target::ProgramTime predicted(const std::vector<std::uint8_t>& image, const char* soc) {
  auto m = model::read_model(image.data(), image.size());
  EXPECT_TRUE(m.ok());
  return compiler::predict_board_time(m->program, *target::find_profile(soc));
}

// One run's board time on `cores` cores: each segment's time (the task cost in the first)
// divided by the cores, in whole nanoseconds, as the board clock advances.
std::int64_t run_ns(const target::ProgramTime& t, std::int64_t cores) {
  std::int64_t total = 0;
  for (std::size_t k = 0; k < t.segment_us.size(); ++k) {
    total += (ns_of(t.segment_us[k]) + (k == 0 ? ns_of(t.task_us) : 0)) / cores;
  }
  return total;
}

class RknnBoardClockPerf : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("svp_rknn_board_perf_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    ASSERT_EQ(runtime::rknn::live_contexts(), 0u);
    (void)runtime::Runtime::finalize();  // started by an earlier test, or not at all
    image_ = lenet_for(kSoc);
    ASSERT_FALSE(image_.empty());
  }
  void TearDown() override {
    if (ctx_ != 0) {
      EXPECT_EQ(rknn_destroy(ctx_), RKNN_SUCC) << last_error();
    }
    ::unsetenv("SVP_ACL_RKNN_CONFIG");
    (void)runtime::Runtime::finalize();  // the next test's rknn_init starts it afresh
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // librknnrt's configuration for this process (before the first rknn_init).
  void configure(const std::string& json) {
    const std::string path = (dir_ / "acl.json").string();
    std::ofstream(path) << json;
    ASSERT_EQ(::setenv("SVP_ACL_RKNN_CONFIG", path.c_str(), 1), 0);
  }

  void init() {
    ASSERT_EQ(
        rknn_init(&ctx_, image_.data(), static_cast<uint32_t>(image_.size()), RKNN_FLAG_COLLECT_PERF_MASK, nullptr),
        RKNN_SUCC)
        << last_error();
  }

  void run_once() { ASSERT_EQ(test::run_lenet(ctx_), RKNN_SUCC) << last_error(); }

  std::int64_t perf_run() {
    rknn_perf_run r{};
    EXPECT_EQ(rknn_query(ctx_, RKNN_QUERY_PERF_RUN, &r, sizeof r), RKNN_SUCC) << last_error();
    return r.run_duration;
  }

  std::string perf_detail() {
    rknn_perf_detail d{};
    EXPECT_EQ(rknn_query(ctx_, RKNN_QUERY_PERF_DETAIL, &d, sizeof d), RKNN_SUCC) << last_error();
    return d.perf_data != nullptr ? std::string(d.perf_data, d.data_len) : std::string();
  }

  fs::path dir_;
  std::vector<std::uint8_t> image_;
  rknn_context ctx_ = 0;
};

// The Time(us) column of the table's layer rows, in order.
std::vector<std::int64_t> row_times(const std::string& table) {
  std::vector<std::int64_t> out;
  std::istringstream lines(table);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream f(line);
    std::vector<std::string> tok;
    for (std::string t; f >> t;) tok.push_back(t);
    if (tok.size() < 8 || tok[0].find_first_not_of("0123456789") != std::string::npos) continue;
    out.push_back(std::stoll(tok[6]));
  }
  return out;
}

// The number after `label` in the table ("...(us): 123").
std::int64_t footer(const std::string& table, const std::string& label) {
  const std::size_t at = table.find(label);
  if (at == std::string::npos) {
    ADD_FAILURE() << "no \"" << label << "\" in\n" << table;
    return -1;
  }
  return std::stoll(table.substr(at + label.size()));
}

TEST_F(RknnBoardClockPerf, PerfRunIsTheProgramsPredictedBoardTimeOnTheModelsPlatformEveryRunAndUnderACpuHog) {
  configure(R"({"softnpu": {"clock": "board"}})");  // no soc_version: the model's platform
  init();
  const std::int64_t expected = us_of(run_ns(predicted(image_, kSoc), 1));
  ASSERT_GT(expected, 0);
  for (int rep = 0; rep < 3; ++rep) {
    run_once();
    EXPECT_EQ(perf_run(), expected) << "run " << rep;
  }
  {
    CpuHog hog;
    run_once();
    EXPECT_EQ(perf_run(), expected) << "with the host slowed down";
  }
}

TEST_F(RknnBoardClockPerf, ARunThatWaitedForItsInputFenceReportsTheSamePerfRun) {
  configure(R"({"softnpu": {"clock": "board"}})");
  ASSERT_EQ(rknn_init(&ctx_, image_.data(), static_cast<uint32_t>(image_.size()),
                      RKNN_FLAG_COLLECT_PERF_MASK | RKNN_FLAG_FENCE_IN_OUTSIDE, nullptr),
            RKNN_SUCC)
      << last_error();
  const std::int64_t expected = us_of(run_ns(predicted(image_, kSoc), 1));
  run_once();
  ASSERT_EQ(perf_run(), expected);
  const int fence = ::eventfd(0, EFD_CLOEXEC);
  ASSERT_GE(fence, 0);
  rknn_run_extend ext{};
  ext.fence_fd = fence;
  ext.non_block = 1;
  ASSERT_EQ(rknn_run(ctx_, &ext), RKNN_SUCC) << last_error();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const std::uint64_t one = 1;
  ASSERT_EQ(::write(fence, &one, sizeof one), static_cast<ssize_t>(sizeof one));
  rknn_run_extend done{};
  ASSERT_EQ(rknn_wait(ctx_, &done), RKNN_SUCC) << last_error();
  EXPECT_EQ(done.frame_id, 2u);
  EXPECT_EQ(perf_run(), expected) << "the time waiting for the fence is not the run's";
  EXPECT_EQ(::close(fence), 0);
}

TEST_F(RknnBoardClockPerf, PerfDetailRowsAreEachLayersPredictedTimeAndAddUpToPerfRunUnderAPredictedHeader) {
  configure(R"({"softnpu": {"clock": "board"}})");
  init();
  run_once();
  const target::ProgramTime t = predicted(image_, kSoc);
  const std::string table = perf_detail();
  EXPECT_TRUE(contains(table, "predicted board time on RK3588 (board clock)")) << table;
  const std::vector<std::int64_t> rows = row_times(table);
  ASSERT_EQ(rows.size(), t.layers.size()) << table;
  std::int64_t sum = 0;
  for (std::size_t l = 0; l < rows.size(); ++l) {
    EXPECT_EQ(rows[l], us_of(ns_of(t.layers[l].us))) << "layer " << l + 1;
    sum += rows[l];
  }
  const std::int64_t run = perf_run();
  const std::int64_t other = footer(table, "Task and NPU/CPU Switch Time(us): ");
  EXPECT_GT(other, 0) << "the task cost and LeNet's NPU/CPU switches";
  EXPECT_EQ(footer(table, "Total Predicted Run Time(us): "), run);
  // Each row and the overhead line are rounded on their own: half a microsecond each.
  EXPECT_LE(std::llabs(sum + other - run), static_cast<std::int64_t>(rows.size() + 1) / 2 + 1)
      << "rows " << sum << " + other " << other << " vs PERF_RUN " << run;
}

TEST_F(RknnBoardClockPerf, ASplitRunOnThreeCoresTakesAThirdOfEachSegmentsBoardTime) {
  configure(R"({"softnpu": {"clock": "board", "cores": 3}})");
  init();
  ASSERT_EQ(rknn_set_core_mask(ctx_, RKNN_NPU_CORE_0_1_2), RKNN_SUCC) << last_error();
  run_once();
  const target::ProgramTime t = predicted(image_, kSoc);
  EXPECT_EQ(perf_run(), us_of(run_ns(t, 3)));
  EXPECT_LT(perf_run(), us_of(run_ns(t, 1)));
}

TEST_F(RknnBoardClockPerf, ASocVersionInTheConfigurationIsTheBoardPredicted) {
  configure(R"({"softnpu": {"clock": "board", "soc_version": "RK3566"}})");
  init();
  run_once();
  EXPECT_EQ(perf_run(), us_of(run_ns(predicted(image_, "RK3566"), 1)));
  EXPECT_TRUE(contains(perf_detail(), "predicted board time on RK3566 (board clock)"));
}

TEST_F(RknnBoardClockPerf, OnTheHostClockTheTableSaysHostTimeAndHasNoPredictedLines) {
  init();  // no SVP_ACL_RKNN_CONFIG: the host clock
  run_once();
  const std::string table = perf_detail();
  EXPECT_TRUE(contains(table, "(svp-acl software NPU, host time)")) << table;
  EXPECT_FALSE(contains(table, "predicted")) << table;
  EXPECT_FALSE(contains(table, "Total Predicted Run Time")) << table;
  const std::vector<std::int64_t> rows = row_times(table);
  std::int64_t sum = 0;
  for (std::int64_t r : rows) sum += r;
  // Host time: the layers' measured times (rounded each), not a prediction.
  EXPECT_LE(std::llabs(sum - perf_run()), static_cast<std::int64_t>(rows.size() + 1) / 2 + 1);
}

}  // namespace
}  // namespace svp
