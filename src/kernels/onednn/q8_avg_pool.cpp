#include "kernels/onednn/q8_avg_pool.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/common.h"
#include "kernels/onednn/quant_params.h"

namespace svp::kernels::onednn {

using model::DType;

bool q8_avg_pool_for(const model::Layer& l, const model::Tensor& x, const model::Tensor& y, Q8AvgPool* plan) {
  if (l.op != "AveragePool" || l.inputs.size() != 1 || l.outputs.size() != 1) return false;
  if (!per_tensor_q8(x) || !per_tensor_q8(y) || x.dims.size() < 3) return false;
  auto g = detail::avg_pool_geometry(l.op.c_str(), l.attrs, x.dims);
  if (!g.ok()) return false;  // the reference reports the layer's error
  Q8AvgPool p;
  p.g = std::move(g).value();
  // The exactness argument above; larger windows take the reference's ordered sum.
  if (p.g.w.k_size() >= (std::int64_t{1} << 20)) return false;
  if (static_cast<std::int64_t>(p.g.div.size()) != p.g.w.out_size()) return false;
  const float sx = x.quant.scale[0];
  const std::int32_t zpx = x.quant.zero_point.empty() ? 0 : x.quant.zero_point[0];
  // A finite scale keeps every term finite (no infinity whose sum could be NaN).
  if (!std::isfinite(sx * 256.f) || !std::isfinite(y.quant.scale[0])) return false;
  for (int b = 0; b < 256; ++b) {
    const std::int32_t code = x.dtype == DType::kInt8 ? static_cast<std::int8_t>(b) : b;
    p.deq[b] = static_cast<float>(static_cast<std::int64_t>(code) - zpx) * sx;
  }
  for (std::int64_t n : p.g.div) {
    p.div.push_back(static_cast<double>(n));
    p.empty_windows = p.empty_windows || n == 0;
  }
  p.x = x.dtype;
  p.y = y.dtype;
  p.sy = y.quant.scale[0];
  p.zpy = y.quant.zero_point.empty() ? 0 : y.quant.zero_point[0];
  *plan = std::move(p);
  return true;
}

namespace {

// ceil(a / b) for b > 0 and any sign of a.
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

}  // namespace

// Row by row: every tap of a window row adds into a row of sums across the output row, so
// the additions of neighbouring outputs are independent (a window at a time chains them).
void q8_avg_pool(const Q8AvgPool& p, const void* x, void* y, std::int64_t plane_begin, std::int64_t plane_end) {
  const detail::Window& w = p.g.w;
  const auto* in = static_cast<const std::uint8_t*>(x);
  auto* out = static_cast<std::uint8_t*>(y);
  std::vector<double> acc(static_cast<std::size_t>(w.out[2]));
  std::vector<float> mean(acc.size());
  for (std::int64_t pl = plane_begin; pl < plane_end; ++pl) {
    const std::uint8_t* xp = in + pl * w.in_size();
    std::uint8_t* yp = out + pl * w.out_size();
    std::int64_t oi = 0;
    for (std::int64_t o0 = 0; o0 < w.out[0]; ++o0) {
      for (std::int64_t o1 = 0; o1 < w.out[1]; ++o1, oi += w.out[2]) {
        std::fill(acc.begin(), acc.end(), 0.0);
        detail::for_each_window_row(w, o0, o1, [&](std::int64_t r) {
          const std::uint8_t* row = xp + r;
          for (std::int64_t k2 = 0; k2 < w.k[2]; ++k2) {
            // Outputs whose tap k2 lands inside the row: 0 <= o2·s + off < in.
            const std::int64_t off = k2 * w.d[2] - w.pb[2];
            const std::int64_t first = std::max<std::int64_t>(0, ceil_div(-off, w.s[2]));
            const std::int64_t end = std::min(w.out[2], ceil_div(w.in[2] - off, w.s[2]));
            for (std::int64_t o2 = first; o2 < end; ++o2) acc[static_cast<std::size_t>(o2)] += p.deq[row[o2 * w.s[2] + off]];
          }
        });
        // The mean rounded to float, then the requantization in vector lanes
        // (quantize_per_tensor is the reference's rule, element for element).
        const double* div = p.div.data() + oi;
        for (std::int64_t o2 = 0; o2 < w.out[2]; ++o2)
          mean[static_cast<std::size_t>(o2)] = static_cast<float>(acc[static_cast<std::size_t>(o2)] / div[o2]);
        if (p.empty_windows) {
          for (std::int64_t o2 = 0; o2 < w.out[2]; ++o2)
            if (p.g.div[static_cast<std::size_t>(oi + o2)] == 0) mean[static_cast<std::size_t>(o2)] = 0.0f;
        }
        if (p.y == DType::kInt8) {
          detail::quantize_per_tensor(mean.data(), w.out[2], p.sy, p.zpy, reinterpret_cast<std::int8_t*>(yp + oi));
        } else {
          detail::quantize_per_tensor(mean.data(), w.out[2], p.sy, p.zpy, yp + oi);
        }
      }
    }
  }
}

}  // namespace svp::kernels::onednn
