#include "kernels/onednn/q8_gap.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "kernels/byte_lookup_vbmi.h"

namespace svp::kernels::onednn {

namespace {

// The sum of a plane's dequantized values, Σ fl(d·s) with d = q − zp, is exact in double,
// so it can be split exactly: fl(d·s) = d·s + e(d)·u, where u = ulp(s) (every fl(d·s) with
// |d| ≥ 1 is a multiple of u, and so is d·s) and |e(d)| ≤ 128 (half an ulp of a product
// below 2^8·s). Then Σ = s·Σd + u·Σe: Σd is a byte sum and Σe a byte-table lookup, which
// vectorise where the float table needs a gather (a cycle or more per element). e spans at
// most 256 values unless both −128 and 128 occur (ties at both ends); then it takes two
// tables, its low and high bytes.
bool make_split(const Q8Operand& qx, Q8GapInput* sp) {
  const float* deq = sp->deq;
  const float s = qx.scale;
  if (!std::isnormal(s) || s < 0) return false;
  int e2 = 0;
  std::frexp(s, &e2);  // s = f·2^e2 with f in [0.5, 1): its 24-bit mantissa's unit is 2^(e2 − 24)
  sp->u = std::ldexp(1.0, e2 - 24);
  sp->s = s;
  sp->flip = qx.dtype == model::DType::kInt8 ? 0x80 : 0;
  sp->offset = (qx.dtype == model::DType::kInt8 ? 128 : 0) + qx.zp;
  std::int32_t e[256];
  for (int v = 0; v < 256; ++v) {
    const std::int32_t d = (v ^ sp->flip) - sp->offset;
    const double err = (static_cast<double>(deq[v]) - static_cast<double>(d) * sp->s) / sp->u;  // exact
    if (err != std::nearbyint(err) || std::fabs(err) > 256) return false;
    e[v] = static_cast<std::int32_t>(err);
  }
  const auto [lo, hi] = std::minmax_element(e, e + 256);
  sp->two_tables = *hi - *lo > 255;
  sp->e_base = sp->two_tables ? 0 : *lo;
  for (int v = 0; v < 256; ++v) {
    const std::int32_t ev = e[v] - sp->e_base;
    sp->lo[v] = static_cast<std::uint8_t>(ev & 0xff);
    sp->hi[v] = static_cast<std::uint8_t>(static_cast<std::int8_t>(ev >> 8));
  }
  return true;
}

#define SVP_VBMI __attribute__((target("avx512f,avx512bw,avx512vbmi")))

// The bytes of x added into 16-bit lanes: the even bytes into `even`, the odd ones into
// `odd`, unsigned or sign-extended.
SVP_VBMI inline void add_bytes(__m512i x, bool is_signed, __m512i* even, __m512i* odd) {
  const __m512i e =
      is_signed ? _mm512_srai_epi16(_mm512_slli_epi16(x, 8), 8) : _mm512_and_si512(x, _mm512_set1_epi16(0x00ff));
  const __m512i o = is_signed ? _mm512_srai_epi16(x, 8) : _mm512_srli_epi16(x, 8);
  *even = _mm512_add_epi16(*even, e);
  *odd = _mm512_add_epi16(*odd, o);
}

// Adds the 16-bit lanes of add_bytes into 64 int32 sums in byte order.
SVP_VBMI inline void flush(__m512i even, __m512i odd, std::int32_t* out) {
  alignas(64) std::int16_t e[32], o[32];
  _mm512_store_si512(e, even);
  _mm512_store_si512(o, odd);
  for (int t = 0; t < 32; ++t) {
    out[2 * t] += e[t];
    out[2 * t + 1] += o[t];
  }
}

// Lane sums over `len` bytes taken 64 at a time: chunk k adds into the lanes at
// 64·(k mod period) of q (the bytes, flipped), lo and hi (the e tables; hi only with two
// tables). Every lane gets at most ⌈len / (64·period)⌉ ≤ 2^20 bytes, so int32 holds its
// sum. The chunks of one slot are visited together, so its sums stay in registers as int16
// lanes, passed on to int32 every 128 chunks: 128 · 255 < 2^15.
template <bool Two>
SVP_VBMI void lane_sums(const std::uint8_t* p, std::int64_t len, std::int64_t period, const Q8GapInput& sp,
                        std::int32_t* q, std::int32_t* lo, std::int32_t* hi) {
  __m512i tl[4], th[4];
  for (int k = 0; k < 4; ++k) {
    tl[k] = _mm512_load_si512(sp.lo + 64 * k);
    th[k] = _mm512_load_si512(sp.hi + 64 * k);
  }
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(sp.flip));
  const std::int64_t chunks = (len + 63) / 64, block = 128 * period;
  for (std::int64_t slot = 0; slot < period && slot < chunks; ++slot) {
    for (std::int64_t first = slot; first < chunks; first += block) {
      __m512i q0 = _mm512_setzero_si512(), q1 = q0, l0 = q0, l1 = q0, h0 = q0, h1 = q0;
      const std::int64_t end = std::min(chunks, first + block);
      for (std::int64_t k = first; k < end; k += period) {
        const std::int64_t rest = len - 64 * k;
        const __mmask64 m = rest >= 64 ? ~__mmask64{0} : (__mmask64{1} << rest) - 1;
        const __m512i x = _mm512_maskz_loadu_epi8(m, p + 64 * k);
        add_bytes(_mm512_maskz_mov_epi8(m, _mm512_xor_si512(x, flip)), false, &q0, &q1);
        add_bytes(_mm512_maskz_mov_epi8(m, lookup64(tl, x)), false, &l0, &l1);
        if constexpr (Two) add_bytes(_mm512_maskz_mov_epi8(m, lookup64(th, x)), true, &h0, &h1);
      }
      flush(q0, q1, q + 64 * slot);
      flush(l0, l1, lo + 64 * slot);
      if constexpr (Two) flush(h0, h1, hi + 64 * slot);
    }
  }
}

// Channel means requantized, 16 at a time: the same steps as the scalar loop of
// q8_global_avg_pool (the double mean cast to float, divided by s_y, rounded to nearest
// even, clamped after adding zp_y — here before, to [lo − zp_y, hi − zp_y], which is the
// same for the integer-valued quotient). Returns how many channels it did. The masked
// conversions with every lane set: GCC 12's plain ones start from an "undefined" vector
// -Wmaybe-uninitialized reports.
SVP_VBMI std::int64_t requantize16(const double* sum, std::int64_t c, double hw, const Q8Operand& qy, std::uint8_t* y) {
  const bool s8 = qy.dtype == model::DType::kInt8;
  const __m512d n = _mm512_set1_pd(hw);
  const __m512 sy = _mm512_set1_ps(qy.scale);
  const __m512 lo = _mm512_set1_ps(static_cast<float>((s8 ? -128 : 0) - qy.zp));
  const __m512 hi = _mm512_set1_ps(static_cast<float>((s8 ? 127 : 255) - qy.zp));
  const __m512i zp = _mm512_set1_epi32(qy.zp);
  std::int64_t ch = 0;
  for (; ch + 16 <= c; ch += 16) {
    const __m256 m0 = _mm512_maskz_cvtpd_ps(0xff, _mm512_div_pd(_mm512_loadu_pd(sum + ch), n));
    const __m256 m1 = _mm512_maskz_cvtpd_ps(0xff, _mm512_div_pd(_mm512_loadu_pd(sum + ch + 8), n));
    // m0 then m1 (the 64-bit inserts: AVX-512F alone).
    const __m512d low = _mm512_maskz_insertf64x4(0xff, _mm512_setzero_pd(), _mm256_castps_pd(m0), 0);
    const __m512 mean = _mm512_castpd_ps(_mm512_maskz_insertf64x4(0xff, low, _mm256_castps_pd(m1), 1));
    __m512 r =
        _mm512_maskz_roundscale_ps(0xffff, _mm512_div_ps(mean, sy), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    r = _mm512_maskz_min_ps(0xffff, _mm512_maskz_max_ps(0xffff, r, lo), hi);
    const __m512i v = _mm512_add_epi32(_mm512_maskz_cvtps_epi32(0xffff, r), zp);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + ch),
                     _mm512_maskz_cvtepi32_epi8(0xffff, v));  // in range: the low bytes
  }
  return ch;
}

