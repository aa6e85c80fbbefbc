#include "board_time_fit/fit.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "kernels/cost.h"
#include "ops/op_def.h"
#include "target/board_work.h"

namespace svp::board_fit {
namespace {

std::vector<std::string> split(const std::string& line, char sep, std::size_t max_fields) {
  std::vector<std::string> f;
  std::size_t start = 0;
  while (f.size() + 1 < max_fields) {
    const std::size_t p = line.find(sep, start);
    if (p == std::string::npos) break;
    f.push_back(line.substr(start, p - start));
    start = p + 1;
  }
  f.push_back(line.substr(start));
  return f;
}

Result<std::string> read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status(err::kReadModelFailure, fmt::format("cannot open {}: run tools/board_time_fit from the repository root (docs/board_time.md)", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

constexpr double kTolerance = 0.15;  // the calibration target: every point within ±15 %
constexpr double kPriorWeight = 0.02;
constexpr double kOutsidePenalty = 200.0;

double objective(const std::vector<const PointWork*>& points, const target::Factors& f, const target::Factors& prior) {
  double sum = 0;
  for (const PointWork* p : points) {
    const double r = std::log(predict_ms(*p, f) / p->point.published_ms);
    sum += r * r;
    const double over = std::fabs(r) - std::log1p(kTolerance * 0.9);
    if (over > 0) sum += kOutsidePenalty * over * over;
  }
  for (std::size_t i = 0; i < f.size(); ++i) {
    const double d = std::log(f[i] / prior[i]);
    sum += kPriorWeight * d * d;
  }
  return sum;
}

bool is_efficiency(std::size_t i) { return i <= target::kEffDdr || i == target::kCpuEff; }

using target::Precision;

// The precision a compile mode gives the vendor's quantizable (cube) layers and the rest.
Status mode_precisions(const std::string& mode, Precision* cube, Precision* other) {
  static const std::map<std::string, std::pair<Precision, Precision>> modes = {
      {"0", {Precision::kA8W8, Precision::kA8W8}},   {"1", {Precision::kA16W8, Precision::kA16W8}},
      {"5", {Precision::kA8W8, Precision::kFp16}},   {"6", {Precision::kA16W8, Precision::kFp16}},
      {"int8", {Precision::kA8W8, Precision::kA8W8}}, {"fp16", {Precision::kFp16, Precision::kFp16}}};
  auto it = modes.find(mode);
  if (it == modes.end()) return Status(err::kFeatureUnsupported, "unknown compile mode " + mode + " (0, 1, 5, 6, int8, fp16)");
  *cube = it->second.first;
  *other = it->second.second;
  return Status::Ok();
}


}  // namespace

// The float program as the target would compile it in `mode`: placement by the target's
// op support set, precision by the mode (what the quantizer gives each layer's tensors).
Result<PointWork> point_work(const CalibrationPoint& c, const model::Program& p) {
  PointWork pw;
  pw.point = c;
  pw.device = target::find_profile(c.soc);
  if (pw.device == nullptr) return Status(err::kFeatureUnsupported, "unknown soc " + c.soc);
  Precision cube = Precision::kA8W8, other = Precision::kA8W8;
  if (Status s = mode_precisions(c.mode, &cube, &other); !s.ok()) return s;
  std::vector<std::uint64_t> macs(p.layers.size());
  std::vector<target::Unit> units(p.layers.size());
  std::vector<Precision> precisions(p.layers.size());
  for (std::size_t l = 0; l < p.layers.size(); ++l) {
    const model::Layer& L = p.layers[l];
    macs[l] = kernels::layer_macs(p, l);
    std::vector<std::size_t> ranks;
    for (std::int32_t t : L.inputs) {
      if (t >= 0) ranks.push_back(p.tensors[static_cast<std::size_t>(t)].dims.size());
    }
    const target::Support s = target::op_support(*pw.device, L.op, ranks);
    units[l] = s == target::Support::kNpu ? target::Unit::kNpu : target::Unit::kCpu;
    precisions[l] = ops::is_quant_cube(L.op) ? cube : other;
    pw.ops.push_back(L.op);
  }
  pw.work = target::program_work(p, macs, &units, &precisions);
  // Segments: a new one wherever the unit changes (the board's own passes are per layer).
  for (std::size_t l = 1; l <= pw.work.size(); ++l) {
    if (l == pw.work.size() || pw.work[l].unit != pw.work[l - 1].unit) pw.segment_ends.push_back(static_cast<std::int32_t>(l));
  }
  return pw;
}

Result<std::vector<CalibrationPoint>> read_calibration(const std::string& path) {
  Result<std::string> text = read_text(path);
  if (!text.ok()) return text.status();
  std::vector<CalibrationPoint> out;
  std::istringstream lines(*text);
  std::string line;
  std::getline(lines, line);  // header
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    const std::vector<std::string> f = split(line, ',', 7);
    if (f.size() != 7) return Status(err::kParseModel, fmt::format("{}: expected 7 fields in \"{}\"", path, line));
    out.push_back({f[0], f[1], f[2], f[3], std::strtod(f[4].c_str(), nullptr), std::strtod(f[5].c_str(), nullptr), f[6]});
    if (out.back().published_ms <= 0) return Status(err::kParseModel, fmt::format("{}: bad published_ms in \"{}\"", path, line));
  }
  return out;
}

Status check_held_out(const std::vector<CalibrationPoint>& calibration, const std::vector<CalibrationPoint>& held_out) {
  for (const CalibrationPoint& h : held_out) {
    for (const CalibrationPoint& c : calibration) {
      if (h.id == c.id || (h.network == c.network && h.soc == c.soc && h.mode == c.mode)) {
        return Status(err::kParseModel, fmt::format("held-out point {} is calibration point {}: a held-out point must be a "
                                                    "figure the fit does not see; remove it from held_out.csv",
                                                    h.id, c.id));
      }
    }
  }
  return Status::Ok();
}

RatioSummary summarise(const std::vector<double>& ratios) {
  RatioSummary s;
  double log_sum = 0;
  for (double r : ratios) {
    log_sum += std::log(r);
    if (std::fabs(std::log(r)) > std::fabs(std::log(s.worst))) s.worst = r;
    if (r > 2.0 || r < 0.5) ++s.over_2x;
  }
  s.n = ratios.size();
  if (s.n > 0) s.geomean = std::exp(log_sum / static_cast<double>(s.n));
  return s;
}

std::string features_csv(const std::vector<PointWork>& points) {
  std::string out =
      "point,layer,unit,precision,work,macs,elements,in_elements,in_chained,out_elements,out_chained,weight_elements,"
      "fused,op\n";
  for (const PointWork& p : points) {
    for (std::size_t l = 0; l < p.work.size(); ++l) {
      const target::LayerWork& w = p.work[l];
      out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", p.point.id, l, static_cast<int>(w.unit),
                         static_cast<int>(w.precision), static_cast<int>(w.work), w.macs, w.elements, w.in_elements,
                         w.in_chained, w.out_elements, w.out_chained, w.weight_elements, w.fused ? 1 : 0,
                         l < p.ops.size() ? p.ops[l] : std::string());
    }
    for (std::int32_t e : p.segment_ends) out += fmt::format("{},segment_end,{}\n", p.point.id, e);
  }
  return out;
}

Result<std::vector<PointWork>> read_features(const std::vector<CalibrationPoint>& calibration,
                                             const std::string& path) {
  Result<std::string> text = read_text(path);
  if (!text.ok()) return text.status();
  std::vector<PointWork> out;
  std::map<std::string, std::size_t> index;
  for (const CalibrationPoint& c : calibration) {
    const target::DeviceProfile* d = target::find_profile(c.soc);
    if (d == nullptr) return Status(err::kParseModel, fmt::format("calibration point {}: unknown soc {}", c.id, c.soc));
    index[c.id] = out.size();
    out.push_back({c, d, {}, {}, {}});
  }
  std::istringstream lines(*text);
  std::string line;
  std::getline(lines, line);
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    const std::vector<std::string> f = split(line, ',', 14);
    auto it = index.find(f[0]);
    if (it == index.end()) return Status(err::kParseModel, fmt::format("{}: point {} is not in the calibration list", path, f[0]));
    PointWork& p = out[it->second];
    if (f.size() == 3 && f[1] == "segment_end") {
      p.segment_ends.push_back(static_cast<std::int32_t>(std::stol(f[2])));
      continue;
    }
    if (f.size() != 14) return Status(err::kParseModel, fmt::format("{}: expected 14 fields in \"{}\"", path, line));
    auto u = [&](std::size_t i) { return static_cast<std::uint64_t>(std::stoull(f[i])); };
    target::LayerWork w;
    w.unit = static_cast<target::Unit>(u(2));
    w.precision = static_cast<target::Precision>(u(3));
    w.work = static_cast<target::WorkClass>(u(4));
    w.macs = u(5);
    w.elements = u(6);
    w.in_elements = u(7);
    w.in_chained = u(8);
    w.out_elements = u(9);
    w.out_chained = u(10);
    w.weight_elements = u(11);
    w.fused = u(12) != 0;
    p.work.push_back(w);
    p.ops.push_back(f[13]);
  }
  for (const PointWork& p : out) {
    if (p.work.empty()) return Status(err::kParseModel, fmt::format("{}: no layers for point {}; rerun tools/board_time_fit", path, p.point.id));
  }
  return out;
}

