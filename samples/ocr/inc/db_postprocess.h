// Text detection post-processing of DB (Differentiable Binarization, the PP-OCR detector):
// the network outputs a text probability map; text regions are the connected components of
// the thresholded map, each replaced by its minimum-area rectangle, which is then grown
// ("unclipped") because DB is trained on text regions shrunk towards their centre.
#pragma once

#include <vector>

#include "geometry.h"

namespace ocr {

struct DbParams {
  float threshold = 0.3f;      // probability above which a pixel is text
  float box_threshold = 0.6f;  // boxes whose mean probability is lower are dropped
  // Growth distance = area * ratio / perimeter. PaddleOCR's tools default to 1.5; OpenCV's
  // DB text detector documents 2.0 as the usual value. With 1.5 the boxes of these ~22-pixel
  // lines hug the glyphs and the recogniser drops spaces ("Totaldue:1284.50EUR").
  float unclip_ratio = 2.0f;
  float min_size = 3.0f;       // boxes with a shorter side (input pixels) are dropped
  int max_candidates = 1000;
};

// Boxes of the probability map `prob` (map_w x map_h floats, rows `row_floats` apart),
// considering only its top-left valid_w x valid_h part (where the page lies) and mapped to
// page coordinates by dividing by `scale`. Coordinates are
// continuous: pixel (i, j) covers [i, i+1) x [j, j+1). Sorted in reading order (top to
// bottom; left to right within a line).
std::vector<TextBox> db_boxes(const float* prob, int map_w, int map_h, int row_floats, int valid_w, int valid_h,
                              float scale, const DbParams& params = {});

}  // namespace ocr
