#include "svp_compare/dump_dir.h"

#include <fstream>
#include <sstream>
#include <system_error>

#include "svp_compare/dequantize.h"
#include "svp_compare/npy_reader.h"

namespace svp::compare {
namespace {

namespace fs = std::filesystem;

// Follows single subdirectories down from `path` until a directory holds index.jsonl.
// Stops (and says why) at a fork: two model dumps under one result directory are ambiguous.
bool FindIndexDir(const fs::path& path, fs::path* found, std::string* error) {
  std::error_code ec;
  fs::path dir = path;
  for (int depth = 0; depth < 8; ++depth) {
    if (!fs::is_directory(dir, ec)) {
      *error = dir.string() + ": not a directory";
      return false;
    }
    if (fs::is_regular_file(dir / "index.jsonl", ec)) {
      *found = dir;
      return true;
    }
    std::vector<fs::path> subdirs;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_directory(ec)) subdirs.push_back(it->path());
    }
    if (ec) {
      *error = dir.string() + ": " + ec.message();
      return false;
    }
    if (subdirs.size() != 1) {
      *error = dir.string() + ": no index.jsonl" +
               (subdirs.empty() ? std::string(" (not a model dump directory)")
                                : " and " + std::to_string(subdirs.size()) +
                                      " subdirectories (name the model's own dump directory)");
      return false;
    }
    dir = subdirs.front();
  }
  *error = path.string() + ": no index.jsonl within 8 directory levels";
  return false;
}

}  // namespace

DumpDirResult OpenDumpDir(const fs::path& path) {
  DumpDirResult r;
  fs::path dir;
  if (!FindIndexDir(path, &dir, &r.error)) return r;
  const fs::path index = dir / "index.jsonl";
  std::ifstream in(index, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) {
    r.error = index.string() + ": cannot be read";
    return r;
  }
  DumpIndexResult parsed = ParseDumpIndex(text.str(), index.string());
  if (!parsed.ok) {
    r.error = parsed.error;
    return r;
  }
  r.dump.dir = dir;
  r.dump.entries = std::move(parsed.entries);
  r.ok = true;
  return r;
}

bool LoadTensorValues(const DumpDir& dump, const DumpEntry& entry, std::vector<double>* values, std::string* error) {
  const std::string where = (dump.dir / "index.jsonl").string() + ":" + std::to_string(entry.line);
  if (!entry.file) {
    *error = where + ": tensor \"" + entry.tensor + "\" has no file";
    return false;
  }
  const fs::path file = dump.dir / *entry.file;
  NpyResult npy = ReadNpyFile(file.string());
  if (!npy.ok) {
    *error = npy.error + " (" + where + ")";
    return false;
  }
  std::uint64_t expected = 1;
  for (std::int64_t d : entry.dims) expected *= static_cast<std::uint64_t>(d);
  if (npy.array.values.size() != expected) {
    *error = file.string() + ": " + std::to_string(npy.array.values.size()) + " elements, but " + where +
             " gives dims with " + std::to_string(expected);
    return false;
  }
  if (!entry.scale.empty()) {
    std::string why;
    if (!Dequantize(entry.dims, entry.scale, entry.zero_point, entry.axis, &npy.array.values, &why)) {
      *error = where + ": " + why;
      return false;
    }
  }
  *values = std::move(npy.array.values);
  return true;
}

}  // namespace svp::compare
