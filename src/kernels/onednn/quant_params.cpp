#include "kernels/onednn/quant_params.h"

#include <immintrin.h>

#include <cmath>
#include <cstdlib>
#include <limits>

#include "kernels/common.h"

namespace svp::kernels::onednn {

using model::DType;

namespace {

// Σ |w| of n contiguous int8 values. Runs over every weight of a model at load (11 M for
// ResNet-18), hence the AVX2 path: |w| ≤ 128 fits a byte, and SAD against zero sums bytes.
__attribute__((target("avx2"))) std::int64_t abs_sum_avx2(const std::int8_t* p, std::int64_t n, std::int64_t* done) {
  __m256i acc = _mm256_setzero_si256();
  const __m256i zero = _mm256_setzero_si256();
  std::int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i v = _mm256_abs_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i)));
    acc = _mm256_add_epi64(acc, _mm256_sad_epu8(v, zero));
  }
  alignas(32) std::int64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), acc);
  *done = i;
  return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}

std::int64_t abs_sum(const std::int8_t* p, std::int64_t n) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  std::int64_t s = 0, i = 0;
  if (avx2) s = abs_sum_avx2(p, n, &i);
  for (; i < n; ++i) s += std::abs(static_cast<std::int64_t>(p[i]));
  return s;
}

}  // namespace

bool is_q8(const TensorView& t) {
  return (t.dtype == DType::kInt8 || t.dtype == DType::kUint8) && t.quant != nullptr && !t.quant->empty();
}

bool per_tensor_q8(const model::Tensor& t) {
  return (t.dtype == DType::kInt8 || t.dtype == DType::kUint8) && t.quant.scale.size() == 1;
}

bool int_params(const TensorView& x, const TensorView& w, std::int64_t w_axis, std::int64_t channels,
                std::int64_t k, std::int64_t w_c_stride, std::int64_t w_k_stride, const TensorView* bias,
                const TensorView& y, IntParams* out, std::string* why) {
  if (!is_q8(x) || x.quant->scale.size() != 1) return *why = "input not per-tensor int8/uint8", false;
  if (w.dtype != DType::kInt8 || w.quant == nullptr || w.quant->empty())
    return *why = "weights not quantized int8", false;
  for (std::int32_t zp : w.quant->zero_point)
    if (zp != 0) return *why = "weight zero point != 0", false;
  const bool per_channel = w.quant->scale.size() > 1;
  if (per_channel) {
    std::int64_t axis = w.quant->axis < 0 ? w.quant->axis + static_cast<std::int64_t>(w.dims.size()) : w.quant->axis;
    if (axis != w_axis || static_cast<std::int64_t>(w.quant->scale.size()) != channels)
      return *why = "weight quantization axis is not the output channels", false;
  }
  const bool y_float = y.dtype == DType::kFloat32;
  if (!y_float && !(is_q8(y) && y.quant->scale.size() == 1)) return *why = "output not per-tensor int8/uint8/f32", false;

  const float sx = x.quant->scale[0];
  out->zp_x = detail::zp_at(*x.quant, 0);
  out->zp_y = y_float ? 0 : detail::zp_at(*y.quant, 0);
  out->scales.resize(static_cast<std::size_t>(channels));
  std::vector<float> bias_scale(static_cast<std::size_t>(channels));
  for (std::int64_t c = 0; c < channels; ++c) {
    const float sw = detail::scale_at(*w.quant, static_cast<std::size_t>(c));
    bias_scale[static_cast<std::size_t>(c)] = sx * sw;
    out->scales[static_cast<std::size_t>(c)] = y_float ? sx * sw : detail::requant_scale(sx, sw, y.quant->scale[0]);
  }
  // A requantization scale below 2^-56 leaves every output of its channel at the zero
  // point: |v| < 2^32 for v = (float)acc32 + (float)bias, so |v·scale| < 2^-24, which
  // rounds away (with zero point 0) or vanishes in the zero point's addition. Such channels
  // (a dead channel's weight scale, PP-OCRv4 rec has dozens, 1e-18 to 1e-42) get scale 0,
  // the same outputs; a subnormal scale instead sends every vector holding it through
  // the CPU's microcode assists (an int8 1x1 convolution of 480 channels with 14 of them:
  // 0.8–1.0 ms against 0.15).
  if (!y_float) {
    for (float& s : out->scales)
      if (s < 0x1p-56f) s = 0.0f;
  }

  // int32 accumulators must not overflow: |Σ (x − zp_x)·w| ≤ max|x − zp_x| · Σ|w|. oneDNN's
  // own internal shifts (s8 → u8 with compensation) wrap modulo 2^32 and cancel, so only
  // the true sum matters.
  const std::int64_t lo = x.dtype == DType::kInt8 ? -128 : 0, hi = x.dtype == DType::kInt8 ? 127 : 255;
  const std::int64_t xmax = std::max(out->zp_x - lo, hi - out->zp_x);
  const auto* wq = static_cast<const std::int8_t*>(w.data);
  std::vector<std::int64_t> absw(static_cast<std::size_t>(channels), 0);
  if (w_k_stride == 1) {
    for (std::int64_t c = 0; c < channels; ++c) absw[static_cast<std::size_t>(c)] = abs_sum(wq + c * w_c_stride, k);
  } else {
    // Channels interleaved (e.g. MatMul's B [K, N]): accumulate row by row.
    for (std::int64_t i = 0; i < k; ++i)
      for (std::int64_t c = 0; c < channels; ++c)
        absw[static_cast<std::size_t>(c)] += std::abs(static_cast<std::int64_t>(wq[c * w_c_stride + i * w_k_stride]));
  }
  for (std::int64_t s : absw)
    if (s * xmax > std::numeric_limits<std::int32_t>::max()) return *why = "int32 accumulator could overflow", false;

  out->bias.clear();
  if (bias != nullptr) {
    if (bias->elements() != channels) return *why = "bias is not one value per output channel", false;
    out->bias.resize(static_cast<std::size_t>(channels));
    if (bias->dtype == DType::kInt32) {
      const bool q = bias->quant != nullptr && !bias->quant->empty();
      for (std::int64_t c = 0; c < channels; ++c) {
        if (q) {
          // The reference rejects these at run time; leave them to it.
          const std::size_t ci = static_cast<std::size_t>(c);
          if (detail::zp_at(*bias->quant, ci) != 0) return *why = "bias zero point != 0", false;
          const float want = bias_scale[ci], got = detail::scale_at(*bias->quant, ci);
          if (std::fabs(got - want) > 1e-3f * want) return *why = "bias scale mismatch", false;
        }
        out->bias[static_cast<std::size_t>(c)] = static_cast<const std::int32_t*>(bias->data)[c];
      }
    } else if (bias->dtype == DType::kFloat32) {
      for (std::int64_t c = 0; c < channels; ++c) {
        out->bias[static_cast<std::size_t>(c)] = static_cast<std::int32_t>(detail::round_saturate(
            static_cast<const float*>(bias->data)[c] / bias_scale[static_cast<std::size_t>(c)], 0,
            std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()));
      }
    } else {
      return *why = "bias type", false;
    }
  }
  return true;
}

}  // namespace svp::kernels::onednn
