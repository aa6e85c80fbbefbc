#include "ctc_decoder.h"

#include <fstream>
#include <stdexcept>

namespace ocr {

CtcDecoder::CtcDecoder(const std::string& dict_path) {
  std::ifstream in(dict_path);
  if (!in) throw std::runtime_error("cannot read the character dictionary " + dict_path);
  symbols_.emplace_back();  // blank
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    symbols_.push_back(line);
  }
  if (symbols_.size() == 1) throw std::runtime_error("the character dictionary " + dict_path + " is empty");
  symbols_.emplace_back(" ");
}

CtcDecoder::Text CtcDecoder::decode(const float* scores, std::size_t steps, std::size_t classes,
                                    std::size_t row_floats) const {
  if (classes != symbols_.size()) {
    throw std::runtime_error("the recogniser has " + std::to_string(classes) + " classes, the dictionary gives " +
                             std::to_string(symbols_.size()) + " (blank + characters + space)");
  }
  Text out;
  std::size_t previous = 0, kept = 0;
  double sum = 0;
  for (std::size_t t = 0; t < steps; ++t) {
    const float* row = scores + t * row_floats;
    std::size_t best = 0;
    for (std::size_t c = 1; c < classes; ++c) {
      if (row[c] > row[best]) best = c;
    }
    if (best != 0 && best != previous) {
      out.text += symbols_[best];
      sum += row[best];
      ++kept;
    }
    previous = best;
  }
  out.score = kept ? float(sum / double(kept)) : 0.0f;
  return out;
}

}  // namespace ocr
