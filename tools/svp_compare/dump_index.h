// Reader of a model dump's index.jsonl (docs/runtime.md, "Model dump"): one JSON object per
// line describing one dumped tensor. Malformed lines give an error naming the line number
// and the missing or ill-typed key; nothing is thrown out of these functions. Thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace svp::compare {

struct DumpEntry {
  std::string model;
  std::int64_t model_id = 0;
  std::int64_t execution = 0;
  std::int64_t batch_item = 0;
  std::string layer;
  std::string op;
  bool input = false;  // "io": "input" / "output"
  std::int64_t index = 0;
  std::string tensor;
  std::string dtype;
  std::vector<std::int64_t> dims;
  std::vector<double> scale;       // empty: not quantized
  std::vector<double> zero_point;
  int axis = 0;
  std::optional<std::string> file;  // relative to the model dir; absent when not written
  std::string note;
  std::size_t line = 0;             // 1-based line in index.jsonl
};

struct DumpIndexResult {
  bool ok = false;
  std::string error;
  std::vector<DumpEntry> entries;
};

// `source` names the file in error messages. Blank lines are skipped.
DumpIndexResult ParseDumpIndex(const std::string& text, const std::string& source);

}  // namespace svp::compare
