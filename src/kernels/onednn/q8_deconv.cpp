#include "kernels/onednn/q8_deconv.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "kernels/common.h"
#include "kernels/onednn/quant_params.h"
#include "kernels/onednn/runtime.h"

namespace svp::kernels::onednn {
namespace {

using model::DType;

constexpr std::int64_t kExactFloatInt = std::int64_t{1} << 24;

// x − zp_x as floats, 8 bytes at a time; returns how many were done.
__attribute__((target("avx2"))) std::int64_t to_float_avx2(const std::uint8_t* x, bool is_signed, std::int32_t zp,
                                                            float* out, std::int64_t n) {
  const __m256i z = _mm256_set1_epi32(zp);
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i raw = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(x + i));
    const __m256i q = is_signed ? _mm256_cvtepi8_epi32(raw) : _mm256_cvtepu8_epi32(raw);
    _mm256_storeu_ps(out + i, _mm256_cvtepi32_ps(_mm256_sub_epi32(q, z)));
  }
  return i;
}

// requantize_acc of 8 channels of one pixel: v = acc + bias (acc is an exact integer in
// float), then v·scale, + zp, each one float rounding as in the reference (no "fma" in
// the target, so no contraction), round to nearest even and saturate.
__attribute__((target("avx2"))) void requant8_avx2(const float* acc, const float* bias, const float* scale,
                                                    std::int32_t zp, std::int32_t lo, std::int32_t hi,
                                                    std::uint8_t* y) {
  const __m256 v = _mm256_add_ps(_mm256_loadu_ps(acc), _mm256_loadu_ps(bias));
  __m256 t = _mm256_add_ps(_mm256_mul_ps(v, _mm256_loadu_ps(scale)), _mm256_set1_ps(static_cast<float>(zp)));
  t = _mm256_min_ps(_mm256_max_ps(t, _mm256_set1_ps(-1048576.f)), _mm256_set1_ps(1048576.f));
  __m256i r = _mm256_cvtps_epi32(t);
  r = _mm256_min_epi32(_mm256_max_epi32(r, _mm256_set1_epi32(lo)), _mm256_set1_epi32(hi));
  const __m256i pack = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12, -1,
                                        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m256i bytes = _mm256_shuffle_epi8(r, pack);
  const std::uint64_t eight = static_cast<std::uint32_t>(_mm256_extract_epi32(bytes, 0)) |
                              (static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm256_extract_epi32(bytes, 4))) << 32);
  __builtin_memcpy(y, &eight, 8);
}

class Q8Deconv final : public NativeKernel {
 public:
  Q8Deconv(std::vector<float> wf, std::unique_ptr<FastOp> inner, IntParams ip, const TensorView& x,
           const TensorView& y, std::int64_t channels)
      : wf_(std::move(wf)), inner_(std::move(inner)), ip_(std::move(ip)), m_(channels) {
    nx_ = x.elements();
    ny_ = y.elements();
    y_dtype_ = y.dtype;
    for (int k = 0; k < 256; ++k) {
      const std::int32_t code = x.dtype == DType::kInt8 ? static_cast<std::int8_t>(k) : k;
      xf_[k] = static_cast<float>(code - ip_.zp_x);
    }
    if (ip_.bias.empty()) ip_.bias.assign(static_cast<std::size_t>(m_), 0);
    if (ip_.scales.size() == 1) ip_.scales.assign(static_cast<std::size_t>(m_), ip_.scales[0]);
    // (float)bias as AccWriter::put converts it.
    for (std::int32_t b : ip_.bias) bias_f_.push_back(static_cast<float>(b));
    x_signed_ = x.dtype == DType::kInt8;
  }
  std::size_t scratch_bytes() const override {
    return align_up(static_cast<std::size_t>(nx_) * 4) + align_up(static_cast<std::size_t>(ny_) * 4) +
           inner_->scratch_bytes();
  }
  void run(const void* src, void* dst, void* scratch) const override {
    auto* xf = static_cast<float*>(scratch);
    auto* yf = reinterpret_cast<float*>(static_cast<std::uint8_t*>(scratch) + align_up(static_cast<std::size_t>(nx_) * 4));
    void* pad = reinterpret_cast<std::uint8_t*>(yf) + align_up(static_cast<std::size_t>(ny_) * 4);
    const auto* xs = static_cast<const std::uint8_t*>(src);
    std::int64_t done = avx2_ ? to_float_avx2(xs, x_signed_, ip_.zp_x, xf, nx_) : 0;
    for (std::int64_t i = done; i < nx_; ++i) xf[i] = xf_[xs[i]];
    inner_->run(xf, yf, pad);
    // NHWC: the channel is the innermost index. Exact integers (see the header).
    const std::int64_t lo = y_dtype_ == DType::kInt8 ? -128 : 0, hi = y_dtype_ == DType::kInt8 ? 127 : 255;
    // Pixel by pixel, so the channel needs no division per element.
    const float* sc = ip_.scales.data();
    const std::int32_t* bias = ip_.bias.data();
    const std::int64_t vec = avx2_ && y_dtype_ != DType::kFloat32 ? m_ / 8 * 8 : 0;
    for (std::int64_t p = 0; p < ny_; p += m_) {
      const float* row = yf + p;
      for (std::int64_t c = 0; c < vec; c += 8) {
        requant8_avx2(row + c, bias_f_.data() + c, sc + c, ip_.zp_y, static_cast<std::int32_t>(lo),
                      static_cast<std::int32_t>(hi), static_cast<std::uint8_t*>(dst) + p + c);
      }
      for (std::int64_t c = vec; c < m_; ++c) {
        const auto acc = static_cast<std::int64_t>(row[c]);
        const float v = static_cast<float>(detail::saturate_i32(acc)) + static_cast<float>(bias[c]);
        if (y_dtype_ == DType::kFloat32) {
          static_cast<float*>(dst)[p + c] = v * sc[c];
        } else if (y_dtype_ == DType::kInt8) {
          static_cast<std::int8_t*>(dst)[p + c] =
              static_cast<std::int8_t>(detail::requantize_acc(v, sc[c], ip_.zp_y, lo, hi));
        } else {
          static_cast<std::uint8_t*>(dst)[p + c] =
              static_cast<std::uint8_t>(detail::requantize_acc(v, sc[c], ip_.zp_y, lo, hi));
        }
      }
    }
  }

