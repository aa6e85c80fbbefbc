#include "common/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <tuple>

namespace svp::compare {

void MetricsAccumulator::Add(double g, double a) {
  if (std::isnan(g)) ++m_.golden_nan;
  else if (std::isinf(g)) ++m_.golden_inf;
  if (std::isnan(a)) ++m_.actual_nan;
  else if (std::isinf(a)) ++m_.actual_inf;
  if (!std::isfinite(g) || !std::isfinite(a)) return;
  ++m_.finite_pairs;
  const double d = a - g;
  dot_ += g * a;
  gg_ += g * g;
  aa_ += a * a;
  dd_ += d * d;
  sum_abs_ += std::fabs(d);
  max_abs_ = std::max(max_abs_, std::fabs(d));
  // Online log-sum-exp: the sums are kept relative to the largest value seen so far and
  // rescaled when a larger one arrives, so large logits never overflow.
  if (g > max_g_) {
    const double k = std::exp(max_g_ - g);  // 0 for the first pair (max_g_ = -inf)
    z_g_ *= k;
    s_ *= k;
    max_g_ = g;
  }
  if (a > max_a_) {
    z_a_ *= std::exp(max_a_ - a);
    max_a_ = a;
  }
  const double w = std::exp(g - max_g_);
  z_g_ += w;
  s_ += w * (g - a);
  z_a_ += std::exp(a - max_a_);
}

void MetricsAccumulator::Add(const std::vector<double>& golden, const std::vector<double>& actual) {
  const std::size_t n = std::min(golden.size(), actual.size());
  for (std::size_t i = 0; i < n; ++i) Add(golden[i], actual[i]);
}

namespace {

// e^x for x ≤ 0 in float precision, a vector of lanes at a time (GCC vector extensions, no
// math library call): e^x as 2^k·e^f with k an integer and f = x − k·ln 2 ∈ [-0.35, 0.35],
// e^f from its degree-7 Taylor series (truncation error 5e-9; measured error against exp()
// below 1e-7 over [-87, 0]). Below -87 the result is 0 (e^-87 ~ 1.6e-38: nothing against
// the maximum's term of 1). One body for four lanes (SSE2, the x86-64 baseline) and eight
// (AVX2, inlined into a target("avx2") caller): every lane gets the same float operations in
// the same order (no FMA), so both widths give the same bits.
typedef float v4f __attribute__((vector_size(16)));
typedef std::int32_t v4i __attribute__((vector_size(16)));
typedef float v8f __attribute__((vector_size(32)));
typedef std::int32_t v8i __attribute__((vector_size(32)));

// In place (`*v`), so that no vector is passed or returned by value: an eight-lane vector in
// a signature compiled without AVX would change the calling convention (GCC's -Wpsabi).
template <typename VF, typename VI>
__attribute__((always_inline)) inline void exp_nonpositive(VF* v) {
  VF x = *v;
  const VF lo = VF{} - 87.0f;
  const VI underflow = x < lo;
  x = underflow ? lo : x;
  const VF k = (x * 1.44269504089f + 12582912.0f) - 12582912.0f;  // round (the 1.5·2^23 trick)
  const VF f = (x - k * 0.693145751953125f) - k * 1.428606765330187e-06f;  // ln 2 in two parts: exact k·hi
  VF p = VF{} + 1.0f / 5040;
  p = p * f + 1.0f / 720;
  p = p * f + 1.0f / 120;
  p = p * f + 1.0f / 24;
  p = p * f + 1.0f / 6;
  p = p * f + 0.5f;
  p = p * f + 1.0f;
  p = p * f + 1.0f;
  const VI bits = (__builtin_convertvector(k, VI) + 127) << 23;
  VF scale;
  std::memcpy(&scale, &bits, sizeof scale);
  *v = underflow ? VF{} : p * scale;
}

// Eight lanes for CPUs that have AVX2: the exponentials are the largest part of the
// per-layer analysis's metrics.
__attribute__((target("avx2"))) void exps_avx2(const float* v, std::size_t n, float mx, float* e) {
  for (std::size_t i = 0; i + 8 <= n; i += 8) {
    v8f x;
    std::memcpy(&x, v + i, sizeof x);
    x = x - mx;
    exp_nonpositive<v8f, v8i>(&x);
    std::memcpy(e + i, &x, sizeof x);
  }
}

bool has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}

}  // namespace

