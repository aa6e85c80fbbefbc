// compare.html: one self-contained page (inline CSS, SVG and script, nothing fetched) with
// a bar chart of every layer's cosine in execution order against the threshold, the layer
// table sorted worst first (click a heading to sort by another column) and the notes.
//
// The table rows and chart bars are static HTML, readable without script; the script only
// sorts, and after loading sets <body data-rows data-bars data-rendered="1"> for headless
// checks.
#pragma once

#include <string>

#include "svp_compare/comparison.h"

namespace svp::compare {

struct HtmlTitles {
  std::string golden;  // the dump directories, as shown in the header
  std::string actual;
};

std::string HtmlReport(const Comparison& comparison, double threshold, const HtmlTitles& titles);

}  // namespace svp::compare
