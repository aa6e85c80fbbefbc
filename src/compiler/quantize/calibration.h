// Calibration: from the values an activation tensor took on the calibration data to the
// range its int8 encoding covers (and so its scale and zero point).
//
// Two passes over the calibration data, as the vendor's ATC and TensorRT do: the first
// finds each tensor's minimum and maximum (RangeObserver), the second fills a histogram of
// 2048 bins over exactly that range (HistogramObserver). A Method then picks the clipping
// range from them:
//   kMinMax      the whole observed range (the vendor's --quant_mode=0, "linear");
//   kPercentile  drops the given fraction of the most extreme values on each side;
//   kEntropy     TensorRT's entropy calibration: the clipping threshold whose quantized
//                distribution is closest (KL divergence) to the observed one;
//   kMse         the clipping range with the smallest expected squared quantization error
//                (our reading of the vendor's search-based --quant_mode=1 for activations).
// Ranges always contain 0 (so that 0 — padding, ReLU's floor — is exact) and encode as
// int8 with a zero point: asymmetric ranges use all 256 levels (a ReLU output gets
// [0, max] → -128..127), symmetric ones (kEntropy on signed data) zero point 0.
//
// Deterministic: the same values in the same order give the same result bit for bit.
// Not thread-safe: one observer per tensor, fed by one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace svp::compiler::quant {

enum class Method { kMinMax, kPercentile, kEntropy, kMse };

// Parses "minmax" | "percentile" | "entropy" (alias "kl") | "mse"; error names the accepted values.
Result<Method> method_from_name(const std::string& name);
const char* method_name(Method m);

// The int8 encoding of a real range: real = scale * (q - zero_point), q in [-128, 127].
struct Encoding {
  float scale = 1.0f;
  std::int32_t zero_point = 0;
  float lo = 0.0f;  // the real range the encoding covers (after clipping)
  float hi = 0.0f;
};

// The encoding of [lo, hi] (widened to contain 0; a zero-width range gets scale 1).
// `symmetric`: zero point 0 and the range ±max(|lo|, |hi|).
Encoding encode_range(float lo, float hi, bool symmetric);

class RangeObserver {
 public:
  void add(const float* data, std::size_t n);
  bool empty() const { return count_ == 0; }
  float min() const { return min_; }
  float max() const { return max_; }
  std::uint64_t count() const { return count_; }

 private:
  float min_ = 0.0f;
  float max_ = 0.0f;
  std::uint64_t count_ = 0;
};

class HistogramObserver {
 public:
  static constexpr std::size_t kBins = 2048;
  // The range comes from the first pass; values outside it (there should be none) go to
  // the edge bins.
  HistogramObserver(float lo, float hi);
  void add(const float* data, std::size_t n);

  float lo() const { return lo_; }
  float hi() const { return hi_; }
  const std::vector<std::uint64_t>& bins() const { return bins_; }
  std::uint64_t count() const { return count_; }

 private:
  float lo_;
  float hi_;
  double width_;  // of one bin
  std::vector<std::uint64_t> bins_;
  std::uint64_t count_ = 0;
};

struct CalibrationOptions {
  Method method = Method::kMinMax;
  double percentile = 99.99;  // kPercentile: keep this share (in %) of the values
};

// The encoding `options.method` chooses from a tensor's observed range and histogram
// (the histogram is not read by kMinMax and may be null then).
Result<Encoding> choose_encoding(const RangeObserver& range, const HistogramObserver* histogram,
                                 const CalibrationOptions& options);

// Expected squared error per value of quantizing the histogram's values with `e`
// (clipping included); the measure kMse minimises, exposed for tests and reports.
double expected_squared_error(const HistogramObserver& h, const Encoding& e);

}  // namespace svp::compiler::quant
