// include/rknn/rknn_matmul_api.h: the matmul library of librknnrt. Each shim checks its
// pointers and calls one function of the runtime core (runtime/rknn_matmul.h).
#pragma GCC visibility push(default)
#include "rknn/rknn_matmul_api.h"
#pragma GCC visibility pop

#include "rknn/guard.h"
#include "runtime/rknn_matmul.h"

namespace core = svp::runtime::rknn;
using svp::rknn_capi::guard;
using svp::rknn_capi::require;

int rknn_matmul_create(rknn_matmul_ctx* ctx, rknn_matmul_info* info, rknn_matmul_io_attr* io_attr) {
  return guard(__func__, [&](const char* fn) {
    RKNN_RETURN_IF_FAILED(require(fn, ctx, "ctx"));
    RKNN_RETURN_IF_FAILED(require(fn, info, "info"));
    RKNN_RETURN_IF_FAILED(require(fn, io_attr, "io_attr"));
    core::Handle h = 0;
    const int r = core::matmul_create(&h, *info, io_attr);
    *ctx = static_cast<rknn_matmul_ctx>(h);
    return r;
  });
}

int rknn_matmul_create_dynamic_shape(rknn_matmul_ctx* ctx, rknn_matmul_info* info, int shape_num,
                                     rknn_matmul_shape dynamic_shapes[], rknn_matmul_io_attr io_attrs[]) {
  return guard(__func__, [&](const char* fn) {
    RKNN_RETURN_IF_FAILED(require(fn, ctx, "ctx"));
    RKNN_RETURN_IF_FAILED(require(fn, info, "info"));
    RKNN_RETURN_IF_FAILED(require(fn, dynamic_shapes, "dynamic_shapes"));
    RKNN_RETURN_IF_FAILED(require(fn, io_attrs, "io_attrs"));
    core::Handle h = 0;
    const int r = core::matmul_create_dynamic_shape(&h, *info, shape_num, dynamic_shapes, io_attrs);
    *ctx = static_cast<rknn_matmul_ctx>(h);
    return r;
  });
}

int rknn_matmul_set_io_mem(rknn_matmul_ctx ctx, rknn_tensor_mem* mem, rknn_matmul_tensor_attr* attr) {
  return guard(__func__, [&](const char* fn) {
    RKNN_RETURN_IF_FAILED(require(fn, mem, "mem"));
    RKNN_RETURN_IF_FAILED(require(fn, attr, "attr"));
    return core::matmul_set_io_mem(ctx, mem, *attr);
  });
}

int rknn_matmul_set_core_mask(rknn_matmul_ctx context, rknn_core_mask core_mask) {
  return guard(__func__, [&](const char*) { return core::matmul_set_core_mask(context, core::raw_enum(core_mask)); });
}

int rknn_matmul_set_quant_params(rknn_matmul_ctx context, rknn_quant_params* params) {
  return guard(__func__, [&](const char* fn) {
    RKNN_RETURN_IF_FAILED(require(fn, params, "params"));
    return core::matmul_set_quant_params(context, *params);
  });
}

int rknn_matmul_get_quant_params(rknn_matmul_ctx ctx, rknn_quant_params* params, float* scale) {
  return guard(__func__, [&](const char* fn) {
    RKNN_RETURN_IF_FAILED(require(fn, params, "params"));
    RKNN_RETURN_IF_FAILED(require(fn, scale, "scale"));
    return core::matmul_get_quant_params(ctx, params, scale);
  });
}

int rknn_matmul_set_dynamic_shape(rknn_matmul_ctx ctx, rknn_matmul_shape* shape) {
  return guard(__func__, [&](const char* fn) {
    RKNN_RETURN_IF_FAILED(require(fn, shape, "shape"));
    return core::matmul_set_dynamic_shape(ctx, *shape);
  });
}

int rknn_matmul_run(rknn_matmul_ctx ctx) {
  return guard(__func__, [&](const char*) { return core::matmul_run(ctx); });
}

int rknn_matmul_destroy(rknn_matmul_ctx ctx) {
  return guard(__func__, [&](const char*) { return core::matmul_destroy(ctx); });
}

int rknn_B_normal_layout_to_native_layout(void* B_input, void* B_output, int K, int N, rknn_matmul_info* info) {
  return guard(__func__, [&](const char* fn) {
    RKNN_RETURN_IF_FAILED(require(fn, B_input, "B_input"));
    RKNN_RETURN_IF_FAILED(require(fn, B_output, "B_output"));
    RKNN_RETURN_IF_FAILED(require(fn, info, "info"));
    return core::matmul_b_to_native(B_input, B_output, K, N, *info);
  });
}
