// The OCR sample's defaults (vendor layout: relative to out/, where the program runs).
#pragma once

namespace ocr {

constexpr const char* kDefaultModelDir = "../model";  // script/compile_model.sh's output
constexpr const char* kDefaultDataDir = "../data";
// Character error rate allowed over all pages (samples/README.md gives the measured value).
constexpr double kDefaultMaxCer = 0.02;
// The throughput pass runs every page this many times, all started at once.
constexpr int kDefaultRounds = 3;
// Executions in flight per model (datasets per model): two pages or lines at a time keep
// the NPU busy while the host prepares the next input.
constexpr int kInFlight = 2;
// Host worker threads (asio::thread_pool): DB post-processing, crops, CTC decoding.
constexpr int kHostThreads = 2;

}  // namespace ocr
