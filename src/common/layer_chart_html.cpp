#include "common/layer_chart_html.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace svp::report {
namespace {

std::string coordinate(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// Bar colours per series (the first is the one-series colour); below the threshold a
// bar is red whatever its series.
constexpr const char* kSeriesColours[] = {"#4a7bd0", "#e09a3e", "#5aa469", "#8a6bbf"};

constexpr const char* kStyle = R"(<style>
body { font: 13px/1.4 system-ui, sans-serif; margin: 16px; color: #222; }
h1 { font-size: 18px; margin: 0 0 4px; }
.meta { color: #555; margin-bottom: 12px; }
.legend span { display: inline-block; width: 10px; height: 10px; margin: 0 4px 0 12px; }
table { border-collapse: collapse; margin-top: 12px; }
th, td { border: 1px solid #ccc; padding: 2px 6px; text-align: right; }
th { background: #f0f0f0; cursor: pointer; user-select: none; }
td.name { text-align: left; font-family: monospace; max-width: 34ch; overflow: hidden; text-overflow: ellipsis;
  white-space: nowrap; }
.chart { overflow-x: auto; max-width: 100%; }
tr.below td { background: #fde2e2; }
svg text { font: 10px sans-serif; fill: #333; }
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
    return t === '' || Number.isNaN(v) ? t : v;
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
  // Where the first cosine column ends on screen (the tests check it stays in view).
  const cos = Array.from(table.tHead.rows[0].cells).find((th) => th.textContent.includes('cosine'));
  if (cos) document.body.dataset.cosineRight = String(Math.round(cos.getBoundingClientRect().right));
  document.body.dataset.bars = String(document.querySelectorAll('#chart rect.bar').length);
  document.body.dataset.rendered = '1';
})();
</script>
)";

bool below(double cosine, double threshold) { return std::isnan(cosine) || cosine < threshold; }

bool row_below(const LayerChartRow& r, double threshold) {
  return std::any_of(r.cosines.begin(), r.cosines.end(),
                     [&](const std::optional<double>& c) { return c && below(*c, threshold); });
}

// The bars over [low, 1], where low leaves room below the threshold and the worst bar.
std::string chart(const LayerChartPage& p) {
  const std::size_t per = std::max<std::size_t>(p.series.size(), 1);
  double low = std::min(p.threshold, 1.0);
  for (const LayerChartRow& r : p.rows) {
    for (const std::optional<double>& c : r.cosines) {
      if (c && std::isfinite(*c)) low = std::min(low, *c);
    }
  }
  low = std::max(-1.0, low - std::max(0.1 * (1.0 - low), 0.001));
  const double left = 56, top = 12, height = 220;
  const double step = std::clamp(800.0 / static_cast<double>(std::max<std::size_t>(p.rows.size(), 1)),
                                 8.0 * static_cast<double>(per), 40.0 * static_cast<double>(per));
  const double bottom = top + height, width = left + step * static_cast<double>(p.rows.size()) + 20;
  auto y_of = [&](double c) { return top + (1.0 - std::clamp(c, low, 1.0)) / (1.0 - low) * height; };
  auto hline = [&](double y, const std::string& attrs) {
    return "<line x1=\"" + coordinate(left - 4) + "\" x2=\"" + coordinate(width - 10) + "\" y1=\"" + coordinate(y) +
           "\" y2=\"" + coordinate(y) + "\" " + attrs;
  };
  std::string svg = "<svg id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + coordinate(width) +
                    "\" height=\"" + coordinate(bottom + 150) + "\">\n";
  for (int t = 0; t <= 4; ++t) {
    const double c = low + (1.0 - low) * t / 4.0;
    svg += hline(y_of(c), "stroke=\"#e4e4e4\"/>\n");
    svg += "<text x=\"" + coordinate(left - 6) + "\" y=\"" + coordinate(y_of(c) + 3) + "\" text-anchor=\"end\">" +
           format_metric(c) + "</text>\n";
  }
  const double bar = step * 0.8 / static_cast<double>(per);
  // Rotated labels need ~14 px between them: with many layers the layers below the
  // threshold are labelled first, then every k-th layer where there is room (every bar
  // keeps its name in its tooltip).
  const std::size_t gap = static_cast<std::size_t>(std::ceil(14.0 / step));
  std::vector<bool> labelled(p.rows.size(), false);
  const auto room = [&](std::size_t i) {
    for (std::size_t j = i >= gap - 1 ? i - (gap - 1) : 0; j < std::min(i + gap, p.rows.size()); ++j) {
      if (labelled[j]) return false;
    }
    return true;
  };
  for (std::size_t i = 0; i < p.rows.size(); ++i) {
    if (row_below(p.rows[i], p.threshold) && room(i)) labelled[i] = true;
  }
  for (std::size_t i = 0; i < p.rows.size(); i += gap) {
    if (room(i)) labelled[i] = true;
  }
  for (std::size_t i = 0; i < p.rows.size(); ++i) {
    const LayerChartRow& r = p.rows[i];
    const double x = left + step * static_cast<double>(i);
    for (std::size_t s = 0; s < r.cosines.size() && s < per; ++s) {
      if (!r.cosines[s]) continue;
      const double c = *r.cosines[s];
      const double y = std::isnan(c) ? top : y_of(c);
      const std::string series = s < p.series.size() ? p.series[s] + " " : std::string();
      svg += "<rect class=\"bar" + std::string(below(c, p.threshold) ? " below" : "") + "\" fill=\"" +
             kSeriesColours[s % 4] + "\" x=\"" + coordinate(x + step * 0.1 + bar * static_cast<double>(s)) +
             "\" y=\"" + coordinate(y) + "\" width=\"" + coordinate(bar) + "\" height=\"" +
             coordinate(std::max(bottom - y, 0.5)) + "\"><title>" + html_escape(r.layer) + ": " +
             html_escape(series) + "cosine " + format_metric(c) + "</title></rect>\n";
    }
    if (!labelled[i]) continue;
    const std::string label = r.layer.size() > 28 ? "..." + r.layer.substr(r.layer.size() - 25) : r.layer;
    svg += "<text class=\"label\" transform=\"translate(" + coordinate(x + step * 0.5) + "," + coordinate(bottom + 8) +
           ") rotate(45)\">" + html_escape(label) + "</text>\n";
  }
  if (p.threshold > low && p.threshold <= 1.0) {
    svg += hline(y_of(p.threshold), "stroke=\"#d04a4a\" stroke-dasharray=\"5,4\"><title>threshold " +
                                        format_metric(p.threshold) + "</title></line>\n");
  }
  svg += hline(bottom, "stroke=\"#888\"/>\n") + "</svg>\n";
  return svg;
}

}  // namespace

std::string html_escape(const std::string& s) {
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

std::string format_metric(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", value);
  return buf;
}

std::string render_layer_chart_page(const LayerChartPage& p) {
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" +
                     html_escape(p.title) + "</title>\n";
  html += kStyle;
  html += "</head><body>\n<h1>" + html_escape(p.title) + "</h1>\n<div class=\"meta\">" + p.meta_html + "</div>\n";
  html += "<h2>Cosine similarity per layer (execution order)</h2>\n";
  if (p.series.size() > 1) {
    html += "<div class=\"legend\">";
    for (std::size_t s = 0; s < p.series.size(); ++s) {
      html += std::string("<span style=\"background:") + kSeriesColours[s % 4] + "\"></span>" + html_escape(p.series[s]);
    }
    html += "<span style=\"background:#d04a4a\"></span>below the threshold</div>\n";
  }
  html += "<div class=\"chart\">" + chart(p) + "</div>\n";
  html += "<h2>Layers</h2>\n<table id=\"layers\"><thead><tr>";
  for (const std::string& c : p.columns) html += "<th>" + html_escape(c) + "</th>";
  html += "</tr></thead>\n<tbody>\n";
  for (std::size_t i : p.table_order) {
    if (i >= p.rows.size()) continue;
    const LayerChartRow& r = p.rows[i];
    html += std::string("<tr") + (row_below(r, p.threshold) ? " class=\"below\"" : "") + ">";
    for (std::size_t c = 0; c < r.cells.size(); ++c) {
      const bool name = std::find(p.name_columns.begin(), p.name_columns.end(), c) != p.name_columns.end();
      // Long names are cut on screen (the cosine columns stay in view); the title has them.
      html += name ? "<td class=\"name\" title=\"" + html_escape(r.cells[c]) + "\">" : std::string("<td>");
      html += html_escape(r.cells[c]) + "</td>";
    }
    html += "</tr>\n";
  }
  html += "</tbody></table>\n";
  html += p.notes_html;
  html += kScript;
  html += "</body></html>\n";
  return html;
}

}  // namespace svp::report
