#include "svp_compare/html_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "svp_compare/report.h"

namespace svp::compare {
namespace {

std::string HtmlEscape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string Coordinate(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

constexpr const char* kStyle = R"(<style>
body { font: 13px/1.4 system-ui, sans-serif; margin: 16px; color: #222; }
h1 { font-size: 18px; margin: 0 0 4px; }
.meta { color: #555; margin-bottom: 12px; }
table { border-collapse: collapse; margin-top: 12px; }
th, td { border: 1px solid #ccc; padding: 2px 6px; text-align: right; }
th { background: #f0f0f0; cursor: pointer; user-select: none; }
td.name { text-align: left; font-family: monospace; }
tr.below td { background: #fde2e2; }
svg text { font: 10px sans-serif; fill: #333; }
rect.bar { fill: #4a7bd0; }
rect.bar.below { fill: #d04a4a; }
ul { margin: 4px 0; }
</style>
)";

// Sorting by a column heading (numbers as numbers, "nan" lowest) and the headless flags.
constexpr const char* kScript = R"(<script>
(function () {
  const table = document.getElementById('layers');
  const body = table.tBodies[0];
  const key = (cell) => {
    const t = cell.textContent;
    if (t === 'nan') return -Infinity;
    const v = Number(t);
    return Number.isNaN(v) ? t : v;
  };
  let last = -1, dir = 1;
  Array.from(table.tHead.rows[0].cells).forEach((th, col) => {
    th.addEventListener('click', () => {
      dir = col === last ? -dir : 1;
      last = col;
      const rows = Array.from(body.rows);
      rows.sort((a, b) => {
        const x = key(a.cells[col]), y = key(b.cells[col]);
        return (x < y ? -1 : x > y ? 1 : 0) * dir;
      });
      rows.forEach((r) => body.appendChild(r));
    });
  });
  document.body.dataset.rows = String(body.rows.length);
  document.body.dataset.bars = String(document.querySelectorAll('#chart rect.bar').length);
  document.body.dataset.rendered = '1';
})();
</script>
)";

bool IsBelow(const LayerResult& l, double threshold) {
  return std::isnan(l.metrics.cosine) || l.metrics.cosine < threshold;
}

// Bars of the cosine per layer in execution order, over [low, 1] where low leaves room
// below the threshold and the worst layer; the threshold is a dashed line.
std::string CosineChart(const std::vector<LayerResult>& layers, double threshold) {
  double low = std::min(threshold, 1.0);
  for (const LayerResult& l : layers) {
    if (std::isfinite(l.metrics.cosine)) low = std::min(low, l.metrics.cosine);
  }
  low = std::max(-1.0, low - std::max(0.1 * (1.0 - low), 0.001));
  const double left = 56, top = 12, height = 220, step = std::clamp(800.0 / std::max<std::size_t>(layers.size(), 1), 8.0, 40.0);
  const double bottom = top + height, width = left + step * static_cast<double>(layers.size()) + 20;
  auto y_of = [&](double c) { return top + (1.0 - std::clamp(c, low, 1.0)) / (1.0 - low) * height; };
  std::string svg = "<svg id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Coordinate(width) +
                    "\" height=\"" + Coordinate(bottom + 150) + "\">\n";
  for (int t = 0; t <= 4; ++t) {
    const double c = low + (1.0 - low) * t / 4.0;
    svg += "<line x1=\"" + Coordinate(left - 4) + "\" x2=\"" + Coordinate(width - 10) + "\" y1=\"" +
           Coordinate(y_of(c)) + "\" y2=\"" + Coordinate(y_of(c)) + "\" stroke=\"#e4e4e4\"/>\n";
    svg += "<text x=\"" + Coordinate(left - 6) + "\" y=\"" + Coordinate(y_of(c) + 3) +
           "\" text-anchor=\"end\">" + FormatMetric(c) + "</text>\n";
  }
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const LayerResult& l = layers[i];
    const double x = left + step * static_cast<double>(i);
    const double c = l.metrics.cosine;
    const double y = std::isnan(c) ? top : y_of(c);
    svg += "<rect class=\"bar" + std::string(IsBelow(l, threshold) ? " below" : "") + "\" x=\"" +
           Coordinate(x + step * 0.1) + "\" y=\"" + Coordinate(y) + "\" width=\"" + Coordinate(step * 0.8) +
           "\" height=\"" + Coordinate(std::max(bottom - y, 0.5)) + "\"><title>" + HtmlEscape(l.layer) +
           ": cosine " + FormatMetric(c) + "</title></rect>\n";
    const double lx = x + step * 0.5;
    svg += "<text transform=\"translate(" + Coordinate(lx) + "," + Coordinate(bottom + 8) +
           ") rotate(45)\">" + HtmlEscape(l.layer.size() > 28 ? "..." + l.layer.substr(l.layer.size() - 25) : l.layer) +
           "</text>\n";
  }
  if (threshold > low && threshold <= 1.0) {
    svg += "<line x1=\"" + Coordinate(left - 4) + "\" x2=\"" + Coordinate(width - 10) + "\" y1=\"" +
           Coordinate(y_of(threshold)) + "\" y2=\"" + Coordinate(y_of(threshold)) +
           "\" stroke=\"#d04a4a\" stroke-dasharray=\"5,4\"><title>threshold " + FormatMetric(threshold) +
           "</title></line>\n";
  }
  svg += "<line x1=\"" + Coordinate(left - 4) + "\" x2=\"" + Coordinate(width - 10) + "\" y1=\"" +
         Coordinate(bottom) + "\" y2=\"" + Coordinate(bottom) + "\" stroke=\"#888\"/>\n</svg>\n";
  return svg;
}

void NoteList(std::string* html, const char* title, const std::vector<LayerNote>& notes) {
  if (notes.empty()) return;
  *html += std::string("<h2>") + title + "</h2>\n<ul>\n";
  for (const LayerNote& n : notes) {
    *html += "<li><code>" + HtmlEscape(n.layer) + "</code>: " + HtmlEscape(n.reason) + "</li>\n";
  }
  *html += "</ul>\n";
}

}  // namespace

std::string HtmlReport(const Comparison& c, double threshold, const HtmlTitles& titles) {
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>svp_compare</title>\n";
  html += kStyle;
  html += "</head><body>\n<h1>svp_compare: per-layer accuracy</h1>\n<div class=\"meta\">golden <code>" +
          HtmlEscape(titles.golden) + "</code>, actual <code>" + HtmlEscape(titles.actual) + "</code>; " +
          std::to_string(c.layers.size()) + " layers compared, threshold " + FormatMetric(threshold) + ". ";
  const long first = FirstBelowThreshold(c.layers, threshold);
  if (first < 0) {
    html += "Every layer's cosine is at least the threshold.";
  } else {
    const LayerResult& l = c.layers[static_cast<std::size_t>(first)];
    html += "First layer below the threshold: <code>" + HtmlEscape(l.layer) + "</code> (#" +
            std::to_string(first + 1) + ", cosine " + FormatMetric(l.metrics.cosine) + ").";
  }
  html += "</div>\n<h2>Cosine similarity per layer (execution order)</h2>\n";
  html += CosineChart(c.layers, threshold);
  html += "<h2>Layers, worst first</h2>\n<table id=\"layers\"><thead><tr><th>#</th><th>layer</th><th>op</th>"
          "<th>tensor</th><th>cosine</th><th>rel. distance</th><th>max abs</th><th>mean abs</th><th>KL</th>"
          "<th>samples</th></tr></thead>\n<tbody>\n";
  for (std::size_t i : WorstFirst(c.layers)) {
    const LayerResult& l = c.layers[i];
    const Metrics& m = l.metrics;
    html += std::string("<tr") + (IsBelow(l, threshold) ? " class=\"below\"" : "") + "><td>" +
            std::to_string(i + 1) + "</td><td class=\"name\">" + HtmlEscape(l.layer) + "</td><td class=\"name\">" +
            HtmlEscape(l.op) + "</td><td class=\"name\">" + HtmlEscape(l.tensor) + "</td><td>" +
            FormatMetric(m.cosine) + "</td><td>" + FormatMetric(m.relative_distance) + "</td><td>" +
            FormatMetric(m.max_abs_error) + "</td><td>" + FormatMetric(m.mean_abs_error) + "</td><td>" +
            FormatMetric(m.kl_divergence) + "</td><td>" + std::to_string(l.samples) + "</td></tr>\n";
  }
  html += "</tbody></table>\n";
  NoteList(&html, "Not compared", c.not_compared);
  NoteList(&html, "Only in the golden dump", c.golden_unmatched);
  NoteList(&html, "Only in the actual dump", c.actual_unmatched);
  html += kScript;
  html += "</body></html>\n";
  return html;
}

}  // namespace svp::compare
