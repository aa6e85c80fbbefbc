#include "compiler/quantize/calibration.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace svp::compiler::quant {
namespace {

constexpr int kQMin = -128;
constexpr int kQMax = 127;

float dequantized(float x, const Encoding& e) {
  const float q = std::nearbyint(x / e.scale) + static_cast<float>(e.zero_point);
  const float c = std::min(std::max(q, static_cast<float>(kQMin)), static_cast<float>(kQMax));
  return e.scale * (c - static_cast<float>(e.zero_point));
}

double bin_center(const HistogramObserver& h, std::size_t i) {
  const double w = (static_cast<double>(h.hi()) - h.lo()) / HistogramObserver::kBins;
  return h.lo() + (static_cast<double>(i) + 0.5) * w;
}

// KL divergence of the clipped reference distribution from its `levels`-level quantized
// version (TensorRT's entropy calibration, on a histogram of magnitudes).
double entropy_divergence(const std::vector<double>& hist, std::size_t i, std::size_t levels) {
  std::vector<double> p(hist.begin(), hist.begin() + static_cast<std::ptrdiff_t>(i));
  double outliers = 0;
  for (std::size_t k = i; k < hist.size(); ++k) outliers += hist[k];
  p[i - 1] += outliers;
  // Merge the i bins into `levels` groups, then spread each group's mass evenly over the
  // bins of that group that were non-empty in the reference.
  std::vector<double> q(i, 0.0);
  for (std::size_t g = 0; g < levels; ++g) {
    const std::size_t begin = g * i / levels;
    const std::size_t end = (g + 1) * i / levels;
    double mass = 0;
    std::size_t nonzero = 0;
    // The candidate is quantized from the bins as observed, before the outliers were
    // folded into the reference's last bin (TensorRT's order).
    for (std::size_t k = begin; k < end; ++k) {
      mass += hist[k];
      if (hist[k] > 0) ++nonzero;
    }
    if (nonzero == 0) continue;
    for (std::size_t k = begin; k < end; ++k) {
      if (hist[k] > 0) q[k] = mass / static_cast<double>(nonzero);
    }
  }
  double sp = 0, sq = 0;
  for (std::size_t k = 0; k < i; ++k) {
    sp += p[k];
    sq += q[k];
  }
  if (sp <= 0 || sq <= 0) return std::numeric_limits<double>::infinity();
  double kl = 0;
  for (std::size_t k = 0; k < i; ++k) {
    if (p[k] <= 0) continue;
    const double pk = p[k] / sp;
    const double qk = q[k] > 0 ? q[k] / sq : 1e-12;  // smoothed: a reference bin the candidate lost
    kl += pk * std::log(pk / qk);
  }
  return kl;
}

Encoding entropy_encoding(const HistogramObserver& h) {
  // Magnitudes in 2048 bins over [0, max |x|].
  const double m = std::max(std::fabs(static_cast<double>(h.lo())), std::fabs(static_cast<double>(h.hi())));
  const bool signed_data = h.lo() < 0;
  if (m <= 0) return encode_range(0, 0, signed_data);
  constexpr std::size_t n = HistogramObserver::kBins;
  std::vector<double> mag(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t c = h.bins()[i];
    if (c == 0) continue;
    const double x = std::fabs(bin_center(h, i));
    const auto k = std::min<std::size_t>(n - 1, static_cast<std::size_t>(x / m * static_cast<double>(n)));
    mag[k] += static_cast<double>(c);
  }
  // Signed data keeps 128 levels per side (symmetric int8); non-negative data uses 256.
  const std::size_t levels = signed_data ? 128 : 256;
  std::size_t best = n;
  double best_kl = std::numeric_limits<double>::infinity();
  for (std::size_t i = levels; i <= n; ++i) {
    const double kl = entropy_divergence(mag, i, levels);
    if (kl < best_kl) {  // strict: the smallest threshold among equals
      best_kl = kl;
      best = i;
    }
  }
  const auto t = static_cast<float>(m * static_cast<double>(best) / static_cast<double>(n));
  return signed_data ? encode_range(-t, t, true) : encode_range(0, t, false);
}

Encoding percentile_encoding(const HistogramObserver& h, double keep) {
  const double drop = std::max(0.0, (100.0 - keep) / 200.0) * static_cast<double>(h.count());
  const double w = (static_cast<double>(h.hi()) - h.lo()) / HistogramObserver::kBins;
  std::size_t lo = 0, hi = HistogramObserver::kBins - 1;
  double acc = 0;
  for (std::size_t i = 0; i < HistogramObserver::kBins; ++i) {
    acc += static_cast<double>(h.bins()[i]);
    if (acc > drop) {
      lo = i;
      break;
    }
  }
  acc = 0;
  for (std::size_t i = HistogramObserver::kBins; i-- > 0;) {
    acc += static_cast<double>(h.bins()[i]);
    if (acc > drop) {
      hi = i;
      break;
    }
  }
  return encode_range(static_cast<float>(h.lo() + static_cast<double>(lo) * w),
                      static_cast<float>(h.lo() + static_cast<double>(hi + 1) * w), false);
}

Encoding mse_encoding(const HistogramObserver& h) {
  // Each end of the range is clipped towards 0 in 1 % steps of its observed value, one end
  // at a time (coordinate descent, three rounds: the two ends interact only through the
  // step size); the clip with the least expected error wins, ties keep the wider range.
  const float lo0 = std::min(h.lo(), 0.0f);
  const float hi0 = std::max(h.hi(), 0.0f);
  float lo = lo0, hi = hi0;
  double best_err = expected_squared_error(h, encode_range(lo, hi, false));
  for (int round = 0; round < 3; ++round) {
    const float lo_before = lo, hi_before = hi;
    for (int side = 0; side < 2; ++side) {
      float best_end = side == 0 ? hi : lo;
      for (int k = 100; k >= 1; --k) {
        const float f = static_cast<float>(k) / 100.0f;
        const float end_value = (side == 0 ? hi0 : lo0) * f;
        const double err = expected_squared_error(h, side == 0 ? encode_range(lo, end_value, false)
                                                                : encode_range(end_value, hi, false));
        if (err < best_err) {
          best_err = err;
          best_end = end_value;
        }
      }
      (side == 0 ? hi : lo) = best_end;
    }
    if (lo == lo_before && hi == hi_before) break;
  }
  return encode_range(lo, hi, false);
}

}  // namespace

