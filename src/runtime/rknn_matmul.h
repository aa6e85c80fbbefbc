// librknnrt's matmul library (include/rknn/rknn_matmul_api.h, docs/rknn.md "Matmul"): C = A x B
// contexts on the software NPU. A context holds one shape (or a list differing in M), the
// memory bound to A, B and C (rknn_create_mem on the matmul context), and computes with the
// project's kernels: float16 types through oneDNN's sgemm on the exactly widened values,
// integer ones exactly (rknn_matmul_quant.h). The C shims (src/rknn/rknn_matmul_api.cpp) check
// pointers and call one function here; every failure returns an RKNN_ERR_* code and logs
// "<function>: <cause>" (last_error() in rknn_context.h).
#pragma once

#include <cstdint>
#include <string>

#include "rknn/rknn_matmul_api.h"
#include "runtime/rknn_context.h"

namespace svp::runtime::rknn {

// rknn_matmul_create on the library's platform (RK3588, docs/rknn.md).
int matmul_create(Handle* out, const rknn_matmul_info& info, rknn_matmul_io_attr* io_attr);
// The same on `platform`'s rules (rknn_matmul_platform.h: RK3588, RK3576, RK3566/RK3568,
// RK3562); the context then runs through the other functions as any.
int matmul_create_on(const std::string& platform, Handle* out, const rknn_matmul_info& info,
                     rknn_matmul_io_attr* io_attr);
int matmul_create_dynamic_shape(Handle* out, const rknn_matmul_info& info, int shape_num,
                                const rknn_matmul_shape* shapes, rknn_matmul_io_attr* io_attrs);
int matmul_set_io_mem(Handle ctx, rknn_tensor_mem* mem, const rknn_matmul_tensor_attr& attr);
int matmul_set_core_mask(Handle ctx, int core_mask);
int matmul_set_dynamic_shape(Handle ctx, const rknn_matmul_shape& shape);
int matmul_run(Handle ctx);
int matmul_destroy(Handle ctx);
// rknn_matmul_set_quant_params: the scales and zero points of A, B or C (params.name) of an
// integer tensor, checked against info's quantization types (docs/rknn.md).
int matmul_set_quant_params(Handle ctx, const rknn_quant_params& params);
// rknn_matmul_get_quant_params: copies the named tensor's (empty name: B's) scales and zero
// points into the caller's arrays (up to their lengths; the lengths become the stored
// count), *scale its first scale.
int matmul_get_quant_params(Handle ctx, rknn_quant_params* params, float* scale);
// rknn_B_normal_layout_to_native_layout: row-major K x N `in` into the native layout of
// info.type's B on the library's platform (docs/rknn.md).
int matmul_b_to_native(const void* in, void* out, int K, int N, const rknn_matmul_info& info);
// Whether `h` is a live matmul context (rknn_create_mem / rknn_destroy_mem accept it).
bool is_matmul_context(Handle h);

}  // namespace svp::runtime::rknn
