#include "kernels/onednn/q8_softmax.h"

#include <cmath>
#include <vector>

#include "kernels/common.h"

namespace svp::kernels::onednn {

using model::DType;

namespace {

// Table index of a byte: its code's order, 0 for the lowest code of the type.
inline int rank_of(std::uint8_t b, bool is_signed) { return is_signed ? (b ^ 0x80) : b; }

}  // namespace

bool q8_softmax_for(const model::Layer& l, const model::Tensor& x, const model::Tensor& y, Q8Softmax* plan) {
  if (l.op != "Softmax" || l.inputs.size() != 1 || l.outputs.size() != 1) return false;
  auto q8 = [](const model::Tensor& t) {
    return (t.dtype == DType::kInt8 || t.dtype == DType::kUint8) && t.quant.scale.size() == 1;
  };
  if (!q8(x) || !q8(y) || x.dims != y.dims || x.dims.empty()) return false;
  const std::int64_t rank = static_cast<std::int64_t>(x.dims.size());
  auto axis = l.attrs.get_int("axis", -1);
  if (!axis.ok() || (axis.value() != -1 && axis.value() != rank - 1)) return false;
  const float sx = x.quant.scale[0];
  const std::int32_t zpx = x.quant.zero_point.empty() ? 0 : x.quant.zero_point[0];
  // Finite positive scales keep every value finite (no NaN whose rounding could differ).
  if (!(sx > 0.f) || !std::isfinite(sx * 256.f) || !(y.quant.scale[0] > 0.f) || !std::isfinite(y.quant.scale[0]))
    return false;
  Q8Softmax p;
  p.x = x.dtype;
  p.y = y.dtype;
  p.sy = y.quant.scale[0];
  p.zpy = y.quant.zero_point.empty() ? 0 : y.quant.zero_point[0];
  p.len = x.dims.back();
  if (p.len <= 0) return false;
  // Real values by rank (the reference's dequantization).
  const bool is_signed = x.dtype == DType::kInt8;
  float v[256];
  for (int r = 0; r < 256; ++r) {
    const std::int32_t code = is_signed ? r - 128 : r;
    v[r] = static_cast<float>(static_cast<std::int64_t>(code) - zpx) * sx;
  }
  p.exp.assign(256 * 256, 0.0f);
  for (int m = 0; m < 256; ++m)
    for (int r = 0; r <= m; ++r) p.exp[static_cast<std::size_t>(m * 256 + r)] = std::exp(v[r] - v[m]);
  *plan = std::move(p);
  return true;
}

void q8_softmax(const Q8Softmax& p, const void* x, void* y, std::int64_t elements) {
  const bool is_signed = p.x == DType::kInt8;
  const std::int64_t lo = detail::qmin(p.y), hi = detail::qmax(p.y);
  const auto* in = static_cast<const std::uint8_t*>(x);
  auto* out = static_cast<std::uint8_t*>(y);
  std::vector<float> e(static_cast<std::size_t>(p.len));
  for (std::int64_t row = 0; row < elements; row += p.len) {
    const std::uint8_t* xr = in + row;
    int m = 0;
    for (std::int64_t i = 0; i < p.len; ++i) m = std::max(m, rank_of(xr[i], is_signed));
    const float* t = p.exp.data() + static_cast<std::size_t>(m) * 256;
    double sum = 0;
    for (std::int64_t i = 0; i < p.len; ++i) {
      e[static_cast<std::size_t>(i)] = t[rank_of(xr[i], is_signed)];
      sum += e[static_cast<std::size_t>(i)];
    }
    std::uint8_t* yr = out + row;
    for (std::int64_t i = 0; i < p.len; ++i) {
      const float s = static_cast<float>(e[static_cast<std::size_t>(i)] / sum);
      yr[i] = static_cast<std::uint8_t>(detail::quantize_value(s, p.sy, p.zpy, lo, hi));
    }
  }
}

}  // namespace svp::kernels::onednn
