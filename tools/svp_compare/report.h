// The comparison as text: the table svp_compare prints and compare.csv.
//
// Both list the layers in execution order with their worst-first rank (1 = lowest cosine),
// so a reader sees where the error enters and which layer ends up worst; the table ends
// with the worst layers, the first layer below the threshold and what was not compared.
#pragma once

#include <ostream>
#include <string>

#include "svp_compare/comparison.h"

namespace svp::compare {

// A metric as the table, the CSV and the HTML page print it: "nan", "inf" or %.6g.
std::string FormatMetric(double value);

void PrintTable(std::ostream& out, const Comparison& comparison, double threshold);

// compare.csv: a header line, then one line per compared layer in execution order.
std::string CsvText(const Comparison& comparison, double threshold);

}  // namespace svp::compare