#undef SVP_VBMI

// One channel's exact double sum from its byte count and lane totals.
double combine(const Q8GapInput& sp, std::int64_t count, std::int64_t q, std::int64_t lo, std::int64_t hi) {
  const std::int64_t d = q - count * sp.offset;
  const std::int64_t e = hi * 256 + lo + count * sp.e_base;
  return sp.s * static_cast<double>(d) + sp.u * static_cast<double>(e);
}

void lane_sums_of(const std::uint8_t* p, std::int64_t len, std::int64_t period, const Q8GapInput& sp, std::int32_t* q,
                  std::int32_t* lo, std::int32_t* hi) {
  if (sp.two_tables) {
    lane_sums<true>(p, len, period, sp, q, lo, hi);
  } else {
    lane_sums<false>(p, len, period, sp, q, lo, hi);
  }
}

// NHWC data is one run of bytes whose channel repeats every c bytes: with a period of
// lcm(c, 64) bytes every lane always sees the same channel. Longer periods (odd channel
// counts) take the plain loop rather than kilobytes of lane sums.
constexpr std::int64_t kMaxPeriodBytes = 64 * 64;

bool sums_vbmi(const std::uint8_t* base, const Q8GapInput& sp, std::int64_t c, std::int64_t hw, bool nhwc, double* sum) {
  if (nhwc) {
    const std::int64_t period = std::lcm(c, std::int64_t{64});
    if (period > kMaxPeriodBytes) return false;
    std::vector<std::int32_t> acc(static_cast<std::size_t>(3 * period), 0);
    std::int32_t *q = acc.data(), *lo = q + period, *hi = lo + period;
    lane_sums_of(base, c * hw, period / 64, sp, q, lo, hi);
    std::vector<std::int64_t> tq(static_cast<std::size_t>(c), 0), tl(tq), th(tq);
    for (std::int64_t j = 0, ch = 0; j < period; ++j, ch = ch + 1 == c ? 0 : ch + 1) {
      const auto k = static_cast<std::size_t>(ch);
      tq[k] += q[j];
      tl[k] += lo[j];
      th[k] += hi[j];
    }
    for (std::int64_t ch = 0; ch < c; ++ch) {
      const auto k = static_cast<std::size_t>(ch);
      sum[ch] = combine(sp, hw, tq[k], tl[k], th[k]);
    }
    return true;
  }
  std::int32_t acc[3 * 64];
  for (std::int64_t ch = 0; ch < c; ++ch) {
    std::memset(acc, 0, sizeof acc);
    lane_sums_of(base + ch * hw, hw, 1, sp, acc, acc + 64, acc + 128);
    std::int64_t t[3] = {0, 0, 0};
    for (int j = 0; j < 64; ++j)
      for (int k = 0; k < 3; ++k) t[k] += acc[64 * k + j];
    sum[ch] = combine(sp, hw, t[0], t[1], t[2]);
  }
  return true;
}

