#include "kernels/onednn/int8_conv_avx2.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/common.h"
#include "kernels/onednn/runtime.h"

namespace svp::kernels::onednn {

using model::DType;

namespace {

// A micro-tile is kMr output pixels × kNr output channels: 12 int32 accumulators, two
// weight vectors and one broadcast use 15 of the 16 ymm registers.
constexpr std::int64_t kNr = 16;
constexpr int kMr = 6;
// Pixels whose im2col rows one task converts at a time: about 96 KB of int16, so the
// block stays in L2 while every weight tile passes over it.
std::int64_t block_rows(std::int64_t lda) {
  const std::int64_t r = (96 * 1024) / (lda * 2);
  return std::clamp<std::int64_t>(r / kMr * kMr, kMr, 16 * kMr);
}
// Below this many multiply-adds a parallel region costs more than it saves.
constexpr std::int64_t kParallelMacs = std::int64_t{1} << 18;

// n values of x − zp as int16 (exact: |x − zp| ≤ 255).
__attribute__((target("avx2"))) void widen_row(const void* src, bool is_signed, std::int32_t zp, std::int64_t n,
                                               std::int16_t* dst) {
  const __m256i vzp = _mm256_set1_epi16(static_cast<std::int16_t>(zp));
  std::int64_t i = 0;
  if (is_signed) {
    const auto* s = static_cast<const std::int8_t*>(src);
    for (; i + 16 <= n; i += 16) {
      const __m256i v = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_sub_epi16(v, vzp));
    }
    if (i < n && n >= 16) {  // the last 16, overlapping: rewrites equal values, no scalar tail
      const __m256i v = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + n - 16)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + n - 16), _mm256_sub_epi16(v, vzp));
      i = n;
    }
    for (; i < n; ++i) dst[i] = static_cast<std::int16_t>(s[i] - zp);
  } else {
    const auto* s = static_cast<const std::uint8_t*>(src);
    for (; i + 16 <= n; i += 16) {
      const __m256i v = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_sub_epi16(v, vzp));
    }
    if (i < n && n >= 16) {
      const __m256i v = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + n - 16)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + n - 16), _mm256_sub_epi16(v, vzp));
      i = n;
    }
    for (; i < n; ++i) dst[i] = static_cast<std::int16_t>(s[i] - zp);
  }
}

// c[r][0..16) = Σ_p a[r][2p]·b[p][j][0] + a[r][2p+1]·b[p][j][1] for the MR rows of a (stride
// lda, int16) and one packed weight tile b ([kp][16][2] int16). vpmaddwd's pair sums are
// exact for these operands, and int_params bounds every partial sum within int32.
template <int MR>
__attribute__((target("avx2"))) void micro_tile(const std::int16_t* a, std::int64_t lda, const std::int16_t* b,
                                                std::int64_t kp, std::int32_t* c) {
  __m256i acc0[MR], acc1[MR];
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) acc0[r] = acc1[r] = _mm256_setzero_si256();
  for (std::int64_t p = 0; p < kp; ++p) {
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + p * 32));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + p * 32 + 16));
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
      std::int32_t pair;
      std::memcpy(&pair, a + r * lda + 2 * p, sizeof pair);
      const __m256i av = _mm256_set1_epi32(pair);
      acc0[r] = _mm256_add_epi32(acc0[r], _mm256_madd_epi16(av, b0));
      acc1[r] = _mm256_add_epi32(acc1[r], _mm256_madd_epi16(av, b1));
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(c + r * kNr), acc0[r]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(c + r * kNr + 8), acc1[r]);
  }
}

using MicroTile = void (*)(const std::int16_t*, std::int64_t, const std::int16_t*, std::int64_t, std::int32_t*);
constexpr MicroTile kMicroTiles[kMr + 1] = {nullptr,       micro_tile<1>, micro_tile<2>, micro_tile<3>,
                                            micro_tile<4>, micro_tile<5>, micro_tile<6>};

