#include "compiler/quantize/mixed_precision.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "common/metrics.h"
#include "compiler/quantize/evaluate.h"
#include "compiler/quantize/layer_accuracy.h"

namespace svp::compiler::quant {
namespace {

// Layers at or above this single cosine are exact for every practical purpose (float32
// rounding differences between the kernels are of this order): never worth raising.
constexpr double kTightest = 0.999999;

// Every float32 model output over the first `batches` batches, concatenated per output
// (other element types — indices, masks — are not compared).
Result<std::vector<std::vector<double>>> float_outputs(const Graph& g, const CalibrationSet& data,
                                                       std::size_t batches) {
  auto fast = CompiledEvaluator::create(g);
  std::vector<std::vector<double>> out(g.outputs.size());
  for (std::size_t b = 0; b < batches; ++b) {
    auto ran = fast.ok() ? (*fast)->run(data.batches[b]) : evaluate(g, data.batches[b]);
    if (!ran.ok()) return ran.status();
    for (std::size_t o = 0; o < ran->size() && o < out.size(); ++o) {
      const model::TensorView& t = (*ran)[o].view();
      if (t.dtype != model::DType::kFloat32) continue;
      const float* p = t.as<const float>();
      out[o].insert(out[o].end(), p, p + t.elements());
    }
  }
  return out;
}

// The smallest cosine over the outputs both sides computed alike.
double min_cosine(const std::vector<std::vector<double>>& golden, const std::vector<std::vector<double>>& actual) {
  double worst = 1.0;
  for (std::size_t o = 0; o < golden.size() && o < actual.size(); ++o) {
    if (golden[o].empty() || golden[o].size() != actual[o].size()) continue;
    const double c = compare::ComputeMetrics(golden[o], actual[o]).cosine;
    worst = std::isnan(c) ? 0.0 : std::min(worst, c);
  }
  return worst;
}

// One precision step up from where `n` is now (node_precision's order); false when it is
// float32 already.
bool raise(Node& n, const QuantizeOptions& o, bool to_float, Precision now, Precision* to) {
  if (n.keep_float || now == Precision::kFloat32 || now == Precision::kFp16) return false;
  const bool a8_mode = o.activation_bits == 8;
  if (!n.high_precision && !to_float) {
    n.high_precision = true;  // A8W8 → A16W8 in modes 0/5; A16W8 → float32 in modes 1/6
    *to = a8_mode ? Precision::kA16W8 : Precision::kFloat32;
  } else {
    n.keep_float = true;
    *to = Precision::kFloat32;
  }
  return true;
}

}  // namespace

Result<MixedPrecisionReport> quantize_mixed_precision(Graph& g, const CalibrationSet& data,
                                                      const QuantizeOptions& quantize,
                                                      const MixedPrecisionOptions& options,
                                                      const Calibration* calibration) {
  auto in_unit = [](double v) { return v > 0.0 && v <= 1.0; };
  if (!in_unit(options.output_target) || !in_unit(options.layer_threshold)) {
    return Error(err::kInvalidParam,
                 "automatic mixed precision: the output target ({}) and the layer threshold ({}) are cosines in "
                 "(0, 1]",
                 options.output_target, options.layer_threshold);
  }
  if (options.max_rounds == 0) return Error(err::kInvalidParam, "automatic mixed precision: zero rounds");
  if (data.batches.empty()) return Error(err::kInvalidParam, "no calibration batches");
  const std::size_t batches = std::min(std::max<std::size_t>(options.batches, 1), data.batches.size());
  const Graph float_graph = g;
  auto golden = float_outputs(float_graph, data, batches);
  if (!golden.ok()) return Error(golden.status().code(), "automatic mixed precision, float graph: {}", golden.status().message());

  MixedPrecisionReport report;
  double threshold = options.layer_threshold;
  Graph current = g;  // the float graph with the marks raised so far
  // Raising a layer can lower the output cosine (a wider encoding moves the rounding
  // elsewhere): when the target is missed, the best round's model is the result.
  struct Best {
    Graph graph;
    QuantizeReport quantize;
    double cosine = -2.0;
    std::size_t round = 0, raised = 0;
  } best;
  auto settle = [&](const std::string& why) {
    g = std::move(best.graph);
    report.quantize = std::move(best.quantize);
    report.raised.resize(best.raised);
    report.log.push_back(fmt::format("auto mixed precision: {}; the model is the one after {} round(s) (output "
                                     "cosine {:.6f}, {} layer(s) raised), the best; the target {} is not met",
                                     why, best.round, best.cosine, best.raised, options.output_target));
    return report;
  };
  // The float activations' ranges do not depend on the precisions: calibrated once.
  Result<Calibration> own = calibration != nullptr ? Result<Calibration>(Calibration{}) : calibrate(current, data, quantize);
  if (!own.ok()) return own.status();
  const Calibration& cal = calibration != nullptr ? *calibration : *own;
  for (std::size_t round = 0;; ++round) {
    Graph trial = current;
    auto q = apply_quantization(trial, cal, quantize);
    if (!q.ok()) return q.status();
    auto actual = float_outputs(trial, data, batches);
    if (!actual.ok()) return Error(actual.status().code(), "automatic mixed precision, quantized graph: {}", actual.status().message());
    const double cosine = min_cosine(*golden, *actual);
    report.output_cosine.push_back(cosine);
    if (cosine >= options.output_target) {
      report.target_met = true;
      report.quantize = std::move(*q);
      report.log.push_back(fmt::format("auto mixed precision: output cosine {:.6f} meets the target {} after {} "
                                       "round(s), {} layer(s) raised",
                                       cosine, options.output_target, round, report.raised.size()));
      g = std::move(trial);
      return report;
    }
    if (cosine > best.cosine) {
      best.quantize = *q;
      best.graph = trial;
      best.cosine = cosine;
      best.round = round;
      best.raised = report.raised.size();
    }
    if (round == options.max_rounds) {
      return settle(fmt::format("output cosine {:.6f} after the last of {} round(s) (--auto_mixed_precision_rounds)",
                                cosine, round));
    }
    // Layers bad on their own, worst first.
    auto layers = analyse_layers(float_graph, trial, data, batches);
    if (!layers.ok()) return layers.status();
    std::map<std::string, Precision> now;
    for (const LayerPrecision& l : q->layers) now[l.name] = l.precision;
    std::vector<const LayerAccuracy*> raisable;
    for (const LayerAccuracy& l : *layers) {
      if (!l.quantized || std::isnan(l.single.cosine)) continue;
      auto p = now.find(current.node(l.node).name);
      if (p == now.end() || p->second == Precision::kFloat32 || p->second == Precision::kFp16) continue;
      raisable.push_back(&l);
    }
    std::stable_sort(raisable.begin(), raisable.end(),
                     [](const LayerAccuracy* a, const LayerAccuracy* b) { return a->single.cosine < b->single.cosine; });
    // Where no layer is below the threshold the loss is spread thinly over many layers: the
    // threshold tightens (0.99 → 0.999 → ...) until some are, as long as the worst layer
    // is measurably imperfect.
    std::size_t weak = 0;
    for (; weak < raisable.size() && raisable[weak]->single.cosine < threshold; ++weak) {
    }
    while (weak == 0 && !raisable.empty() && raisable.front()->single.cosine < kTightest) {
      threshold = 1.0 - (1.0 - threshold) / 10.0;
      for (; weak < raisable.size() && raisable[weak]->single.cosine < threshold; ++weak) {
      }
      report.log.push_back(fmt::format("auto mixed precision: no layer left below single cosine {}; the threshold "
                                       "tightens to {}",
                                       1.0 - (1.0 - threshold) * 10.0, threshold));
    }
    if (weak == 0) {
      return settle(fmt::format("output cosine {:.6f} after {} round(s), and every quantized layer is exact alone "
                                "(single cosine >= {}) or float already",
                                cosine, round, kTightest));
    }
    const std::size_t take = std::max<std::size_t>(1, (weak + 3) / 4);
    std::string names;
    for (std::size_t i = 0; i < take; ++i) {
      const LayerAccuracy& l = *raisable[i];
      Node& n = current.node(l.node);
      RaisedLayer r{l.name, l.op, l.single.cosine, Precision::kA16W8, round + 1};
      if (!raise(n, quantize, options.to_float, now.at(n.name), &r.to)) continue;
      names += fmt::format("{}\"{}\" ({}, single {:.4f}) → {}", names.empty() ? "" : ", ", l.name, l.op,
                           l.single.cosine, precision_name(r.to));
      report.raised.push_back(std::move(r));
    }
    report.log.push_back(fmt::format("auto mixed precision: after {} round(s) output cosine {:.6f} < {}; {} layer(s) "
                                     "below single cosine {}, round {} raises {}: {}",
                                     round, cosine, options.output_target, weak, threshold, round + 1, take, names));
  }
}

}  // namespace svp::compiler::quant
