#include "svp_compare/npy_reader.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace svp::compare {
namespace {

NpyResult Fail(std::string message) {
  NpyResult r;
  r.error = std::move(message);
  return r;
}

// Value of key `key` in the header dict text, as the raw text up to the matching delimiter.
bool FindValue(const std::string& header, const std::string& key, std::string* value) {
  const std::string quoted[] = {"'" + key + "'", "\"" + key + "\""};
  for (const auto& q : quoted) {
    std::size_t pos = header.find(q);
    if (pos == std::string::npos) continue;
    pos = header.find(':', pos + q.size());
    if (pos == std::string::npos) return false;
    ++pos;
    while (pos < header.size() && header[pos] == ' ') ++pos;
    if (pos >= header.size()) return false;
    std::size_t end;
    if (header[pos] == '(') {
      end = header.find(')', pos);
      if (end == std::string::npos) return false;
      ++end;
    } else if (header[pos] == '\'' || header[pos] == '"') {
      end = header.find(header[pos], pos + 1);
      if (end == std::string::npos) return false;
      ++end;
    } else {
      end = header.find_first_of(",}", pos);
      if (end == std::string::npos) return false;
    }
    *value = header.substr(pos, end - pos);
    return true;
  }
  return false;
}

bool ParseShape(const std::string& text, std::vector<std::int64_t>* dims, std::string* error) {
  // text is "(...)"; entries are non-negative decimal integers separated by commas.
  std::size_t i = 1;
  const std::size_t end = text.size() - 1;
  while (i < end) {
    while (i < end && (text[i] == ' ' || text[i] == ',')) ++i;
    if (i >= end) break;
    if (text[i] < '0' || text[i] > '9') {
      *error = "malformed shape " + text;
      return false;
    }
    std::uint64_t v = 0;
    while (i < end && text[i] >= '0' && text[i] <= '9') {
      v = v * 10 + static_cast<std::uint64_t>(text[i] - '0');
      if (v > kMaxNpyElements) {
        *error = "dimension in shape " + text + " exceeds the limit of " + std::to_string(kMaxNpyElements);
        return false;
      }
      ++i;
    }
    // Python longs may carry an 'L' suffix in old files.
    if (i < end && text[i] == 'L') ++i;
    dims->push_back(static_cast<std::int64_t>(v));
  }
  return true;
}

template <typename T>
double Load(const std::uint8_t* p, bool swap) {
  std::uint8_t bytes[sizeof(T)];
  std::memcpy(bytes, p, sizeof(T));
  if (swap) {
    for (std::size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(bytes[i], bytes[sizeof(T) - 1 - i]);
  }
  T v;
  std::memcpy(&v, bytes, sizeof(T));
  return static_cast<double>(v);
}

double HalfToDouble(std::uint16_t h) {
  const int sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  double v;
  if (exp == 0) v = std::ldexp(frac, -24);
  else if (exp == 31) v = frac ? std::nan("") : HUGE_VAL;
  else v = std::ldexp(frac + 1024, exp - 25);
  return sign ? -v : v;
}

bool HostIsLittleEndian() {
  const std::uint16_t one = 1;
  std::uint8_t b;
  std::memcpy(&b, &one, 1);
  return b == 1;
}

}  // namespace

NpyResult ParseNpy(const std::uint8_t* data, std::size_t size) {
  static const std::uint8_t kMagic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (size < 10 || std::memcmp(data, kMagic, sizeof(kMagic)) != 0) return Fail("not a .npy file (bad magic)");
  const int major = data[6];
  std::size_t header_len, header_start;
  if (major == 1) {
    header_len = data[8] | (std::size_t{data[9]} << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12) return Fail("truncated .npy header");
    header_len = data[8] | (std::size_t{data[9]} << 8) | (std::size_t{data[10]} << 16) | (std::size_t{data[11]} << 24);
    header_start = 12;
  } else {
    return Fail("unsupported .npy format version " + std::to_string(major));
  }
  if (header_len > size - header_start) return Fail("truncated .npy header");
  const std::string header(reinterpret_cast<const char*>(data + header_start), header_len);
  std::string descr, fortran, shape;
  if (!FindValue(header, "descr", &descr) || descr.size() < 4) return Fail("header has no valid 'descr'");
  if (!FindValue(header, "fortran_order", &fortran)) return Fail("header has no 'fortran_order'");
  if (!FindValue(header, "shape", &shape) || shape.front() != '(') return Fail("header has no valid 'shape'");
  if (fortran.compare(0, 4, "True") == 0) return Fail("Fortran-order arrays are not supported; save with C order");
  descr = descr.substr(1, descr.size() - 2);
  const char order = descr[0];
  std::string type = descr.substr(1);
  if (order != '<' && order != '|' && order != '>' && order != '=') return Fail("unsupported descr '" + descr + "'");
  const bool swap = (order == '>') == HostIsLittleEndian() && order != '|' && order != '=';

  NpyResult r;
  std::string error;
  if (!ParseShape(shape, &r.array.dims, &error)) return Fail(error);
  std::uint64_t count = 1;
  for (std::int64_t d : r.array.dims) {
    if (d != 0 && count > kMaxNpyElements / static_cast<std::uint64_t>(d)) {
      return Fail("shape " + shape + " exceeds the limit of " + std::to_string(kMaxNpyElements) + " elements");
    }
    count *= static_cast<std::uint64_t>(d);
  }
  std::size_t width;
  if (type == "f2" || type == "i2" || type == "u2") width = 2;
  else if (type == "f4" || type == "i4" || type == "u4") width = 4;
  else if (type == "f8" || type == "i8" || type == "u8") width = 8;
  else if (type == "i1" || type == "u1" || type == "b1") width = 1;
  else return Fail("unsupported dtype '" + descr + "'");
  const std::size_t payload = header_start + header_len;
  if ((size - payload) / width < count) {
    return Fail("truncated data: shape " + shape + " needs " + std::to_string(count * width) + " bytes, file has " +
                std::to_string(size - payload));
  }
  r.array.dtype = type;
  r.array.values.resize(count);
  const std::uint8_t* p = data + payload;
  for (std::uint64_t i = 0; i < count; ++i, p += width) {
    double v;
    if (type == "f4") v = Load<float>(p, swap);
    else if (type == "f8") v = Load<double>(p, swap);
    else if (type == "f2") v = HalfToDouble(static_cast<std::uint16_t>(Load<std::uint16_t>(p, swap)));
    else if (type == "i1") v = Load<std::int8_t>(p, false);
    else if (type == "u1" || type == "b1") v = Load<std::uint8_t>(p, false);
    else if (type == "i2") v = Load<std::int16_t>(p, swap);
    else if (type == "u2") v = Load<std::uint16_t>(p, swap);
    else if (type == "i4") v = Load<std::int32_t>(p, swap);
    else if (type == "u4") v = Load<std::uint32_t>(p, swap);
    else if (type == "i8") v = Load<std::int64_t>(p, swap);
    else v = Load<std::uint64_t>(p, swap);
    r.array.values[i] = v;
  }
  r.ok = true;
  return r;
}

NpyResult ReadNpyFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Fail(path + ": cannot open");
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  NpyResult r = ParseNpy(bytes.data(), bytes.size());
  if (!r.ok) r.error = path + ": " + r.error;
  return r;
}

}  // namespace svp::compare
