// AIPP parameters (the NPU's image preprocessing) and their validation.
//
// One AippParams is what an svp_acl_mdl_aipp object collects (dynamic AIPP) or what a model
// input's static configuration holds. The processing order is the SVP board's:
//   channel / UV swap -> crop -> CSC -> padding -> resize (scf) -> (x - mean - min) * var_reci
// Padding comes before resize because the board's scf stage reads the padded crop: the
// vendor sample pads a 716x572 crop by 2 on every side and resizes 720x576 -> 1920x1080
// (docs/aipp.md §2 gives the evidence and defines every stage bit by bit). This header is pure C++ with no C API
// or runtime dependency so the pipeline can be tested alone.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "model/tensor.h"

namespace svp::aipp {

// svp_acl_aipp_format values (spec §1.4).
namespace fmt_id {
inline constexpr std::int32_t kYuv420Sp = 0x1;
inline constexpr std::int32_t kXrgb8888 = 0x2;
inline constexpr std::int32_t kRgb888 = 0x3;
inline constexpr std::int32_t kYuv400 = 0x4;
inline constexpr std::int32_t kArgb8888 = 0x7;
inline constexpr std::int32_t kYuv422Sp = 0x9;
inline constexpr std::int32_t kYvu420Sp = 0x106;
inline constexpr std::int32_t kYvu422Sp = 0x107;
inline constexpr std::int32_t kBgrPlanar = 0x108;
inline constexpr std::int32_t kRgbPlanar = 0x109;
inline constexpr std::int32_t kBgrPackage = 0x10A;
inline constexpr std::int32_t kXrgbPlanar = 0x10B;
inline constexpr std::int32_t kXbgrPlanar = 0x10C;
inline constexpr std::int32_t kRgbxPlanar = 0x10D;
inline constexpr std::int32_t kBgrxPlanar = 0x10E;
inline constexpr std::int32_t kXbgrPackage = 0x10F;
inline constexpr std::int32_t kRgbxPackage = 0x110;
inline constexpr std::int32_t kBgrxPackage = 0x111;
}  // namespace fmt_id

enum class Storage {
  kYuvSemiPlanar,  // Y plane (H rows) then interleaved chroma (H/2 rows for 4:2:0, H for 4:2:2)
  kYuv400,         // Y plane only
  kPacked,         // one pixel = `bytes_per_pixel` consecutive bytes
  kPlanar,         // `planes` planes of H rows each
};

// How a supported source format is stored. `pos[c]` is where canonical channel c lives
// (byte within a packed pixel, or plane index): canonical channels are (R, G, B) for RGB
// formats and (Y, U, V) for YUV formats. `x_pos` is the X/alpha byte or plane (-1: none).
struct FormatInfo {
  std::int32_t id = 0;
  const char* name = "";
  Storage storage = Storage::kPacked;
  bool yuv = false;
  std::int32_t chroma_rows_div = 0;  // semi-planar: H / div chroma rows (2 = 4:2:0, 1 = 4:2:2)
  std::int32_t bytes_per_pixel = 1;  // packed
  std::int32_t planes = 1;           // planar
  std::array<std::int32_t, 3> pos{0, 1, 2};  // semi-planar: pos[1], pos[2] = U, V byte in a chroma pair
  std::int32_t x_pos = -1;
  std::int32_t channels = 3;         // channels AIPP produces without CSC (1 for YUV400)
};

// nullptr when `id` is not a format svp-acl AIPP supports.
const FormatInfo* format_info(std::int32_t id);
// Name of any svp_acl_aipp_format value ("SVP_ACL_YUV420SP_U8"), or "format 0x.." for others.
std::string format_name(std::int32_t id);
// Parses "YUV420SP_U8" or "SVP_ACL_YUV420SP_U8" (supported formats only).
std::optional<std::int32_t> format_from_name(const std::string& name);

// svp_acl_aipp_resize_switch / svp_acl_aipp_padding_switch values.
enum class Resize : std::int32_t { kOff = 0, kNearest = 1, kBilinear = 2 };
enum class Padding : std::int32_t { kOff = 0, kConstant = 1, kReplication = 2, kReflection = 3, kSymmetric = 4 };

// Per-batch-image parameters (the vendor's per-batch setters).
struct BatchParams {
  bool crop = false;
  std::int32_t crop_x = 0, crop_y = 0, crop_w = 0, crop_h = 0;
  Resize resize = Resize::kOff;
  std::int32_t resize_in_w = 0, resize_in_h = 0, resize_out_w = 0, resize_out_h = 0;
  Padding padding = Padding::kOff;
  std::int32_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
  std::array<float, 4> mean{0, 0, 0, 0};
  std::array<float, 4> min{0, 0, 0, 0};
  std::array<float, 4> var_reci{1, 1, 1, 1};
};

// The CSC matrix is Q10 fixed point (1024 = 1.0), as the vendor sample's YUV->BGR matrix
// {1192, 2166, 0; 1192, -218, -547; 1192, 0, 1836} (BT.709 video range) shows.
inline constexpr int kCscShift = 10;

struct AippParams {
  // The two mandatory setters (seed §8.3.4 3c): nothing runs until both were called.
  bool format_set = false;
  std::int32_t format = 0;
  bool src_size_set = false;
  std::int32_t src_w = 0, src_h = 0;
  bool csc = false;
  std::array<std::int16_t, 9> matrix{};  // row-major; row r produces output channel r
  std::array<std::uint8_t, 3> out_bias{};
  std::array<std::uint8_t, 3> in_bias{};
  bool rbuv_swap = false;
  bool ax_swap = false;
  std::vector<BatchParams> batches{BatchParams{}};  // create_aipp(batch_size) entries
};

// Size of one stage's image.
struct Size {
  std::int32_t w = 0, h = 0;
};

// Image sizes of batch entry `b` (valid params) after crop, after padding (the crop, or the
// source, plus the pads: what the resize stage reads) and at the end of AIPP (the resize
// output, or the padded size when resize is off).
Size after_crop(const AippParams& p, std::size_t b);
Size after_padding(const AippParams& p, std::size_t b);
Size output_size(const AippParams& p, std::size_t b);
// Channels the pipeline produces: 3, or 1 for YUV400.
std::int32_t output_channels(const AippParams& p);

// Self-consistency: both mandatory setters called, a supported format, even sizes and crop
// offsets for YUV 4:2:0 (even widths for 4:2:2), crop inside the source, resize input =
// the padded crop (or source) size, the swaps applicable to the format, finite DTC values. Errors are
// err::kInvalidParam and name the batch entry and the parameter at fault.
Status validate(const AippParams& p);

// What the parameters must produce for one model input (its first-layer tensor).
struct Target {
  std::string input_name;
  model::DType dtype = model::DType::kFloat32;
  model::Layout layout = model::Layout::kNCHW;
  std::int64_t channels = 3;
  std::int64_t batch = 1;          // dims[0]: batch images per execution (max batch)
  bool dynamic_batch = false;      // one parameter set must apply to all batch images
  // Allowed post-AIPP (h, w): the model's own, or its dynamic-HW gears.
  std::vector<std::pair<std::int64_t, std::int64_t>> hw;
  std::int32_t max_src_w = 0, max_src_h = 0;  // 0 = no limit
  std::uint64_t max_src_bytes = 0;             // dense source bytes; 0 = no limit
};

// validate(p) plus: channel count, batch count (1, or = batch when not dynamic), post-AIPP
// size in `t.hw`, source within the maximum size.
Status validate_for(const AippParams& p, const Target& t);

// Geometry of the source image an application writes for one batch image (spec §2.3/2.4).
struct SourceGeometry {
  std::vector<std::int64_t> dims;  // per image with d0 = 1: [1, C, H, W] (packed: C = 1)
  std::uint64_t row_bytes = 0;     // bytes of one row's pixels
  std::uint64_t stride = 0;        // default stride: row_bytes rounded up to the internal stride
  std::uint64_t rows = 0;          // rows of one image (1.5·H for 4:2:0, ...)
  std::uint64_t size = 0;          // rows × stride
};
Result<SourceGeometry> source_geometry(std::int32_t format, std::int32_t w, std::int32_t h,
                                       std::uint32_t internal_stride);

}  // namespace svp::aipp
