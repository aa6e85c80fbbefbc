#include "model/crc32.h"

#include <zlib.h>

#include <algorithm>

namespace svp::model {

// zlib's crc32 is the same CRC and about twice as fast as a slicing-by-8 table loop (it
// braids several words per step); every model load checksums the whole weights section.
std::uint32_t crc32(const void* data, std::size_t size, std::uint32_t crc) {
  const auto* p = static_cast<const Bytef*>(data);
  uLong c = crc;
  while (size > 0) {
    const std::size_t n = std::min<std::size_t>(size, 1u << 30);  // zlib lengths are uInt
    c = ::crc32(c, p, static_cast<uInt>(n));
    p += n;
    size -= n;
  }
  return static_cast<std::uint32_t>(c);
}

}  // namespace svp::model