// Float32 output: ((float)acc + bias)·scale, negatives → +0 under relu. A compare and mask,
// not max_ps: max_ps(−0, 0) and max_ps(NaN, 0) give +0 where the scalar keeps its v.
__attribute__((target("avx2"))) void requant_f32(const std::int32_t* acc, const float* bias, const float* scale,
                                                 std::int64_t n, bool relu, float* y) {
  const __m256 zero = _mm256_setzero_ps();
  std::int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256 a = _mm256_cvtepi32_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + j)));
    __m256 v = _mm256_mul_ps(_mm256_add_ps(a, _mm256_loadu_ps(bias + j)), _mm256_loadu_ps(scale + j));
    if (relu) v = _mm256_andnot_ps(_mm256_cmp_ps(v, zero, _CMP_LT_OQ), v);
    _mm256_storeu_ps(y + j, v);
  }
  for (; j < n; ++j) {
    const float v = (static_cast<float>(acc[j]) + bias[j]) * scale[j];
    y[j] = relu && v < 0.f ? 0.f : v;
  }
}

struct Q8Lanes {
  __m256 zp, lo, hi;
  __m256i floor;
};

// Eight results of requantize_acc, then max with the relu floor, as int32. Each step is
// the reference's single float operation in its order: (float)acc (cvtdq2ps, like
// cvtsi2ss, rounds in the current mode), + bias, × scale, + zp; the target has no "fma",
// so nothing is contracted. round_saturate maps NaN to 0 before the clamp: the ORD mask
// does that. Clamping to [lo, hi] in float before rounding equals clamping after it (both
// bounds are integers and rounding is monotone) and keeps cvtps2dq out of its 0x80000000
// overflow result; cvtps2dq rounds in the current mode (ties to even), as rint does.
__attribute__((target("avx2"))) inline __m256i requant8(const std::int32_t* acc, const float* bias, const float* scale,
                                                        const Q8Lanes& k) {
  const __m256 a = _mm256_cvtepi32_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc)));
  const __m256 v = _mm256_add_ps(a, _mm256_loadu_ps(bias));
  __m256 t = _mm256_add_ps(_mm256_mul_ps(v, _mm256_loadu_ps(scale)), k.zp);
  t = _mm256_and_ps(t, _mm256_cmp_ps(t, t, _CMP_ORD_Q));
  t = _mm256_min_ps(_mm256_max_ps(t, k.lo), k.hi);
  return _mm256_max_epi32(_mm256_cvtps_epi32(t), k.floor);
}

// int8 (kSigned) or uint8 output. The int32 results are already within the type's range,
// so the saturating packs are exact narrowing.
template <bool kSigned>
__attribute__((target("avx2"))) void requant_q8(const std::int32_t* acc, const float* bias, const float* scale,
                                                std::int64_t n, const Int8Requant& q, std::uint8_t* y) {
  // Locals: stores through the byte pointer may alias q, which would make the compiler
  // reload it for every element of the scalar tail.
  const std::int32_t zp = q.zp;
  const std::int64_t lo = q.lo, hi = q.hi, floor = q.relu ? std::max<std::int64_t>(zp, lo) : lo;
  const Q8Lanes k{_mm256_set1_ps(static_cast<float>(zp)), _mm256_set1_ps(static_cast<float>(lo)),
                  _mm256_set1_ps(static_cast<float>(hi)), _mm256_set1_epi32(static_cast<std::int32_t>(floor))};
  std::int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    // packs works per 128-bit half: [a0-3 b0-3 | a4-7 b4-7]; the permute restores a0-7 b0-7.
    const __m256i w =
        _mm256_permute4x64_epi64(_mm256_packs_epi32(requant8(acc + j, bias + j, scale + j, k),
                                                    requant8(acc + j + 8, bias + j + 8, scale + j + 8, k)),
                                 0xD8);
    const __m128i h0 = _mm256_castsi256_si128(w), h1 = _mm256_extracti128_si256(w, 1);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + j), kSigned ? _mm_packs_epi16(h0, h1) : _mm_packus_epi16(h0, h1));
  }
  if (j + 8 <= n) {
    const __m256i w = _mm256_packs_epi32(requant8(acc + j, bias + j, scale + j, k), _mm256_setzero_si256());
    const __m128i h = _mm_unpacklo_epi64(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(y + j), kSigned ? _mm_packs_epi16(h, h) : _mm_packus_epi16(h, h));
    j += 8;
  }
  for (; j < n; ++j) {
    const float v = static_cast<float>(acc[j]) + bias[j];
    const std::int64_t r = std::max(floor, detail::requantize_acc(v, scale[j], zp, lo, hi));
    y[j] = kSigned ? static_cast<std::uint8_t>(static_cast<std::int8_t>(r)) : static_cast<std::uint8_t>(r);
  }
}

