// One self-contained HTML page of per-layer accuracy (inline CSS, SVG and script, nothing
// fetched): a bar chart of each layer's cosine similarity in execution order — one bar per
// series (svp_compare: the dumps' "entire" cosine; svp_atc --accuracy_report: "single" and
// "entire") — against a dashed threshold, then a table in the order given (click a heading
// to sort by that column) and free notes. svp_compare's compare.html and the compiler's
// <output>_layer_accuracy.html are both this page.
//
// The rows and bars are static HTML, readable without script; the script only sorts, and
// after loading sets <body data-rows data-bars data-rendered="1"> for headless checks
// (tests open the page in Chromium). Pure functions, thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace svp::report {

struct LayerChartRow {
  std::string layer;            // shown under its bars and in their tooltips
  // One per series. NaN: nothing finite to compare (drawn full height, marked below the
  // threshold); nullopt: the series does not apply to this layer (no bar).
  std::vector<std::optional<double>> cosines;
  std::vector<std::string> cells;  // the table row (text, escaped by the renderer), as many as columns
};

struct LayerChartPage {
  std::string title;     // <title> and heading
  std::string meta_html;  // the line under the heading (HTML: the caller escapes its parts)
  std::vector<std::string> series;   // names of the bars of a layer, e.g. {"single", "entire"}
  std::vector<std::string> columns;  // table headings
  std::vector<LayerChartRow> rows;   // execution order (the chart's order)
  std::vector<std::size_t> table_order;  // indices into rows, in table order (e.g. worst first)
  // Name cells (left-aligned, monospace): those columns' indices.
  std::vector<std::size_t> name_columns;
  double threshold = 0.99;   // a row is marked when any of its cosines is below (or NaN)
  std::string notes_html;    // after the table (HTML)
};

std::string html_escape(const std::string& s);

// "nan", "inf" or %.6g: the figures' format in every report.
std::string format_metric(double value);

std::string render_layer_chart_page(const LayerChartPage& page);

}  // namespace svp::report
