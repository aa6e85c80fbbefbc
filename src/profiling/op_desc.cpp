#include "profiling/op_desc.h"

#include <algorithm>
#include <cstring>

namespace svp::profiling {
namespace {

void copy_truncated(const std::string& s, char* dst, std::size_t capacity) {
  const std::size_t n = std::min(s.size(), capacity - 1);
  std::memcpy(dst, s.data(), n);
  std::memset(dst + n, 0, capacity - n);
}

}  // namespace

void encode(const OpRecord& r, OpDesc* out) {
  std::memset(out, 0, sizeof *out);
  out->magic = kOpDescMagic;
  out->version = kOpDescVersion;
  out->size = sizeof(OpDesc);
  out->model_id = r.model;
  out->device = r.device;
  out->stream = r.sq;
  out->core = r.core;
  out->task = r.task;
  out->priority = r.priority;
  out->layer = r.layer;
  out->segment = r.segment;
  out->flags = (r.aicpu ? kOpFlagAiCpu : 0) | (r.pipe_times ? kOpFlagTimed : 0);
  out->batch = r.batch;
  if (r.pipe_times) {
    out->start_ns = r.start;
    out->end_ns = r.end;
  }
  copy_truncated(r.type, out->op_type, sizeof out->op_type);
  copy_truncated(r.name, out->op_name, sizeof out->op_name);
}

Result<std::uint32_t> op_count(const void* data, std::size_t len) {
  if (data == nullptr) return Error(err::kInvalidParam, "op_info is NULL");
  if (len == 0 || len % sizeof(OpDesc) != 0) {
    return Error(err::kInvalidParam,
                 "op_info_len {} is not a positive multiple of the record size {} (svp_acl_prof_get_op_desc_size)", len,
                 sizeof(OpDesc));
  }
  if (len / sizeof(OpDesc) > UINT32_MAX) return Error(err::kInvalidParam, "op_info_len {} is too large", len);
  return static_cast<std::uint32_t>(len / sizeof(OpDesc));
}

Status op_at(const void* data, std::size_t len, std::uint32_t index, OpDesc* out) {
  auto n = op_count(data, len);
  if (!n.ok()) return n.status();
  if (index >= *n) return Error(err::kInvalidParam, "index {} is out of range: the buffer holds {} records", index, *n);
  std::memcpy(out, static_cast<const unsigned char*>(data) + std::size_t{index} * sizeof(OpDesc), sizeof(OpDesc));
  if (out->magic != kOpDescMagic || out->version != kOpDescVersion || out->size != sizeof(OpDesc)) {
    return Error(err::kInvalidParam,
                 "record {} is not a profiling operator record (bad header; read whole records from the pipe)", index);
  }
  if (std::memchr(out->op_type, 0, sizeof out->op_type) == nullptr ||
      std::memchr(out->op_name, 0, sizeof out->op_name) == nullptr) {
    return Error(err::kInvalidParam, "record {} is corrupt: an operator string is not terminated", index);
  }
  return Status::Ok();
}

}  // namespace svp::profiling
