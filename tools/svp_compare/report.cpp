#include "svp_compare/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <vector>

#include "common/layer_chart_html.h"

namespace svp::compare {
namespace {

// Layer names of exported ONNX models ("/backbone/stage3/conv2/Conv") get long; the table
// keeps its columns aligned by cutting them from the left, where they repeat.
std::string FitLayerName(const std::string& name, std::size_t width) {
  if (name.size() <= width) return name;
  return "..." + name.substr(name.size() - (width - 3));
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::vector<std::size_t> RankOf(const std::vector<LayerResult>& layers) {
  std::vector<std::size_t> rank(layers.size());
  const std::vector<std::size_t> worst = WorstFirst(layers);
  for (std::size_t r = 0; r < worst.size(); ++r) rank[worst[r]] = r + 1;
  return rank;
}

bool BelowThreshold(const LayerResult& l, double threshold) {
  return std::isnan(l.metrics.cosine) || l.metrics.cosine < threshold;
}

}  // namespace

std::string FormatMetric(double value) { return report::format_metric(value); }

void PrintTable(std::ostream& out, const Comparison& c, double threshold) {
  const std::vector<std::size_t> rank = RankOf(c.layers);
  std::size_t width = 5;
  for (const LayerResult& l : c.layers) width = std::max(width, l.layer.size());
  width = std::min<std::size_t>(width, 40);
  char line[512];
  std::snprintf(line, sizeof line, "%4s %4s  %-*s %-16s %10s %10s %10s %10s %10s\n", "#", "rank",
                static_cast<int>(width), "layer", "op", "cosine", "rel_dist", "max_abs", "mean_abs", "kl");
  out << line;
  for (std::size_t i = 0; i < c.layers.size(); ++i) {
    const LayerResult& l = c.layers[i];
    const Metrics& m = l.metrics;
    std::snprintf(line, sizeof line, "%4zu %4zu%s %-*s %-16s %10s %10s %10s %10s %10s\n", i + 1, rank[i],
                  BelowThreshold(l, threshold) ? " *" : "  ", static_cast<int>(width),
                  FitLayerName(l.layer, width).c_str(), l.op.substr(0, 16).c_str(), FormatMetric(m.cosine).c_str(),
                  FormatMetric(m.relative_distance).c_str(), FormatMetric(m.max_abs_error).c_str(),
                  FormatMetric(m.mean_abs_error).c_str(), FormatMetric(m.kl_divergence).c_str());
    out << line;
  }
  const std::vector<std::size_t> worst = WorstFirst(c.layers);
  out << "worst first:";
  for (std::size_t r = 0; r < worst.size() && r < 5; ++r) {
    out << (r ? ", " : " ") << c.layers[worst[r]].layer << " (" << FormatMetric(c.layers[worst[r]].metrics.cosine)
        << ")";
  }
  out << "\n";
  const long first = FirstBelowThreshold(c.layers, threshold);
  if (first < 0) {
    out << "every layer's cosine is at least " << FormatMetric(threshold) << "\n";
  } else {
    const LayerResult& l = c.layers[static_cast<std::size_t>(first)];
    out << "first layer below " << FormatMetric(threshold) << " (marked *): " << l.layer << " (#" << first + 1
        << ", cosine " << FormatMetric(l.metrics.cosine) << ")\n";
  }
  std::string clamped;
  for (const LayerResult& l : c.layers) {
    if (l.golden_negatives_clamped) clamped += (clamped.empty() ? "" : ", ") + l.layer;
  }
  if (!clamped.empty()) {
    out << "golden negatives compared as 0 (uint8 outputs, range [0, max]): " << clamped << "\n";
  }
  for (const LayerNote& n : c.not_compared) out << "not compared: " << n.layer << ": " << n.reason << "\n";
  for (const LayerNote& n : c.golden_unmatched) out << "golden only: " << n.layer << ": " << n.reason << "\n";
  for (const LayerNote& n : c.actual_unmatched) out << "actual only: " << n.layer << ": " << n.reason << "\n";
}

std::string CsvText(const Comparison& c, double threshold) {
  const std::vector<std::size_t> rank = RankOf(c.layers);
  std::string csv =
      "order,rank,layer,op,golden_layer,tensor,actual_dtype,samples,elements,cosine,relative_distance,"
      "max_abs_error,mean_abs_error,kl_divergence,finite_pairs,golden_nan,golden_inf,actual_nan,actual_inf,"
      "below_threshold,golden_negatives_clamped\n";
  for (std::size_t i = 0; i < c.layers.size(); ++i) {
    const LayerResult& l = c.layers[i];
    const Metrics& m = l.metrics;
    const std::string fields[] = {std::to_string(i + 1),
                                  std::to_string(rank[i]),
                                  CsvField(l.layer),
                                  CsvField(l.op),
                                  CsvField(l.golden_layer),
                                  CsvField(l.tensor),
                                  CsvField(l.actual_dtype),
                                  std::to_string(l.samples),
                                  std::to_string(l.elements),
                                  FormatMetric(m.cosine),
                                  FormatMetric(m.relative_distance),
                                  FormatMetric(m.max_abs_error),
                                  FormatMetric(m.mean_abs_error),
                                  FormatMetric(m.kl_divergence),
                                  std::to_string(m.finite_pairs),
                                  std::to_string(m.golden_nan),
                                  std::to_string(m.golden_inf),
                                  std::to_string(m.actual_nan),
                                  std::to_string(m.actual_inf),
                                  BelowThreshold(l, threshold) ? "1" : "0",
                                  l.golden_negatives_clamped ? "1" : "0"};
    for (std::size_t f = 0; f < std::size(fields); ++f) csv += (f ? "," : "") + fields[f];
    csv += "\n";
  }
  return csv;
}

}  // namespace svp::compare
