// The serialized form of dynamic-AIPP parameters: what svp_acl_mdl_set_input_aipp writes
// into the application's buffer of a dynamic-AIPP parameter input
// (SVP_ACL_DYNAMIC_AIPP_NODE) and what execution reads back from it.
//
// The buffer is application memory the NPU reads at execution, so the block is
// self-checking: a magic, a version, the entry count and a CRC-32. An all-zero buffer
// (allocated but never set, seed §8.3.4 "带有动态AIPP的模型输入必须配置动态AIPP参数") and a buffer
// changed after set_input_aipp are both rejected by parse_block(), so nothing ever runs with
// half-set parameters. Layout (little-endian, docs/aipp.md §4):
//
//   header, 64 bytes
//     0  u8[8]  magic "SVPAIPP\0"          36 i16[9] CSC matrix, row-major (Q10)
//     8  u32    version = 1                54 u8[3]  output bias, 57 u8[3] input bias
//    12  u32    bytes used (64 + 128·n)    60 u32    CRC-32 of the used bytes with this
//    16  u32    n = batch entries                    field taken as 0
//    20  i32    svp_acl_aipp_format
//    24  i32    source width, 28 i32 source height
//    32  u8     csc, rbuv swap, ax swap switches, flags (bit0 format set, bit1 size set)
//   entry b at 64 + 128·b
//     0  u8     crop switch, resize switch, padding switch, 0
//     4  i32[4] crop x, y, w, h             20 i32[4] resize in w, in h, out w, out h
//    36  i32[4] padding top, bottom, left, right
//    52  f32[4] mean, 68 f32[4] min, 84 f32[4] var_reci, 100..127 zero
#pragma once

#include <cstddef>
#include <cstdint>

#include "model/aipp/params.h"
#include "common/status.h"

namespace svp::aipp {

inline constexpr std::size_t kBlockHeaderBytes = 64;
inline constexpr std::size_t kBlockEntryBytes = 128;

// Bytes of a parameter input that can hold `max_batch` entries.
constexpr std::size_t block_capacity(std::size_t max_batch) {
  return kBlockHeaderBytes + kBlockEntryBytes * max_batch;
}
// Bytes serialize() writes for `p`.
inline std::size_t block_size(const AippParams& p) { return block_capacity(p.batches.size()); }

// Writes `p` into `out` (`capacity` bytes; the rest of the buffer is left alone).
// err::kInvalidParam when the buffer is too small.
Status serialize(const AippParams& p, std::uint8_t* out, std::size_t capacity);

// Reads a block back. err::kInvalidParam with a message saying what is wrong (never set,
// modified, truncated). Does not validate the parameters themselves (validate() does).
Result<AippParams> parse_block(const std::uint8_t* data, std::size_t size);

}  // namespace svp::aipp
