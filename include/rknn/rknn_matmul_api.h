/*
 * svp-acl: Rockchip's RKNN matrix-multiplication C API (librknnrt), for the software NPU.
 *
 * Names, enum values and struct layouts follow the vendor's public header of RKNN SDK 2.3.2
 * (repository airockchip/rknn-toolkit2, rknpu2/runtime/Linux/librknn_api/include/
 * rknn_matmul_api.h), so applications written for it compile and run unchanged. The text
 * and comments here are svp-acl's; which parts are implemented is in docs/rknn.md
 * ("Matmul").
 *
 * C = A x B with A (M x K), B (K x N), C (M x N). A matmul context is created for one shape
 * (or a list of shapes differing in M), its A/B/C memory comes from rknn_create_mem on that
 * context and is bound with rknn_matmul_set_io_mem, and rknn_matmul_run computes C.
 */
#ifndef _RKNN_MATMUL_API_H
#define _RKNN_MATMUL_API_H

#ifdef __cplusplus
extern "C" {
#endif

#include "rknn_api.h"

/* A matmul context is an rknn_context handle (rknn_create_mem and rknn_destroy_mem accept it). */
typedef rknn_context rknn_matmul_ctx;

/* How B (and A, C) are quantized for the integer types. */
typedef enum _rknn_matmul_quant_type {
    RKNN_QUANT_TYPE_PER_LAYER_SYM = 0,
    RKNN_QUANT_TYPE_PER_LAYER_ASYM = 1,
    RKNN_QUANT_TYPE_PER_CHANNEL_SYM = 2,
    RKNN_QUANT_TYPE_PER_CHANNEL_ASYM = 3,
    RKNN_QUANT_TYPE_PER_GROUP_SYM = 4,
    RKNN_QUANT_TYPE_PER_GROUP_ASYM = 5,
} rknn_matmul_quant_type;

/* rknn_matmul_set_quant_params / get_quant_params: the scales and zero points of the tensor
 * `name` ("A", "B" or "C"). */
typedef struct _rknn_quant_params {
    char name[RKNN_MAX_NAME_LEN];
    float* scale;
    int32_t scale_len;
    int32_t* zp;
    int32_t zp_len;
} rknn_quant_params;

/* Element types: <A>_MM_<B>_TO_<C>. */
typedef enum _rknn_matmul_type {
    RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32 = 1,
    RKNN_INT8_MM_INT8_TO_INT32 = 2,
    RKNN_INT8_MM_INT8_TO_INT8 = 3,
    RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16 = 4,
    RKNN_FLOAT16_MM_INT8_TO_FLOAT32 = 5,
    RKNN_FLOAT16_MM_INT8_TO_FLOAT16 = 6,
    RKNN_FLOAT16_MM_INT4_TO_FLOAT32 = 7,
    RKNN_FLOAT16_MM_INT4_TO_FLOAT16 = 8,
    RKNN_INT8_MM_INT8_TO_FLOAT32 = 9,
    RKNN_INT4_MM_INT4_TO_INT16 = 10,
    RKNN_INT8_MM_INT4_TO_INT32 = 11,
    RKNN_FLOAT16_MM_INT4_TO_BFLOAT16 = 12,
    RKNN_INT8_MM_INT4_TO_FLOAT16 = 15,
} rknn_matmul_type;

/* The enumerator's name ("UNKNOW" for other values, as the vendor spells it). */
inline static const char* get_matmul_type_string(rknn_matmul_type type)
{
    switch (type) {
    case RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32: return "RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32";
    case RKNN_INT8_MM_INT8_TO_INT32: return "RKNN_INT8_MM_INT8_TO_INT32";
    case RKNN_INT8_MM_INT8_TO_INT8: return "RKNN_INT8_MM_INT8_TO_INT8";
    case RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16: return "RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16";
    case RKNN_FLOAT16_MM_INT8_TO_FLOAT32: return "RKNN_FLOAT16_MM_INT8_TO_FLOAT32";
    case RKNN_FLOAT16_MM_INT8_TO_FLOAT16: return "RKNN_FLOAT16_MM_INT8_TO_FLOAT16";
    case RKNN_INT4_MM_INT4_TO_INT16: return "RKNN_INT4_MM_INT4_TO_INT16";
    case RKNN_FLOAT16_MM_INT4_TO_FLOAT32: return "RKNN_FLOAT16_MM_INT4_TO_FLOAT32";
    case RKNN_FLOAT16_MM_INT4_TO_FLOAT16: return "RKNN_FLOAT16_MM_INT4_TO_FLOAT16";
    case RKNN_INT8_MM_INT4_TO_INT32: return "RKNN_INT8_MM_INT4_TO_INT32";
    case RKNN_INT8_MM_INT8_TO_FLOAT32: return "RKNN_INT8_MM_INT8_TO_FLOAT32";
    case RKNN_FLOAT16_MM_INT4_TO_BFLOAT16: return "RKNN_FLOAT16_MM_INT4_TO_BFLOAT16";
    default: return "UNKNOW";
    }
}

/* One of A, B, C as rknn_matmul_create reports it (and rknn_matmul_set_io_mem takes it back). */
typedef struct _rknn_matmul_tensor_attr {
    char name[RKNN_MAX_NAME_LEN];       /* "A", "B" or "C" */
    uint32_t n_dims;
    uint32_t dims[RKNN_MAX_DIMS];       /* in the tensor's layout */
    uint32_t size;                      /* bytes */
    rknn_tensor_type type;
} rknn_matmul_tensor_attr;

typedef struct _rknn_matmul_io_attr {
    rknn_matmul_tensor_attr A;
    rknn_matmul_tensor_attr B;
    rknn_matmul_tensor_attr C;
} rknn_matmul_io_attr;

/* One shape of rknn_matmul_create_dynamic_shape / rknn_matmul_set_dynamic_shape. */
typedef struct _rknn_matmul_shape {
    int32_t M;
    int32_t K;
    int32_t N;
} rknn_matmul_shape;

/* Layouts: row-major (NORM), the NPU's blocked layout (NATIVE), B transposed, i.e. N x K
 * row-major (TP_NORM). */
typedef enum {
    RKNN_MM_LAYOUT_NORM = 0,
    RKNN_MM_LAYOUT_NATIVE = 1,
    RKNN_MM_LAYOUT_TP_NORM = 2,
} rknn_matmul_layout;

/* What to create. The vendor states per-SoC alignment rules for K and N (RK3588/RK3576:
 * K a multiple of 32 for int8/float16/int4; N of 32 for int8, 16 for float16, 64 for int4;
 * RK3566/RK3568 and RK3562 smaller ones) and K <= 10240; docs/rknn.md says where svp-acl
 * enforces. */
typedef struct rknn_matmul_info_t {
    int32_t M;
    int32_t K;
    int32_t N;
    rknn_matmul_type type;
    int16_t B_layout;        /* rknn_matmul_layout */
    int16_t B_quant_type;    /* rknn_matmul_quant_type */
    int16_t AC_layout;       /* rknn_matmul_layout (NORM or NATIVE) */
    int16_t AC_quant_type;   /* RKNN_QUANT_TYPE_PER_LAYER_SYM or _ASYM */
    int32_t iommu_domain_id; /* 4 GiB address domains on the board */
    int16_t group_size;      /* elements of K per group (B_quant_type PER_GROUP_*) */
    int8_t reserved[34];
} rknn_matmul_info;

/* Creates a context for info->M x K x N of info->type; fills io_attr with A, B and C. */
int rknn_matmul_create(rknn_matmul_ctx* ctx, rknn_matmul_info* info, rknn_matmul_io_attr* io_attr);

/* Creates a context for `shape_num` shapes (info->M/K/N are not read); io_attrs[i]
 * describes A, B and C of dynamic_shapes[i]. rknn_matmul_set_dynamic_shape picks one. */
int rknn_matmul_create_dynamic_shape(rknn_matmul_ctx* ctx, rknn_matmul_info* info, int shape_num,
                                     rknn_matmul_shape dynamic_shapes[], rknn_matmul_io_attr io_attrs[]);

/* Binds `mem` (rknn_create_mem on this context) as the tensor attr->name names, in the
 * layout and size `attr` (from rknn_matmul_create) describes.
 *
 * Native layouts (the vendor's header; RK3588/RK3576, K <= 8192 on RK3588, 4096 on RK3576):
 *   B float16: (N/16, K/32, 16, 32); B int8: (N/32, K/32, 32, 32); B int4: (N/64, K/32, 64, 32)
 *   A float16: (K/8, M, 8); A int8: (K/16, M, 16); C: (N/4, M, 4) (int4: (N/8, M, 8))
 * RK3566/RK3568 and RK3562 use smaller blocks (docs/rknn.md). */
int rknn_matmul_set_io_mem(rknn_matmul_ctx ctx, rknn_tensor_mem* mem, rknn_matmul_tensor_attr* attr);

/* The NPU cores the context's runs use (RK3588/RK3576). */
int rknn_matmul_set_core_mask(rknn_matmul_ctx context, rknn_core_mask core_mask);

/* Quantization parameters of A, B or C (the integer tensors): scale_len/zp_len 1 for A and C;
 * for B 1 (per layer), N (per channel) or K/group_size x N (per group). Unset: scale 1, zero
 * point 0. get_quant_params reads back the tensor params->name names (empty: B). */
int rknn_matmul_set_quant_params(rknn_matmul_ctx context, rknn_quant_params* params);
int rknn_matmul_get_quant_params(rknn_matmul_ctx ctx, rknn_quant_params* params, float* scale);

/* Selects one of the shapes the context was created with (M varies; K and N do not). */
int rknn_matmul_set_dynamic_shape(rknn_matmul_ctx ctx, rknn_matmul_shape* shape);

/* C = A x B, blocking. */
int rknn_matmul_run(rknn_matmul_ctx ctx);

int rknn_matmul_destroy(rknn_matmul_ctx ctx);

/* Rewrites a row-major K x N B into the native layout for info->type. */
int rknn_B_normal_layout_to_native_layout(void* B_input, void* B_output, int K, int N, rknn_matmul_info* info);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* _RKNN_MATMUL_API_H */
