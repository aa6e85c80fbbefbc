// Rewrites a JPEG photo as PNG (RGB, 8 bit), pixel for pixel as libjpeg decodes it: the YOLO
// demo (samples/rknn/yolo) reads PNG, as the repository's other demos do, and its test photos
// (Debian's opencv-doc) are mostly JPEG.
//   jpeg_to_png IN.jpg OUT.png
// jpeglib.h needs FILE and size_t declared before it: no reordering.
// clang-format off
#include <csetjmp>
#include <cstdio>
#include <vector>

#include <jpeglib.h>
#include <png.h>
// clang-format on

namespace {

struct ErrorManager {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
};

[[noreturn]] void on_error(j_common_ptr info) {
  char message[JMSG_LENGTH_MAX];
  (*info->err->format_message)(info, message);
  std::fprintf(stderr, "jpeg_to_png: %s\n", message);
  std::longjmp(reinterpret_cast<ErrorManager*>(info->err)->jump, 1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s IN.jpg OUT.png\n", argv[0]);
    return 2;
  }
  std::FILE* in = std::fopen(argv[1], "rb");
  if (in == nullptr) {
    std::fprintf(stderr, "jpeg_to_png: %s cannot be opened\n", argv[1]);
    return 1;
  }
  jpeg_decompress_struct cinfo;
  ErrorManager err;
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = on_error;
  static std::vector<unsigned char> rgb;  // static: untouched by longjmp's unwinding
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    std::fclose(in);
    return 1;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_stdio_src(&cinfo, in);
  jpeg_read_header(&cinfo, TRUE);
  cinfo.out_color_space = JCS_RGB;
  jpeg_start_decompress(&cinfo);
  const std::size_t row = static_cast<std::size_t>(cinfo.output_width) * 3;
  rgb.assign(row * cinfo.output_height, 0);
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW line = rgb.data() + row * cinfo.output_scanline;
    jpeg_read_scanlines(&cinfo, &line, 1);
  }
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  png.width = cinfo.output_width;
  png.height = cinfo.output_height;
  png.format = PNG_FORMAT_RGB;
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  std::fclose(in);
  if (!png_image_write_to_file(&png, argv[2], 0, rgb.data(), 0, nullptr)) {
    std::fprintf(stderr, "jpeg_to_png: %s: %s\n", argv[2], png.message);
    return 1;
  }
  return 0;
}