double predict_ms(const PointWork& p, const target::Factors& f) {
  return target::predict_program(*p.device, f, p.work, p.segment_ends).total_us / 1e3;
}

target::Factors prior_factors() {
  // Round figures an NPU datasheet would make plausible: the fit moves them; a factor no
  // calibration point constrains stays near its prior.
  return {0.6, 0.2, 0.5, 0.05, 0.1, 0.05, 0.05, 0.05, 0.6, 5, 50, 0.3, 30};
}

namespace {

// Coordinate search in log space from `start`: try each factor up and down by `step`, keep
// what lowers the objective; halve the step when nothing does.
target::Factors descend(const std::vector<const PointWork*>& points, const target::Factors& start,
                        const target::Factors& prior, double* value) {
  target::Factors f = start;
  double best = objective(points, f, prior);
  for (double step = 1.0; step > 1e-4;) {
    bool improved = false;
    for (std::size_t i = 0; i < f.size(); ++i) {
      for (double dir : {1.0, -1.0}) {
        target::Factors g = f;
        g[i] = f[i] * std::exp(dir * step);
        if (is_efficiency(i) && g[i] > 1.0) g[i] = 1.0;
        if (g[i] == f[i]) continue;
        const double v = objective(points, g, prior);
        if (v < best - 1e-12) {
          best = v;
          f = g;
          improved = true;
          break;
        }
      }
    }
    if (!improved) step /= 2;
  }
  *value = best;
  return f;
}

}  // namespace

