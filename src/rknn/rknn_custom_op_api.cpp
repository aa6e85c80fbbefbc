// include/rknn/rknn_custom_op.h: custom operators of librknnrt. Each shim checks its
// pointers and calls one function of the runtime core (runtime/rknn_custom_ops.h).
#pragma GCC visibility push(default)
#include "rknn/rknn_custom_op.h"
#pragma GCC visibility pop

#include "rknn/guard.h"
#include "runtime/rknn_custom_ops.h"

namespace core = svp::runtime::rknn;
using svp::rknn_capi::guard;
using svp::rknn_capi::require;

int rknn_register_custom_ops(rknn_context ctx, rknn_custom_op* op, uint32_t custom_op_num) {
  return guard(__func__, [&](const char* fn) {
    RKNN_RETURN_IF_FAILED(require(fn, op, "op"));
    return core::register_custom_ops(ctx, op, custom_op_num);
  });
}

void rknn_custom_op_get_op_attr(rknn_custom_op_context* op_ctx, const char* attr_name, rknn_custom_op_attr* op_attr) {
  (void)guard(__func__, [&](const char*) {
    core::custom_op_get_op_attr(op_ctx, attr_name, op_attr);
    return RKNN_SUCC;
  });
}