// The sums over one block of float pairs (n a multiple of 2), two lanes of doubles at a
// time: the order of the additions differs from the pair path's only by the pairing
// (results agree to rounding, ~1e-16 relative).
void MetricsAccumulator::accumulate_block(const float* g, const float* a, const float* eg, const float* ea,
                                          std::size_t n) {
  typedef double v2d __attribute__((vector_size(16)));
  v2d dot{}, gg{}, aa{}, dd{}, sum_abs{}, max_abs{}, zg{}, s{}, za{};
  for (std::size_t i = 0; i < n; i += 2) {
    const v2d gi = {g[i], g[i + 1]}, ai = {a[i], a[i + 1]}, egi = {eg[i], eg[i + 1]}, eai = {ea[i], ea[i + 1]};
    const v2d d = ai - gi;
    const v2d ad = d < 0 ? -d : d;
    dot += gi * ai;
    gg += gi * gi;
    aa += ai * ai;
    dd += d * d;
    sum_abs += ad;
    max_abs = ad > max_abs ? ad : max_abs;
    zg += egi;
    s -= egi * d;
    za += eai;
  }
  dot_ += dot[0] + dot[1];
  gg_ += gg[0] + gg[1];
  aa_ += aa[0] + aa[1];
  dd_ += dd[0] + dd[1];
  sum_abs_ += sum_abs[0] + sum_abs[1];
  max_abs_ = std::max({max_abs_, max_abs[0], max_abs[1]});
  z_g_ += zg[0] + zg[1];
  s_ += s[0] + s[1];
  z_a_ += za[0] + za[1];
}

// One side of a block of float pairs: its values clamped at 0 when asked (NaN stays NaN),
// the last group's spare lanes repeating the first value (they change no maximum), its
// maximum and whether all are finite, four lanes at a time.
struct MetricsAccumulator::Side {
  alignas(16) float v[kBlock];
  float max = 0;
  bool finite = true;
  std::size_t m = 0;

  void prepare(const float* src, std::size_t count, bool clamp_at_zero) {
    m = count;
    std::memcpy(v, src, m * sizeof(float));
    for (std::size_t i = m; i % 4 != 0; ++i) v[i] = v[0];
    const v4f zero{}, low = zero - std::numeric_limits<float>::infinity();
    v4f vmax = low;
    v4i bad{};
    for (std::size_t i = 0; i < m; i += 4) {
      v4f x;
      std::memcpy(&x, v + i, sizeof x);
      if (clamp_at_zero) {
        x = x < zero ? zero : x;
        std::memcpy(v + i, &x, sizeof x);
      }
      bad |= x - x != zero;  // NaN or ±Inf
      vmax = x > vmax ? x : vmax;
    }
    finite = (bad[0] | bad[1] | bad[2] | bad[3]) == 0;
    max = std::max({vmax[0], vmax[1], vmax[2], vmax[3]});
  }
  // e^(v − mx) into `e`, the spare lanes zero on both (they add nothing).
  void exps(float mx, float* e) {
    for (std::size_t i = m; i % 4 != 0; ++i) v[i] = 0.0f;
    std::size_t done = 0;
    if (has_avx2()) {
      done = m / 8 * 8;
      exps_avx2(v, done, mx, e);
    }
    for (std::size_t i = done; i < m; i += 4) {
      v4f x;
      std::memcpy(&x, v + i, sizeof x);
      x = x - mx;
      exp_nonpositive<v4f, v4i>(&x);
      std::memcpy(e + i, &x, sizeof x);
    }
    for (std::size_t i = m; i % 4 != 0; ++i) e[i] = 0.0f;
  }
};

void MetricsAccumulator::raise_maxima(float gm, float am) {
  // The running maxima rise to the block's first, so every exponent below is ≤ 0.
  if (gm > max_g_) {
    const double k = std::exp(max_g_ - gm);
    z_g_ *= k;
    s_ *= k;
    max_g_ = gm;
  }
  if (am > max_a_) {
    z_a_ *= std::exp(max_a_ - am);
    max_a_ = am;
  }
}

