// .npy files for tests: write float32 arrays (common/npy.h's header) and read the float32
// arrays the onnxruntime oracle writes. Test-only; throws nothing, reports with gtest.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/npy.h"

namespace svp::test {

inline void write_npy_f32(const std::string& path, const std::vector<std::int64_t>& dims, const std::vector<float>& v) {
  std::ofstream out(path, std::ios::binary);
  const std::string h = npy::header("<f4", dims);
  out.write(h.data(), static_cast<std::streamsize>(h.size()));
  out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(float)));
}

// A calibration list for svp_atc's --image_list: each item written as dir/calib_K.npy of
// `dims`, one path per line in dir/calibration.txt. Returns the list's path.
inline std::string write_calibration_list(const std::string& dir, const std::vector<std::int64_t>& dims,
                                          const std::vector<std::vector<float>>& items) {
  const std::string list_path = dir + "/calibration.txt";
  std::ofstream list(list_path);
  for (std::size_t k = 0; k < items.size(); ++k) {
    const std::string item = dir + "/calib_" + std::to_string(k) + ".npy";
    write_npy_f32(item, dims, items[k]);
    list << item << "\n";
  }
  return list_path;
}

struct NpyF32 {
  std::vector<std::int64_t> dims;
  std::vector<float> data;
};

// Reads a little-endian float32 C-order .npy (version 1 or 2 header).
inline NpyF32 read_npy_f32(const std::string& path) {
  NpyF32 r;
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string s = ss.str();
  if (s.size() < 12 || s.compare(1, 5, "NUMPY") != 0) {
    ADD_FAILURE() << path << ": not a .npy file";
    return r;
  }
  const bool v1 = s[6] == 1;
  const std::size_t hlen = v1 ? static_cast<unsigned char>(s[8]) | (static_cast<unsigned char>(s[9]) << 8)
                              : static_cast<std::size_t>(static_cast<unsigned char>(s[8])) |
                                    (static_cast<std::size_t>(static_cast<unsigned char>(s[9])) << 8);
  const std::size_t start = (v1 ? 10 : 12) + hlen;
  const std::string header = s.substr(0, start);
  if (header.find("'<f4'") == std::string::npos || header.find("True") != std::string::npos) {
    ADD_FAILURE() << path << ": not a C-order float32 array: " << header;
    return r;
  }
  const auto open = header.find("'shape': (");
  std::stringstream dims(header.substr(open + 10, header.find(')', open) - open - 10));
  std::string item;
  while (std::getline(dims, item, ',')) {
    if (item.find_first_of("0123456789") != std::string::npos) r.dims.push_back(std::stoll(item));
  }
  r.data.resize((s.size() - start) / sizeof(float));
  std::memcpy(r.data.data(), s.data() + start, r.data.size() * sizeof(float));
  return r;
}

}  // namespace svp::test