class Int8ConvAvx2 final : public NativeKernel {
 public:
  Int8ConvAvx2(const Int8ConvShape& s, const Int8Weights& w, const IntParams& ip, DType x, DType y, bool relu,
               int threads);
  std::size_t scratch_bytes() const override { return static_cast<std::size_t>(threads_) * per_thread_; }
  int run_threads() const { return threads_allowed(threads_); }
  void run(const void* src, void* dst, void* scratch) const override;

 private:
  void run_gemm(const void* src, void* dst, std::uint8_t* scratch) const;
  void run_depthwise(const void* src, void* dst, std::uint8_t* scratch) const;
  void depthwise_line(const void* src, std::int64_t b, std::int64_t oy, std::int32_t* acc) const;
  void pack_depthwise(const Int8Weights& w);
  // Rows [r0, r1) of the implicit GEMM of group g as int16 (x − zp_x), K padded to lda_
  // with zeros; taps outside the input are 0 (= zp_x before the subtraction).
  void im2col(const void* src, std::int64_t g, std::int64_t r0, std::int64_t r1, std::int16_t* a) const;
  // The kw taps of input line iy from column ix0 (kw·cg_ values of one im2col row).
  void im2col_taps(const std::uint8_t* x, std::int64_t g, std::int64_t b, std::int64_t iy, std::int64_t ix0,
                   std::int16_t* out) const;
  // Accumulators of n channels from channel c0 of output pixel `row`, through the
  // reference's int → float → requantize steps (int8_requant_row).
  void put(const std::int32_t* acc, std::int64_t row, std::int64_t c0, std::int64_t n, void* dst) const;

  Int8ConvShape s_;
  DType xt_, yt_;
  int threads_;
  bool depthwise_;
  std::int64_t cg_, mg_, k_, lda_, tiles_, rows_per_block_;
  std::size_t per_thread_ = 0;
  std::vector<std::int16_t> packed_;  // GEMM: [group][tile][lda/2][16][2]
  std::vector<std::int32_t> dw_;      // depthwise: [ky·kw + kx][c rounded up to 8], w in the low int16
  // Depthwise interior (every tap inside the input): the byte offset of tap ky·kw + kx from
  // tap 0, −zp_x·Σ_taps w per channel (c rounded up to 8), and the output columns [lo, hi).
  std::vector<std::int64_t> dw_off_;
  std::vector<std::int32_t> dw_nzpw_;
  std::int64_t dw_ox_lo_ = 0, dw_ox_hi_ = 0;
  std::vector<float> scale_, bias_;  // per output channel; bias as the reference's (float)bias_q
  std::int32_t zp_x_;
  Int8Requant rq_;  // y's encoding and the folded Relu
};

