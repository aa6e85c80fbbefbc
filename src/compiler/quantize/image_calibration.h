// Image files as calibration data for inputs with static AIPP, as the vendor's ATC reads
// its --image_list: each line names a JPEG or PNG file; the image is scaled to the AIPP
// source size, stored in the configuration's input_format (RGB/BGR packed or planar, with
// or without X, YUV400, YUV 4:2:0 / 4:2:2 semi-planar), and the runtime's own AIPP
// pipeline turns it into the model input, exactly as the NPU will at run time. The
// conversions the vendor does not document are ours (docs/quantization.md): bilinear
// scaling with half-pixel centres, and full-range BT.601 (JFIF) RGB -> YUV for YUV formats.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "model/aipp/model_config.h"
#include "model/tensor.h"

namespace svp::compiler::quant {

// An 8-bit RGB image, rows packed (w * 3 bytes each).
struct RgbImage {
  std::int32_t w = 0, h = 0;
  std::vector<std::uint8_t> rgb;
};

// Images larger than this many pixels are refused before decoding (a 64-megapixel frame).
inline constexpr std::int64_t kMaxImagePixels = std::int64_t{1} << 26;

// Decodes a .jpg/.jpeg/.jpe (libjpeg) or .png (libpng) file; grey and palette images
// become RGB, alpha is dropped. err::kInvalidFile when it cannot be read or is not a
// valid image of its kind (the decoder's message), err::kFeatureUnsupported for other
// extensions (.bmp, .jp2: convert them to PNG).
Result<RgbImage> decode_image(const std::string& path);

// The model input AIPP makes of `image` under the static configuration `aipp` (one batch
// item: `out` is [1, C, H, W] float32 for kNCHW). err::kInvalidParam for a configuration
// the pipeline rejects.
Status image_to_input(const RgbImage& image, const aipp::ModelAipp& aipp, model::Layout layout,
                      const model::TensorView& out);

}  // namespace svp::compiler::quant
