// The board timing model (src/target/board_time.h, board_work.h), its fit
// (tools/board_time_fit) and what svp_atc writes from it (docs/board_time.md).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "board_time_fit/fit.h"
#include "compiler/board_time.h"
#include "compiler/builder.h"
#include "compiler/om_json.h"
#include "compiler/perf_csv.h"
#include "netzoo/networks.h"
#include "target/board_time.h"
#include "target/board_work.h"
#include "target/device_profile.h"

namespace svp {
namespace {

using target::Bound;
using target::LayerWork;
using target::Precision;
using target::Unit;
using target::WorkClass;

const std::string kFitDir = std::string(SVP_SOURCE_DIR) + "/tools/board_time_fit/";

LayerWork conv(std::uint64_t macs) {
  LayerWork w;
  w.work = WorkClass::kConv;
  w.macs = macs;
  w.in_elements = 56 * 56 * 64;
  w.out_elements = 56 * 56 * 64;
  w.weight_elements = 64 * 64 * 9;
  return w;
}

TEST(BoardTime, MoreMacsNeverGiveLessTime) {
  for (const target::DeviceProfile& d : target::all_profiles()) {
    const target::Factors& f = target::fitted_factors(d);
    for (WorkClass c : {WorkClass::kConv, WorkClass::kDepthwise, WorkClass::kMatMul}) {
      double previous = 0;
      for (std::uint64_t m = 1000; m < 100'000'000'000ull; m *= 3) {
        LayerWork w = conv(m);
        w.work = c;
        const double us = target::predict_layer(d, f, w).us;
        EXPECT_GE(us, previous) << d.name << " " << target::to_string(c) << " " << m;
        previous = us;
      }
    }
  }
}

TEST(BoardTime, AMemoryBoundLayerScalesWithTheDdrBandwidth) {
  target::DeviceProfile d = *target::find_profile("RK3588");
  const target::Factors& f = target::fitted_factors(d);
  LayerWork w;
  w.work = WorkClass::kMove;
  w.elements = 1000;
  w.in_elements = 64'000'000;
  w.out_elements = 64'000'000;
  const target::LayerTime slow = target::predict_layer(d, f, w);
  d.ddr_gbps *= 2;
  const target::LayerTime fast = target::predict_layer(d, f, w);
  EXPECT_EQ(slow.bound, Bound::kDdr);
  EXPECT_EQ(fast.bound, Bound::kDdr);
  EXPECT_NEAR(slow.memory_us / fast.memory_us, 2.0, 1e-9);
  EXPECT_NEAR(slow.us - slow.overhead_us, 2 * (fast.us - fast.overhead_us), 1e-6);
  // 128 M int8 elements over DDR at the fitted efficiency.
  EXPECT_NEAR(slow.memory_us, 128e6 / (d.ddr_gbps / 2 * 1e9 * f[target::kEffDdr]) * 1e6, 1e-6);
}

TEST(BoardTime, CpuLayersRunAtTheTargetCpuRateWithoutTheNpuOverhead) {
  target::DeviceProfile d = *target::find_profile("SS928V100");
  const target::Factors& f = target::fitted_factors(d);
  LayerWork w = conv(2'000'000'000);
  w.unit = Unit::kCpu;
  const target::LayerTime t = target::predict_layer(d, f, w);
  EXPECT_NEAR(t.compute_us, 2e9 / (d.cpu_gmacs * 1e9 * f[target::kCpuEff]) * 1e6, 1e-6);
  EXPECT_EQ(t.overhead_us, 0.0);
  EXPECT_EQ(t.bound, Bound::kCompute);
  d.cpu_gmacs *= 2;
  EXPECT_NEAR(target::predict_layer(d, f, w).compute_us, t.compute_us / 2, 1e-6);
  // The same work on the NPU is far faster.
  w.unit = Unit::kNpu;
  EXPECT_LT(target::predict_layer(d, f, w).us, t.us / 10);
}

TEST(BoardTime, WiderPrecisionIsNeverFaster) {
  for (const target::DeviceProfile& d : target::all_profiles()) {
    const target::Factors& f = target::fitted_factors(d);
    LayerWork w = conv(5'000'000'000);
    w.precision = Precision::kA8W8;
    const double a8 = target::predict_layer(d, f, w).us;
    w.precision = Precision::kA16W8;
    const double a16 = target::predict_layer(d, f, w).us;
    w.precision = Precision::kFp16;
    const double fp16 = target::predict_layer(d, f, w).us;
    EXPECT_LE(a8, a16) << d.name;
    EXPECT_LE(a16, fp16) << d.name;
    EXPECT_LT(a8, fp16) << d.name;
  }
}

TEST(BoardTime, FoldedAndFreeLayersTakeNoTime) {
  const target::DeviceProfile& d = *target::find_profile("SS928V100");
  LayerWork w = conv(1'000'000);
  w.fused = true;
  EXPECT_EQ(target::predict_layer(d, target::fitted_factors(d), w).us, 0.0);
  w = conv(1'000'000);
  w.work = WorkClass::kFree;
  EXPECT_EQ(target::predict_layer(d, target::fitted_factors(d), w).us, 0.0);
}

TEST(BoardTime, SegmentsAddUpToTheTotalWithTheTaskAndSwitchCosts) {
  const target::DeviceProfile& d = *target::find_profile("SS928V100");
  const target::Factors& f = target::fitted_factors(d);
  std::vector<LayerWork> work = {conv(1'000'000), conv(2'000'000), conv(3'000'000)};
  work[2].unit = Unit::kCpu;
  const target::ProgramTime t = target::predict_program(d, f, work, {2, 3});
  ASSERT_EQ(t.segment_us.size(), 2u);
  EXPECT_NEAR(t.segment_us[0], t.layers[0].us + t.layers[1].us, 1e-9);
  EXPECT_NEAR(t.segment_us[1], t.layers[2].us + f[target::kSwitchUs], 1e-9);
  EXPECT_NEAR(t.total_us, t.segment_us[0] + t.segment_us[1] + f[target::kTaskUs], 1e-9);
}

TEST(BoardTime, FeatureMapsThatFitTheOnChipBufferCostNoDdrTraffic) {
  target::DeviceProfile d = *target::find_profile("SS928V100");
  const target::Factors& f = target::fitted_factors(d);
  LayerWork w = conv(1000);
  w.in_elements = 0;
  w.out_elements = 0;
  w.weight_elements = 0;
  w.in_chained = 1'000'000;
  w.out_chained = 1'000'000;
  d.sram_bytes = 4u << 20;
  EXPECT_EQ(target::predict_layer(d, f, w).ddr_bytes, 0.0);
  d.sram_bytes = 0;
  EXPECT_EQ(target::predict_layer(d, f, w).ddr_bytes, 2e6);
}

// conv -> relu -> add(relu, x) -> sigmoid: the relu and the add fold into the convolution;
// the sigmoid after the add too (an activation of a folded chain).
TEST(BoardWork, ActivationsAndResidualAddsFoldIntoTheConvolutionBeforeThem) {
  compiler::ModelBuilder b("fold");
  const compiler::TensorId x = b.add_input("x", model::DType::kFloat32, {1, 4, 8, 8});
  const compiler::TensorId w = b.add_constant("w", {4, 4, 3, 3}, std::vector<float>(144, 0.1f));
  compiler::LayerOptions o;
  o.attrs.set("pads", std::vector<std::int64_t>{1, 1, 1, 1});
  const compiler::TensorId c = b.add_layer("conv", "Conv", {x, w}, o);
  const compiler::TensorId r = b.add_layer("relu", "Relu", {c});
  const compiler::TensorId a = b.add_layer("add", "Add", {r, x});
  b.add_output(b.add_layer("sig", "Sigmoid", {a}));
  Result<compiler::BuiltModel> m = b.build();
  ASSERT_TRUE(m.ok()) << m.status().message();
  const std::vector<LayerWork> work = target::program_work(m->program, {2304, 0, 0, 0});
  ASSERT_EQ(work.size(), 4u);
  EXPECT_FALSE(work[0].fused);
  EXPECT_TRUE(work[1].fused);
  EXPECT_TRUE(work[2].fused);
  EXPECT_TRUE(work[3].fused);
  // The convolution's pass reads x twice (its input and the add's other operand) and
  // writes the model output; no intermediate remains.
  EXPECT_EQ(work[0].in_elements, 2u * 256);
  EXPECT_EQ(work[0].out_elements, 256u);
  EXPECT_EQ(work[0].out_chained, 0u);
  EXPECT_EQ(work[0].precision, Precision::kFp16);
}

// A squeeze-and-excitation gate: x -> GlobalAveragePool -> 1x1 Conv -> Sigmoid -> Mul(x, gate).
// The Mul multiplies a [N, C, 1, 1] gate into [N, C, H, W]: a channel broadcast, its own pass
// (not folded into the small convolution whose output it reads: its output is larger) and its
// own work class; the same gate through an Expand (torch's expand_as) is one too.
TEST(BoardWork, AChannelBroadcastGateIsItsOwnPassOfTheBroadcastClass) {
  for (bool expand : {false, true}) {
    compiler::ModelBuilder b("se");
    const compiler::TensorId x = b.add_input("x", model::DType::kFloat32, {1, 4, 8, 8});
    const compiler::TensorId g = b.add_layer("gap", "GlobalAveragePool", {x});
    const compiler::TensorId w = b.add_constant("w", {4, 4, 1, 1}, std::vector<float>(16, 0.1f));
    compiler::TensorId s = b.add_layer("sig", "Sigmoid", {b.add_layer("fc", "Conv", {g, w})});
    if (expand) {
      s = b.add_layer("expand", "Expand", {s, b.add_constant("shape", {4}, std::vector<std::int64_t>{1, 4, 8, 8})});
    }
    b.add_output(b.add_layer("scale", "Mul", {x, s}));
    Result<compiler::BuiltModel> m = b.build();
    ASSERT_TRUE(m.ok()) << m.status().message();
    const std::vector<LayerWork> work =
        target::program_work(m->program, std::vector<std::uint64_t>(m->program.layers.size(), 0));
    ASSERT_EQ(work.size(), expand ? 5u : 4u);
    EXPECT_TRUE(work[2].fused);  // the sigmoid in the 1x1 convolution's pass
    EXPECT_FALSE(work.back().fused) << expand;
    EXPECT_EQ(work.back().work, WorkClass::kBroadcast) << expand;
  }
}

TEST(BoardTimeFit, CommittedFactorsPredictEveryCalibrationPointWithin15Percent) {
  Result<std::vector<board_fit::CalibrationPoint>> cal = board_fit::read_calibration(kFitDir + "calibration.csv");
  ASSERT_TRUE(cal.ok()) << cal.status().message();
  Result<std::vector<board_fit::PointWork>> pts = board_fit::read_features(*cal, kFitDir + "features.csv");
  ASSERT_TRUE(pts.ok()) << pts.status().message();
  ASSERT_EQ(pts->size(), 14u);
  for (const board_fit::PointWork& p : *pts) {
    const double ratio = board_fit::predict_ms(p, target::fitted_factors(*p.device)) / p.point.published_ms;
    EXPECT_GT(ratio, 0.85) << p.point.id;
    EXPECT_LT(ratio, 1.15) << p.point.id;
  }
}

TEST(BoardTimeFit, TheFitOfTheCommittedFeaturesGivesTheCommittedFactors) {
  Result<std::vector<board_fit::CalibrationPoint>> cal = board_fit::read_calibration(kFitDir + "calibration.csv");
  ASSERT_TRUE(cal.ok()) << cal.status().message();
  Result<std::vector<board_fit::PointWork>> pts = board_fit::read_features(*cal, kFitDir + "features.csv");
  ASSERT_TRUE(pts.ok()) << pts.status().message();
  const std::vector<board_fit::FittedSet> sets = board_fit::fit_all(*pts);
  ASSERT_EQ(sets.size(), 3u);
  for (const board_fit::FittedSet& s : sets) {
    const board_fit::PointWork* any = nullptr;
    for (const board_fit::PointWork& p : *pts) {
      if (s.name == p.device->board.factor_set) any = &p;
    }
    ASSERT_NE(any, nullptr) << s.name;
    const target::Factors& committed = target::fitted_factors(*any->device);
    for (std::size_t i = 0; i < target::kFactorCount; ++i) {
      // The committed file keeps 6 significant digits.
      EXPECT_NEAR(s.factors[i], committed[i], 1e-5 * committed[i]) << s.name << " " << target::factor_name(i);
    }
  }
}

// The committed features are what the builders give today (the two small networks; the tool
// rebuilds all of them).
TEST(BoardTimeFit, CommittedFeaturesAreTheNetworksAsBuilt) {
  Result<std::vector<board_fit::CalibrationPoint>> cal = board_fit::read_calibration(kFitDir + "calibration.csv");
  ASSERT_TRUE(cal.ok()) << cal.status().message();
  Result<std::vector<board_fit::PointWork>> pts = board_fit::read_features(*cal, kFitDir + "features.csv");
  ASSERT_TRUE(pts.ok()) << pts.status().message();
  for (const board_fit::PointWork& p : *pts) {
    if (p.point.id != "ss928_resnet18" && p.point.id != "rk3588_mobilenetv2") continue;
    netzoo::NetOptions o;
    Result<compiler::BuiltModel> m =
        p.point.network == "resnet18" ? netzoo::build_resnet18(o) : netzoo::build_mobilenet_v2(o);
    ASSERT_TRUE(m.ok()) << m.status().message();
    Result<board_fit::PointWork> now = board_fit::point_work(p.point, m->program);
    ASSERT_TRUE(now.ok()) << now.status().message();
    EXPECT_EQ(board_fit::features_csv({*now}), board_fit::features_csv({p})) << p.point.id;
  }
}

// The held-out check (docs/board_time.md, "Held-out published figures"): the committed
// factors predict the published figures of held_out.csv, which the fit never sees, with the
// ratios the docs record (3 decimals); a change of the model or of the factors that moves
// them must update the docs' table too.
TEST(BoardTimeFit, CommittedHeldOutFeaturesPredictTheRecordedRatios) {
  Result<std::vector<board_fit::CalibrationPoint>> held = board_fit::read_calibration(kFitDir + "held_out.csv");
  ASSERT_TRUE(held.ok()) << held.status().message();
  Result<std::vector<board_fit::PointWork>> pts = board_fit::read_features(*held, kFitDir + "held_out_features.csv");
  ASSERT_TRUE(pts.ok()) << pts.status().message();
  const std::map<std::string, double> recorded = {
      {"ss928_resnet101", 1.081}, {"ss928_mobilenetv2", 0.548}, {"ss928_ppocrv4_rec", 0.264},
      {"rk3576_resnet50", 0.695}, {"rk3562_resnet50", 0.974}, {"rk3588_ppocrv4_det", 0.304},
      {"rk3576_ppocrv4_det", 0.447}, {"rk3566_ppocrv4_det", 0.490}, {"rk3562_ppocrv4_det", 0.359},
      {"rk3588_ppocrv4_rec", 0.788}, {"rk3576_ppocrv4_rec", 0.870}, {"rk3566_ppocrv4_rec", 0.438},
      {"rk3562_ppocrv4_rec", 0.965}, {"ss928_shufflenetv2", 0.177}, {"ss928_yolov5s", 0.507},
      {"rk3588_yolov5s", 1.114}, {"rk3576_yolov5s", 1.377}, {"rk3566_yolov5s", 1.774},
      {"rk3562_yolov5s", 1.269}, {"rk3588_yolov5s_relu", 1.201}, {"rk3576_yolov5s_relu", 0.906},
      {"rk3566_yolov5s_relu", 1.396}, {"rk3562_yolov5s_relu", 1.210}, {"rk3588_yolov8n", 1.061},
      {"rk3576_yolov8n", 1.473}, {"rk3566_yolov8n", 1.891}, {"rk3562_yolov8n", 1.359},
      {"rk3588_yolov8s", 1.386}, {"rk3576_yolov8s", 1.406}, {"rk3566_yolov8s", 2.072},
      {"rk3562_yolov8s", 1.517}, {"ss928_yolov8s", 1.103}};
  ASSERT_EQ(pts->size(), recorded.size());
  std::vector<double> svp, rknn;
  for (const board_fit::PointWork& p : *pts) {
    ASSERT_EQ(recorded.count(p.point.id), 1u) << p.point.id;
    const double ratio = board_fit::predict_ms(p, target::fitted_factors(*p.device)) / p.point.published_ms;
    EXPECT_NEAR(ratio, recorded.at(p.point.id), 0.0015) << p.point.id;
    (p.device->family == target::Family::kRknn ? rknn : svp).push_back(ratio);
  }
  // The per-family summary the docs state.
  EXPECT_NEAR(board_fit::summarise(svp).geomean, 0.499, 0.002);
  EXPECT_NEAR(board_fit::summarise(rknn).geomean, 0.988, 0.002);
  EXPECT_EQ(board_fit::summarise(svp).over_2x + board_fit::summarise(rknn).over_2x, 8u);
}

TEST(BoardTimeFit, HeldOutPointsAreNoneOfTheCalibrationPoints) {
  Result<std::vector<board_fit::CalibrationPoint>> cal = board_fit::read_calibration(kFitDir + "calibration.csv");
  Result<std::vector<board_fit::CalibrationPoint>> held = board_fit::read_calibration(kFitDir + "held_out.csv");
  ASSERT_TRUE(cal.ok() && held.ok());
  EXPECT_TRUE(board_fit::check_held_out(*cal, *held).ok()) << board_fit::check_held_out(*cal, *held).message();
  // A calibration point's network on its SoC in its mode, under another name, is refused by name.
  std::vector<board_fit::CalibrationPoint> leak = *held;
  leak.push_back(cal->front());
  leak.back().id = "renamed";
  const Status s = board_fit::check_held_out(*cal, leak);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("renamed"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(cal->front().id), std::string::npos) << s.message();
}

TEST(BoardTimeFit, RatioSummaryCountsPointsOffByMoreThanTwiceEitherWay) {
  const board_fit::RatioSummary s = board_fit::summarise({0.25, 1.0, 3.0, 1.9});
  EXPECT_EQ(s.n, 4u);
  EXPECT_EQ(s.over_2x, 2u);
  EXPECT_NEAR(s.geomean, std::pow(0.25 * 3.0 * 1.9, 0.25), 1e-12);
  EXPECT_DOUBLE_EQ(s.worst, 0.25);
}

TEST(BoardTimeFit, AnUnknownCompileModeIsRefusedByName) {
  netzoo::NetOptions o;
  Result<compiler::BuiltModel> m = netzoo::build_mobilenet_v2(o);
  ASSERT_TRUE(m.ok());
  board_fit::CalibrationPoint c{"x", "mobilenet_v2", "RK3588", "int3", 1.0, 0, ""};
  Result<board_fit::PointWork> w = board_fit::point_work(c, m->program);
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("int3"), std::string::npos) << w.status().message();
}

TEST(BoardTimeFit, CalibrationNetworksRefuseInt8AsNotImplementedYet) {
  netzoo::NetOptions o;
  o.dtype = model::DType::kInt8;
  for (auto build : {netzoo::build_resnet50, netzoo::build_vgg16, netzoo::build_squeezenet1_1, netzoo::build_vit_b16,
                     netzoo::build_resnet101, netzoo::build_shufflenet_v2, netzoo::build_se_resnet50,
                     netzoo::build_pfld}) {
    Result<compiler::BuiltModel> m = build(o);
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.status().code(), err::kFeatureUnsupported);
    EXPECT_NE(m.status().message().find("not implemented yet"), std::string::npos) << m.status().message();
  }
  Result<compiler::BuiltModel> yolo = netzoo::build_yolov5s(o, "silu");
  ASSERT_FALSE(yolo.ok());
  EXPECT_EQ(yolo.status().code(), err::kFeatureUnsupported);
}

// svp_atc's outputs: atc_perf.csv's predicted column sums (with the task and switch costs)
// to its total, which is the model's prediction; om.json carries the same.
TEST(BoardTimeReport, AtcPerfCsvAndOmJsonCarryThePredictedBoardTime) {
  netzoo::NetOptions o;
  Result<compiler::BuiltModel> m = netzoo::build_resnet18(o);
  ASSERT_TRUE(m.ok());
  const target::DeviceProfile& d = *target::find_profile("SS928V100");
  const target::ProgramTime t = compiler::predict_board_time(m->program, d);
  const std::string csv = compiler::atc_perf_csv(m->program, d);
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);
  double sum = 0;
  std::size_t rows = 0;
  std::string total;
  while (std::getline(lines, line)) {
    std::vector<std::string> f;
    std::istringstream cells(line);
    for (std::string c; std::getline(cells, c, ',');) f.push_back(c);
    if (f[0] == "total") {
      total = f[11];
      continue;
    }
    ASSERT_EQ(f.size(), 13u) << line;
    sum += std::stod(f[11]);
    EXPECT_TRUE(f[12] == "compute" || f[12] == "DDR" || f[12] == "overhead" || f[12] == "fused") << line;
    ++rows;
  }
  EXPECT_EQ(rows, m->program.layers.size());
  EXPECT_NEAR(std::stod(total), t.total_us, 1e-3);
  EXPECT_GT(t.total_us, sum - 0.05 * static_cast<double>(rows));
  EXPECT_LT(sum, t.total_us);
  const nlohmann::json j = compiler::om_json(m->program, m->weights.size(), nullptr, &d);
  EXPECT_EQ(j["predicted_board_time"]["soc"], "SS928V100");
  EXPECT_NEAR(j["predicted_board_time"]["total_us"].get<double>(), t.total_us, 1e-9);
  EXPECT_TRUE(j["ops"][0].contains("predicted_us"));
  // Without a device, om.json is unchanged.
  EXPECT_FALSE(compiler::om_json(m->program, m->weights.size()).contains("predicted_board_time"));
}

TEST(BoardTimeReport, ASlowerTargetPredictsMoreTimeForTheSameModel) {
  netzoo::NetOptions o;
  Result<compiler::BuiltModel> m = netzoo::build_mobilenet_v2(o);
  ASSERT_TRUE(m.ok());
  const double ss928 = compiler::predict_board_time(m->program, *target::find_profile("SS928V100")).total_us;
  const double cv610 = compiler::predict_board_time(m->program, *target::find_profile("Hi3516CV610")).total_us;
  EXPECT_GT(cv610, ss928);
}

}  // namespace
}  // namespace svp