void MetricsAccumulator::add_block(Side& g, Side& a, const float* eg) {
  alignas(16) float own_eg[kBlock], ea[kBlock];
  if (eg == nullptr) {
    raise_maxima(g.max, a.max);
    g.exps(static_cast<float>(max_g_), own_eg);
    eg = own_eg;
  }
  a.exps(static_cast<float>(max_a_), ea);
  accumulate_block(g.v, a.v, eg, ea, (g.m + 3) / 4 * 4);
  m_.finite_pairs += g.m;
}

void MetricsAccumulator::Add(const float* golden, const float* actual, std::size_t n, bool clamp_at_zero) {
  Side g, a;
  for (std::size_t start = 0; start < n; start += kBlock) {
    const std::size_t m = std::min(kBlock, n - start);
    g.prepare(golden + start, m, clamp_at_zero);
    a.prepare(actual + start, m, clamp_at_zero);
    if (!g.finite || !a.finite) {  // the counts and exclusions of the pair-by-pair path
      for (std::size_t i = 0; i < m; ++i) Add(static_cast<double>(g.v[i]), static_cast<double>(a.v[i]));
      continue;
    }
    add_block(g, a, nullptr);
  }
}

void MetricsAccumulator::AddBoth(MetricsAccumulator& x, const float* a, MetricsAccumulator& y, const float* b,
                                 const float* golden, std::size_t n, bool clamp_at_zero) {
  Side g, sa, sb;
  alignas(16) float eg[kBlock];
  for (std::size_t start = 0; start < n; start += kBlock) {
    const std::size_t m = std::min(kBlock, n - start);
    g.prepare(golden + start, m, clamp_at_zero);
    sa.prepare(a + start, m, clamp_at_zero);
    sb.prepare(b + start, m, clamp_at_zero);
    const bool fa = g.finite && sa.finite, fb = g.finite && sb.finite;
    if (fa) x.raise_maxima(g.max, sa.max);
    if (fb) y.raise_maxima(g.max, sb.max);
    const bool shared = fa && fb && x.max_g_ == y.max_g_;
    if (shared) g.exps(static_cast<float>(x.max_g_), eg);
    for (auto [acc, side, ok] : {std::tuple{&x, &sa, fa}, std::tuple{&y, &sb, fb}}) {
      if (!ok) {  // the counts and exclusions of the pair-by-pair path
        for (std::size_t i = 0; i < m; ++i) acc->Add(static_cast<double>(g.v[i]), static_cast<double>(side->v[i]));
      } else if (shared) {
        acc->add_block(g, *side, eg);
      } else {
        Side copy = g;  // the exponentials against this accumulator's own maximum
        alignas(16) float own[kBlock];
        copy.exps(static_cast<float>(acc->max_g_), own);
        acc->add_block(copy, *side, own);
      }
    }
  }
}

Metrics MetricsAccumulator::Result() const {
  Metrics r = m_;
  if (r.finite_pairs == 0) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    r.cosine = r.relative_distance = r.euclidean_distance = r.max_abs_error = r.mean_abs_error = r.kl_divergence = nan;
    return r;
  }
  if (gg_ == 0.0 && aa_ == 0.0) r.cosine = 1.0;
  else if (gg_ == 0.0 || aa_ == 0.0) r.cosine = 0.0;
  else r.cosine = std::clamp(dot_ / (std::sqrt(gg_) * std::sqrt(aa_)), -1.0, 1.0);
  if (gg_ == 0.0) r.relative_distance = dd_ == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  else r.relative_distance = std::sqrt(dd_) / std::sqrt(gg_);
  r.euclidean_distance = std::sqrt(dd_);
  r.max_abs_error = max_abs_;
  r.mean_abs_error = sum_abs_ / static_cast<double>(r.finite_pairs);
  // KL(P‖Q) = Σ p_i (log p_i − log q_i) = Σ p_i (g_i − a_i) − LSE(g) + LSE(a), Σ p_i = 1.
  const double lse_g = max_g_ + std::log(z_g_), lse_a = max_a_ + std::log(z_a_);
  const double kl = s_ / z_g_ - lse_g + lse_a;
  r.kl_divergence = std::max(0.0, kl);  // rounding can leave −1e-17 for equal inputs
  return r;
}

Metrics ComputeMetrics(const std::vector<double>& golden, const std::vector<double>& actual) {
  MetricsAccumulator acc;
  acc.Add(golden, actual);
  return acc.Result();
}

}  // namespace svp::compare