 private:
  static std::size_t align_up(std::size_t n) { return (n + 63) / 64 * 64; }
  std::vector<float> wf_;  // the inner primitive may read these very bytes
  std::unique_ptr<FastOp> inner_;
  IntParams ip_;
  std::int64_t m_, nx_ = 0, ny_ = 0;
  DType y_dtype_ = DType::kInt8;
  float xf_[256];
  std::vector<float> bias_f_;
  bool x_signed_ = false;
  bool avx2_ = __builtin_cpu_supports("avx2");
};

}  // namespace

std::unique_ptr<FastOp> make_q8_deconv(const model::Attrs& attrs, const TensorView& x, const TensorView& w,
                                       const TensorView* bias, const TensorView& y, int threads, std::string* why) {
  if (x.dims.size() != 4 || w.dims.size() != 4 || y.dims.size() != 4) return *why = "not 2-D", nullptr;
  const auto group = detail::AttrReader("ConvTranspose", attrs).i("group", 1);
  if (!group.ok() || group.value() != 1) return *why = "int8 with groups", nullptr;
  const std::int64_t C = w.dims[0], M = w.dims[1], kk = w.dims[2] * w.dims[3];
  if (x.dims[1] != C || y.dims[1] != M) return *why = "channels", nullptr;
  // Scales, bias and the int32 check as for Conv (the weights of input channel 0 only; the
  // 2^24 bound below covers them all).
  IntParams ip;
  if (!int_params(x, w, 1, M, kk, kk, 1, bias, y, &ip, why)) return nullptr;
  const std::int64_t lo = x.dtype == DType::kInt8 ? -128 : 0, hi = x.dtype == DType::kInt8 ? 127 : 255;
  const std::int64_t xmax = std::max(ip.zp_x - lo, hi - ip.zp_x);
  const auto* wq = static_cast<const std::int8_t*>(w.data);
  std::vector<std::int64_t> absw(static_cast<std::size_t>(M), 0);
  std::vector<float> wf(static_cast<std::size_t>(C * M * kk));
  for (std::int64_t i = 0; i < C * M * kk; ++i) {
    wf[static_cast<std::size_t>(i)] = static_cast<float>(wq[i]);
    absw[static_cast<std::size_t>((i / kk) % M)] += std::abs(static_cast<std::int64_t>(wq[i]));
  }
  for (std::int64_t s : absw)
    if (s * xmax >= kExactFloatInt) return *why = "float32 sums could be inexact (over 2^24)", nullptr;
  TensorView xf = x, wv = w, yf = y;
  xf.dtype = wv.dtype = yf.dtype = DType::kFloat32;
  xf.quant = wv.quant = yf.quant = nullptr;
  xf.data = yf.data = nullptr;
  wv.data = wf.data();
  auto inner = make_deconv(attrs, xf, wv, nullptr, yf, Fusion{}, threads, why);
  if (!inner) return nullptr;
  auto kernel = std::make_unique<Q8Deconv>(std::move(wf), std::move(inner), std::move(ip), x, y, M);
  return std::make_unique<FastOp>(std::move(kernel), "native");
}

}  // namespace svp::kernels::onednn
