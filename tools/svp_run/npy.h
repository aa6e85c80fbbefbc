// .npy files (NumPy format 1.0-3.0): a bounds-checked reader, safe on any bytes (fuzzed in
// tests/fuzz/npy_reader_fuzz.cpp), and a writer for --outfmt NPY.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace svp::run {

struct NpyArray {
  std::string descr;               // e.g. "<f4"
  std::vector<std::int64_t> shape;
  std::vector<std::uint8_t> data;  // row-major (fortran_order arrays are rejected)
};

// Parses `bytes` as an .npy file. On failure returns false and sets `error` to a sentence
// naming what is malformed; never reads outside `bytes`.
bool parse_npy(const std::uint8_t* bytes, std::size_t size, NpyArray& out, std::string& error);

// The .npy file holding `data` (dense, row-major) with dtype `descr` and `shape`.
std::vector<std::uint8_t> make_npy(const std::string& descr, const std::vector<std::int64_t>& shape,
                                   const std::uint8_t* data, std::size_t size);

}  // namespace svp::run
