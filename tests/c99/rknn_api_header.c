/*
 * Compile-only check of include/rknn/rknn_api.h (never run): the header is self-contained
 * C99 (-pedantic -Werror), guarded, and each of the 23 functions has the prototype of
 * Rockchip's RKNN SDK 2.3.2 (a function pointer of that type is initialised from it); a few
 * values whose spelling is easy to get wrong are checked at compile time. Struct sizes and
 * offsets: tests/rknn/rknn_api_layout_test.cpp.
 */
#include "rknn/rknn_api.h"
#include "rknn/rknn_api.h"

#define RKNN_STATIC_ASSERT(cond, name) typedef char rknn_assert_##name[(cond) ? 1 : -1]

RKNN_STATIC_ASSERT(RKNN_ERR_TARGET_PLATFORM_UNMATCH == -13, err_13);
RKNN_STATIC_ASSERT(RKNN_ERR_INCOMPATILE_OPTIMIZATION_LEVEL_VERSION == -12, err_12);
RKNN_STATIC_ASSERT(RKNN_FLAG_MODEL_BUFFER_ZERO_COPY == 0x00010000, zero_copy);
RKNN_STATIC_ASSERT(RKNN_MEM_FLAG_ALLOC_NO_CONTEXT == 0x00020000, no_context);
RKNN_STATIC_ASSERT(RKNN_QUERY_NATIVE_NC1HWC2_OUTPUT_ATTR == 9, nc1hwc2_out);
RKNN_STATIC_ASSERT(RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR == 17, cur_native_out);
RKNN_STATIC_ASSERT(RKNN_QUERY_CMD_MAX == 18, cmd_max);
RKNN_STATIC_ASSERT(RKNN_TENSOR_BFLOAT16 == 11, bf16);
RKNN_STATIC_ASSERT(RKNN_NPU_CORE_UNDEFINED == 0x10000, core_undefined);
RKNN_STATIC_ASSERT(RKNN_NPU_CORE_0_1_2 == 7, core_012);
RKNN_STATIC_ASSERT(RKNN_TENSOR_MEMORY_FLAGS_UNKNOWN == 4, mem_unknown);
RKNN_STATIC_ASSERT(RKNN_FLAG_MEMORY_TRY_ALLOC_SRAM == 4, try_sram);
RKNN_STATIC_ASSERT(RKNN_MEMORY_SYNC_BIDIRECTIONAL == 3, sync_bi);
RKNN_STATIC_ASSERT(RKNN_MAX_DYNAMIC_SHAPE_NUM == 512, max_dyn);
RKNN_STATIC_ASSERT(sizeof(rknn_context) == sizeof(void*) || sizeof(rknn_context) == 8, ctx_width);

int (*const p_init)(rknn_context*, void*, uint32_t, uint32_t, rknn_init_extend*) = rknn_init;
int (*const p_dup)(rknn_context*, rknn_context*) = rknn_dup_context;
int (*const p_destroy)(rknn_context) = rknn_destroy;
int (*const p_query)(rknn_context, rknn_query_cmd, void*, uint32_t) = rknn_query;
int (*const p_inputs_set)(rknn_context, uint32_t, rknn_input[]) = rknn_inputs_set;
int (*const p_batch_core)(rknn_context, int) = rknn_set_batch_core_num;
int (*const p_core_mask)(rknn_context, rknn_core_mask) = rknn_set_core_mask;
int (*const p_run)(rknn_context, rknn_run_extend*) = rknn_run;
int (*const p_wait)(rknn_context, rknn_run_extend*) = rknn_wait;
int (*const p_outputs_get)(rknn_context, uint32_t, rknn_output[], rknn_output_extend*) = rknn_outputs_get;
int (*const p_outputs_release)(rknn_context, uint32_t, rknn_output[]) = rknn_outputs_release;
rknn_tensor_mem* (*const p_from_phys)(rknn_context, uint64_t, void*, uint32_t) = rknn_create_mem_from_phys;
rknn_tensor_mem* (*const p_from_fd)(rknn_context, int32_t, void*, uint32_t, int32_t) = rknn_create_mem_from_fd;
rknn_tensor_mem* (*const p_from_mb)(rknn_context, void*, int32_t) = rknn_create_mem_from_mb_blk;
rknn_tensor_mem* (*const p_create)(rknn_context, uint32_t) = rknn_create_mem;
rknn_tensor_mem* (*const p_create2)(rknn_context, uint64_t, uint64_t) = rknn_create_mem2;
int (*const p_destroy_mem)(rknn_context, rknn_tensor_mem*) = rknn_destroy_mem;
int (*const p_weight)(rknn_context, rknn_tensor_mem*) = rknn_set_weight_mem;
int (*const p_internal)(rknn_context, rknn_tensor_mem*) = rknn_set_internal_mem;
int (*const p_io)(rknn_context, rknn_tensor_mem*, rknn_tensor_attr*) = rknn_set_io_mem;
int (*const p_shape)(rknn_context, rknn_tensor_attr*) = rknn_set_input_shape;
int (*const p_shapes)(rknn_context, uint32_t, rknn_tensor_attr[]) = rknn_set_input_shapes;
int (*const p_sync)(rknn_context, rknn_tensor_mem*, rknn_mem_sync_mode) = rknn_mem_sync;

/* The helpers are usable. */
const char* rknn_helpers_used(void);
const char* rknn_helpers_used(void) {
    return get_type_string(RKNN_TENSOR_INT8)[0] == 'I' ? get_format_string(RKNN_TENSOR_NHWC)
                                                       : get_qnt_type_string(RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC);
}
