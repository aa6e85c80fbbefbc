#include "svp_compare/html_report.h"

#include <cmath>
#include <vector>

#include "common/layer_chart_html.h"
#include "svp_compare/report.h"

namespace svp::compare {
namespace {

std::string NoteList(const char* title, const std::vector<LayerNote>& notes) {
  if (notes.empty()) return {};
  std::string html = std::string("<h2>") + title + "</h2>\n<ul>\n";
  for (const LayerNote& n : notes) {
    html += "<li><code>" + report::html_escape(n.layer) + "</code>: " + report::html_escape(n.reason) + "</li>\n";
  }
  return html + "</ul>\n";
}

}  // namespace

std::string HtmlReport(const Comparison& c, double threshold, const HtmlTitles& titles) {
  report::LayerChartPage page;
  page.title = "svp_compare: per-layer accuracy";
  page.threshold = threshold;
  page.meta_html = "golden <code>" + report::html_escape(titles.golden) + "</code>, actual <code>" +
                   report::html_escape(titles.actual) + "</code>; " + std::to_string(c.layers.size()) +
                   " layers compared, threshold " + FormatMetric(threshold) + ". ";
  const long first = FirstBelowThreshold(c.layers, threshold);
  if (first < 0) {
    page.meta_html += "Every layer's cosine is at least the threshold.";
  } else {
    const LayerResult& l = c.layers[static_cast<std::size_t>(first)];
    page.meta_html += "First layer below the threshold: <code>" + report::html_escape(l.layer) + "</code> (#" +
                      std::to_string(first + 1) + ", cosine " + FormatMetric(l.metrics.cosine) + ").";
  }
  page.series = {"cosine"};
  page.columns = {"#", "layer", "op", "tensor", "cosine", "rel. distance", "max abs", "mean abs", "KL", "samples"};
  page.name_columns = {1, 2, 3};
  for (std::size_t i = 0; i < c.layers.size(); ++i) {
    const LayerResult& l = c.layers[i];
    const Metrics& m = l.metrics;
    page.rows.push_back({l.layer,
                         {m.cosine},
                         {std::to_string(i + 1), l.layer, l.op, l.tensor, FormatMetric(m.cosine),
                          FormatMetric(m.relative_distance), FormatMetric(m.max_abs_error),
                          FormatMetric(m.mean_abs_error), FormatMetric(m.kl_divergence), std::to_string(l.samples)}});
  }
  page.table_order = WorstFirst(c.layers);
  page.notes_html = NoteList("Not compared", c.not_compared) + NoteList("Only in the golden dump", c.golden_unmatched) +
                    NoteList("Only in the actual dump", c.actual_unmatched);
  return report::render_layer_chart_page(page);
}

}  // namespace svp::compare
