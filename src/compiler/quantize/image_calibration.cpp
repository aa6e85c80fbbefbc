#include "compiler/quantize/image_calibration.h"

#include <jpeglib.h>
#include <png.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "aipp/pipeline.h"

namespace svp::compiler::quant {
namespace {

// libjpeg reports fatal errors through error_exit, which must not return: it longjmps back
// to decode_jpeg, which has no C++ objects with destructors between setjmp and the calls.
struct JpegError {
  jpeg_error_mgr mgr;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void jpeg_fail(j_common_ptr cinfo) {
  auto* e = reinterpret_cast<JpegError*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, e->message);
  std::longjmp(e->jump, 1);
}

void jpeg_quiet(j_common_ptr, int) {}

// Fills `out` (w, h, rgb) from the JPEG in `file`; false with `message` on any error.
bool decode_jpeg(std::FILE* file, RgbImage* out, std::string* message) {
  jpeg_decompress_struct cinfo;
  JpegError err;
  cinfo.err = jpeg_std_error(&err.mgr);
  err.mgr.error_exit = jpeg_fail;
  err.mgr.emit_message = jpeg_quiet;
  err.message[0] = '\0';
  if (setjmp(err.jump) != 0) {
    jpeg_destroy_decompress(&cinfo);
    *message = err.message;
    return false;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_stdio_src(&cinfo, file);
  jpeg_read_header(&cinfo, TRUE);
  if (static_cast<std::int64_t>(cinfo.image_width) * cinfo.image_height > kMaxImagePixels) {
    jpeg_destroy_decompress(&cinfo);
    *message = fmt::format("{}x{} pixels is more than the {} a calibration image may have", cinfo.image_width,
                           cinfo.image_height, kMaxImagePixels);
    return false;
  }
  cinfo.out_color_space = JCS_RGB;
  jpeg_start_decompress(&cinfo);
  out->w = static_cast<std::int32_t>(cinfo.output_width);
  out->h = static_cast<std::int32_t>(cinfo.output_height);
  out->rgb.resize(static_cast<std::size_t>(out->w) * static_cast<std::size_t>(out->h) * 3);
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = out->rgb.data() + static_cast<std::size_t>(cinfo.output_scanline) * static_cast<std::size_t>(out->w) * 3;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return true;
}

// libpng's simplified API: no setjmp of ours, errors in image.message.
bool decode_png(const std::string& path, RgbImage* out, std::string* message) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, path.c_str())) {
    *message = image.message;
    return false;
  }
  if (static_cast<std::int64_t>(image.width) * image.height > kMaxImagePixels) {
    png_image_free(&image);
    *message = fmt::format("{}x{} pixels is more than the {} a calibration image may have", image.width,
                           image.height, kMaxImagePixels);
    return false;
  }
  image.format = PNG_FORMAT_RGB;
  out->w = static_cast<std::int32_t>(image.width);
  out->h = static_cast<std::int32_t>(image.height);
  out->rgb.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, out->rgb.data(), 0, nullptr)) {
    *message = image.message;
    png_image_free(&image);
    return false;
  }
  return true;
}

// Bilinear scaling with half-pixel centres (OpenCV's INTER_LINEAR geometry), rounded.
RgbImage scale(const RgbImage& in, std::int32_t w, std::int32_t h) {
  if (in.w == w && in.h == h) return in;
  RgbImage out;
  out.w = w;
  out.h = h;
  out.rgb.resize(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 3);
  const double sx = static_cast<double>(in.w) / w, sy = static_cast<double>(in.h) / h;
  for (std::int32_t y = 0; y < h; ++y) {
    const double fy = std::clamp((y + 0.5) * sy - 0.5, 0.0, static_cast<double>(in.h - 1));
    const auto y0 = static_cast<std::int32_t>(fy);
    const std::int32_t y1 = std::min(y0 + 1, in.h - 1);
    const double wy = fy - y0;
    for (std::int32_t x = 0; x < w; ++x) {
      const double fx = std::clamp((x + 0.5) * sx - 0.5, 0.0, static_cast<double>(in.w - 1));
      const auto x0 = static_cast<std::int32_t>(fx);
      const std::int32_t x1 = std::min(x0 + 1, in.w - 1);
      const double wx = fx - x0;
      auto at = [&](std::int32_t yy, std::int32_t xx, int c) {
        return static_cast<double>(in.rgb[(static_cast<std::size_t>(yy) * static_cast<std::size_t>(in.w) +
                                           static_cast<std::size_t>(xx)) * 3 + static_cast<std::size_t>(c)]);
      };
      for (int c = 0; c < 3; ++c) {
        const double v = (1 - wy) * ((1 - wx) * at(y0, x0, c) + wx * at(y0, x1, c)) +
                         wy * ((1 - wx) * at(y1, x0, c) + wx * at(y1, x1, c));
        out.rgb[(static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x)) * 3 +
                static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(std::lround(std::clamp(v, 0.0, 255.0)));
      }
    }
  }
  return out;
}

std::uint8_t clamp8(double v) { return static_cast<std::uint8_t>(std::lround(std::clamp(v, 0.0, 255.0))); }

