/*
 * rknn_custom_op.h - custom operators of the Rockchip RKNN runtime C API (librknnrt), as
 * svp-acl serves them: an application computes the layers of an op type the NPU does not
 * know with callbacks it registers on a context.
 *
 * Source compatibility: names, enum and macro values, struct member order, types and
 * array sizes follow Rockchip's public header of RKNN SDK 2.3.2 (repository
 * airockchip/rknn-toolkit2, rknpu2/runtime/Linux/librknn_api/include/rknn_custom_op.h).
 * The text and the comments here are svp-acl's own. tests/rknn/rknn_api_layout_test.cpp
 * holds every struct's size and member offsets to the vendor's on x86-64.
 *
 * How a model gets a custom op, what the callbacks see and every deviation from the
 * board: docs/rknn.md, "Custom operators".
 *
 * Plain C99.
 */
#ifndef _RKNN_CUSTOM_OP_H
#define _RKNN_CUSTOM_OP_H

#ifdef __cplusplus
extern "C" {
#endif

#include "rknn_api.h"

#include <stdint.h>

/* An init callback returning this asks for the runtime's own implementation of the op
   type instead of the callbacks (when the runtime has one). */
#define RKNN_WARNING_SKIP_CUSTOM_OP_COMPUTE -14

#define RKNN_CUSTOM_OP_MAX_STR_LEN 64
#define RKNN_CUSTOM_OP_MAX_VALUE_LEN 32
#define RKNN_CUSTOM_OP_EXPORT __attribute__((visibility("default")))

/* The runtime's handle of one custom op instance (pointer-sized, as rknn_context). */
#ifdef __arm__
typedef uint32_t rknn_custom_op_interal_context;
#else
typedef uint64_t rknn_custom_op_interal_context;
#endif

/* Where the callbacks run. */
typedef enum _rknn_target_type {
    RKNN_TARGET_TYPE_CPU = 1,
    RKNN_TARGET_TYPE_GPU = 2, /* OpenCL; refused by svp-acl (no GPU) */
    RKNN_TARGET_TYPE_MAX
} rknn_target_type;

/* OpenCL objects of a GPU op (cl_context, cl_command_queue, cl_kernel); NULL on the CPU. */
typedef struct _rknn_gpu_op_context {
    void* cl_context;
    void* cl_command_queue;
    void* cl_kernel;
} rknn_gpu_op_context;

/* What every callback of one op instance receives. priv_data belongs to the application
   (typically set in init, freed in destroy). */
typedef struct _rknn_custom_op_context {
    rknn_target_type               target;
    rknn_custom_op_interal_context internal_ctx; /* the runtime's: do not change */
    rknn_gpu_op_context            gpu_ctx;
    void*                          priv_data;
} rknn_custom_op_context;

/* One input or output of the op: its attributes and where its data is
   (mem.virt_addr + mem.offset). */
typedef struct _rknn_custom_op_tensor {
    rknn_tensor_attr attr;
    rknn_tensor_mem  mem;
} rknn_custom_op_tensor;

/* One attribute of the op (rknn_custom_op_get_op_attr): n_elems values of type dtype at
   data, which stays valid while the op instance lives. */
typedef struct _rknn_custom_op_attr {
    char             name[RKNN_MAX_NAME_LEN];
    rknn_tensor_type dtype;
    uint32_t         n_elems;
    void*            data;
} rknn_custom_op_attr;

/* One op type to register: its name as the model gives it, the target and the callbacks
   (compute required; init, prepare and destroy optional; compute_native reserved, NULL).
   The cl_* fields describe a GPU op's OpenCL kernel. */
typedef struct _rknn_custom_op {
    uint32_t         version;
    rknn_target_type target;
    char             op_type[RKNN_MAX_NAME_LEN];

    char     cl_kernel_name[RKNN_MAX_NAME_LEN];
    char*    cl_kernel_source; /* source text (cl_source_size > 0) or a file path (0) */
    uint64_t cl_source_size;
    char     cl_build_options[RKNN_MAX_NAME_LEN];

    int (*init)(rknn_custom_op_context* op_ctx, rknn_custom_op_tensor* inputs, uint32_t n_inputs,
                rknn_custom_op_tensor* outputs, uint32_t n_outputs);
    int (*prepare)(rknn_custom_op_context* op_ctx, rknn_custom_op_tensor* inputs, uint32_t n_inputs,
                   rknn_custom_op_tensor* outputs, uint32_t n_outputs);
    int (*compute)(rknn_custom_op_context* op_ctx, rknn_custom_op_tensor* inputs, uint32_t n_inputs,
                   rknn_custom_op_tensor* outputs, uint32_t n_outputs);
    int (*compute_native)(rknn_custom_op_context* op_ctx, rknn_custom_op_tensor* inputs, uint32_t n_inputs,
                          rknn_custom_op_tensor* outputs, uint32_t n_outputs);
    int (*destroy)(rknn_custom_op_context* op_ctx);
} rknn_custom_op;

/* What a plugin library exports to hand its op over (the vendor's "get_rknn_custom_op"). */
typedef rknn_custom_op* (*get_custom_op_func)();

/* Registers custom_op_num op types on ctx (after rknn_init, before rknn_run); each op
   instance of the model gets its init callback now. Returns RKNN_SUCC or an error code. */
int rknn_register_custom_ops(rknn_context ctx, rknn_custom_op* op, uint32_t custom_op_num);

/* Fills *op_attr with the attribute attr_name of the op instance op_ctx ("name": the
   node's name, as UINT8 text); n_elems 0 and data NULL when it has no such attribute. */
void rknn_custom_op_get_op_attr(rknn_custom_op_context* op_ctx, const char* attr_name, rknn_custom_op_attr* op_attr);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* _RKNN_CUSTOM_OP_H */
