// What the RKNN tests (tests/rknn, tests/rknn_convert, the RKNN stress test) share: seeded
// input data, output cosine and message checks.
#pragma once

#include <cmath>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

namespace svp::test {

// `n` values uniform in [lo, hi) from std::mt19937(seed): the same data on every run.
inline std::vector<float> uniform(std::size_t n, unsigned seed, float lo = 0.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& f : v) f = d(rng);
  return v;
}

// Cosine similarity; 0 when the sizes differ or either side is all zeros.
inline double cosine(const std::vector<float>& a, const std::vector<float>& b) {
  double ab = 0, aa = 0, bb = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    ab += static_cast<double>(a[i]) * b[i];
    aa += static_cast<double>(a[i]) * a[i];
    bb += static_cast<double>(b[i]) * b[i];
  }
  return a.size() == b.size() && aa > 0 && bb > 0 ? ab / std::sqrt(aa * bb) : 0.0;
}

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace svp::test