Int8ConvAvx2::Int8ConvAvx2(const Int8ConvShape& s, const Int8Weights& w, const IntParams& ip, DType x, DType y,
                           bool relu, int threads)
    : s_(s),
      xt_(x),
      yt_(y),
      threads_(std::max(threads, 1)),
      cg_(s.c / s.groups),
      mg_(s.m / s.groups),
      k_(cg_ * s.kh * s.kw),
      zp_x_(ip.zp_x) {
  depthwise_ = cg_ == 1 && mg_ == 1;
  lda_ = (k_ + 1) / 2 * 2;
  tiles_ = (mg_ + kNr - 1) / kNr;
  rows_per_block_ = block_rows(lda_);
  rq_.y = y;
  rq_.relu = relu;
  rq_.zp = ip.zp_y;
  if (y != DType::kFloat32) {
    rq_.lo = detail::qmin(y);
    rq_.hi = detail::qmax(y);
  }
  for (std::int64_t c = 0; c < s.m; ++c) {
    scale_.push_back(ip.scales.size() == 1 ? ip.scales[0] : ip.scales[static_cast<std::size_t>(c)]);
    bias_.push_back(ip.bias.empty() ? 0.f : static_cast<float>(ip.bias[static_cast<std::size_t>(c)]));
  }
  auto wat = [&](std::int64_t o, std::int64_t ci, std::int64_t ky, std::int64_t kx) {
    return w.data[o * w.s_o + ci * w.s_c + ky * w.s_kh + kx * w.s_kw];
  };
  if (depthwise_) {
    pack_depthwise(w);
    per_thread_ = align_up(static_cast<std::size_t>(s.ow * s.c) * sizeof(std::int32_t));
    return;
  }
  // The K order (ky, kx, ci) matches NHWC input rows: each tap's channels are contiguous.
  const std::int64_t kp = lda_ / 2;
  packed_.assign(static_cast<std::size_t>(s.groups * tiles_ * kp * 2 * kNr), 0);
  for (std::int64_t g = 0; g < s.groups; ++g)
    for (std::int64_t t = 0; t < tiles_; ++t)
      for (std::int64_t j = 0; j < kNr && t * kNr + j < mg_; ++j) {
        const std::int64_t o = g * mg_ + t * kNr + j;
        std::int16_t* tile = packed_.data() + (g * tiles_ + t) * kp * 2 * kNr;
        for (std::int64_t k = 0; k < k_; ++k) {
          const std::int64_t ci = k % cg_, tap = k / cg_;
          tile[(k / 2) * 2 * kNr + j * 2 + k % 2] = wat(o, ci, tap / s.kw, tap % s.kw);
        }
      }
  per_thread_ = align_up(static_cast<std::size_t>(rows_per_block_ * lda_) * sizeof(std::int16_t)) +
                align_up(static_cast<std::size_t>(kMr * kNr) * sizeof(std::int32_t));
}

void Int8ConvAvx2::pack_depthwise(const Int8Weights& w) {
  const Int8ConvShape& s = s_;
  const std::int64_t cpad = (s.c + 7) / 8 * 8;
  dw_.assign(static_cast<std::size_t>(s.kh * s.kw * cpad), 0);
  dw_nzpw_.assign(static_cast<std::size_t>(cpad), 0);
  for (std::int64_t ky = 0; ky < s.kh; ++ky)
    for (std::int64_t kx = 0; kx < s.kw; ++kx) {
      dw_off_.push_back((ky * s.dh * s.w + kx * s.dw) * s.c);
      for (std::int64_t c = 0; c < s.c; ++c) {
        const std::int8_t wv = w.data[c * w.s_o + ky * w.s_kh + kx * w.s_kw];
        dw_[static_cast<std::size_t>((ky * s.kw + kx) * cpad + c)] = static_cast<std::uint16_t>(std::int16_t{wv});
        // Wrapping (unsigned) sums: only their value modulo 2^32 matters, see depthwise_interior.
        auto& z = dw_nzpw_[static_cast<std::size_t>(c)];
        z = static_cast<std::int32_t>(static_cast<std::uint32_t>(z) - static_cast<std::uint32_t>(zp_x_ * wv));
      }
    }
  // Columns whose taps ox·sw − pl + kx·dw all lie in [0, w).
  const std::int64_t last = s.w - 1 + s.pl - (s.kw - 1) * s.dw;
  dw_ox_lo_ = std::min(s.ow, (s.pl + s.sw - 1) / s.sw);
  dw_ox_hi_ = last < 0 ? 0 : std::min(s.ow, last / s.sw + 1);
}

