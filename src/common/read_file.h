// Reading a whole file into memory in one read: the model loaders, svp_atc and svp_run
// read files of tens of megabytes, where a byte-at-a-time istreambuf_iterator copy cost
// ~20 ms per ResNet-18 model. Header-only because svp_run and the tools compile it in
// beside a libsvp_acl.so that exports nothing internal.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace svp {

// The bytes of `path` into `out`; false when it cannot be opened or read (out is then
// unspecified). Files that grow while being read yield what was there at the size check
// plus whatever a second read finds, never a truncated short read reported as success.
inline bool read_file_bytes(const std::string& path, std::vector<std::uint8_t>* out) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) return false;
  const std::streamoff size = f.tellg();
  if (size < 0) return false;
  f.seekg(0);
  out->resize(static_cast<std::size_t>(size));
  if (size > 0 && !f.read(reinterpret_cast<char*>(out->data()), size)) return false;
  // Anything past the size we saw (a file still being written, or a pipe-like file whose
  // size reads as 0).
  char chunk[1 << 16];
  while (f.read(chunk, sizeof chunk) || f.gcount() > 0) {
    out->insert(out->end(), chunk, chunk + f.gcount());
    if (!f) break;
  }
  return !f.bad();
}

}  // namespace svp
