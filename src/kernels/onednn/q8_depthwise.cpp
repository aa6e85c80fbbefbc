#include "kernels/onednn/q8_depthwise.h"

// GCC 12's AVX-512 intrinsics pass an undefined vector as the merge source of their
// masked builtins, which -W(maybe-)uninitialized reports falsely (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "kernels/common.h"
#include "kernels/onednn/runtime.h"

#define SVP_VNNI512 __attribute__((target("avx512f,avx512bw,avx512vnni")))

namespace svp::kernels::onednn {

using model::DType;

namespace {

constexpr std::int64_t kBlock = 64;             // channels per block: one zmm of bytes
constexpr std::int64_t kRows = 4;               // kernel rows per interleaved group: vpdpbusd's 4 bytes
constexpr std::int64_t kColBytes = 4 * kBlock;  // an interleaved column: four zmm
// Below this many multiply-adds a parallel region costs more than it saves.
constexpr std::int64_t kDwParallelMacs = std::int64_t{1} << 18;

// Rows r0..r3 of 64 channels into four zmm whose 32-bit lanes hold one channel's four bytes.
// unpack{lo,hi}_epi8 of two rows splits each 128-bit lane's 16 channels into 0–7 and 8–15,
// unpack{lo,hi}_epi16 of those into quarters: zmm k, lane l, dword j holds channel
// l·16 + k·4 + j (the permuted order the constructor stores its per-channel data in).
SVP_VNNI512 inline void interleave(__m512i r0, __m512i r1, __m512i r2, __m512i r3, std::uint8_t* out) {
  const __m512i lo01 = _mm512_unpacklo_epi8(r0, r1), hi01 = _mm512_unpackhi_epi8(r0, r1);
  const __m512i lo23 = _mm512_unpacklo_epi8(r2, r3), hi23 = _mm512_unpackhi_epi8(r2, r3);
  _mm512_storeu_si512(out, _mm512_unpacklo_epi16(lo01, lo23));
  _mm512_storeu_si512(out + 64, _mm512_unpackhi_epi16(lo01, lo23));
  _mm512_storeu_si512(out + 128, _mm512_unpacklo_epi16(hi01, hi23));
  _mm512_storeu_si512(out + 192, _mm512_unpackhi_epi16(hi01, hi23));
}

// What the output pixels of one line and channel block read (Q8Depthwise::line).
struct Pixels {
  const std::uint8_t* cols;                       // interleaved columns of group 0
  std::int64_t pixel_step, tap_step, group_step;  // bytes in cols: next pixel, next kx, next group
  const std::int8_t* w;                           // [group][kx][256 bytes]
  std::int64_t groups, kw;
  const std::int32_t* init;  // the accumulators' start, 64 values, permuted
  const float *bias, *scale;
  __m512 zp, floor, hi;
  __mmask64 mask;
};

// requantize_acc's steps in its order on 16 permuted channels, then the Relu floor:
// (float)acc + bias (kBias; else the bias is already in acc, see Q8Depthwise), × scale, + zp,
// rint, saturation. Every scale is finite, so no step makes a NaN. Clamping in float before
// cvtps2dq (ties to even, as rint) equals clamping after it, since the bounds are integers;
// the low bound of the type is left to the saturating packs (cvtps2dq's overflow value,
// INT_MIN, saturates to it as well), the high one must be applied first.
template <bool kBias, bool kRelu>
SVP_VNNI512 inline __m512i requant16(__m512i acc, const float* bias, const float* scale, const Pixels& c) {
  __m512 v = _mm512_cvtepi32_ps(acc);
  if constexpr (kBias) v = _mm512_add_ps(v, _mm512_loadu_ps(bias));
  __m512 t = _mm512_mul_ps(v, _mm512_loadu_ps(scale));
  // GCC contracts a multiply and add into an FMA in C++ even with -std=c++17 (one rounding,
  // not the reference's two); the empty asm keeps the product a value of its own.
  asm("" : "+v"(t));
  t = _mm512_add_ps(t, c.zp);
  if constexpr (kRelu) t = _mm512_max_ps(t, c.floor);
  return _mm512_cvtps_epi32(_mm512_min_ps(t, c.hi));
}

// P adjacent output pixels from `ox`, written at y (pixels `stride` bytes apart). The
// accumulators stay in registers: 4·P chains of one vpdpbusd per kernel column and group,
// two pixels sharing each weight load.
template <int P, bool kBias, bool kRelu, bool kSignedY>
SVP_VNNI512 void pixels(const Pixels& c, std::int64_t ox, std::uint8_t* y, std::int64_t stride) {
  __m512i a[P][4];
#pragma GCC unroll 2
  for (int p = 0; p < P; ++p)
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) a[p][k] = _mm512_loadu_si512(c.init + k * 16);
  for (std::int64_t g = 0; g < c.groups; ++g) {
    const std::uint8_t* col = c.cols + g * c.group_step + ox * c.pixel_step;
    const std::int8_t* wk = c.w + g * c.kw * kColBytes;
    for (std::int64_t kx = 0; kx < c.kw; ++kx, col += c.tap_step, wk += kColBytes) {
#pragma GCC unroll 4
      for (int k = 0; k < 4; ++k) {
        const __m512i wv = _mm512_loadu_si512(wk + k * 64);
#pragma GCC unroll 2
        for (int p = 0; p < P; ++p)
          a[p][k] = _mm512_dpbusd_epi32(a[p][k], _mm512_loadu_si512(col + p * c.pixel_step + k * 64), wv);
      }
    }
  }
#pragma GCC unroll 2
  for (int p = 0; p < P; ++p) {
    const __m512i q0 = requant16<kBias, kRelu>(a[p][0], c.bias, c.scale, c);
    const __m512i q1 = requant16<kBias, kRelu>(a[p][1], c.bias + 16, c.scale + 16, c);
    const __m512i q2 = requant16<kBias, kRelu>(a[p][2], c.bias + 32, c.scale + 32, c);
    const __m512i q3 = requant16<kBias, kRelu>(a[p][3], c.bias + 48, c.scale + 48, c);
    // The packs work within 128-bit lanes, inverting the interleave: channels in order.
    const __m512i w01 = _mm512_packs_epi32(q0, q1), w23 = _mm512_packs_epi32(q2, q3);
    _mm512_mask_storeu_epi8(y + p * stride, c.mask,
                            kSignedY ? _mm512_packs_epi16(w01, w23) : _mm512_packus_epi16(w01, w23));
  }
}

template <bool kBias, bool kRelu, bool kSignedY>
SVP_VNNI512 void line_pixels(const Pixels& c, std::int64_t ow, std::uint8_t* y, std::int64_t stride) {
  std::int64_t ox = 0;
  for (; ox + 2 <= ow; ox += 2) pixels<2, kBias, kRelu, kSignedY>(c, ox, y + ox * stride, stride);
  if (ox < ow) pixels<1, kBias, kRelu, kSignedY>(c, ox, y + ox * stride, stride);
}
using LinePixels = void (*)(const Pixels&, std::int64_t, std::uint8_t*, std::int64_t);
// [kBias][kRelu][kSignedY]
constexpr LinePixels kLinePixels[2][2][2] = {{{line_pixels<false, false, false>, line_pixels<false, false, true>},
                                              {line_pixels<false, true, false>, line_pixels<false, true, true>}},
                                             {{line_pixels<true, false, false>, line_pixels<true, false, true>},
                                              {line_pixels<true, true, false>, line_pixels<true, true, true>}}};

// The columns [c0, c1) of one group: four kernel rows, each read at row + ix·step (a padding
// row has step 0 and points at the zero point's bytes), turned into uint8 (kSigned: sign
// bit flipped) and interleaved.
template <bool kSigned>
SVP_VNNI512 void interleave_columns(const std::uint8_t* const* row, const std::int64_t* step, std::int64_t ix0,
                                    std::int64_t n, __mmask64 mask, std::uint8_t* out) {
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  const std::uint8_t *p0 = row[0] + ix0 * step[0], *p1 = row[1] + ix0 * step[1], *p2 = row[2] + ix0 * step[2],
                     *p3 = row[3] + ix0 * step[3];
  for (std::int64_t i = 0; i < n; ++i, out += kColBytes) {
    __m512i r0 = _mm512_maskz_loadu_epi8(mask, p0), r1 = _mm512_maskz_loadu_epi8(mask, p1);
    __m512i r2 = _mm512_maskz_loadu_epi8(mask, p2), r3 = _mm512_maskz_loadu_epi8(mask, p3);
    p0 += step[0];
    p1 += step[1];
    p2 += step[2];
    p3 += step[3];
    if constexpr (kSigned) {
      r0 = _mm512_xor_si512(r0, flip);
      r1 = _mm512_xor_si512(r1, flip);
      r2 = _mm512_xor_si512(r2, flip);
      r3 = _mm512_xor_si512(r3, flip);
    }
    interleave(r0, r1, r2, r3, out);
  }
}

// Where channel c sits in the permuted order (interleave): its 64-channel block, and within
// the block its accumulator lane (zmm k, dword 4·l + j: k·16 + l·4 + j) and the first of its
// four weight bytes in an interleaved column (k·64 + l·16 + j·4).
struct Permuted {
  std::int64_t block, lane, byte;
};
inline Permuted permuted(std::int64_t c) {
  const std::int64_t i = c % kBlock, l = i / 16, k = (i % 16) / 4, j = i % 4;
  return {c / kBlock, k * 16 + l * 4 + j, k * 64 + l * 16 + j * 4};
}

class Q8Depthwise final : public NativeKernel {
 public:
  Q8Depthwise(const Int8ConvShape& s, const Int8Weights& w, const IntParams& ip, DType x, DType y, bool relu,
              int threads);
  std::size_t scratch_bytes() const override { return static_cast<std::size_t>(threads_) * per_thread_; }
  int run_threads() const { return threads_allowed(threads_); }
  void run(const void* src, void* dst, void* scratch) const override;