// BT.601 full range, as JPEG (JFIF) stores colour: a grey pixel's Y is its value, so a
// YUV400 input sees the grey image itself.
void to_yuv(const std::uint8_t* rgb, std::uint8_t* yuv) {
  const double r = rgb[0], g = rgb[1], b = rgb[2];
  yuv[0] = clamp8(0.299 * r + 0.587 * g + 0.114 * b);
  yuv[1] = clamp8(128.0 - 0.168736 * r - 0.331264 * g + 0.5 * b);
  yuv[2] = clamp8(128.0 + 0.5 * r - 0.418688 * g - 0.081312 * b);
}

// `image` (already at the source size) stored the way `f` says; returns the row stride.
std::uint64_t pack(const RgbImage& image, const aipp::FormatInfo& f, std::vector<std::uint8_t>* out) {
  const auto w = static_cast<std::size_t>(image.w), h = static_cast<std::size_t>(image.h);
  std::vector<std::uint8_t> canon(image.rgb);  // canonical channels: (R, G, B) or (Y, U, V)
  if (f.yuv) {
    for (std::size_t i = 0; i < w * h; ++i) to_yuv(&image.rgb[i * 3], &canon[i * 3]);
  }
  auto c_at = [&](std::size_t y, std::size_t x, int c) { return canon[(y * w + x) * 3 + static_cast<std::size_t>(c)]; };
  switch (f.storage) {
    case aipp::Storage::kYuv400:
      out->resize(w * h);
      for (std::size_t i = 0; i < w * h; ++i) (*out)[i] = canon[i * 3];
      return w;
    case aipp::Storage::kYuvSemiPlanar: {
      const auto div = static_cast<std::size_t>(f.chroma_rows_div);
      const std::size_t chroma_rows = h / div;
      out->assign(w * h + w * chroma_rows, 0);
      for (std::size_t i = 0; i < w * h; ++i) (*out)[i] = canon[i * 3];
      // One (U, V) pair per 2 pixels of a row (4:2:2) or of a 2x2 block (4:2:0): the mean.
      for (std::size_t cy = 0; cy < chroma_rows; ++cy) {
        for (std::size_t cx = 0; cx + 1 < w + 1; cx += 2) {
          for (int c = 1; c < 3; ++c) {
            double sum = 0;
            int n = 0;
            for (std::size_t dy = 0; dy < div; ++dy) {
              for (std::size_t dx = 0; dx < 2 && cx + dx < w; ++dx) {
                sum += c_at(cy * div + dy, cx + dx, c);
                ++n;
              }
            }
            (*out)[w * h + cy * w + cx + static_cast<std::size_t>(f.pos[static_cast<std::size_t>(c)])] =
                clamp8(sum / n);
          }
        }
      }
      return w;
    }
    case aipp::Storage::kPacked: {
      const auto bpp = static_cast<std::size_t>(f.bytes_per_pixel);
      out->assign(w * h * bpp, 255);  // the X / alpha byte stays opaque
      for (std::size_t i = 0; i < w * h; ++i) {
        for (int c = 0; c < 3; ++c) (*out)[i * bpp + static_cast<std::size_t>(f.pos[static_cast<std::size_t>(c)])] = canon[i * 3 + static_cast<std::size_t>(c)];
      }
      return w * bpp;
    }
    case aipp::Storage::kPlanar: {
      out->assign(w * h * static_cast<std::size_t>(f.planes), 255);
      for (std::size_t i = 0; i < w * h; ++i) {
        for (int c = 0; c < 3; ++c) {
          (*out)[static_cast<std::size_t>(f.pos[static_cast<std::size_t>(c)]) * w * h + i] = canon[i * 3 + static_cast<std::size_t>(c)];
        }
      }
      return w;
    }
  }
  return w;
}

}  // namespace

Result<RgbImage> decode_image(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  RgbImage image;
  std::string message;
  if (ext == ".png") {
    if (!decode_png(path, &image, &message)) {
      return Error(err::kInvalidFile, "\"{}\": not a readable PNG image ({})", path, message);
    }
  } else if (ext == ".jpg" || ext == ".jpeg" || ext == ".jpe") {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!f) return Error(err::kInvalidFile, "\"{}\": cannot open the image", path);
    if (!decode_jpeg(f.get(), &image, &message)) {
      return Error(err::kInvalidFile, "\"{}\": not a readable JPEG image ({})", path, message);
    }
  } else {
    return Error(err::kFeatureUnsupported,
                 "\"{}\": {} images are not decoded by svp_atc (JPEG and PNG are); convert it to PNG", path, ext);
  }
  if (image.w <= 0 || image.h <= 0) return Error(err::kInvalidFile, "\"{}\": the image is empty", path);
  return image;
}

Status image_to_input(const RgbImage& image, const aipp::ModelAipp& a, model::Layout layout,
                      const model::TensorView& out) {
  const aipp::AippParams& p = a.params;
  const aipp::FormatInfo* f = aipp::format_info(p.format);
  if (f == nullptr) return Error(err::kInvalidParam, "AIPP input format {} is not supported", aipp::format_name(p.format));
  const RgbImage scaled = scale(image, p.src_w, p.src_h);
  std::vector<std::uint8_t> src;
  const std::uint64_t stride = pack(scaled, *f, &src);
  return aipp::run(p, 0, src.data(), stride, src.size(), layout, out);
}

}  // namespace svp::compiler::quant
