/*
 * Compile-only check of include/rknn/rknn_custom_op.h (never run): self-contained C99
 * (-pedantic -Werror), guarded, both functions with the prototype of Rockchip's RKNN SDK
 * 2.3.2, and the values applications use. Struct sizes and offsets:
 * tests/rknn/rknn_api_layout_test.cpp.
 */
#include "rknn/rknn_custom_op.h"
#include "rknn/rknn_custom_op.h"

#define RKNN_CO_ASSERT(cond, name) typedef char rknn_co_assert_##name[(cond) ? 1 : -1]

RKNN_CO_ASSERT(RKNN_WARNING_SKIP_CUSTOM_OP_COMPUTE == -14, skip);
RKNN_CO_ASSERT(RKNN_TARGET_TYPE_CPU == 1, cpu);
RKNN_CO_ASSERT(RKNN_TARGET_TYPE_GPU == 2, gpu);
RKNN_CO_ASSERT(RKNN_TARGET_TYPE_MAX == 3, max);
RKNN_CO_ASSERT(RKNN_CUSTOM_OP_MAX_STR_LEN == 64, str_len);
RKNN_CO_ASSERT(RKNN_CUSTOM_OP_MAX_VALUE_LEN == 32, value_len);

int (*const p_co_register)(rknn_context, rknn_custom_op*, uint32_t) = rknn_register_custom_ops;
void (*const p_co_attr)(rknn_custom_op_context*, const char*, rknn_custom_op_attr*) = rknn_custom_op_get_op_attr;
