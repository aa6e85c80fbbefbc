// Internal activation layout of the fast paths: 4-D tensors between oneDNN ops are kept
// in NHWC (channels last), which is what oneDNN's int8 kernels need (NCHW int8 falls into
// its slow reference path) and needs no padding, so an NHWC tensor has exactly the
// planned byte size of the logical NCHW one. These converters run at the boundaries:
// model inputs/outputs and reference kernels always see the logical NCHW order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace svp::kernels::onednn {

// True when NCHW and NHWC orders of a 4-D tensor differ in memory (C > 1 and H·W > 1);
// otherwise the bytes are identical and no conversion is needed.
bool layout_matters(const std::vector<std::int64_t>& dims);

// Dense NCHW → NHWC and back, `elem` bytes per element (1, 2, 4 or 8), on up to `threads`
// OpenMP threads (large tensors only).
void nchw_to_nhwc(const void* src, void* dst, const std::vector<std::int64_t>& nchw, std::size_t elem, int threads = 1);
void nhwc_to_nchw(const void* src, void* dst, const std::vector<std::int64_t>& nchw, std::size_t elem, int threads = 1);

}  // namespace svp::kernels::onednn
