#include "svp_compare/comparison.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "svp_compare/layer_match.h"

namespace svp::compare {
namespace {

using SampleKey = std::pair<std::int64_t, std::int64_t>;  // (execution, batch item)

// The reason a paired output has no sample with files on both sides: the dumper's own note
// (a Conv fused with its Relu is never in memory) when it gave one.
std::string NoSampleReason(const DumpDir& golden, const LayerOutput& g, const DumpDir& actual,
                           const LayerOutput& a) {
  for (std::size_t i : a.entries) {
    if (!actual.entries[i].note.empty()) return "actual: " + actual.entries[i].note;
  }
  for (std::size_t i : g.entries) {
    if (!golden.entries[i].note.empty()) return "golden: " + golden.entries[i].note;
  }
  return "no execution and batch item dumped with a file in both dumps";
}

// uint8 with zero point 0: the encoding [0, max] the quantizer gives Relu outputs and the
// layers only a Relu reads.
bool HoldsNoNegatives(const DumpEntry& e) {
  if (e.dtype != "uint8" || e.scale.empty()) return false;
  for (double z : e.zero_point) {
    if (z != 0.0) return false;
  }
  return true;
}

}  // namespace

ComparisonResult CompareDumps(const DumpDir& golden, const DumpDir& actual,
                              const std::function<void(std::size_t done, std::size_t total)>& progress) {
  ComparisonResult r;
  const std::vector<LayerOutput> g_out = GroupLayerOutputs(golden.entries);
  const std::vector<LayerOutput> a_out = GroupLayerOutputs(actual.entries);
  const LayerMatch match = MatchLayers(g_out, a_out);
  Comparison& c = r.comparison;
  std::size_t done = 0;
  for (const LayerPair& p : match.pairs) {
    if (progress && done > 0) progress(done, match.pairs.size());
    ++done;
    const LayerOutput& g = g_out[p.golden];
    const LayerOutput& a = a_out[p.actual];
    std::map<SampleKey, std::size_t> golden_files;
    for (std::size_t i : g.entries) {
      const DumpEntry& e = golden.entries[i];
      if (e.file) golden_files.emplace(SampleKey{e.execution, e.batch_item}, i);
    }
    LayerResult lr;
    lr.order = p.actual;
    lr.layer = a.layer;
    lr.op = a.op;
    lr.golden_layer = g.layer;
    lr.tensor = g.tensor;
    std::vector<double> values_g, values_a;
    MetricsAccumulator metrics;  // sample by sample: memory does not grow with the executions
    std::string mismatch;
    for (std::size_t i : a.entries) {
      const DumpEntry& ea = actual.entries[i];
      auto found = golden_files.find(SampleKey{ea.execution, ea.batch_item});
      if (!ea.file || found == golden_files.end()) continue;
      if (!LoadTensorValues(golden, golden.entries[found->second], &values_g, &r.error) ||
          !LoadTensorValues(actual, ea, &values_a, &r.error)) {
        return r;
      }
      if (values_g.size() != values_a.size()) {
        mismatch = "golden has " + std::to_string(values_g.size()) + " elements, actual " +
                   std::to_string(values_a.size()) + " (execution " + std::to_string(ea.execution) + ")";
        break;
      }
      if (HoldsNoNegatives(ea)) {
        lr.golden_negatives_clamped = true;
        for (double& v : values_g) v = std::max(v, 0.0);
      }
      lr.actual_dtype = ea.dtype;
      lr.elements = values_a.size();
      ++lr.samples;
      metrics.Add(values_g, values_a);
    }
    if (!mismatch.empty()) {
      c.not_compared.push_back({a.layer, mismatch});
    } else if (lr.samples == 0) {
      c.not_compared.push_back({a.layer, NoSampleReason(golden, g, actual, a)});
    } else {
      lr.metrics = metrics.Result();
      c.layers.push_back(std::move(lr));
    }
  }
  if (progress && done > 0) progress(done, match.pairs.size());
  for (const auto& [a, g] : match.actual_repeats) {
    c.not_compared.push_back({a_out[a].layer, "its output \"" + a_out[a].tensor + "\" is the golden output of \"" +
                                                  g_out[g].layer + "\", compared in that row"});
  }
  for (std::size_t g : match.golden_unmatched) {
    c.golden_unmatched.push_back({g_out[g].layer, "tensor \"" + g_out[g].tensor + "\": no such layer or tensor in the actual dump"});
  }
  for (std::size_t a : match.actual_unmatched) {
    c.actual_unmatched.push_back({a_out[a].layer, "tensor \"" + a_out[a].tensor + "\" (" + a_out[a].op +
                                                      "): no such layer or tensor in the golden dump"});
  }
  // Rows were produced in pair order, which is the actual execution order; renumber densely.
  for (std::size_t i = 0; i < c.layers.size(); ++i) c.layers[i].order = i;
  r.ok = true;
  return r;
}

std::vector<std::size_t> WorstFirst(const std::vector<LayerResult>& layers) {
  std::vector<std::size_t> idx(layers.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  // NaN sorts as −2 (below any cosine) and +∞ distance as the largest, so the order is total.
  auto cosine_key = [&](std::size_t i) {
    const double c = layers[i].metrics.cosine;
    return std::isnan(c) ? -2.0 : c;
  };
  auto distance_key = [&](std::size_t i) {
    const double d = layers[i].metrics.relative_distance;
    return std::isnan(d) ? HUGE_VAL : d;
  };
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t x, std::size_t y) {
    if (cosine_key(x) != cosine_key(y)) return cosine_key(x) < cosine_key(y);
    return distance_key(x) > distance_key(y);
  });
  return idx;
}

long FirstBelowThreshold(const std::vector<LayerResult>& layers, double threshold) {
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const double c = layers[i].metrics.cosine;
    if (std::isnan(c) || c < threshold) return static_cast<long>(i);
  }
  return -1;
}

}  // namespace svp::compare