void Int8ConvAvx2::run(const void* src, void* dst, void* scratch) const {
  if (depthwise_) {
    run_depthwise(src, dst, static_cast<std::uint8_t*>(scratch));
  } else {
    run_gemm(src, dst, static_cast<std::uint8_t*>(scratch));
  }
}

void Int8ConvAvx2::im2col(const void* src, std::int64_t g, std::int64_t r0, std::int64_t r1, std::int16_t* a) const {
  const bool is_signed = xt_ == DType::kInt8;
  const auto* x = static_cast<const std::uint8_t*>(src);
  // 1×1, stride 1, no padding on any side (output extent = input extent), one group, K
  // even (lda_ = K): row r is input pixel r, so the block is one contiguous run of input
  // bytes (a pointwise conv, a Gemm).
  if (s_.kh == 1 && s_.kw == 1 && s_.sh == 1 && s_.sw == 1 && s_.pt == 0 && s_.pl == 0 && s_.oh == s_.h &&
      s_.ow == s_.w && s_.groups == 1 && lda_ == k_) {
    widen_row(x + r0 * s_.c, is_signed, zp_x_, (r1 - r0) * s_.c, a);
    return;
  }
  const std::int64_t plane = s_.oh * s_.ow;
  for (std::int64_t r = r0; r < r1; ++r) {
    std::int16_t* row = a + (r - r0) * lda_;
    const std::int64_t b = r / plane, oy = (r % plane) / s_.ow, ox = r % s_.ow;
    for (std::int64_t ky = 0; ky < s_.kh; ++ky)
      im2col_taps(x, g, b, oy * s_.sh - s_.pt + ky * s_.dh, ox * s_.sw - s_.pl, row + ky * s_.kw * cg_);
    std::fill(row + k_, row + lda_, std::int16_t{0});
  }
}

void Int8ConvAvx2::im2col_taps(const std::uint8_t* x, std::int64_t g, std::int64_t b, std::int64_t iy, std::int64_t ix0,
                               std::int16_t* out) const {
  const bool is_signed = xt_ == DType::kInt8;
  if (iy < 0 || iy >= s_.h) {
    std::fill(out, out + s_.kw * cg_, std::int16_t{0});
    return;
  }
  const std::uint8_t* line = x + (b * s_.h + iy) * s_.w * s_.c + g * cg_;
  if (s_.groups == 1 && s_.dw == 1) {
    // The taps inside the input, [kx0, kx1), are adjacent pixels of one group spanning all
    // channels: one contiguous run (a 7×7 stem's 3 channels become 21 values, not 7 × 3).
    const std::int64_t kx0 = std::clamp<std::int64_t>(-ix0, 0, s_.kw);
    const std::int64_t kx1 = std::clamp<std::int64_t>(s_.w - ix0, kx0, s_.kw);
    std::fill(out, out + kx0 * cg_, std::int16_t{0});
    widen_row(line + (ix0 + kx0) * s_.c, is_signed, zp_x_, (kx1 - kx0) * cg_, out + kx0 * cg_);
    std::fill(out + kx1 * cg_, out + s_.kw * cg_, std::int16_t{0});
    return;
  }
  for (std::int64_t kx = 0; kx < s_.kw; ++kx, out += cg_) {
    const std::int64_t ix = ix0 + kx * s_.dw;
    if (ix < 0 || ix >= s_.w) {
      std::fill(out, out + cg_, std::int16_t{0});
    } else {
      widen_row(line + ix * s_.c, is_signed, zp_x_, cg_, out);
    }
  }
}

