// One model's dump directory (docs/runtime.md, "Model dump"): its index.jsonl parsed, and
// the values of a dumped tensor read from its .npy file and dequantized to real numbers.
//
// The directory given on the command line may be the model's own directory (the one
// holding index.jsonl), or any directory above it with exactly one index.jsonl on the way
// down a chain of single subdirectories: svp_run's <result>, <result>/dump and
// <result>/dump/<model> all name the same dump. Errors name the file (and line). Thread-safe.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "svp_compare/dump_index.h"

namespace svp::compare {

struct DumpDir {
  std::filesystem::path dir;  // holds index.jsonl; entries' files are relative to it
  std::vector<DumpEntry> entries;
};

struct DumpDirResult {
  bool ok = false;
  std::string error;
  DumpDir dump;
};

DumpDirResult OpenDumpDir(const std::filesystem::path& path);

// The real values of `entry` (which must have a file): read, checked against the index's
// dims and dequantized with its scale / zero point / axis when it has them.
bool LoadTensorValues(const DumpDir& dump, const DumpEntry& entry, std::vector<double>* values, std::string* error);

}  // namespace svp::compare
