// Comparing recognised text with the ground truth.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ocr {

// Splits UTF-8 text into characters (code points), so that an error counts once per
// character, not once per byte.
std::vector<char32_t> code_points(const std::string& utf8);

// Levenshtein distance between the code points of `a` and `b` (insertions, deletions
// and substitutions count 1).
std::size_t edit_distance(const std::string& a, const std::string& b);

}  // namespace ocr