Result<Method> method_from_name(const std::string& name) {
  if (name == "minmax") return Method::kMinMax;
  if (name == "percentile") return Method::kPercentile;
  if (name == "entropy" || name == "kl") return Method::kEntropy;
  if (name == "mse") return Method::kMse;
  return Error(err::kInvalidParam, "calibration method \"{}\" is not one of minmax, percentile, entropy (kl), mse",
               name);
}

const char* method_name(Method m) {
  switch (m) {
    case Method::kMinMax: return "minmax";
    case Method::kPercentile: return "percentile";
    case Method::kEntropy: return "entropy";
    case Method::kMse: return "mse";
  }
  return "?";
}

Encoding encode_range(float lo, float hi, bool symmetric) {
  lo = std::min(lo, 0.0f);
  hi = std::max(hi, 0.0f);
  Encoding e;
  if (symmetric) {
    const float m = std::max(-lo, hi);
    if (!(m > 0.0f)) return e;
    e.scale = m / static_cast<float>(kQMax);
    e.zero_point = 0;
    e.lo = -m;
    e.hi = m;
    return e;
  }
  if (!(hi - lo > 0.0f)) return e;
  e.scale = (hi - lo) / static_cast<float>(kQMax - kQMin);
  const float zp = std::nearbyint(static_cast<float>(kQMin) - lo / e.scale);
  e.zero_point = static_cast<std::int32_t>(std::min(std::max(zp, static_cast<float>(kQMin)), static_cast<float>(kQMax)));
  e.lo = e.scale * static_cast<float>(kQMin - e.zero_point);
  e.hi = e.scale * static_cast<float>(kQMax - e.zero_point);
  return e;
}

void RangeObserver::add(const float* data, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const float x = data[i];
    if (!std::isfinite(x)) continue;  // an inf/NaN activation says nothing about the range
    if (count_ == 0) {
      min_ = max_ = x;
    } else {
      min_ = std::min(min_, x);
      max_ = std::max(max_, x);
    }
    ++count_;
  }
}

HistogramObserver::HistogramObserver(float lo, float hi)
    : lo_(lo), hi_(std::max(hi, lo)), width_((static_cast<double>(hi_) - lo_) / kBins), bins_(kBins, 0) {}

void HistogramObserver::add(const float* data, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const float x = data[i];
    if (!std::isfinite(x)) continue;
    std::size_t k = 0;
    if (width_ > 0) {
      const double pos = (static_cast<double>(x) - lo_) / width_;
      k = pos <= 0 ? 0 : std::min<std::size_t>(kBins - 1, static_cast<std::size_t>(pos));
    }
    ++bins_[k];
    ++count_;
  }
}

double expected_squared_error(const HistogramObserver& h, const Encoding& e) {
  if (h.count() == 0) return 0;
  double err = 0;
  for (std::size_t i = 0; i < HistogramObserver::kBins; ++i) {
    const std::uint64_t c = h.bins()[i];
    if (c == 0) continue;
    const double x = bin_center(h, i);
    const double d = x - static_cast<double>(dequantized(static_cast<float>(x), e));
    err += static_cast<double>(c) * d * d;
  }
  return err / static_cast<double>(h.count());
}

Result<Encoding> choose_encoding(const RangeObserver& range, const HistogramObserver* histogram,
                                 const CalibrationOptions& options) {
  if (range.empty()) return Error(err::kInvalidParam, "no finite value was observed: nothing to calibrate");
  if (options.method == Method::kMinMax) return encode_range(range.min(), range.max(), false);
  if (histogram == nullptr || histogram->count() == 0) {
    return Error(err::kInvalidParam, "calibration method {} needs a histogram of the values (a second pass)",
                 method_name(options.method));
  }
  switch (options.method) {
    case Method::kPercentile:
      if (!(options.percentile > 50.0 && options.percentile <= 100.0)) {
        return Error(err::kInvalidParam, "percentile {} is outside (50, 100]", options.percentile);
      }
      return percentile_encoding(*histogram, options.percentile);
    case Method::kEntropy:
      return entropy_encoding(*histogram);
    case Method::kMse:
      return mse_encoding(*histogram);
    case Method::kMinMax:
      break;
  }
  return encode_range(range.min(), range.max(), false);
}

}  // namespace svp::compiler::quant