target::Factors fit(const std::vector<const PointWork*>& points, const target::Factors& prior) {
  // The objective has local minima (a slow class can stand in for another): start from the
  // prior and from the prior with each factor in turn 20x lower and 20x higher, then from the
  // best so far with each factor in turn 400x and 20x lower and 20x higher (a factor far from
  // its prior, such as a broadcast gate's ~1e-4 of the peak, is reached from a basin the
  // others already fit), keep the best.
  double best = 0;
  target::Factors f = descend(points, prior, prior, &best);
  auto try_from = [&](const target::Factors& base, std::size_t i, double scale) {
    target::Factors start = base;
    start[i] = is_efficiency(i) ? std::min(1.0, base[i] * scale) : base[i] * scale;
    double v = 0;
    const target::Factors g = descend(points, start, prior, &v);
    if (v < best - 1e-12) {
      best = v;
      f = g;
    }
  };
  for (std::size_t i = 0; i < prior.size(); ++i) {
    for (double scale : {1.0 / 20, 20.0}) try_from(prior, i, scale);
  }
  const target::Factors base = f;
  for (std::size_t i = 0; i < prior.size(); ++i) {
    for (double scale : {1.0 / 400, 1.0 / 20, 20.0}) try_from(base, i, scale);
  }
  return f;
}

std::vector<FittedSet> fit_all(const std::vector<PointWork>& points) {
  std::vector<FittedSet> sets;
  for (const PointWork& p : points) {
    const std::string name = p.device->board.factor_set;
    bool known = false;
    for (const FittedSet& s : sets) known = known || s.name == name;
    if (known) continue;
    std::vector<const PointWork*> mine;
    for (const PointWork& q : points) {
      if (name == q.device->board.factor_set) mine.push_back(&q);
    }
    sets.push_back({name, p.device->family, fit(mine, prior_factors())});
  }
  return sets;
}

std::string factors_inc(const std::vector<FittedSet>& sets) {
  std::string out =
      "// Written by tools/board_time_fit (docs/board_time.md): the board timing model's fitted\n"
      "// factors per NPU design, in the order of target::Factor (";
  for (std::size_t i = 0; i < target::kFactorCount; ++i) out += fmt::format("{}{}", i ? ", " : "", target::factor_name(i));
  out += ").\n// Do not edit by hand: rerun the fit.\n";
  for (const FittedSet& s : sets) {
    out += fmt::format("{{\"{}\", Family::{}, {{", s.name, s.family == target::Family::kSvp ? "kSvp" : "kRknn");
    for (std::size_t i = 0; i < s.factors.size(); ++i) out += fmt::format("{}{:.6g}", i ? ", " : "", s.factors[i]);
    out += "}},\n";
  }
  return out;
}

}  // namespace svp::board_fit
