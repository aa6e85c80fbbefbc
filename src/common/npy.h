// NumPy .npy files (format 1.0-3.0): the header model dumps write, a bounds-checked reader
// safe on any bytes (fuzzed: tests/fuzz/npy_reader_fuzz.cpp) for svp_run's inputs and the
// compiler's calibration data, and a whole-file writer. No dependency beyond the standard
// library.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace svp::npy {

// The 10-byte preamble plus the header dictionary, padded so that data starts at a
// multiple of 64 bytes (NumPy's own alignment). `descr` is a NumPy type string such as
// "<f4" (see descr_of in users' code); C order.
inline std::string header(const std::string& descr, const std::vector<std::int64_t>& dims) {
  std::string shape = "(";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    shape += std::to_string(dims[i]);
    if (dims.size() == 1 || i + 1 < dims.size()) shape += dims.size() == 1 ? "," : ", ";
  }
  shape += ")";
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  const std::size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>((dict.size() >> 8) & 0xff);
  return out + dict;
}

struct Array {
  std::string descr;               // e.g. "<f4"
  std::vector<std::int64_t> shape;
  std::vector<std::uint8_t> data;  // row-major (fortran_order arrays are rejected)
};

// Parses `bytes` as an .npy file. On failure returns false and sets `error` to a sentence
// naming what is malformed; never reads outside `bytes`.
bool parse(const std::uint8_t* bytes, std::size_t size, Array& out, std::string& error);

// The .npy file holding `data` (dense, row-major) with dtype `descr` and `shape`.
std::vector<std::uint8_t> make(const std::string& descr, const std::vector<std::int64_t>& shape,
                               const std::uint8_t* data, std::size_t size);

}  // namespace svp::npy
