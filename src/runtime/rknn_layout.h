// The RKNN NPU's native tensor layouts (Rockchip's RKNN SDK advanced guide, section 5.1 and
// 5.2): which layout RKNN_QUERY_NATIVE_*_ATTR reports for a tensor on a platform, and the
// element mapping between a model-order (NCHW) tensor and a buffer in NCHW, NHWC or
// NC1HWC2 with width/height padding (what rknn_set_io_mem memory holds).
//
// NC1HWC2: channels in blocks of C2 (C1 = ceil(C / C2)); element (n, c, h, w) lives at
// (((n * C1 + c / C2) * H + h) * W + w) * C2 + c % C2; the channels past C in the last block
// are padding. C2 depends on the platform and on the element type (guide, table 5-1).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rknn/rknn_api.h"
#include "target/device_profile.h"

namespace svp::runtime::rknn {

// C2 (elements) on `platform` for tensors of `type` (the profile's table 5-1 figures):
// int8/uint8 use the table's int8 row; float16 and float32 its float16 row (svp-acl keeps
// float tensors in float32; the board computes them in float16). 0 for a type the NPU
// keeps in NCHW (int16, int32, int64, bool, ...).
std::uint32_t native_c2(const target::DeviceProfile& platform, int type);
// The width alignment (elements) of a native NHWC input (guide, table 5-2: width aligned to
// 8 bytes on RK3566/RK3568, 16 bytes on RK3562/RK3576/RK3588/RV1103/RV1106; taken as
// elements, the guide's case being one-byte inputs).
std::uint32_t input_width_align(const target::DeviceProfile& platform);

// What a tensor's RKNN_QUERY_NATIVE_INPUT_ATTR / NATIVE_OUTPUT_ATTR (`nhwc` false) or
// NATIVE_NHWC_INPUT_ATTR / NATIVE_NHWC_OUTPUT_ATTR (`nhwc` true) reports, from its normal
// attribute `normal` and its model dims `dims` (NCHW when 4-D). Rules (docs/rknn.md):
// - 4-D inputs with 1, 3 or 4 channels, and every 4-D input for the NHWC command: NHWC,
//   w_stride = W rounded up to input_width_align(platform);
// - other 4-D inputs and 4-D outputs of a type with a C2: NC1HWC2 [N, C1, H, W, C2];
// - 4-D outputs for the NHWC command: NHWC [N, H, W, C];
// - everything else: the normal attribute.
// n_elems / size count the dims reported; size_with_stride includes the padding.
rknn_tensor_attr native_attr(const rknn_tensor_attr& normal, const std::vector<std::int64_t>& dims, bool input,
                             bool nhwc, const target::DeviceProfile& platform);

// A buffer's layout of a tensor of `elems` model-order elements: for 4-D tensors of logical
// N, C, H, W (fmt NCHW, NHWC or NC1HWC2, with w_stride >= W, h_stride >= H); any other
// fmt is the model order, dense.
struct Layout {
  int fmt = RKNN_TENSOR_UNDEFINED;
  std::uint64_t n = 1, c = 1, h = 1, w = 1;
  std::uint64_t h_stride = 1, w_stride = 1;
  std::uint64_t c2 = 1;
  std::uint64_t elems = 0;

  // Elements the buffer spans, padding included.
  std::uint64_t buffer_elems() const;
  // Buffer element index of model-order element i.
  std::uint64_t offset(std::uint64_t i) const;
  std::string describe() const;  // "NC1HWC2 [1, 2, 20, 20, 16]"-style, for messages
};

// Builds the layout `attr` describes for a tensor of model dims `dims` (`nhwc_source`: an
// NC1HWC2 input attribute without pass_through, whose buffer the guide says is NHWC). On a
// mismatch returns false with the reason in *why.
bool layout_from_attr(const rknn_tensor_attr& attr, const std::vector<std::int64_t>& dims, bool nhwc_source,
                      Layout* out, std::string* why);

// Element copies between a dense model-order array and a buffer in `layout` (`es` bytes per
// element). pack zeroes the padding.
void unpack(const Layout& layout, std::size_t es, const std::uint8_t* buffer, std::uint8_t* dense);
void pack(const Layout& layout, std::size_t es, const std::uint8_t* dense, std::uint8_t* buffer);

}  // namespace svp::runtime::rknn
