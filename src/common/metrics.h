// Per-tensor accuracy metrics (definitions: docs/accuracy.md, "Metrics"): svp_compare's
// and the compiler's per-layer analysis (compiler/quantize/layer_accuracy.h).
//
// Pure functions of two equally long arrays of doubles, the golden g and the actual a.
// Everything is accumulated in double, in index order, so results are deterministic.
// Non-finite elements (NaN, ±Inf) are counted per side and excluded, pairwise, from every
// other metric: a pair enters the sums only when both of its elements are finite.
// Thread-safe (no state). Lengths must match; the caller reports a shape mismatch instead.
#pragma once

#include <cstddef>
#include <limits>
#include <vector>

namespace svp::compare {

struct Metrics {
  // cos = Σ g·a / (‖g‖·‖a‖). Both norms zero: 1 (identical all-zero tensors);
  // exactly one zero: 0. NaN when no finite pair exists.
  double cosine = 0.0;
  // ‖a − g‖ / ‖g‖; ‖g‖ = 0: 0 when a is also zero, +Inf otherwise.
  double relative_distance = 0.0;
  // ‖a − g‖, the Euclidean distance itself (RKNN's accuracy analysis prints it as "euc").
  double euclidean_distance = 0.0;
  double max_abs_error = 0.0;   // max |a − g|
  double mean_abs_error = 0.0;  // Σ |a − g| / n (n finite pairs)
  // KL(P‖Q) with P = softmax(g), Q = softmax(a) over the flattened finite pairs, in nats.
  double kl_divergence = 0.0;
  std::size_t finite_pairs = 0;
  std::size_t golden_nan = 0, golden_inf = 0;
  std::size_t actual_nan = 0, actual_inf = 0;
};

// Precondition: golden.size() == actual.size().
Metrics ComputeMetrics(const std::vector<double>& golden, const std::vector<double>& actual);

// The same metrics accumulated pair by pair, in O(1) memory: the per-layer analyses feed
// every sample of a layer through one accumulator instead of concatenating them (memory
// then no longer grows with the number of inputs). Adding the pairs of ComputeMetrics'
// arrays in order gives its result. Not thread-safe: one accumulator per thread.
class MetricsAccumulator {
 public:
  void Add(double golden, double actual);
  void Add(const std::vector<double>& golden, const std::vector<double>& actual);
  // n float pairs, both sides clamped at 0 first when `clamp_at_zero`; several times faster
  // than pair by pair (the per-layer analysis's tens of millions of pairs): the softmax
  // terms of KL are computed in float precision (relative error below 1e-7 on each, so KL
  // agrees to about 1e-7 of its value), everything else as Add(double, double) does.
  void Add(const float* golden, const float* actual, std::size_t n, bool clamp_at_zero = false);
  // x.Add(golden, a, n, clamp) and y.Add(golden, b, n, clamp), with the same results, the
  // golden side's work (its copy, clamping, maximum and, while both accumulators stand at
  // the same maximum, its exponentials) done once: the per-layer analysis compares each
  // layer's float output with two others.
  static void AddBoth(MetricsAccumulator& x, const float* a, MetricsAccumulator& y, const float* b,
                      const float* golden, std::size_t n, bool clamp_at_zero = false);
  Metrics Result() const;

 private:
  struct Side;  // one side of a block of pairs, prepared
  static constexpr std::size_t kBlock = 256;  // pairs per block, a multiple of 4
  // One prepared block: the pair-by-pair path when a side is not finite, else the maxima
  // raised and, with `eg` null, the golden side's exponentials computed here.
  void add_block(Side& g, Side& a, const float* eg);
  // Raises the running maxima to the block's; the pair path's caller checked finiteness.
  void raise_maxima(float gm, float am);
  void accumulate_block(const float* g, const float* a, const float* eg, const float* ea, std::size_t n);
  Metrics m_;  // the counts
  double dot_ = 0, gg_ = 0, aa_ = 0, dd_ = 0, sum_abs_ = 0, max_abs_ = 0;
  // Online log-sum-exp of g and a (max and Σ exp(x − max)), and Σ exp(g − max_g)(g − a).
  double max_g_ = -std::numeric_limits<double>::infinity(), max_a_ = -std::numeric_limits<double>::infinity();
  double z_g_ = 0, z_a_ = 0, s_ = 0;
};

}  // namespace svp::compare
