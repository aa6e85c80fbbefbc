// The AIPP pipeline: one raw source image -> the model's dense first-layer tensor.
//
// Stages, in the SVP board's order (docs/aipp.md §2 has the evidence and the arithmetic):
//   1. unpack + channel swap: read canonical channels (R,G,B) or (Y,U,V) from the source
//      format (4:2:0 / 4:2:2 chroma is shared by 2x2 / 2x1 pixels), AX swap moves the X
//      byte, R/B (U/V) swap exchanges the two;
//   2. crop: a window of the source;
//   3. CSC: out_i = clamp(((sum_j m_ij (c_j - in_bias_j)) + 512) >> 10) + out_bias_i, 0, 255)
//      (Q10 matrix), when switched on;
//   4. padding: borders around the 8-bit crop: constant (pixel value 0), replication,
//      reflection (OpenCV REFLECT_101) or symmetric (REFLECT);
//   5. resize (scf) of the padded crop: nearest or bilinear (OpenCV INTER_LINEAR geometry,
//      half-pixel centres, Q11 weights, result rounded to uint8);
//   6. DTC: y = ((x - mean_c) - min_c) * var_reci_c in float32, then the model input's type
//      (float32 as is; int8/uint8 quantized with the kernels' rule saturate(nearbyint(y/s)+zp)).
// Only the source pixels that resize reads are converted (CSC is per pixel, so this is the
// same result as converting the whole crop; a 1080p frame resized to 224x224 converts ~10%
// of its pixels).
//
// Thread-safe: run() keeps its scratch on the stack of the caller.
#pragma once

#include <cstddef>
#include <cstdint>

#include "model/aipp/params.h"
#include "common/status.h"
#include "model/tensor.h"

namespace svp::aipp {

// Runs AIPP for batch image `batch_image` (parameter entry 0 when `p` has one entry, else
// entry `batch_image`). `src` points at this image's first source byte; rows are
// `src_stride` bytes apart (>= the row's pixel bytes) and `src_bytes` are readable.
// `out` is ONE image's dense tensor: dims [1, C, H, W] for NCHW or [1, H, W, C] for NHWC,
// dtype float32, int8 or uint8 (int8/uint8 need a per-tensor `quant`); H, W must equal the
// post-AIPP size (this is where a dynamic-HW gear is checked). `p` must pass validate().
// Errors: err::kInvalidParam naming the mismatch.
Status run(const AippParams& p, std::size_t batch_image, const std::uint8_t* src, std::uint64_t src_stride,
           std::uint64_t src_bytes, model::Layout layout, const model::TensorView& out);

}  // namespace svp::aipp
