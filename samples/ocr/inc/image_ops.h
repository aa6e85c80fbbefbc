// Host-side resampling of the OCR pipeline: what the NPU's AIPP is not asked to do (it
// receives each model's input at its final size; it converts colours and normalises).
#pragma once

#include <cstddef>
#include <cstdint>

#include "geometry.h"
#include "image.h"

namespace ocr {

// Where a page lies in the detector's fixed-size input.
struct Letterbox {
  float scale = 1;  // input pixels per page pixel (<= 1: pages are never enlarged)
  int width = 0;    // the page's size inside the input, from the top-left corner
  int height = 0;
};

// Writes `page` into a dst_w x dst_h RGB888 buffer (rows `stride` bytes apart): scaled down
// (bilinear) to fit when larger, at the top-left, the rest filled by repeating the page's
// last row and column, so the detector sees more paper rather than a frame edge.
Letterbox letterbox_into(const RgbImage& page, int dst_w, int dst_h, std::uint8_t* dst, std::size_t stride);

// Samples `box`, its height scaled by `height_scale` about its centre line, of `page` into
// an image `out_h` rows high whose width keeps that aspect ratio (at least 1, at most max_w:
// longer boxes are squeezed), bilinearly, in the box's reading direction: a rotated box
// comes out straight.
RgbImage crop_box(const RgbImage& page, TextBox box, float height_scale, int out_h, int max_w);

// The image turned by 180 degrees (a line the direction classifier found upside down).
RgbImage rotate_180(const RgbImage& img);

// Writes `line` (scaled to out_h rows, width kept unless wider than dst_w) at the left of a
// dst_w x out_h RGB888 buffer and fills the rest with `pad`; returns the width used.
// PP-OCR pads its recogniser and classifier inputs with zeros after normalisation, i.e.
// with mid-grey 127.5 before it: pass 128.
int place_line(const RgbImage& line, int dst_w, int out_h, std::uint8_t pad, std::uint8_t* dst, std::size_t stride);

}  // namespace ocr
