// svp_acl_base.h: data buffer descriptors and type sizes.
#include "acl/svp_acl_base.h"

#include "capi/guard.h"
#include "capi/live_set.h"
#include "capi/objects.h"
#include "capi/shim.h"

namespace svp::capi {
LiveSet<svp_acl_data_buffer>& data_buffers() {
  static LiveSet<svp_acl_data_buffer> set("data buffer");
  return set;
}
}  // namespace svp::capi

using svp::capi::data_buffers;

namespace {

// Bits of one element of svp_acl_data_type `t`; 0 for a type without a fixed size.
size_t element_bits(int t) {
  switch (t) {
    case SVP_ACL_FLOAT: case SVP_ACL_INT32: case SVP_ACL_UINT32: return 32;
    case SVP_ACL_FLOAT16: case SVP_ACL_INT16: case SVP_ACL_UINT16: return 16;
    case SVP_ACL_INT8: case SVP_ACL_UINT8: case SVP_ACL_BOOL: return 8;
    case SVP_ACL_INT64: case SVP_ACL_UINT64: case SVP_ACL_DOUBLE: return 64;
    case SVP_ACL_INT10: case SVP_ACL_UINT10: return 10;
    case SVP_ACL_INT12: case SVP_ACL_UINT12: return 12;
    case SVP_ACL_INT14: case SVP_ACL_UINT14: return 14;
    case SVP_ACL_INT24: case SVP_ACL_UINT24: return 24;
    case SVP_ACL_UINT4: return 4;
    default: return 0;
  }
}

}  // namespace

svp_acl_data_buffer* svp_acl_create_data_buffer(void* data, size_t size, size_t stride) {
  return guard_value<svp_acl_data_buffer*>(__func__, nullptr, [&]() -> Result<svp_acl_data_buffer*> {
    // Address, size and stride rules are checked where they matter: at execution, against
    // the model's input (a descriptor may be re-pointed with update_data_buffer first).
    auto* b = new svp_acl_data_buffer{data, size, stride};
    data_buffers().add(b);
    return b;
  });
}

svp_acl_error svp_acl_destroy_data_buffer(const svp_acl_data_buffer* data_buffer) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(data_buffers().remove(data_buffer));
    delete data_buffer;
    return Status::Ok();
  });
}

void* svp_acl_get_data_buffer_addr(const svp_acl_data_buffer* data_buffer) {
  return guard_value<void*>(__func__, nullptr, [&]() -> Result<void*> {
    SVP_RETURN_IF_ERROR(data_buffers().check(data_buffer));
    return data_buffer->data;
  });
}

size_t svp_acl_get_data_buffer_size(const svp_acl_data_buffer* data_buffer) {
  return guard_value<size_t>(__func__, 0, [&]() -> Result<size_t> {
    SVP_RETURN_IF_ERROR(data_buffers().check(data_buffer));
    return data_buffer->size;
  });
}

size_t svp_acl_get_data_buffer_stride(const svp_acl_data_buffer* data_buffer) {
  return guard_value<size_t>(__func__, 0, [&]() -> Result<size_t> {
    SVP_RETURN_IF_ERROR(data_buffers().check(data_buffer));
    return data_buffer->stride;
  });
}

svp_acl_error svp_acl_update_data_buffer(svp_acl_data_buffer* data_buffer, void* data, size_t size, size_t stride) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(data_buffers().check(data_buffer));
    data_buffer->data = data;
    data_buffer->size = size;
    data_buffer->stride = stride;
    return Status::Ok();
  });
}

size_t svp_acl_data_type_size(svp_acl_data_type data_type) {
  return guard_value<size_t>(__func__, 0, [&]() -> Result<size_t> {
    const size_t bits = element_bits(svp::capi::enum_bits(data_type));
    if (bits != 0) return bits;
    return Error(err::kInvalidParam, "data type {} has no fixed element size", svp::capi::enum_bits(data_type));
  });
}