 private:
  // Output line (b, oy), channel block cb: interleave the input columns the line reads into
  // `cols`, then every pixel's sums and outputs.
  void line(const std::uint8_t* x, std::uint8_t* y, std::int64_t b, std::int64_t oy, std::int64_t cb,
            std::uint8_t* cols) const;

  Int8ConvShape s_;
  bool x_signed_;
  int threads_;
  std::int64_t groups_ = 0, blocks_ = 0, ncols_ = 0;
  std::size_t per_thread_ = 0;
  std::uint8_t pad_[kBlock];  // the input's zero point as a raw byte: what padding reads
  // Per block, in the permuted order: weights [group][kx][256 bytes], the accumulators'
  // start (−zx·Σw, plus the bias where bias_in_acc_), and the float bias and scale of the
  // reference's requantization.
  std::vector<std::int8_t> w_;
  std::vector<std::int32_t> init_;
  std::vector<float> bias_, scale_;
  // Every channel's (float)acc + (float)bias equals (float)(acc + bias): all three within
  // 2^24, so the int32 sum can carry the bias and the float addition is skipped.
  bool bias_in_acc_ = true;
  float zp_y_, floor_, hi_;
  LinePixels line_pixels_ = nullptr;
};

Q8Depthwise::Q8Depthwise(const Int8ConvShape& s, const Int8Weights& w, const IntParams& ip, DType x, DType y, bool relu,
                         int threads)
    : s_(s), x_signed_(x == DType::kInt8), threads_(std::max(threads, 1)) {
  constexpr std::int64_t kExact = std::int64_t{1} << 24;
  groups_ = (s.kh + kRows - 1) / kRows;
  blocks_ = (s.c + kBlock - 1) / kBlock;
  ncols_ = (s.ow - 1) * s.sw + (s.kw - 1) * s.dw + 1;
  per_thread_ = align_up(static_cast<std::size_t>(groups_ * ncols_ * kColBytes));
  std::memset(pad_, static_cast<std::uint8_t>(ip.zp_x), sizeof pad_);
  const std::int32_t zx_u = x_signed_ ? ip.zp_x + 128 : ip.zp_x;
  w_.assign(static_cast<std::size_t>(blocks_ * groups_ * s.kw * kColBytes), 0);
  std::vector<std::int64_t> wsum(static_cast<std::size_t>(s.c), 0), wabs(wsum);
  for (std::int64_t c = 0; c < s.c; ++c) {
    const Permuted at = permuted(c);
    for (std::int64_t ky = 0; ky < s.kh; ++ky)
      for (std::int64_t kx = 0; kx < s.kw; ++kx) {
        const std::int8_t v = w.data[c * w.s_o + ky * w.s_kh + kx * w.s_kw];
        wsum[static_cast<std::size_t>(c)] += v;
        wabs[static_cast<std::size_t>(c)] += std::abs(static_cast<int>(v));
        const std::int64_t g = ky / kRows, r = ky % kRows;
        w_[static_cast<std::size_t>(((at.block * groups_ + g) * s.kw + kx) * kColBytes + at.byte + r)] = v;
      }
    const std::int64_t b = ip.bias.empty() ? 0 : ip.bias[static_cast<std::size_t>(c)];
    const std::int64_t acc_max = 255 * wabs[static_cast<std::size_t>(c)];
    bias_in_acc_ = bias_in_acc_ && acc_max <= kExact && std::abs(b) <= kExact && acc_max + std::abs(b) <= kExact;
  }
  init_.assign(static_cast<std::size_t>(blocks_ * kBlock), 0);
  bias_.assign(init_.size(), 0.f);
  scale_.assign(init_.size(), 0.f);
  for (std::int64_t c = 0; c < s.c; ++c) {
    const Permuted pc = permuted(c);
    const auto at = static_cast<std::size_t>(pc.block * kBlock + pc.lane);
    const std::int64_t b = ip.bias.empty() ? 0 : ip.bias[static_cast<std::size_t>(c)];
    init_[at] = static_cast<std::int32_t>(-zx_u * wsum[static_cast<std::size_t>(c)] + (bias_in_acc_ ? b : 0));
    bias_[at] = static_cast<float>(b);
    scale_[at] = ip.scales[ip.scales.size() == 1 ? 0 : static_cast<std::size_t>(c)];
  }
  const std::int64_t lo = detail::qmin(y), hi = detail::qmax(y);
  zp_y_ = static_cast<float>(ip.zp_y);
  floor_ = static_cast<float>(relu ? std::max<std::int64_t>(ip.zp_y, lo) : lo);
  hi_ = static_cast<float>(hi);
  line_pixels_ = kLinePixels[bias_in_acc_ ? 0 : 1][relu ? 1 : 0][y == DType::kInt8 ? 1 : 0];
}

SVP_VNNI512 void Q8Depthwise::line(const std::uint8_t* x, std::uint8_t* y, std::int64_t b, std::int64_t oy,
                                   std::int64_t cb, std::uint8_t* cols) const {
  const Int8ConvShape& s = s_;
  const std::int64_t c0 = cb * kBlock, n = std::min(kBlock, s.c - c0);
  const __mmask64 mask = n == kBlock ? ~__mmask64{0} : (__mmask64{1} << n) - 1;
  // The input columns this line reads, ix = ci − pl for ci in [0, ncols), interleaved four
  // kernel rows at a time: columns left and right of the input read padding only.
  const std::int64_t in0 = std::clamp<std::int64_t>(s.pl, 0, ncols_), in1 = std::clamp(s.pl + s.w, in0, ncols_);
  const auto interleave_cols = x_signed_ ? interleave_columns<true> : interleave_columns<false>;
  for (std::int64_t g = 0; g < groups_; ++g) {
    const std::uint8_t* rows[kRows];
    std::int64_t steps[kRows];
    const std::uint8_t* pads[kRows] = {pad_, pad_, pad_, pad_};
    const std::int64_t zero[kRows] = {0, 0, 0, 0};
    for (std::int64_t r = 0; r < kRows; ++r) {
      const std::int64_t ky = g * kRows + r, iy = oy * s.sh - s.pt + ky * s.dh;
      const bool inside = ky < s.kh && iy >= 0 && iy < s.h;
      rows[r] = inside ? x + ((b * s.h + iy) * s.w) * s.c + c0 : pad_;
      steps[r] = inside ? s.c : 0;
    }
    std::uint8_t* out = cols + g * ncols_ * kColBytes;
    interleave_cols(pads, zero, 0, in0, mask, out);
    interleave_cols(rows, steps, in0 - s.pl, in1 - in0, mask, out + in0 * kColBytes);
    interleave_cols(pads, zero, 0, ncols_ - in1, mask, out + in1 * kColBytes);
  }
  const Pixels px{cols,
                  s.sw * kColBytes,
                  s.dw * kColBytes,
                  ncols_ * kColBytes,
                  w_.data() + cb * groups_ * s.kw * kColBytes,
                  groups_,
                  s.kw,
                  init_.data() + c0,
                  bias_.data() + c0,
                  scale_.data() + c0,
                  _mm512_set1_ps(zp_y_),
                  _mm512_set1_ps(floor_),
                  _mm512_set1_ps(hi_),
                  mask};
  line_pixels_(px, s.ow, y + ((b * s.oh + oy) * s.ow) * s.c + c0, s.c);
}

void Q8Depthwise::run(const void* src, void* dst, void* scratch) const {
  const auto* x = static_cast<const std::uint8_t*>(src);
  auto* y = static_cast<std::uint8_t*>(dst);
  auto* base = static_cast<std::uint8_t*>(scratch);
  // Tasks are (line, channel block) pairs, so a late 7x7 layer of 960 channels still
  // splits evenly over the threads.
  const std::int64_t lines = s_.n * s_.oh, tasks = lines * blocks_;
  const int nt = static_cast<int>(std::min<std::int64_t>(run_threads(), tasks));
  const bool parallel = nt > 1 && lines * s_.ow * s_.c * s_.kh * s_.kw >= kDwParallelMacs;
#pragma omp parallel for num_threads(nt) schedule(static) if (parallel)
  for (std::int64_t t = 0; t < tasks; ++t) {
    std::uint8_t* cols = base + static_cast<std::size_t>(omp_get_thread_num()) * per_thread_;
    const std::int64_t ln = t / blocks_;
    line(x, y, ln / s_.oh, ln % s_.oh, t % blocks_, cols);
  }
}

}  // namespace

bool q8_depthwise_preferred(std::int64_t channels, std::int64_t taps, bool input_copied) {
  const std::int64_t blocks = (channels + kBlock - 1) / kBlock;
  // Its uint8 sums, at most 255·128 a tap, stay far within int32 at 4096 taps.
  return 10 * channels >= 9 * kBlock * blocks && (taps <= 9 || (input_copied && taps <= 4096));
}

bool q8_depthwise_available() {
  static const bool ok =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni");
  return ok;
}

std::unique_ptr<FastOp> make_q8_depthwise(const Int8ConvShape& shape, const Int8Weights& w, const IntParams& ip,
                                          DType x, DType y, bool relu, int threads) {
  // Finite scales keep NaN out of the requantization (requant16 has no NaN step).
  if (!std::all_of(ip.scales.begin(), ip.scales.end(), [](float v) { return std::isfinite(v); })) return nullptr;
  return std::make_unique<FastOp>(std::make_unique<Q8Depthwise>(shape, w, ip, x, y, relu, threads), "vnni_dw_int8");
}

}  // namespace svp::kernels::onednn
