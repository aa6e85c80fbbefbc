// Scoring recognised pages against their ground truth, and printing them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "ocr_pipeline.h"

namespace ocr {

struct Score {
  std::size_t edits = 0;           // character edits from the recognised text to the truth
  std::size_t chars = 0;           // characters of the truth
  std::size_t lines = 0;           // truth lines
  std::size_t exact = 0;           // truth lines recognised exactly
  std::size_t required = 0;        // truth lines that must be exact (pages not marked noisy)
  std::size_t required_exact = 0;  // of those, recognised exactly

  Score& operator+=(const Score& o);
  double cer() const { return chars ? double(edits) / double(chars) : 0.0; }
};

// Lines are paired in reading order when the page has as many as its truth; otherwise the
// whole page counts as one text (lines joined by newlines) and no line as exact.
Score score_page(const PageResult& r);

// The page's lines beside the truth, with the classifier's and recogniser's decisions and
// the page's stage latencies.
void print_page(const PageResult& r);

// The texts of a page, for comparing two runs.
std::vector<std::string> texts(const PageResult& r);

}  // namespace ocr
