// Hand-written model dumps for svp_compare's tests: a directory with index.jsonl lines and
// .npy files laid out as the runtime's dumper writes them (docs/runtime.md, "Model dump"),
// small enough that each test states every value it compares.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/npy.h"

namespace svp::test {

// A fresh directory under the system's temporary directory, removed with the object.
class CompareTempDir {
 public:
  CompareTempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("svp_compare_" + std::string(info ? info->name() : "test") + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~CompareTempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

struct DumpQuant {
  bool is_unsigned = false;  // uint8 rather than int8 values
  std::vector<double> scale;
  std::vector<std::int64_t> zero_point;
  int axis = -1;
};

// Writes one model's dump directory: add() a layer output per line, in execution order.
class DumpBuilder {
 public:
  explicit DumpBuilder(std::filesystem::path dir) : dir_(std::move(dir)) { std::filesystem::create_directories(dir_); }

  // A float32 layer output (quant absent) or the raw integers of a quantized one.
  void add(const std::string& layer, const std::string& op, const std::string& tensor,
           const std::vector<std::int64_t>& dims, const std::vector<double>& values,
           const std::optional<DumpQuant>& quant = std::nullopt, std::int64_t execution = 0) {
    const std::string rel = "0/exec" + std::to_string(execution) + "/" + file_safe(layer) + ".output.0.npy";
    std::filesystem::create_directories((dir_ / rel).parent_path());
    std::ofstream npy(dir_ / rel, std::ios::binary);
    std::string dtype = "float32";
    if (!quant) {
      const std::string h = npy::header("<f4", dims);
      npy.write(h.data(), static_cast<std::streamsize>(h.size()));
      for (double v : values) {
        const float f = static_cast<float>(v);
        npy.write(reinterpret_cast<const char*>(&f), sizeof f);
      }
    } else {
      dtype = quant->is_unsigned ? "uint8" : "int8";
      const std::string h = npy::header(quant->is_unsigned ? "|u1" : "|i1", dims);
      npy.write(h.data(), static_cast<std::streamsize>(h.size()));
      for (double v : values) {
        const char byte = quant->is_unsigned ? static_cast<char>(static_cast<std::uint8_t>(v))
                                             : static_cast<char>(static_cast<std::int8_t>(v));
        npy.put(byte);
      }
    }
    nlohmann::json line = base_line(layer, op, tensor, dims, dtype, execution);
    line["file"] = rel;
    if (quant) {
      line["scale"] = quant->scale;
      line["zero_point"] = quant->zero_point;
      line["axis"] = quant->axis;
    }
    append(line);
  }

  // A layer output the dumper could not write (fused into the next layer): "file": null.
  void add_unwritten(const std::string& layer, const std::string& op, const std::string& tensor,
                     const std::vector<std::int64_t>& dims, const std::string& note, std::int64_t execution = 0) {
    nlohmann::json line = base_line(layer, op, tensor, dims, "float32", execution);
    line["file"] = nullptr;
    line["note"] = note;
    append(line);
  }

  void append_raw_line(const std::string& text) {
    std::ofstream(dir_ / "index.jsonl", std::ios::app) << text << "\n";
  }

  const std::filesystem::path& dir() const { return dir_; }

 private:
  static std::string file_safe(const std::string& s) {
    std::string out;
    for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.') ? c : '_';
    return out;
  }
  nlohmann::json base_line(const std::string& layer, const std::string& op, const std::string& tensor,
                           const std::vector<std::int64_t>& dims, const std::string& dtype, std::int64_t execution) {
    return {{"model", dir_.filename().string()}, {"model_id", 0}, {"execution", execution}, {"batch_item", 0},
            {"layer", layer}, {"op", op}, {"io", "output"}, {"index", 0}, {"tensor", tensor}, {"dtype", dtype},
            {"dims", dims}};
  }
  void append(const nlohmann::json& line) { append_raw_line(line.dump()); }

  std::filesystem::path dir_;
};

}  // namespace svp::test