void Int8ConvAvx2::put(const std::int32_t* acc, std::int64_t row, std::int64_t c0, std::int64_t n, void* dst) const {
  const std::int64_t at = row * s_.m + c0;
  void* y = yt_ == DType::kFloat32 ? static_cast<void*>(static_cast<float*>(dst) + at)
                                   : static_cast<void*>(static_cast<std::uint8_t*>(dst) + at);
  int8_requant_row(acc, bias_.data() + c0, scale_.data() + c0, n, rq_, y);
}

void Int8ConvAvx2::run_gemm(const void* src, void* dst, std::uint8_t* scratch) const {
  const std::int64_t rows = s_.n * s_.oh * s_.ow;
  const std::int64_t blocks = (rows + rows_per_block_ - 1) / rows_per_block_;
  // Few pixels (a classifier, a late stage): the output channels are split too, so every
  // thread has work; each split converts its rows itself.
  std::int64_t splits = 1;
  const std::int64_t blocks_all = blocks * s_.groups;
  if (threads_ > 1 && blocks_all < 2 * threads_)
    splits = std::min(tiles_, (2 * threads_ + blocks_all - 1) / blocks_all);
  const std::int64_t tasks = s_.groups * blocks * splits;
  const int nt = static_cast<int>(std::min<std::int64_t>(run_threads(), tasks));
  const bool parallel = nt > 1 && rows * s_.m * k_ >= kParallelMacs;
  const std::int64_t kp = lda_ / 2;
  const std::size_t a_bytes = align_up(static_cast<std::size_t>(rows_per_block_ * lda_) * sizeof(std::int16_t));
#pragma omp parallel for num_threads(nt) schedule(static) if (parallel)
  for (std::int64_t task = 0; task < tasks; ++task) {
    std::uint8_t* mine = scratch + static_cast<std::size_t>(omp_get_thread_num()) * per_thread_;
    auto* a = reinterpret_cast<std::int16_t*>(mine);
    auto* acc = reinterpret_cast<std::int32_t*>(mine + a_bytes);
    const std::int64_t split = task % splits, blk = (task / splits) % blocks, g = task / (splits * blocks);
    const std::int64_t r0 = blk * rows_per_block_, r1 = std::min(rows, r0 + rows_per_block_);
    const std::int64_t t0 = tiles_ * split / splits, t1 = tiles_ * (split + 1) / splits;
    im2col(src, g, r0, r1, a);
    for (std::int64_t t = t0; t < t1; ++t) {
      const std::int16_t* b = packed_.data() + (g * tiles_ + t) * kp * 2 * kNr;
      const std::int64_t cols = std::min(kNr, mg_ - t * kNr);
      for (std::int64_t r = r0; r < r1; r += kMr) {
        const int mr = static_cast<int>(std::min<std::int64_t>(kMr, r1 - r));
        kMicroTiles[mr](a + (r - r0) * lda_, lda_, b, kp, acc);
        for (int i = 0; i < mr; ++i) put(acc + i * kNr, r + i, g * mg_ + t * kNr, cols, dst);
      }
    }
  }
}

