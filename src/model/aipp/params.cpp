#include "model/aipp/params.h"

#include <cmath>

namespace svp::aipp {
namespace {

using model::DType;

// Every format the software AIPP reads. pos = where R,G,B (Y,U,V) live; see FormatInfo.
const FormatInfo kFormats[] = {
    {fmt_id::kYuv420Sp, "SVP_ACL_YUV420SP_U8", Storage::kYuvSemiPlanar, true, 2, 1, 1, {0, 0, 1}, -1, 3},
    {fmt_id::kYvu420Sp, "SVP_ACL_YVU420SP_U8", Storage::kYuvSemiPlanar, true, 2, 1, 1, {0, 1, 0}, -1, 3},
    {fmt_id::kYuv422Sp, "SVP_ACL_YUV422SP_U8", Storage::kYuvSemiPlanar, true, 1, 1, 1, {0, 0, 1}, -1, 3},
    {fmt_id::kYvu422Sp, "SVP_ACL_YVU422SP_U8", Storage::kYuvSemiPlanar, true, 1, 1, 1, {0, 1, 0}, -1, 3},
    {fmt_id::kYuv400, "SVP_ACL_YUV400_U8", Storage::kYuv400, true, 0, 1, 1, {0, 0, 0}, -1, 1},
    {fmt_id::kRgb888, "SVP_ACL_RGB888_U8", Storage::kPacked, false, 0, 3, 1, {0, 1, 2}, -1, 3},
    {fmt_id::kBgrPackage, "SVP_ACL_BGR_PACKAGE_U8", Storage::kPacked, false, 0, 3, 1, {2, 1, 0}, -1, 3},
    {fmt_id::kXrgb8888, "SVP_ACL_XRGB8888_U8", Storage::kPacked, false, 0, 4, 1, {1, 2, 3}, 0, 3},
    {fmt_id::kArgb8888, "SVP_ACL_ARGB8888_U8", Storage::kPacked, false, 0, 4, 1, {1, 2, 3}, 0, 3},
    {fmt_id::kXbgrPackage, "SVP_ACL_XBGR_PACKAGE_U8", Storage::kPacked, false, 0, 4, 1, {3, 2, 1}, 0, 3},
    {fmt_id::kRgbxPackage, "SVP_ACL_RGBX_PACKAGE_U8", Storage::kPacked, false, 0, 4, 1, {0, 1, 2}, 3, 3},
    {fmt_id::kBgrxPackage, "SVP_ACL_BGRX_PACKAGE_U8", Storage::kPacked, false, 0, 4, 1, {2, 1, 0}, 3, 3},
    {fmt_id::kRgbPlanar, "SVP_ACL_RGB_PLANAR_U8", Storage::kPlanar, false, 0, 1, 3, {0, 1, 2}, -1, 3},
    {fmt_id::kBgrPlanar, "SVP_ACL_BGR_PLANAR_U8", Storage::kPlanar, false, 0, 1, 3, {2, 1, 0}, -1, 3},
    {fmt_id::kXrgbPlanar, "SVP_ACL_XRGB_PLANAR_U8", Storage::kPlanar, false, 0, 1, 4, {1, 2, 3}, 0, 3},
    {fmt_id::kXbgrPlanar, "SVP_ACL_XBGR_PLANAR_U8", Storage::kPlanar, false, 0, 1, 4, {3, 2, 1}, 0, 3},
    {fmt_id::kRgbxPlanar, "SVP_ACL_RGBX_PLANAR_U8", Storage::kPlanar, false, 0, 1, 4, {0, 1, 2}, 3, 3},
    {fmt_id::kBgrxPlanar, "SVP_ACL_BGRX_PLANAR_U8", Storage::kPlanar, false, 0, 1, 4, {2, 1, 0}, 3, 3},
};

// Names of the enum values svp-acl does not read, for messages only.
struct Named {
  std::int32_t id;
  const char* name;
};
const Named kOtherNames[] = {
    {0x5, "SVP_ACL_NC1HWC0DI_FP16"}, {0x6, "SVP_ACL_NC1HWC0DI_S8"}, {0x8, "SVP_ACL_YUYV_U8"},
    {0xA, "SVP_ACL_AYUV444_U8"},     {0xB, "SVP_ACL_RAW10"},        {0xC, "SVP_ACL_RAW12"},
    {0xD, "SVP_ACL_RAW16"},          {0xE, "SVP_ACL_RAW24"},        {0x100, "SVP_ACL_FEATURE_MAP_U8"},
    {0x101, "SVP_ACL_FEATURE_MAP_S8"}, {0x102, "SVP_ACL_FEATURE_MAP_U16"}, {0x103, "SVP_ACL_FEATURE_MAP_S16"},
    {0x104, "SVP_ACL_FEATURE_MAP_FP16"}, {0x105, "SVP_ACL_FEATURE_MAP_FP32"}, {0x126, "SVP_ACL_UV_PLANNAR_U8"},
    {0x127, "SVP_ACL_VU_PLANNAR_U8"}, {0x128, "SVP_ACL_UV_PACKAGE_U8"}, {0x129, "SVP_ACL_VU_PACKAGE_U8"},
};

bool is_yuv420(const FormatInfo& f) { return f.storage == Storage::kYuvSemiPlanar && f.chroma_rows_div == 2; }
bool is_yuv422(const FormatInfo& f) { return f.storage == Storage::kYuvSemiPlanar && f.chroma_rows_div == 1; }

// The image sizes are int32 in the API; 2^24 keeps every product below 2^63 and is far
// beyond any camera (the vendor's limit is 4096 or 8192 depending on the chip).
constexpr std::int32_t kMaxSide = 1 << 24;

}  // namespace

const FormatInfo* format_info(std::int32_t id) {
  for (const FormatInfo& f : kFormats) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

std::string format_name(std::int32_t id) {
  if (const FormatInfo* f = format_info(id)) return f->name;
  for (const Named& n : kOtherNames) {
    if (n.id == id) return n.name;
  }
  if (id >= 0x112 && id <= 0x125) return fmt::format("Bayer raw format 0x{:x}", id);
  return fmt::format("format 0x{:x}", id);
}

std::optional<std::int32_t> format_from_name(const std::string& name) {
  for (const FormatInfo& f : kFormats) {
    const std::string full = f.name;
    if (name == full || "SVP_ACL_" + name == full) return f.id;
  }
  return std::nullopt;
}

Size after_crop(const AippParams& p, std::size_t b) {
  const BatchParams& e = p.batches[b];
  return e.crop ? Size{e.crop_w, e.crop_h} : Size{p.src_w, p.src_h};
}

Size after_padding(const AippParams& p, std::size_t b) {
  const BatchParams& e = p.batches[b];
  Size s = after_crop(p, b);
  if (e.padding != Padding::kOff) {
    s.w += e.pad_left + e.pad_right;
    s.h += e.pad_top + e.pad_bottom;
  }
  return s;
}

Size output_size(const AippParams& p, std::size_t b) {
  const BatchParams& e = p.batches[b];
  return e.resize != Resize::kOff ? Size{e.resize_out_w, e.resize_out_h} : after_padding(p, b);
}

std::int32_t output_channels(const AippParams& p) {
  const FormatInfo* f = format_info(p.format);
  return f ? f->channels : 3;
}

Status validate(const AippParams& p) {
  if (!p.format_set) {
    return Error(err::kInvalidParam,
                 "AIPP input format not set: svp_acl_mdl_set_aipp_input_format is mandatory");
  }
  if (!p.src_size_set) {
    return Error(err::kInvalidParam,
                 "AIPP source image size not set: svp_acl_mdl_set_aipp_src_image_size is mandatory");
  }
  const FormatInfo* f = format_info(p.format);
  if (f == nullptr) {
    return Error(err::kInvalidParam, "AIPP input format {} is not supported by svp-acl (docs/aipp.md lists the formats)",
                 format_name(p.format));
  }
  if (p.src_w <= 0 || p.src_h <= 0 || p.src_w > kMaxSide || p.src_h > kMaxSide) {
    return Error(err::kInvalidParam, "AIPP source image size {}x{} out of range (1..{})", p.src_w, p.src_h, kMaxSide);
  }
  if (is_yuv420(*f) && (p.src_w % 2 != 0 || p.src_h % 2 != 0)) {
    return Error(err::kInvalidParam, "AIPP source image size {}x{}: {} needs an even width and height", p.src_w,
                 p.src_h, f->name);
  }
  if (is_yuv422(*f) && p.src_w % 2 != 0) {
    return Error(err::kInvalidParam, "AIPP source image width {}: {} needs an even width", p.src_w, f->name);
  }
  if (p.csc && f->channels != 3) {
    return Error(err::kInvalidParam, "AIPP CSC is not applicable to {} (one channel)", f->name);
  }
  if (p.rbuv_swap && f->channels != 3) {
    return Error(err::kInvalidParam, "AIPP R/B (U/V) swap is not applicable to {} (one channel)", f->name);
  }
  if (p.ax_swap && f->x_pos < 0) {
    return Error(err::kInvalidParam, "AIPP AX swap applies only to formats with an X/alpha channel, not {}", f->name);
  }
  if (p.batches.empty()) return Error(err::kInvalidParam, "AIPP parameters for 0 batch images");
  for (std::size_t b = 0; b < p.batches.size(); ++b) {
    const BatchParams& e = p.batches[b];
    if (e.crop) {
      if (e.crop_x < 0 || e.crop_y < 0 || e.crop_w <= 0 || e.crop_h <= 0 ||
          static_cast<std::int64_t>(e.crop_x) + e.crop_w > p.src_w ||
          static_cast<std::int64_t>(e.crop_y) + e.crop_h > p.src_h) {
        return Error(err::kInvalidParam,
                     "AIPP batch {}: crop window at ({}, {}) of {}x{} lies outside the {}x{} source image", b,
                     e.crop_x, e.crop_y, e.crop_w, e.crop_h, p.src_w, p.src_h);
      }
      if (is_yuv420(*f) && (e.crop_x % 2 != 0 || e.crop_y % 2 != 0)) {
        return Error(err::kInvalidParam, "AIPP batch {}: crop start ({}, {}) must be even for {}", b, e.crop_x,
                     e.crop_y, f->name);
      }
      if (is_yuv422(*f) && e.crop_x % 2 != 0) {
        return Error(err::kInvalidParam, "AIPP batch {}: crop start x {} must be even for {}", b, e.crop_x, f->name);
      }
    }
    if (e.padding != Padding::kOff) {
      if (e.pad_top < 0 || e.pad_bottom < 0 || e.pad_left < 0 || e.pad_right < 0 || e.pad_top > kMaxSide ||
          e.pad_bottom > kMaxSide || e.pad_left > kMaxSide || e.pad_right > kMaxSide) {
        return Error(err::kInvalidParam, "AIPP batch {}: padding sizes must be 0..{}", b, kMaxSide);
      }
      // Padding extends the crop (or the source), before any resize.
      const Size in = after_crop(p, b);
      // Reflection needs a pixel to reflect across: pads must be smaller than the image.
      if (e.padding == Padding::kReflection &&
          (e.pad_left >= in.w || e.pad_right >= in.w || e.pad_top >= in.h || e.pad_bottom >= in.h)) {
        return Error(err::kInvalidParam, "AIPP batch {}: reflection padding must be smaller than the {}x{} {}", b,
                     in.w, in.h, e.crop ? "crop" : "source image");
      }
      if (e.padding == Padding::kSymmetric &&
          (e.pad_left > in.w || e.pad_right > in.w || e.pad_top > in.h || e.pad_bottom > in.h)) {
        return Error(err::kInvalidParam, "AIPP batch {}: symmetric padding must not exceed the {}x{} {}", b, in.w,
                     in.h, e.crop ? "crop" : "source image");
      }
    }
    if (e.resize != Resize::kOff) {
      // The board's scf stage reads the padded crop (docs/aipp.md §2): its input size is the
      // crop (or source) size plus the pads, and nothing else.
      const Size in = after_padding(p, b);
      if (e.resize_in_w != in.w || e.resize_in_h != in.h) {
        const Size c = after_crop(p, b);
        const char* what = e.crop ? "crop" : "source image";
        if (e.padding == Padding::kOff) {
          return Error(err::kInvalidParam,
                       "AIPP batch {}: resize (scf) input {}x{} differs from the {} size {}x{} that the resize "
                       "stage reads (padding is off); pass {}x{} as the scf input size",
                       b, e.resize_in_w, e.resize_in_h, what, in.w, in.h, in.w, in.h);
        }
        return Error(err::kInvalidParam,
                     "AIPP batch {}: resize (scf) input {}x{} differs from the padded {} size {}x{} that the resize "
                     "stage reads ({}x{} {} + left {} right {}, top {} bottom {} padding); pass {}x{} as the scf "
                     "input size",
                     b, e.resize_in_w, e.resize_in_h, what, in.w, in.h, c.w, c.h, what, e.pad_left, e.pad_right,
                     e.pad_top, e.pad_bottom, in.w, in.h);
      }
      if (e.resize_out_w <= 0 || e.resize_out_h <= 0 || e.resize_out_w > kMaxSide || e.resize_out_h > kMaxSide) {
        return Error(err::kInvalidParam, "AIPP batch {}: resize output {}x{} out of range", b, e.resize_out_w,
                     e.resize_out_h);
      }
    }
    for (int c = 0; c < 4; ++c) {
      if (!std::isfinite(e.mean[c]) || !std::isfinite(e.min[c]) || !std::isfinite(e.var_reci[c])) {
        return Error(err::kInvalidParam, "AIPP batch {}: channel {} mean/min/var_reci must be finite", b, c);
      }
    }
  }
  return Status::Ok();
}

Status validate_for(const AippParams& p, const Target& t) {
  SVP_RETURN_IF_ERROR(validate(p));
  const FormatInfo* f = format_info(p.format);
  if (t.channels != f->channels) {
    return Error(err::kInvalidParam, "AIPP on input \"{}\": {} produces {} channel(s), the model input has {}",
                 t.input_name, f->name, f->channels, t.channels);
  }
  const std::size_t n = p.batches.size();
  if (t.dynamic_batch && n != 1) {
    return Error(err::kInvalidParam,
                 "AIPP on input \"{}\": a dynamic-batch model takes one parameter set for all batch images, got {}",
                 t.input_name, n);
  }
  if (n != 1 && static_cast<std::int64_t>(n) != t.batch) {
    return Error(err::kInvalidParam, "AIPP on input \"{}\": {} parameter sets for a batch of {} (use 1 or {})",
                 t.input_name, n, t.batch, t.batch);
  }
  if (t.max_src_bytes > 0) {
    // The vendor's rule: each source image fits max_src_image_size, whatever its shape.
    auto g = source_geometry(p.format, p.src_w, p.src_h, 1);
    if (!g.ok()) return g.status();
    if (g->size > t.max_src_bytes) {
      return Error(err::kInvalidParam,
                   "AIPP on input \"{}\": source image {}x{} {} is {} bytes, more than the model's max_src_image_size "
                   "{} bytes; use a smaller source or compile with a larger max_src_image_size",
                   t.input_name, p.src_w, p.src_h, f->name, g->size, t.max_src_bytes);
    }
  }
  if ((t.max_src_w > 0 && p.src_w > t.max_src_w) || (t.max_src_h > 0 && p.src_h > t.max_src_h)) {
    return Error(err::kInvalidParam, "AIPP on input \"{}\": source image {}x{} exceeds the model's maximum {}x{}",
                 t.input_name, p.src_w, p.src_h, t.max_src_w, t.max_src_h);
  }
  for (std::size_t b = 0; b < n; ++b) {
    const Size out = output_size(p, b);
    bool ok = false;
    for (const auto& hw : t.hw) ok = ok || (hw.first == out.h && hw.second == out.w);
    if (!ok) {
      std::string allowed;
      for (const auto& hw : t.hw) allowed += fmt::format("{}{}x{}", allowed.empty() ? "" : ", ", hw.second, hw.first);
      return Error(err::kInvalidParam,
                   "AIPP on input \"{}\", batch {}: output {}x{} (w x h after crop, padding and resize) does not match "
                   "the model input ({})",
                   t.input_name, b, out.w, out.h, allowed);
    }
  }
  return Status::Ok();
}

Result<SourceGeometry> source_geometry(std::int32_t format, std::int32_t w, std::int32_t h,
                                       std::uint32_t internal_stride) {
  const FormatInfo* f = format_info(format);
  if (f == nullptr) return Error(err::kInvalidParam, "AIPP input format {} is not supported", format_name(format));
  if (w <= 0 || h <= 0 || w > kMaxSide || h > kMaxSide) {
    return Error(err::kInvalidParam, "AIPP source image size {}x{} out of range", w, h);
  }
  SourceGeometry g;
  const auto W = static_cast<std::uint64_t>(w);
  const auto H = static_cast<std::uint64_t>(h);
  switch (f->storage) {
    case Storage::kYuvSemiPlanar:
      g.dims = {1, 3, h, w};
      g.row_bytes = W;
      g.rows = H + H / static_cast<std::uint64_t>(f->chroma_rows_div);
      break;
    case Storage::kYuv400:
      g.dims = {1, 1, h, w};
      g.row_bytes = W;
      g.rows = H;
      break;
    case Storage::kPacked:
      g.dims = {1, 1, h, w};  // one 24/32-bit element per pixel (spec §2.3: c = 1)
      g.row_bytes = W * static_cast<std::uint64_t>(f->bytes_per_pixel);
      g.rows = H;
      break;
    case Storage::kPlanar:
      g.dims = {1, f->planes, h, w};
      g.row_bytes = W;
      g.rows = H * static_cast<std::uint64_t>(f->planes);
      break;
  }
  const std::uint64_t a = internal_stride == 0 ? 1 : internal_stride;
  g.stride = (g.row_bytes + a - 1) / a * a;
  g.size = g.rows * g.stride;
  return g;
}

}  // namespace svp::aipp
