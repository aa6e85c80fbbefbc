// Window geometry shared by Conv, ConvTranspose and the pools: strides, dilations, pads
// and auto_pad, for 1 to 3 spatial dimensions. Geometry is kept in 3-element arrays with
// the real spatial dims last (leading dims have size 1, stride 1, no padding), so one
// loop nest serves 1-D, 2-D and 3-D.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "kernels/common.h"

namespace svp::kernels::detail {

enum class AutoPad { kNotSet, kSameUpper, kSameLower, kValid };

using Dim3 = std::array<std::int64_t, 3>;

struct Window {
  int nsp = 0;  // number of real spatial dims
  Dim3 in{1, 1, 1}, k{1, 1, 1}, s{1, 1, 1}, d{1, 1, 1}, pb{0, 0, 0}, pe{0, 0, 0}, out{1, 1, 1};
  std::int64_t eff(int i) const { return (k[i] - 1) * d[i] + 1; }  // dilated kernel extent
  std::int64_t in_size() const { return in[0] * in[1] * in[2]; }
  std::int64_t out_size() const { return out[0] * out[1] * out[2]; }
  std::int64_t k_size() const { return k[0] * k[1] * k[2]; }
};

Result<AutoPad> read_auto_pad(const AttrReader& a);

// Reads strides, dilations and pads for `nsp` spatial dims into w (in and k already set),
// validating them (non-zero pads together with auto_pad != NOTSET are an error) and
// checking an explicit kernel_shape against w.k. Does not compute output sizes.
Status read_window_attrs(const AttrReader& a, Window& w, AutoPad ap, bool has_dilations = true);

// Forward window (Conv, pools): output sizes and, for SAME_*/VALID, the pads.
// `ceil_mode` only for pools; `pool` also requires pads smaller than the kernel extent.
Status forward_window(const char* op, Window& w, AutoPad ap, bool ceil_mode, bool pool);

// The input spatial dims of a shape (rank 3..5: N, C, spatial) into w.in.
Status spatial_input(const char* op, const Shape& x, Window& w);

// Calls f(row) with the offset of each input row (spatial dims 0 and 1) that the windows of
// output row (o0, o1) cover inside the input (padding rows skipped).
template <typename F>
void for_each_window_row(const Window& w, std::int64_t o0, std::int64_t o1, F&& f) {
  for (std::int64_t k0 = 0; k0 < w.k[0]; ++k0) {
    const std::int64_t i0 = o0 * w.s[0] - w.pb[0] + k0 * w.d[0];
    if (i0 < 0 || i0 >= w.in[0]) continue;
    for (std::int64_t k1 = 0; k1 < w.k[1]; ++k1) {
      const std::int64_t i1 = o1 * w.s[1] - w.pb[1] + k1 * w.d[1];
      if (i1 < 0 || i1 >= w.in[1]) continue;
      f((i0 * w.in[1] + i1) * w.in[2]);
    }
  }
}

// Calls f(out_index, in_index) for every valid (non-padding) tap of every output element
// of one plane, after start(out_index) and before finish(out_index).
template <typename Start, typename Tap, typename Finish>
void for_each_window(const Window& w, Start&& start, Tap&& tap, Finish&& finish) {
  std::int64_t oi = 0;
  for (std::int64_t o0 = 0; o0 < w.out[0]; ++o0) {
    for (std::int64_t o1 = 0; o1 < w.out[1]; ++o1) {
      for (std::int64_t o2 = 0; o2 < w.out[2]; ++o2, ++oi) {
        start(oi);
        for_each_window_row(w, o0, o1, [&](std::int64_t row) {
          for (std::int64_t k2 = 0; k2 < w.k[2]; ++k2) {
            const std::int64_t i2 = o2 * w.s[2] - w.pb[2] + k2 * w.d[2];
            if (i2 < 0 || i2 >= w.in[2]) continue;
            tap(oi, row + i2);
          }
        });
        finish(oi);
      }
    }
  }
}

// AveragePool over x (attributes checked as the reference kernel checks them): the window,
// the planes (N·C) and each output element's divisor (count_include_pad applied; 0 when
// the window holds no input element). The reference and the int8 kernel share it.
struct AvgPoolGeometry {
  Window w;
  std::int64_t planes = 0;
  std::vector<std::int64_t> div;
};
Result<AvgPoolGeometry> avg_pool_geometry(const char* op, const Attrs& attrs, const Shape& x);

}  // namespace svp::kernels::detail
