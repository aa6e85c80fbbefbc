// Movement between per-tensor int8/uint8 encodings as bytes: the data-movement ops
// (shape_ops.cpp) and nearest Resize (resize.cpp) share it.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/common.h"

namespace svp::kernels::detail {

// Mixed per-tensor int8/uint8 encodings (a Concat of differently scaled maps): the generic
// path would give each output byte quantize(dequantize(q)) of the input byte it moves, a
// function of that byte alone, so a 256-entry table per input gives exactly those bytes
// without the float buffers (a detector's final Concat: several ms per inference).
// Inputs are converted to the outputs' encoding, then moved as raw bytes.
template <Status (*Move)(const RunCtx&)>
inline Status move_requantized(const RunCtx& c, std::size_t n) {
  const TensorView& y = c.out[0];
  const float sy = y.quant->scale[0];
  const std::int32_t zy = zp_at(*y.quant, 0);
  const std::int64_t lo = qmin(y.dtype), hi = qmax(y.dtype);
  std::vector<TensorView> in = c.in;
  std::vector<std::vector<std::uint8_t>> converted;
  converted.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const TensorView& x = c.in[i];
    if (same_encoding(x, y)) continue;
    const float sx = x.quant->scale[0];
    const std::int32_t zx = zp_at(*x.quant, 0);
    const bool x_signed = x.dtype == DType::kInt8;
    std::uint8_t table[256];
    for (int b = 0; b < 256; ++b) {
      const std::int64_t q = x_signed ? static_cast<std::int8_t>(b) : b;
      const float real = static_cast<float>(q - zx) * sx;  // dequantize_per_tensor's numbers
      table[b] = static_cast<std::uint8_t>(quantize_value(real, sy, zy, lo, hi));
    }
    const auto* src = static_cast<const std::uint8_t*>(x.data);
    std::vector<std::uint8_t>& dst = converted.emplace_back(static_cast<std::size_t>(x.elements()));
    apply_byte_table(table, src, dst.data(), static_cast<std::int64_t>(dst.size()));
    in[i].data = dst.data();
    in[i].dtype = y.dtype;
    in[i].quant = y.quant;
  }
  return Move(RunCtx{c.op, c.attrs, in, c.out});
}

}  // namespace svp::kernels::detail
