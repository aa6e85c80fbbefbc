// The fixed-size operator record of subscription pipes (svp_acl_prof_get_op_desc_size).
//
// After each operator of a subscribed model runs, one OpDesc is written to the
// application's pipe. Records are written whole, several per write(2) but never more than
// PIPE_BUF bytes per call, so a reader that reads multiples of the record size (the
// vendor's reader loop) always receives whole records. The accessors behind
// svp_acl_prof_get_* decode a buffer of such records without trusting it: every index is
// bounds-checked, every record's header and string termination is verified.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/status.h"
#include "profiling/records.h"

namespace svp::profiling {

inline constexpr std::uint32_t kOpDescMagic = 0x4f505653;  // "SVPO" little-endian
inline constexpr std::uint16_t kOpDescVersion = 1;
inline constexpr std::size_t kOpTypeCapacity = 65;   // SVP_ACL_PROF_MAX_OP_TYPE_LEN
inline constexpr std::size_t kOpNameCapacity = 257;  // SVP_ACL_PROF_MAX_OP_NAME_LEN

// Host byte order; the pipe never leaves the machine.
struct OpDesc {
  std::uint32_t magic;
  std::uint16_t version;
  std::uint16_t size;       // sizeof(OpDesc)
  std::uint32_t model_id;
  std::uint32_t device;
  std::uint32_t stream;     // the stream's HAL queue id
  std::uint32_t core;       // NPU core, or 0xffffffff for an application (AI-CPU) thread
  std::uint64_t task;       // the device's task number
  std::int32_t priority;    // effective priority the task ran at
  std::uint32_t layer;
  std::uint32_t segment;
  std::uint32_t flags;      // kOpFlag*
  std::uint64_t batch;
  std::uint64_t start_ns;   // 0 when the subscription has time_info_switch 0
  std::uint64_t end_ns;
  char op_type[kOpTypeCapacity];  // NUL-terminated, truncated to fit
  char op_name[kOpNameCapacity];
  char reserved[6];
};
static_assert(sizeof(OpDesc) == 400, "the pipe record size is part of the format");

inline constexpr std::uint32_t kOpFlagAiCpu = 0x1;
inline constexpr std::uint32_t kOpFlagTimed = 0x2;

void encode(const OpRecord& r, OpDesc* out);

// Decoding a buffer read from the pipe. Errors are INVALID_PARAM with a message naming
// the problem (NULL, length not a whole number of records, index out of range, a record
// that is not an OpDesc).
Result<std::uint32_t> op_count(const void* data, std::size_t len);
// Copies record `index` out (the application's buffer need not be aligned for OpDesc).
Status op_at(const void* data, std::size_t len, std::uint32_t index, OpDesc* out);

}  // namespace svp::profiling
