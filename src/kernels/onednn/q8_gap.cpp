#include "kernels/onednn/q8_gap.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "kernels/onednn/byte_lookup_vbmi.h"

namespace svp::kernels::onednn {

namespace {

// The sum of a plane's dequantized values, Σ fl(d·s) with d = q − zp, is exact in double,
// so it can be split exactly: fl(d·s) = d·s + e(d)·u, where u = ulp(s) (every fl(d·s) with
// |d| ≥ 1 is a multiple of u, and so is d·s) and |e(d)| ≤ 256 (half an ulp of a product
// below 2^9·s). Then Σ = s·Σd + u·Σe: Σd is a byte sum and Σe two byte-table lookups
// (e's low byte and high byte), which vectorise where the float table needs a gather —
// and gathers are what made the plain loop slow (a cycle or more per element).
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
  for (int v = 0; v < 256; ++v) {
    const std::int32_t d = (v ^ sp->flip) - sp->offset;
    const double err = (static_cast<double>(deq[v]) - static_cast<double>(d) * sp->s) / sp->u;  // exact
    if (err != std::nearbyint(err) || std::fabs(err) > 256) return false;
    const auto ei = static_cast<std::int32_t>(err);
    sp->lo[v] = static_cast<std::uint8_t>(ei & 0xff);
    sp->hi[v] = static_cast<std::uint8_t>(static_cast<std::int8_t>(ei >> 8));
  }
  return true;
}

#define SVP_VBMI __attribute__((target("avx512f,avx512bw,avx512vbmi")))

SVP_VBMI inline void widen_add16(__m128i part, bool is_signed, std::int32_t* acc) {
  const __m512i w = is_signed ? _mm512_cvtepi8_epi32(part) : _mm512_cvtepu8_epi32(part);
  _mm512_storeu_si512(acc, _mm512_add_epi32(_mm512_loadu_si512(acc), w));
}

SVP_VBMI inline void widen_add(__m512i bytes, bool is_signed, std::int32_t* acc) {
  widen_add16(_mm512_extracti32x4_epi32(bytes, 0), is_signed, acc);
  widen_add16(_mm512_extracti32x4_epi32(bytes, 1), is_signed, acc + 16);
  widen_add16(_mm512_extracti32x4_epi32(bytes, 2), is_signed, acc + 32);
  widen_add16(_mm512_extracti32x4_epi32(bytes, 3), is_signed, acc + 48);
}

// One 64-byte vector of byte values (signed: sign-extended) added into 64 int16 lanes at
// acc, kept in unpack order: acc[0..32) holds bytes 0-7 of each 16-byte quarter, acc[32..64)
// bytes 8-15 (flush16 puts them back in byte order).
SVP_VBMI inline void add16(__m512i bytes, bool is_signed, std::int16_t* acc) {
  const __m512i ext = is_signed ? _mm512_movm_epi8(_mm512_movepi8_mask(bytes)) : _mm512_setzero_si512();
  _mm512_storeu_si512(acc, _mm512_add_epi16(_mm512_loadu_si512(acc), _mm512_unpacklo_epi8(bytes, ext)));
  _mm512_storeu_si512(acc + 32, _mm512_add_epi16(_mm512_loadu_si512(acc + 32), _mm512_unpackhi_epi8(bytes, ext)));
}

// Adds `n` groups of 64 int16 lanes in unpack order (add16) into int32 lanes in byte order,
// and clears them.
void flush16(std::int16_t* acc, std::int32_t* out, std::int64_t n) {
  for (std::int64_t g = 0; g < n; ++g, acc += 64, out += 64) {
    for (int b = 0; b < 64; ++b) out[b] += acc[(b % 16 < 8 ? 0 : 32) + b / 16 * 8 + b % 8];
    std::fill(acc, acc + 64, std::int16_t{0});
  }
}

// Lane sums over `len` bytes taken 64 at a time: chunk k adds into the lanes at
// 64·(k mod period) of q (the bytes, flipped), lo and hi. Every lane gets at most
// ⌈len / (64·period)⌉ ≤ 2^20 bytes, so int32 holds its sum. The additions go to int16
// lanes first (two instructions per 64 bytes where widening to int32 took eight), moved to
// the int32 sums every 128 chunks per slot: 128 · 255 < 2^15.
SVP_VBMI void lane_sums(const std::uint8_t* p, std::int64_t len, std::int64_t period, const Q8GapInput& sp,
                        std::int32_t* q, std::int32_t* lo, std::int32_t* hi) {
  __m512i tl[4], th[4];
  for (int k = 0; k < 4; ++k) {
    tl[k] = _mm512_loadu_si512(sp.lo + 64 * k);
    th[k] = _mm512_loadu_si512(sp.hi + 64 * k);
  }
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(sp.flip));
  // int16 lanes of q, lo and hi, 64 per slot each, laid out as the int32 sums are.
  std::vector<std::int16_t> acc(static_cast<std::size_t>(3 * 64 * period), 0);
  std::int16_t* aq = acc.data();
  std::int16_t *al = aq + 64 * period, *ah = al + 64 * period;
  auto flush = [&] {
    flush16(aq, q, period);
    flush16(al, lo, period);
    flush16(ah, hi, period);
  };
  std::int64_t slot = 0, passes = 0;
  for (std::int64_t i = 0; i < len; i += 64) {
    const __mmask64 m = len - i >= 64 ? ~__mmask64{0} : (__mmask64{1} << (len - i)) - 1;
    const __m512i x = _mm512_maskz_loadu_epi8(m, p + i);
    add16(_mm512_maskz_mov_epi8(m, _mm512_xor_si512(x, flip)), false, aq + 64 * slot);
    add16(_mm512_maskz_mov_epi8(m, lookup64(tl, x)), false, al + 64 * slot);
    add16(_mm512_maskz_mov_epi8(m, lookup64(th, x)), true, ah + 64 * slot);
    if (++slot == period) {
      slot = 0;
      if (++passes == 128) {
        flush();
        passes = 0;
      }
    }
  }
  flush();
}

#undef SVP_VBMI

// One channel's exact double sum from its byte count and lane totals.
double combine(const Q8GapInput& sp, std::int64_t count, std::int64_t q, std::int64_t lo, std::int64_t hi) {
  const std::int64_t d = q - count * sp.offset;
  return sp.s * static_cast<double>(d) + sp.u * static_cast<double>(hi * 256 + lo);
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
    lane_sums(base, c * hw, period / 64, sp, q, lo, hi);
    std::vector<std::int64_t> tq(static_cast<std::size_t>(c), 0), tl(tq), th(tq);
    for (std::int64_t j = 0; j < period; ++j) {
      const auto ch = static_cast<std::size_t>(j % c);
      tq[ch] += q[j];
      tl[ch] += lo[j];
      th[ch] += hi[j];
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
    lane_sums(base + ch * hw, hw, 1, sp, acc, acc + 64, acc + 128);
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
    for (std::int64_t ch = 0; ch < c; ++ch) {
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
