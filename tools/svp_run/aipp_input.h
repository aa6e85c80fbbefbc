// Inputs with AIPP, as svp_run feeds them: the file holds the raw source image (a camera
// frame), so its size follows the AIPP source format and size, not the model tensor's dims
// (docs/aipp.md §1 table), and dynamic AIPP takes its parameters from an ais_bench-style
// --aipp_config file. Public C API only, like the rest of svp_run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "acl/svp_acl_mdl.h"

namespace svp::run {

// Bytes of one source image as the application writes it densely (rows of `row_bytes`).
struct SourceLayout {
  std::int32_t format = 0;
  std::int32_t width = 0, height = 0;
  std::size_t row_bytes = 0;  // pixels of one row (3·W for RGB888, 4·W for XRGB, W otherwise)
  std::size_t rows = 0;       // rows of one image (1.5·H for YUV420SP, 3·H for RGB planar, ...)
  std::size_t bytes() const { return row_bytes * rows; }
  // "640x480 YUV420SP_U8 (W x H x 1.5 = 460800 bytes)"
  std::string describe() const;
};

// The layout of a `width` x `height` image of `format`; false for a format the runtime does
// not read (feature maps, raw Bayer, ...).
bool source_layout(std::int32_t format, std::int32_t width, std::int32_t height, SourceLayout* out);

// "YUV420SP_U8" for SVP_ACL_YUV420SP_U8 (ATC / ais_bench spelling); "format 0x…" otherwise.
std::string aipp_format_name(std::int32_t format);

// ais_bench's --aipp_config file: an "[aipp_op]" section of "key : value" lines (ATC
// aipp-config key names, switches 1/0 or true/false, '#' comments). Throws
// std::invalid_argument naming the file, line and fault.
std::map<std::string, std::string> read_aipp_config(const std::string& path);

// A parameter object for one batch entry (applied to every batch image) from the keys of
// read_aipp_config; the source layout it describes in `*source`. Throws
// std::invalid_argument for a missing mandatory key (input_format, src_image_size_w/_h), an
// unknown key or value, or a value the setters refuse (with the runtime's message).
// The caller owns the result (svp_acl_mdl_destroy_aipp).
svp_acl_mdl_aipp* make_aipp(const std::map<std::string, std::string>& config, const std::string& path,
                            SourceLayout* source);

}  // namespace svp::run
