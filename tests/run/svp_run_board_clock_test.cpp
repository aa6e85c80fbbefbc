// svp_run --clock=board: latency, P50/P99 per stream and fps in predicted board time, checked
// against the timing model's own prediction for the model (compiler::predict_board_time).
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "compiler/board_time.h"
#include "compiler/builder.h"
#include "svp_run/runner.h"
#include "target/device_profile.h"

namespace {

namespace fs = std::filesystem;
using svp::compiler::BuiltModel;
using svp::compiler::DType;
using svp::compiler::LayerOptions;
using svp::compiler::ModelBuilder;
using svp::compiler::TensorId;
using svp::run::RunOptions;

class SvpRunBoardClock : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    dir_ = fs::temp_directory_path() / ("svp_run_board_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // Two 3x3 convolutions, a segment each.
    ModelBuilder b("convs");
    TensorId t = b.add_input("x", DType::kFloat32, {1, 8, 16, 16});
    LayerOptions conv;
    conv.attrs.set("kernel_shape", std::vector<std::int64_t>{3, 3});
    conv.attrs.set("pads", std::vector<std::int64_t>{1, 1, 1, 1});
    for (int i = 0; i < 2; ++i) {
      const TensorId w = b.add_constant("w" + std::to_string(i), {8, 8, 3, 3}, std::vector<float>(8 * 8 * 9, 0.01f));
      t = b.add_layer("conv" + std::to_string(i), "Conv", {t, w}, conv);
    }
    b.add_output(t, "y");
    b.segment_every(1);
    auto m = b.build();
    ASSERT_TRUE(m.ok()) << m.status().message();
    model_ = std::move(m.value());
    model_path_ = (dir_ / "convs.om").string();
    std::ofstream f(model_path_, std::ios::binary);
    f.write(reinterpret_cast<const char*>(model_.image.data()), static_cast<std::streamsize>(model_.image.size()));
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The model's predicted time on `soc` in ms, rounded per segment as the board clock counts.
  double predicted_ms(const char* soc) const {
    const auto t = svp::compiler::predict_board_time(model_.program, *svp::target::find_profile(soc));
    double ns = std::llround(t.task_us * 1000.0);
    for (double us : t.segment_us) ns += static_cast<double>(std::llround(us * 1000.0));
    return ns / 1e6;
  }
  RunOptions options() const {
    RunOptions o;
    o.model = model_path_;
    o.output = (dir_ / "out").string();
    o.output_dirname = "r";
    o.clock = "board";
    o.progress = false;
    return o;
  }
  nlohmann::json summary() const {
    std::ifstream f(dir_ / "out" / "r" / "summary.json");
    return nlohmann::json::parse(f);
  }

  fs::path dir_;
  BuiltModel model_;
  std::string model_path_;
};

TEST_F(SvpRunBoardClock, OneStreamReportsThePredictedLatencyAndFpsOfTheTarget) {
  for (const char* soc : {"Hi3516CV610", "SS928V100"}) {
    RunOptions o = options();
    o.soc_version = soc;
    o.loop = 6;
    std::ostringstream out, err;
    ASSERT_EQ(svp::run::run(o, out, err), svp::run::kExitOk) << err.str();
    const double ms = predicted_ms(soc);
    EXPECT_NE(out.str().find(std::string("predicted board time (") + soc), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("predicted fps"), std::string::npos) << out.str();
    const nlohmann::json p = summary()["predicted_board_time"];
    EXPECT_EQ(p["soc"], soc);
    // float milliseconds from svp_acl_rt_event_elapsed_time: a few ns of rounding.
    EXPECT_NEAR(p["latency"]["median"].get<double>(), ms, 1e-5) << soc;
    EXPECT_NEAR(p["latency"]["percentile(99%)"].get<double>(), ms, 1e-5) << soc;
    EXPECT_EQ(p["latency"]["count"].get<int>(), 6);
    // Back to back on one stream: one execution per predicted latency.
    EXPECT_NEAR(p["throughput"].get<double>(), 1000.0 / ms, 1000.0 / ms * 1e-4) << soc;
    fs::remove_all(dir_ / "out");
  }
  // The targets differ (Hi3516CV610 is the smaller NPU): the figures are the target's.
  EXPECT_GT(predicted_ms("Hi3516CV610"), predicted_ms("SS928V100"));
}

TEST_F(SvpRunBoardClock, TwoStreamsShareTheCoreGivingEachItsOwnPercentiles) {
  RunOptions o = options();
  o.soc_version = "SS928V100";
  o.streams = 2;
  o.loop = 8;
  std::ostringstream out, err;
  ASSERT_EQ(svp::run::run(o, out, err), svp::run::kExitOk) << err.str();
  const double ms = predicted_ms("SS928V100");
  EXPECT_NE(out.str().find("stream 1"), std::string::npos) << out.str();
  const nlohmann::json p = summary()["predicted_board_time"];
  ASSERT_EQ(p["streams"].size(), 2u);
  // Each round submits on stream 0, then stream 1: stream 0 arrives first (or together with
  // stream 1, and the smaller queue id wins the tie) and runs alone. Stream 1 waits for
  // all or part of it: the board time it arrives at is the one the device had reached when
  // the host submitted it (docs/scheduling.md, "Determinism condition"), so between one
  // and two predicted latencies.
  EXPECT_NEAR(p["streams"][0]["median"].get<double>(), ms, 1e-5);
  EXPECT_GE(p["streams"][1]["median"].get<double>(), ms - 1e-5);
  EXPECT_LE(p["streams"][1]["percentile(99%)"].get<double>(), 2 * ms + 1e-5);
  // The core never idles within a round: one execution per predicted latency.
  EXPECT_NEAR(p["throughput"].get<double>(), 1000.0 / ms, 1000.0 / ms * 1e-4);
}

TEST_F(SvpRunBoardClock, AnUnknownClockOrASocWithoutTheBoardClockIsAUsageError) {
  RunOptions o = options();
  o.clock = "wall";
  std::ostringstream out, err;
  EXPECT_EQ(svp::run::run(o, out, err), svp::run::kExitUsage);
  EXPECT_NE(err.str().find("--clock must be host or board"), std::string::npos) << err.str();
  RunOptions h = options();
  h.clock = "host";
  h.soc_version = "SS928V100";
  std::ostringstream out2, err2;
  EXPECT_EQ(svp::run::run(h, out2, err2), svp::run::kExitUsage);
  EXPECT_NE(err2.str().find("--clock=board"), std::string::npos) << err2.str();
}

TEST_F(SvpRunBoardClock, AnUnknownSocIsRefusedByTheRuntime) {
  RunOptions o = options();
  o.soc_version = "NoSuchSoc";
  std::ostringstream out, err;
  EXPECT_EQ(svp::run::run(o, out, err), svp::run::kExitRuntime);
  EXPECT_NE(err.str().find("NoSuchSoc"), std::string::npos) << err.str();
}

}  // namespace
