/*
 * Compile-only check of include/rknn/rknn_matmul_api.h (never run): self-contained C99
 * (-pedantic -Werror), guarded, each of the 10 functions with the prototype of Rockchip's
 * RKNN SDK 2.3.2, and the enum values applications pass as numbers. Struct sizes and
 * offsets: tests/rknn/rknn_api_layout_test.cpp.
 */
#include "rknn/rknn_matmul_api.h"
#include "rknn/rknn_matmul_api.h"

#define RKNN_MM_ASSERT(cond, name) typedef char rknn_mm_assert_##name[(cond) ? 1 : -1]

RKNN_MM_ASSERT(RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32 == 1, f16_f32);
RKNN_MM_ASSERT(RKNN_INT8_MM_INT8_TO_INT32 == 2, i8_i32);
RKNN_MM_ASSERT(RKNN_INT8_MM_INT8_TO_FLOAT32 == 9, i8_f32);
RKNN_MM_ASSERT(RKNN_INT4_MM_INT4_TO_INT16 == 10, i4_i16);
RKNN_MM_ASSERT(RKNN_FLOAT16_MM_INT4_TO_BFLOAT16 == 12, f16_i4_bf16);
RKNN_MM_ASSERT(RKNN_INT8_MM_INT4_TO_FLOAT16 == 15, i8_i4_f16);
RKNN_MM_ASSERT(RKNN_MM_LAYOUT_TP_NORM == 2, tp_norm);
RKNN_MM_ASSERT(RKNN_QUANT_TYPE_PER_GROUP_ASYM == 5, per_group_asym);

int (*const p_mm_create)(rknn_matmul_ctx*, rknn_matmul_info*, rknn_matmul_io_attr*) = rknn_matmul_create;
int (*const p_mm_dyn)(rknn_matmul_ctx*, rknn_matmul_info*, int, rknn_matmul_shape[], rknn_matmul_io_attr[]) =
    rknn_matmul_create_dynamic_shape;
int (*const p_mm_io)(rknn_matmul_ctx, rknn_tensor_mem*, rknn_matmul_tensor_attr*) = rknn_matmul_set_io_mem;
int (*const p_mm_core)(rknn_matmul_ctx, rknn_core_mask) = rknn_matmul_set_core_mask;
int (*const p_mm_setq)(rknn_matmul_ctx, rknn_quant_params*) = rknn_matmul_set_quant_params;
int (*const p_mm_getq)(rknn_matmul_ctx, rknn_quant_params*, float*) = rknn_matmul_get_quant_params;
int (*const p_mm_shape)(rknn_matmul_ctx, rknn_matmul_shape*) = rknn_matmul_set_dynamic_shape;
int (*const p_mm_run)(rknn_matmul_ctx) = rknn_matmul_run;
int (*const p_mm_destroy)(rknn_matmul_ctx) = rknn_matmul_destroy;
int (*const p_mm_native)(void*, void*, int, int, rknn_matmul_info*) = rknn_B_normal_layout_to_native_layout;

const char* rknn_matmul_helper_used(void);
const char* rknn_matmul_helper_used(void) { return get_matmul_type_string(RKNN_INT8_MM_INT8_TO_INT32); }
