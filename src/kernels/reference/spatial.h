// Window geometry shared by Conv, ConvTranspose and the pools: strides, dilations, pads
// and auto_pad, for 1 to 3 spatial dimensions. Geometry is kept in 3-element arrays with
// the real spatial dims last (leading dims have size 1, stride 1, no padding), so one
// loop nest serves 1-D, 2-D and 3-D.
#pragma once

#include <array>
#include <cstdint>

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

}  // namespace svp::kernels::detail
