// CRC-32 (IEEE 802.3: reflected, polynomial 0xEDB88320, initial and final XOR 0xFFFFFFFF),
// the same value as zlib's crc32(). Used for the section checksums of the model file.
#pragma once

#include <cstddef>
#include <cstdint>

namespace svp::model {

// CRC of `size` bytes at `data`, continuing from `crc` (0 to start); crc32("123456789") is
// 0xCBF43926.
std::uint32_t crc32(const void* data, std::size_t size, std::uint32_t crc = 0);

}  // namespace svp::model
