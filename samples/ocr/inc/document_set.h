// The input documents: every <name>.png of a directory with its ground truth <name>.txt
// (one line of text per line of the page, top to bottom).
#pragma once

#include <string>
#include <vector>

#include "ocr_pipeline.h"

namespace ocr {

// Pages in name order. Names ending in "_noisy" are degraded pages, scored by character
// error rate only (Page::exact false). Throws std::runtime_error when the directory holds
// no PNG, a PNG cannot be decoded or its truth file is missing.
std::vector<Page> load_documents(const std::string& dir);

}  // namespace ocr
