// The board timing model's fit (docs/board_time.md): calibration points (published board
// latencies, calibration.csv), each point's per-layer work (features.csv, written by the
// board_time_fit tool from the compiled calibration networks), and the least-squares fit of
// one factor set on log ratios. The unit tests read the same files.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "model/program.h"
#include "target/board_time.h"

namespace svp::board_fit {

struct CalibrationPoint {
  std::string id;       // e.g. ss928_resnet18
  std::string network;  // netzoo builder or ONNX model
  std::string soc;      // --soc_version
  std::string mode;     // compile mode: 0, 1, 5, 6 (SVP) or int8 / fp16 (RKNN)
  double published_ms = 0;
  double published_ddr_mb = 0;  // DDR traffic per frame where published (SVP), else 0
  std::string source;
};

// One point with its work: what the model predicts from.
struct PointWork {
  CalibrationPoint point;
  const target::DeviceProfile* device = nullptr;
  std::vector<target::LayerWork> work;
  std::vector<std::string> ops;  // each layer's op type (reports)
  std::vector<std::int32_t> segment_ends;
};

Result<std::vector<CalibrationPoint>> read_calibration(const std::string& path);

// A float program (random weights: only shapes matter) as `point`'s target would compile it
// in its mode: placement by the target's op support set, precision by the mode (the types
// the quantizer gives each layer: modes 0/1 every layer, 5/6 the vendor's quantizable
// layers with the rest in fp16, RKNN int8 every layer), one segment per run of one unit.
Result<PointWork> point_work(const CalibrationPoint& point, const model::Program& program);

// features.csv: one row per layer of every point (and a row per segment end).
std::string features_csv(const std::vector<PointWork>& points);
Result<std::vector<PointWork>> read_features(const std::vector<CalibrationPoint>& calibration, const std::string& path);

double predict_ms(const PointWork& p, const target::Factors& f);

// The factors of `family` fitted to `points` of that family (others ignored), starting from
// and regularised towards `prior`: minimises Σ log²(predicted/published) plus a penalty on
// points outside ±15 % and a weak pull of each log factor to its prior (so factors the
// points do not constrain keep their prior). Deterministic.
target::Factors fit(const std::vector<const PointWork*>& points, const target::Factors& prior);

// The priors the fit starts from (documented in docs/board_time.md).
target::Factors prior_factors();

struct FittedSet {
  std::string name;  // BoardFigures::factor_set
  target::Family family;
  target::Factors factors;
};

// The factor sets of the points' devices, in order of first appearance, each fitted to its
// points.
std::vector<FittedSet> fit_all(const std::vector<PointWork>& points);

// Held-out points (held_out.csv) are published figures the fit never sees: refuses (naming
// it) a held-out point whose id, or whose network on the same SoC in the same mode, is also
// a calibration point.
Status check_held_out(const std::vector<CalibrationPoint>& calibration, const std::vector<CalibrationPoint>& held_out);

// predicted/published over a set of points: geometric mean, the ratio furthest from 1 (in
// log), how many are off by more than 2x either way.
struct RatioSummary {
  std::size_t n = 0;
  double geomean = 1;
  double worst = 1;
  std::size_t over_2x = 0;
};
RatioSummary summarise(const std::vector<double>& ratios);

// data/board_time_factors.inc.
std::string factors_inc(const std::vector<FittedSet>& sets);

}  // namespace svp::board_fit
