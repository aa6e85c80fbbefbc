// Running a set of pages through the pipeline and waiting for all of them.
#pragma once

#include <cstddef>
#include <vector>

#include "ocr_pipeline.h"

namespace ocr {

// Runs `pages` through the pipeline, `concurrent` at a time at most (the pipeline's own
// dataset pools limit what runs on the NPU); blocks the calling thread (which must not be
// one of the pipeline's host threads) until the last page is done and returns the results
// in `pages` order. A page that failed has its PageResult::error set.
std::vector<PageResult> run_pages(Pipeline& pipeline, const std::vector<const Page*>& pages, std::size_t concurrent);

}  // namespace ocr