// Depthwise (one input and one output channel per group): channels are the vector lanes.
// x − zp_x sits sign-extended in int32 lanes and the weight in the low int16 half of its
// lane (high half 0), so vpmaddwd yields exactly (x − zp_x)·w per lane.
__attribute__((target("avx2"))) void depthwise_pixel(const void* x, bool is_signed, std::int32_t zp,
                                                     const std::int32_t* dw, const Int8ConvShape& s, std::int64_t b,
                                                     std::int64_t oy, std::int64_t ox, std::int32_t* acc) {
  const std::int64_t cpad = (s.c + 7) / 8 * 8, c8 = s.c / 8 * 8;
  const __m256i vzp = _mm256_set1_epi32(zp);
  const auto* xb = static_cast<const std::uint8_t*>(x);
  const std::int64_t iy0 = oy * s.sh - s.pt, ix0 = ox * s.sw - s.pl;
  for (std::int64_t c = 0; c < c8; c += 8) {
    __m256i sum = _mm256_setzero_si256();
    for (std::int64_t ky = 0; ky < s.kh; ++ky) {
      const std::int64_t iy = iy0 + ky * s.dh;
      if (iy < 0 || iy >= s.h) continue;
      for (std::int64_t kx = 0; kx < s.kw; ++kx) {
        const std::int64_t ix = ix0 + kx * s.dw;
        if (ix < 0 || ix >= s.w) continue;
        const __m128i raw =
            _mm_loadl_epi64(reinterpret_cast<const __m128i*>(xb + ((b * s.h + iy) * s.w + ix) * s.c + c));
        const __m256i xv = _mm256_sub_epi32(is_signed ? _mm256_cvtepi8_epi32(raw) : _mm256_cvtepu8_epi32(raw), vzp);
        const __m256i wv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(dw + (ky * s.kw + kx) * cpad + c));
        sum = _mm256_add_epi32(sum, _mm256_madd_epi16(xv, wv));
      }
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(acc + c), sum);
  }
  for (std::int64_t c = c8; c < s.c; ++c) {
    std::int32_t sum = 0;
    for (std::int64_t ky = 0; ky < s.kh; ++ky) {
      const std::int64_t iy = iy0 + ky * s.dh;
      if (iy < 0 || iy >= s.h) continue;
      for (std::int64_t kx = 0; kx < s.kw; ++kx) {
        const std::int64_t ix = ix0 + kx * s.dw;
        if (ix < 0 || ix >= s.w) continue;
        const std::int64_t i = ((b * s.h + iy) * s.w + ix) * s.c + c;
        const std::int32_t xv = is_signed ? static_cast<std::int8_t>(xb[i]) : xb[i];
        sum += (xv - zp) * static_cast<std::int16_t>(dw[(ky * s.kw + kx) * cpad + c]);
      }
    }
    acc[c] = sum;
  }
}

// Depthwise sums of n output pixels of one line whose taps all lie inside the input
// (`first`: tap 0 of the first pixel, channel 0; `step` bytes to the next pixel): no bounds
// tests, taps at fixed offsets, and zp_x out of the loop: Σ(x − zp)·w = Σx·w − zp·Σw. The
// lanes add in wrapping int32, so the result is the true sum modulo 2^32, i.e. the sum
// itself (int_params has checked that it fits int32). x sits in the low int16 of its lane
// (x ≤ 255 fits) and the weight's high half is 0, so vpmaddwd gives x·w.
template <bool kSigned>
__attribute__((target("avx2"))) void depthwise_interior(const std::uint8_t* first, std::int64_t step, std::int64_t n,
                                                        const std::int64_t* off, std::int64_t taps,
                                                        const std::int32_t* dw, const std::int32_t* nzpw,
                                                        std::int64_t c, std::int32_t zp, std::int32_t* acc) {
  const std::int64_t cpad = (c + 7) / 8 * 8, c8 = c / 8 * 8;
  for (std::int64_t p = 0; p < n; ++p, first += step, acc += c) {
    for (std::int64_t ch = 0; ch < c8; ch += 8) {
      __m256i sum = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(nzpw + ch));
      for (std::int64_t t = 0; t < taps; ++t) {
        const __m128i raw = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(first + off[t] + ch));
        const __m256i xv = kSigned ? _mm256_cvtepi8_epi32(raw) : _mm256_cvtepu8_epi32(raw);
        const __m256i wv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(dw + t * cpad + ch));
        sum = _mm256_add_epi32(sum, _mm256_madd_epi16(xv, wv));
      }
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(acc + ch), sum);
    }
    for (std::int64_t ch = c8; ch < c; ++ch) {
      std::int32_t sum = 0;
      for (std::int64_t t = 0; t < taps; ++t) {
        const std::int32_t xv = kSigned ? static_cast<std::int8_t>(first[off[t] + ch]) : first[off[t] + ch];
        sum += (xv - zp) * static_cast<std::int16_t>(dw[t * cpad + ch]);
      }
      acc[ch] = sum;
    }
  }
}

