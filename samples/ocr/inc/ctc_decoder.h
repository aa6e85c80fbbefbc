// CTC greedy decoding of the PP-OCR recogniser's output: per time step the most likely
// class; repeats collapsed, then blanks removed.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ocr {

class CtcDecoder {
 public:
  // Reads PaddleOCR's character dictionary (one UTF-8 character per line, e.g.
  // ppocr_keys_v1.txt). The classes are PaddleOCR's: 0 = CTC blank, then the dictionary's
  // characters in file order, then " " (use_space_char, on for the PP-OCR models).
  // Throws std::runtime_error when the file cannot be read or is empty.
  explicit CtcDecoder(const std::string& dict_path);

  std::size_t num_classes() const { return symbols_.size(); }

  struct Text {
    std::string text;
    float score = 0;  // mean probability of the kept characters (0 for an empty text)
  };
  // `steps` time steps of `classes` scores each (rows `row_floats` apart).
  Text decode(const float* scores, std::size_t steps, std::size_t classes, std::size_t row_floats) const;

 private:
  std::vector<std::string> symbols_;  // index = class; symbols_[0] (blank) is empty
};

}  // namespace ocr
