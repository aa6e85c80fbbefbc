#include "common/npy.h"

#include <cstring>
#include <limits>

namespace svp::npy {
namespace {

// Value of `key` in the header dictionary: the text after "'key':" up to the next comma
// at nesting depth 0 (or the closing brace).
bool dict_value(const std::string& h, const std::string& key, std::string& value) {
  const std::size_t k = h.find("'" + key + "'");
  if (k == std::string::npos) return false;
  std::size_t p = h.find(':', k);
  if (p == std::string::npos) return false;
  ++p;
  int depth = 0;
  std::size_t e = p;
  for (; e < h.size(); ++e) {
    const char c = h[e];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth < 0 || (depth == 0 && (c == ',' || c == '}'))) break;
  }
  value = h.substr(p, e - p);
  const std::size_t b = value.find_first_not_of(" \t");
  const std::size_t z = value.find_last_not_of(" \t");
  value = b == std::string::npos ? std::string() : value.substr(b, z - b + 1);
  return true;
}

std::size_t descr_size(const std::string& d) {
  if (d.size() < 3 || (d[0] != '<' && d[0] != '|' && d[0] != '=')) return 0;
  const char kind = d[1];
  if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b') return 0;
  std::size_t n = 0;
  for (std::size_t i = 2; i < d.size(); ++i) {
    if (d[i] < '0' || d[i] > '9' || n > 64) return 0;
    n = n * 10 + static_cast<std::size_t>(d[i] - '0');
  }
  return n == 1 || n == 2 || n == 4 || n == 8 ? n : 0;
}

}  // namespace

bool parse(const std::uint8_t* bytes, std::size_t size, Array& out, std::string& error) {
  static const char kMagic[] = "\x93NUMPY";
  if (size < 10 || std::memcmp(bytes, kMagic, 6) != 0) {
    error = "not an .npy file (no \\x93NUMPY magic)";
    return false;
  }
  const std::uint8_t major = bytes[6];
  std::size_t header_len = 0;
  std::size_t offset = 0;
  if (major == 1) {
    header_len = bytes[8] | (static_cast<std::size_t>(bytes[9]) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12) {
      error = "truncated .npy header";
      return false;
    }
    header_len = bytes[8] | (static_cast<std::size_t>(bytes[9]) << 8) | (static_cast<std::size_t>(bytes[10]) << 16) |
                 (static_cast<std::size_t>(bytes[11]) << 24);
    offset = 12;
  } else {
    error = "unsupported .npy version " + std::to_string(major);
    return false;
  }
  if (header_len > size - offset) {
    error = "truncated .npy header (" + std::to_string(header_len) + " bytes announced)";
    return false;
  }
  const std::string h(reinterpret_cast<const char*>(bytes + offset), header_len);
  std::string descr, fortran, shape;
  if (!dict_value(h, "descr", descr) || !dict_value(h, "shape", shape)) {
    error = ".npy header lacks 'descr' or 'shape'";
    return false;
  }
  if (dict_value(h, "fortran_order", fortran) && fortran != "False") {
    error = ".npy array is in Fortran order; save it with C order (numpy.ascontiguousarray)";
    return false;
  }
  if (descr.size() < 2 || (descr.front() != '\'' && descr.front() != '"') || descr.back() != descr.front()) {
    error = ".npy 'descr' is not a string";
    return false;
  }
  descr = descr.substr(1, descr.size() - 2);
  const std::size_t elem = descr_size(descr);
  if (elem == 0) {
    error = "unsupported .npy dtype '" + descr + "' (little-endian numbers only)";
    return false;
  }
  if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')') {
    error = ".npy 'shape' is not a tuple";
    return false;
  }
  std::vector<std::int64_t> dims;
  std::uint64_t count = 1;
  std::size_t i = 1;
  while (i + 1 < shape.size()) {
    while (i + 1 < shape.size() && (shape[i] == ' ' || shape[i] == ',')) ++i;
    if (i + 1 >= shape.size()) break;
    std::uint64_t d = 0;
    bool digits = false;
    while (i + 1 < shape.size() && shape[i] >= '0' && shape[i] <= '9') {
      if (d > (std::uint64_t{1} << 40)) {
        error = ".npy shape dimension too large";
        return false;
      }
      d = d * 10 + static_cast<std::uint64_t>(shape[i] - '0');
      digits = true;
      ++i;
    }
    if (!digits || dims.size() >= 16) {
      error = ".npy 'shape' is malformed: " + shape;
      return false;
    }
    dims.push_back(static_cast<std::int64_t>(d));
    if (d != 0 && count > (std::numeric_limits<std::uint64_t>::max() / 8) / d) {
      error = ".npy shape too large";
      return false;
    }
    count *= d;
  }
  const std::size_t data_offset = offset + header_len;
  const std::uint64_t bytes_needed = count * elem;
  if (bytes_needed != size - data_offset) {
    error = ".npy data is " + std::to_string(size - data_offset) + " bytes but its shape and dtype need " +
            std::to_string(bytes_needed);
    return false;
  }
  out.descr = descr;
  out.shape = std::move(dims);
  out.data.assign(bytes + data_offset, bytes + size);
  return true;
}

std::vector<std::uint8_t> make(const std::string& descr, const std::vector<std::int64_t>& shape,
                               const std::uint8_t* data, std::size_t size) {
  const std::string h = header(descr, shape);
  std::vector<std::uint8_t> out(h.size() + size);
  std::memcpy(out.data(), h.data(), h.size());
  if (size) std::memcpy(out.data() + h.size(), data, size);
  return out;
}

}  // namespace svp::npy
