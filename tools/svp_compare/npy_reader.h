// Bounds-checked reader of NumPy .npy files (format versions 1.0–3.0) as written by the
// model dump (src/exec/dumper.cpp) or by numpy.save.
//
// Supported element types: little-endian or byte-order-free f2/f4/f8, i1/i2/i4/i8, u1/u2/u4/u8,
// b1, C order only. Every element is converted to double. Any malformed, truncated or
// oversized input yields ok == false and an error naming what was wrong; the reader never
// reads outside the buffer and refuses element counts above kMaxElements. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace svp::compare {

struct NpyArray {
  std::string dtype;              // numpy descr without byte-order mark, e.g. "f4", "i1"
  std::vector<std::int64_t> dims;
  std::vector<double> values;     // C order
};

struct NpyResult {
  bool ok = false;
  std::string error;  // set when !ok; does not include the file name (the caller adds it)
  NpyArray array;
};

// 1 Gi elements: well above any layer output, well below what would exhaust memory silently.
constexpr std::uint64_t kMaxNpyElements = std::uint64_t{1} << 30;

NpyResult ParseNpy(const std::uint8_t* data, std::size_t size);
// Reads and parses `path`; errors are prefixed with the path.
NpyResult ReadNpyFile(const std::string& path);

}  // namespace svp::compare