void sums_scalar(const std::uint8_t* base, const float* deq, std::int64_t c, std::int64_t hw, bool nhwc,
                 double* sum) {
  std::fill(sum, sum + c, 0.0);
  if (nhwc) {
    for (std::int64_t s = 0; s < hw; ++s)
      for (std::int64_t ch = 0; ch < c; ++ch) sum[ch] += deq[base[s * c + ch]];
  } else {
    for (std::int64_t ch = 0; ch < c; ++ch)
      for (std::int64_t s = 0; s < hw; ++s) sum[ch] += deq[base[ch * hw + s]];
  }
}

}  // namespace

Q8GapInput q8_gap_input(const Q8Operand& qx) {
  Q8GapInput in;
  for (int v = 0; v < 256; ++v) {
    const std::int32_t q = qx.dtype == model::DType::kInt8 ? static_cast<std::int8_t>(v) : v;
    in.deq[v] = static_cast<float>(q - qx.zp) * qx.scale;
  }
  static const bool vbmi = __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw");
  in.split = vbmi && make_split(qx, &in);
  return in;
}

void q8_gap_channel_sums(const void* x, const Q8GapInput& qx, std::int64_t c, std::int64_t hw, bool nhwc,
                         double* sum) {
  const auto* base = static_cast<const std::uint8_t*>(x);
  if (!qx.split || !sums_vbmi(base, qx, c, hw, nhwc, sum)) sums_scalar(base, qx.deq, c, hw, nhwc, sum);
}

void q8_global_avg_pool(const void* x, const Q8GapInput& qx, void* y, const Q8Operand& qy, std::int64_t n,
                        std::int64_t c, std::int64_t hw, bool nhwc) {
  const auto* px = static_cast<const std::uint8_t*>(x);
  std::vector<double> sum(static_cast<std::size_t>(c));
  const std::int64_t lo = qy.dtype == model::DType::kInt8 ? -128 : 0, hi = qy.dtype == model::DType::kInt8 ? 127 : 255;
  for (std::int64_t b = 0; b < n; ++b) {
    q8_gap_channel_sums(px + b * c * hw, qx, c, hw, nhwc, sum.data());
    // A split input means the CPU has AVX-512 VBMI (q8_gap_input).
    const std::int64_t done =
        qx.split ? requantize16(sum.data(), c, static_cast<double>(hw), qy, static_cast<std::uint8_t*>(y) + b * c) : 0;
    for (std::int64_t ch = done; ch < c; ++ch) {
      const float mean = static_cast<float>(sum[static_cast<std::size_t>(ch)] / static_cast<double>(hw));
      // The reference's quantize_value: nearbyint(x / s) + zp in [lo, hi].
      const double r = static_cast<double>(std::rint(mean / qy.scale)) + qy.zp;
      const std::int64_t v = static_cast<std::int64_t>(std::min<double>(std::max<double>(r, lo), hi));
      if (qy.dtype == model::DType::kInt8) {
        static_cast<std::int8_t*>(y)[b * c + ch] = static_cast<std::int8_t>(v);
      } else {
        static_cast<std::uint8_t*>(y)[b * c + ch] = static_cast<std::uint8_t>(v);
      }
    }
  }
}

}  // namespace svp::kernels::onednn