// The accumulators of output line (b, oy): border pixels through depthwise_pixel's bounds
// tests, the interior (most of a line) through depthwise_interior.
void Int8ConvAvx2::depthwise_line(const void* src, std::int64_t b, std::int64_t oy, std::int32_t* acc) const {
  const bool is_signed = xt_ == DType::kInt8;
  const std::int64_t iy0 = oy * s_.sh - s_.pt;
  // Interior columns [i0, i1): none unless every kernel row of this line is inside the input.
  std::int64_t i0 = s_.ow, i1 = s_.ow;
  if (iy0 >= 0 && iy0 + (s_.kh - 1) * s_.dh < s_.h && dw_ox_lo_ < dw_ox_hi_) {
    i0 = dw_ox_lo_;
    i1 = dw_ox_hi_;
  }
  for (std::int64_t ox = 0; ox < i0; ++ox)
    depthwise_pixel(src, is_signed, zp_x_, dw_.data(), s_, b, oy, ox, acc + ox * s_.c);
  if (i0 < i1) {
    const auto* first = static_cast<const std::uint8_t*>(src) + ((b * s_.h + iy0) * s_.w + i0 * s_.sw - s_.pl) * s_.c;
    const auto run = is_signed ? depthwise_interior<true> : depthwise_interior<false>;
    run(first, s_.sw * s_.c, i1 - i0, dw_off_.data(), s_.kh * s_.kw, dw_.data(), dw_nzpw_.data(), s_.c, zp_x_,
        acc + i0 * s_.c);
  }
  for (std::int64_t ox = i1; ox < s_.ow; ++ox)
    depthwise_pixel(src, is_signed, zp_x_, dw_.data(), s_, b, oy, ox, acc + ox * s_.c);
}

void Int8ConvAvx2::run_depthwise(const void* src, void* dst, std::uint8_t* scratch) const {
  const std::int64_t lines = s_.n * s_.oh;
  const int nt = static_cast<int>(std::min<std::int64_t>(run_threads(), lines));
  const bool parallel = nt > 1 && lines * s_.ow * s_.c * s_.kh * s_.kw >= kParallelMacs;
#pragma omp parallel for num_threads(nt) schedule(static) if (parallel)
  for (std::int64_t line = 0; line < lines; ++line) {
    auto* acc = reinterpret_cast<std::int32_t*>(scratch + static_cast<std::size_t>(omp_get_thread_num()) * per_thread_);
    depthwise_line(src, line / s_.oh, line % s_.oh, acc);
    for (std::int64_t ox = 0; ox < s_.ow; ++ox) put(acc + ox * s_.c, line * s_.ow + ox, 0, s_.c, dst);
  }
}

}  // namespace

void int8_requant_row(const std::int32_t* acc, const float* bias, const float* scale, std::int64_t n,
                      const Int8Requant& q, void* y) {
  if (q.y == DType::kFloat32) {
    requant_f32(acc, bias, scale, n, q.relu, static_cast<float*>(y));
  } else if (q.y == DType::kInt8) {
    requant_q8<true>(acc, bias, scale, n, q, static_cast<std::uint8_t*>(y));
  } else {
    requant_q8<false>(acc, bias, scale, n, q, static_cast<std::uint8_t*>(y));
  }
}

bool int8_avx2_available() {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2;
}

std::unique_ptr<FastOp> make_int8_conv_avx2(const Int8ConvShape& shape, const Int8Weights& w, const IntParams& ip,
                                            DType x, DType y, bool relu, int threads) {
  return std::make_unique<FastOp>(std::make_unique<Int8ConvAvx2>(shape, w, ip, x, y, relu, threads), "avx2_int8");
}

}  // namespace svp::kernels::onednn
