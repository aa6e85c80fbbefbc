/*
 * rknn_api.h - the Rockchip RKNN runtime C API (librknnrt), as svp-acl serves it.
 *
 * Source compatibility: names, enum and macro values, struct member order, types and
 * array sizes follow Rockchip's public header of RKNN SDK 2.3.2 (repository
 * airockchip/rknn-toolkit2, rknpu2/runtime/Linux/librknn_api/include/rknn_api.h), so an
 * application written for the board builds against this file unchanged. The text and the
 * comments here are svp-acl's own. tests/rknn/rknn_api_layout_test.cpp holds every
 * struct's size and member offsets to the vendor's on x86-64.
 *
 * What svp-acl implements today, what returns "not implemented yet" and every deviation
 * from the board: docs/rknn.md.
 *
 * Conventions for every function below:
 *   - Return value: RKNN_SUCC (0) or a negative RKNN_ERR_* code; the create_mem family
 *     returns NULL on failure. A failing call logs one line naming the function and the
 *     cause (svp-acl's log, stderr by default).
 *   - A NULL pointer where one is required, an unknown or destroyed context, an index out
 *     of range or a size that does not match is reported as an error, never a crash.
 *   - Threading: different contexts may be used from different threads at once; calls on
 *     one context are serialised by the runtime (a second thread waits).
 *   - Functions svp-acl does not implement yet return RKNN_ERR_FAIL (or NULL) and log
 *     "not implemented yet in svp-acl"; they never report success for work not done.
 *
 * Plain C99.
 */
#ifndef _RKNN_API_H
#define _RKNN_API_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdint.h>

/* ---- rknn_init flags (bit mask) ---------------------------------------------------- */

/* Scheduling priority of the context's runs (low two bits; HIGH is the default). */
#define RKNN_FLAG_PRIOR_HIGH                        0x00000000
#define RKNN_FLAG_PRIOR_MEDIUM                      0x00000001
#define RKNN_FLAG_PRIOR_LOW                         0x00000002
/* rknn_outputs_get returns the previous frame's results (pipelining on one thread). */
#define RKNN_FLAG_ASYNC_MASK                        0x00000004
/* Collect per-layer timing for RKNN_QUERY_PERF_DETAIL. */
#define RKNN_FLAG_COLLECT_PERF_MASK                 0x00000008
/* The application provides every internal buffer (rknn_set_internal_mem / weight mem). */
#define RKNN_FLAG_MEM_ALLOC_OUTSIDE                 0x00000010
/* Share the weights of a context given in rknn_init_extend.ctx. */
#define RKNN_FLAG_SHARE_WEIGHT_MEM                  0x00000020
/* Input/output fences are given and taken by the application. */
#define RKNN_FLAG_FENCE_IN_OUTSIDE                  0x00000040
#define RKNN_FLAG_FENCE_OUT_OUTSIDE                 0x00000080
/* Load only what is needed to query the model (no execution). */
#define RKNN_FLAG_COLLECT_MODEL_INFO_ONLY           0x00000100
/* The application provides the internal (intermediate tensor) memory. */
#define RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE            0x00000200
/* CPU-fallback layers prefer the GPU. */
#define RKNN_FLAG_EXECUTE_FALLBACK_PRIOR_DEVICE_GPU 0x00000400
/* Place intermediates in the NPU's on-chip SRAM; share the SRAM between contexts. */
#define RKNN_FLAG_ENABLE_SRAM                       0x00000800
#define RKNN_FLAG_SHARE_SRAM                        0x00001000
/* Do not raise the calling process' priority. */
#define RKNN_FLAG_DISABLE_PROC_HIGH_PRIORITY        0x00002000
/* Skip the CPU cache flush of input memory / invalidate of output memory (zero-copy I/O
 * only; the normal rknn_inputs_set / rknn_outputs_get path must not use them). */
#define RKNN_FLAG_DISABLE_FLUSH_INPUT_MEM_CACHE     0x00004000
#define RKNN_FLAG_DISABLE_FLUSH_OUTPUT_MEM_CACHE    0x00008000
/* The model buffer given to rknn_init is used in place (not copied). */
#define RKNN_FLAG_MODEL_BUFFER_ZERO_COPY            0x00010000
/* rknn_create_mem2: memory allocated without a context. */
#define RKNN_MEM_FLAG_ALLOC_NO_CONTEXT              0x00020000

/* ---- Error codes ------------------------------------------------------------------- */

#define RKNN_SUCC                                        0   /* success */
#define RKNN_ERR_FAIL                                    -1  /* failed (also: not implemented) */
#define RKNN_ERR_TIMEOUT                                 -2  /* timed out */
#define RKNN_ERR_DEVICE_UNAVAILABLE                      -3  /* the NPU cannot be used */
#define RKNN_ERR_MALLOC_FAIL                             -4  /* out of memory */
#define RKNN_ERR_PARAM_INVALID                           -5  /* a bad argument */
#define RKNN_ERR_MODEL_INVALID                           -6  /* not a model this runtime loads */
#define RKNN_ERR_CTX_INVALID                             -7  /* unknown or destroyed context */
#define RKNN_ERR_INPUT_INVALID                           -8  /* a bad or missing input */
#define RKNN_ERR_OUTPUT_INVALID                          -9  /* a bad output request */
#define RKNN_ERR_DEVICE_UNMATCH                          -10 /* runtime and driver disagree */
#define RKNN_ERR_INCOMPATILE_PRE_COMPILE_MODEL           -11 /* pre-compiled model for another driver */
#define RKNN_ERR_INCOMPATILE_OPTIMIZATION_LEVEL_VERSION  -12 /* optimisation level not supported */
#define RKNN_ERR_TARGET_PLATFORM_UNMATCH                 -13 /* model built for another platform */

/* ---- Limits ------------------------------------------------------------------------ */

#define RKNN_MAX_DIMS                16   /* entries of rknn_tensor_attr.dims */
#define RKNN_MAX_NUM_CHANNEL         15   /* channels of an input tensor */
#define RKNN_MAX_NAME_LEN            256  /* bytes of a tensor name, with its NUL */
#define RKNN_MAX_DYNAMIC_SHAPE_NUM   512  /* shapes per input of a dynamic-shape model */

/* The context handle: 32 bits on 32-bit ARM, 64 bits everywhere else (as the vendor's). */
#ifdef __arm__
typedef uint32_t rknn_context;
#else
typedef uint64_t rknn_context;
#endif

/* ---- rknn_query commands ----------------------------------------------------------- */

typedef enum _rknn_query_cmd {
    RKNN_QUERY_IN_OUT_NUM = 0,                  /* rknn_input_output_num */
    RKNN_QUERY_INPUT_ATTR = 1,                  /* rknn_tensor_attr, index set by the caller */
    RKNN_QUERY_OUTPUT_ATTR = 2,                 /* rknn_tensor_attr, index set by the caller */
    RKNN_QUERY_PERF_DETAIL = 3,                 /* rknn_perf_detail (needs COLLECT_PERF_MASK) */
    RKNN_QUERY_PERF_RUN = 4,                    /* rknn_perf_run: the last run's time */
    RKNN_QUERY_SDK_VERSION = 5,                 /* rknn_sdk_version */
    RKNN_QUERY_MEM_SIZE = 6,                    /* rknn_mem_size */
    RKNN_QUERY_CUSTOM_STRING = 7,               /* rknn_custom_string */
    RKNN_QUERY_NATIVE_INPUT_ATTR = 8,           /* rknn_tensor_attr in the NPU's native layout */
    RKNN_QUERY_NATIVE_OUTPUT_ATTR = 9,
    RKNN_QUERY_NATIVE_NC1HWC2_INPUT_ATTR = 8,   /* the same two commands, spelled by layout */
    RKNN_QUERY_NATIVE_NC1HWC2_OUTPUT_ATTR = 9,
    RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR = 10,     /* native attributes in NHWC */
    RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR = 11,
    RKNN_QUERY_DEVICE_MEM_INFO = 12,            /* device memory information */
    RKNN_QUERY_INPUT_DYNAMIC_RANGE = 13,        /* rknn_input_range of a dynamic-shape input */
    RKNN_QUERY_CURRENT_INPUT_ATTR = 14,         /* attributes at the shapes set now */
    RKNN_QUERY_CURRENT_OUTPUT_ATTR = 15,        /*   (dynamic-shape models) */
    RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR = 16,
    RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR = 17,
    RKNN_QUERY_CMD_MAX,
    /* svp-acl's own (not Rockchip's): each NPU core's load over the last second, the figures
     * a board shows in /sys/kernel/debug/rknpu/load (rknn_svp_npu_load). */
    RKNN_QUERY_SVP_NPU_LOAD = 0x5301
} rknn_query_cmd;

/* ---- Tensor descriptions ----------------------------------------------------------- */

typedef enum _rknn_tensor_type {
    RKNN_TENSOR_FLOAT32 = 0,
    RKNN_TENSOR_FLOAT16,
    RKNN_TENSOR_INT8,
    RKNN_TENSOR_UINT8,
    RKNN_TENSOR_INT16,
    RKNN_TENSOR_UINT16,
    RKNN_TENSOR_INT32,
    RKNN_TENSOR_UINT32,
    RKNN_TENSOR_INT64,
    RKNN_TENSOR_BOOL,
    RKNN_TENSOR_INT4,
    RKNN_TENSOR_BFLOAT16,
    RKNN_TENSOR_TYPE_MAX
} rknn_tensor_type;

/* Short printable name of a tensor type ("FP32", "INT8", ...; "UNKNOW" otherwise, the
 * vendor's spelling, which applications print). */
inline static const char* get_type_string(rknn_tensor_type type)
{
    switch (type) {
    case RKNN_TENSOR_FLOAT32: return "FP32";
    case RKNN_TENSOR_FLOAT16: return "FP16";
    case RKNN_TENSOR_INT8: return "INT8";
    case RKNN_TENSOR_UINT8: return "UINT8";
    case RKNN_TENSOR_INT16: return "INT16";
    case RKNN_TENSOR_UINT16: return "UINT16";
    case RKNN_TENSOR_INT32: return "INT32";
    case RKNN_TENSOR_UINT32: return "UINT32";
    case RKNN_TENSOR_INT64: return "INT64";
    case RKNN_TENSOR_BOOL: return "BOOL";
    case RKNN_TENSOR_INT4: return "INT4";
    case RKNN_TENSOR_BFLOAT16: return "BF16";
    default: return "UNKNOW";
    }
}

/* How a tensor's integers map to real values. AFFINE: real = (q - zp) * scale. */
typedef enum _rknn_tensor_qnt_type {
    RKNN_TENSOR_QNT_NONE = 0,
    RKNN_TENSOR_QNT_DFP,                /* dynamic fixed point: real = q / 2^fl */
    RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC,
    RKNN_TENSOR_QNT_MAX
} rknn_tensor_qnt_type;

inline static const char* get_qnt_type_string(rknn_tensor_qnt_type type)
{
    switch (type) {
    case RKNN_TENSOR_QNT_NONE: return "NONE";
    case RKNN_TENSOR_QNT_DFP: return "DFP";
    case RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC: return "AFFINE";
    default: return "UNKNOW";
    }
}

/* Memory order of a tensor. NC1HWC2: channels in blocks of C2 (the NPU's native order). */
typedef enum _rknn_tensor_format {
    RKNN_TENSOR_NCHW = 0,
    RKNN_TENSOR_NHWC,
    RKNN_TENSOR_NC1HWC2,
    RKNN_TENSOR_UNDEFINED,
    RKNN_TENSOR_FORMAT_MAX
} rknn_tensor_format;

/* NPU cores a context runs on (multi-core SoCs: RK3588, RK3576). */
typedef enum _rknn_core_mask {
    RKNN_NPU_CORE_AUTO = 0,
    RKNN_NPU_CORE_0 = 1,
    RKNN_NPU_CORE_1 = 2,
    RKNN_NPU_CORE_2 = 4,
    RKNN_NPU_CORE_0_1 = RKNN_NPU_CORE_0 | RKNN_NPU_CORE_1,
    RKNN_NPU_CORE_0_1_2 = RKNN_NPU_CORE_0_1 | RKNN_NPU_CORE_2,
    RKNN_NPU_CORE_ALL = 0xffff,
    RKNN_NPU_CORE_UNDEFINED,
} rknn_core_mask;

inline static const char* get_format_string(rknn_tensor_format fmt)
{
    switch (fmt) {
    case RKNN_TENSOR_NCHW: return "NCHW";
    case RKNN_TENSOR_NHWC: return "NHWC";
    case RKNN_TENSOR_NC1HWC2: return "NC1HWC2";
    case RKNN_TENSOR_UNDEFINED: return "UNDEFINED";
    default: return "UNKNOW";
    }
}

/* RKNN_QUERY_IN_OUT_NUM. */
typedef struct _rknn_input_output_num {
    uint32_t n_input;
    uint32_t n_output;
} rknn_input_output_num;

/* RKNN_QUERY_*_ATTR; also rknn_set_io_mem / rknn_set_input_shapes.
 * `index` is set by the caller before the query; everything else is filled in. */
typedef struct _rknn_tensor_attr {
    uint32_t index;
    uint32_t n_dims;                    /* used entries of dims */
    uint32_t dims[RKNN_MAX_DIMS];       /* in the order `fmt` says */
    char name[RKNN_MAX_NAME_LEN];       /* NUL-terminated */
    uint32_t n_elems;
    uint32_t size;                      /* bytes of the dense tensor */
    rknn_tensor_format fmt;
    rknn_tensor_type type;
    rknn_tensor_qnt_type qnt_type;
    int8_t fl;                          /* DFP fraction length */
    int32_t zp;                         /* AFFINE zero point */
    float scale;                        /* AFFINE scale */
    uint32_t w_stride;                  /* width with padding (0: no padding); read only */
    uint32_t size_with_stride;          /* bytes with padding */
    uint8_t pass_through;               /* rknn_set_io_mem: the buffer is already in the
                                           model's own type and layout */
    uint32_t h_stride;                  /* height with padding (0: the height); the
                                           application may set it for rknn_set_io_mem */
} rknn_tensor_attr;

/* RKNN_QUERY_INPUT_DYNAMIC_RANGE. */
typedef struct _rknn_input_range {
    uint32_t index;
    uint32_t shape_number;              /* used rows of dyn_range */
    rknn_tensor_format fmt;
    char name[RKNN_MAX_NAME_LEN];
    uint32_t dyn_range[RKNN_MAX_DYNAMIC_SHAPE_NUM][RKNN_MAX_DIMS];
    uint32_t n_dims;
} rknn_input_range;

/* RKNN_QUERY_PERF_DETAIL: a text table owned by the context (do not free). */
typedef struct _rknn_perf_detail {
    char* perf_data;
    uint64_t data_len;
} rknn_perf_detail;

/* RKNN_QUERY_PERF_RUN: the last run's duration in microseconds. */
typedef struct _rknn_perf_run {
    int64_t run_duration;
} rknn_perf_run;

/* RKNN_QUERY_SDK_VERSION: NUL-terminated version strings. */
typedef struct _rknn_sdk_version {
    char api_version[256];
    char drv_version[256];
} rknn_sdk_version;

/* RKNN_QUERY_MEM_SIZE: bytes. */
typedef struct _rknn_mem_size {
    uint32_t total_weight_size;
    uint32_t total_internal_size;       /* intermediates, inputs and outputs excluded */
    uint64_t total_dma_allocated_size;  /* everything the context allocated on the device */
    uint32_t total_sram_size;
    uint32_t free_sram_size;
    uint32_t reserved[10];
} rknn_mem_size;

/* RKNN_QUERY_CUSTOM_STRING: the string stored in the model at conversion ("" if none). */
typedef struct _rknn_custom_string {
    char string[1024];
} rknn_custom_string;

/* RKNN_QUERY_SVP_NPU_LOAD (svp-acl's own): the percentage of the last second each emulated
 * NPU core of the context's device was busy, and the same as the board's debugfs text,
 * "NPU load:  Core0: 30%, Core1: 30%, Core2: 30%". */
#define RKNN_SVP_MAX_NPU_CORES 8
typedef struct _rknn_svp_npu_load {
    uint32_t n_cores;
    uint32_t load[RKNN_SVP_MAX_NPU_CORES];
    char text[128];
} rknn_svp_npu_load;

/* rknn_tensor_mem.flags: who frees the descriptor itself in rknn_destroy_mem. */
typedef enum _rknn_tensor_mem_flags {
    RKNN_TENSOR_MEMORY_FLAGS_ALLOC_INSIDE = 1,
    RKNN_TENSOR_MEMORY_FLAGS_FROM_FD      = 2,
    RKNN_TENSOR_MEMORY_FLAGS_FROM_PHYS    = 3,
    RKNN_TENSOR_MEMORY_FLAGS_UNKNOWN
} rknn_tensor_mem_flags;

/* rknn_create_mem2 allocation flags. */
typedef enum _rknn_mem_alloc_flags {
    RKNN_FLAG_MEMORY_FLAGS_DEFAULT = 0 << 0,    /* cacheable */
    RKNN_FLAG_MEMORY_CACHEABLE  = 1 << 0,
    RKNN_FLAG_MEMORY_NON_CACHEABLE = 1 << 1,
    RKNN_FLAG_MEMORY_TRY_ALLOC_SRAM = 1 << 2,   /* SRAM first, DRAM for the rest */
} rknn_mem_alloc_flags;

/* rknn_mem_sync directions. */
typedef enum _rknn_mem_sync_mode {
    RKNN_MEMORY_SYNC_TO_DEVICE = 0x1,           /* after the CPU wrote */
    RKNN_MEMORY_SYNC_FROM_DEVICE = 0x2,         /* before the CPU reads */
    RKNN_MEMORY_SYNC_BIDIRECTIONAL = RKNN_MEMORY_SYNC_TO_DEVICE | RKNN_MEMORY_SYNC_FROM_DEVICE,
} rknn_mem_sync_mode;

/* A block of device memory (zero-copy API). */
typedef struct _rknn_tensor_memory {
    void*            virt_addr;
    uint64_t         phys_addr;
    int32_t          fd;
    int32_t          offset;
    uint32_t         size;
    uint32_t         flags;                     /* rknn_tensor_mem_flags */
    void *           priv_data;
} rknn_tensor_mem;

/* One input of rknn_inputs_set. Without pass_through the runtime converts `buf` (of `type`
 * in `fmt`) to the model's input; with it, `buf` is already the model's own type/layout. */
typedef struct _rknn_input {
    uint32_t index;
    void* buf;
    uint32_t size;                              /* bytes in buf */
    uint8_t pass_through;
    rknn_tensor_type type;
    rknn_tensor_format fmt;
} rknn_input;

/* One output of rknn_outputs_get. Set want_float, is_prealloc and (with is_prealloc)
 * buf and size; the runtime fills buf and size otherwise. */
typedef struct _rknn_output {
    uint8_t want_float;                         /* 1: dequantized float32 */
    uint8_t is_prealloc;                        /* 1: buf/size are the caller's */
    uint32_t index;
    void* buf;                                  /* without is_prealloc: valid until
                                                   rknn_outputs_release */
    uint32_t size;
} rknn_output;

/* rknn_init's optional extension. */
typedef struct _rknn_init_extend {
    rknn_context ctx;
    int32_t      real_model_offset;             /* zero-copy model file: offset and size */
    uint32_t     real_model_size;
    int32_t      model_buffer_fd;
    uint32_t     model_buffer_flags;
    uint8_t      reserved[112];
} rknn_init_extend;

/* rknn_run / rknn_wait's optional extension. */
typedef struct _rknn_run_extend {
    uint64_t frame_id;                          /* out: the run's frame number */
    int32_t non_block;                          /* 1: rknn_run returns before the run ends */
    int32_t timeout_ms;                         /* blocking runs' time limit */
    int32_t fence_fd;
} rknn_run_extend;

/* rknn_outputs_get's optional extension. */
typedef struct _rknn_output_extend {
    uint64_t frame_id;                          /* out: the frame the outputs belong to */
} rknn_output_extend;

/* ---- Functions --------------------------------------------------------------------- */

/* Creates a context and loads a model into it. `model` is the model's bytes (`size` of
 * them; copied, the caller may free them on return) or, with size == 0, a NUL-terminated
 * file path. The model is an svp-acl model image compiled for an RKNN target
 * (svp_atc --soc_version=RK3588 ...); a vendor .rknn file is refused with
 * RKNN_ERR_MODEL_INVALID. `flag`: RKNN_FLAG_* (see docs/rknn.md for those implemented).
 * `extend` may be NULL. On success *context is a new handle for rknn_destroy. */
int rknn_init(rknn_context* context, void* model, uint32_t size, uint32_t flag, rknn_init_extend* extend);

/* Creates a second context sharing *context_in's model. */
int rknn_dup_context(rknn_context* context_in, rknn_context* context_out);

/* Destroys a context: its model, buffers and any outputs not yet released. The handle is
 * invalid afterwards (a second destroy returns RKNN_ERR_CTX_INVALID). */
int rknn_destroy(rknn_context context);

/* Fills `info` (`size` bytes, which must be the size of the command's struct) with what
 * `cmd` asks for. */
int rknn_query(rknn_context context, rknn_query_cmd cmd, void* info, uint32_t size);

/* Copies (converting type and layout, quantizing where the model input is integer)
 * inputs[0..n_inputs) into the context's input buffers for the next rknn_run. */
int rknn_inputs_set(rknn_context context, uint32_t n_inputs, rknn_input inputs[]);

/* Batch models: how many cores share one batch. */
int rknn_set_batch_core_num(rknn_context context, int core_num);

/* Restricts the context's runs to the cores in `core_mask` (multi-core SoCs only). */
int rknn_set_core_mask(rknn_context context, rknn_core_mask core_mask);

/* Runs the model on the inputs set; blocks until the run ends. `extend` may be NULL. */
int rknn_run(rknn_context context, rknn_run_extend* extend);

/* Waits for a non-blocking run. */
int rknn_wait(rknn_context context, rknn_run_extend* extend);

/* Returns the last run's outputs: outputs[i].index names the output; each is copied to
 * the caller's buffer (is_prealloc; size must hold it) or to a buffer the runtime owns
 * until rknn_outputs_release. want_float converts to float32 (dequantizing). */
int rknn_outputs_get(rknn_context context, uint32_t n_outputs, rknn_output outputs[], rknn_output_extend* extend);

/* Frees the runtime-owned buffers of an rknn_outputs_get (is_prealloc == 0 entries);
 * their buf pointers are invalid afterwards. */
int rknn_outputs_release(rknn_context context, uint32_t n_ouputs, rknn_output outputs[]);

/* Zero-copy memory: wraps or allocates device memory for rknn_set_io_mem and friends.
 * NULL on failure. */
rknn_tensor_mem* rknn_create_mem_from_phys(rknn_context ctx, uint64_t phys_addr, void *virt_addr, uint32_t size);
rknn_tensor_mem* rknn_create_mem_from_fd(rknn_context ctx, int32_t fd, void *virt_addr, uint32_t size, int32_t offset);
rknn_tensor_mem* rknn_create_mem_from_mb_blk(rknn_context ctx, void *mb_blk, int32_t offset);
rknn_tensor_mem* rknn_create_mem(rknn_context ctx, uint32_t size);
rknn_tensor_mem* rknn_create_mem2(rknn_context ctx, uint64_t size, uint64_t alloc_flags);

/* Frees memory from the create_mem family. */
int rknn_destroy_mem(rknn_context ctx, rknn_tensor_mem *mem);

/* Gives the context the memory for its weights / its intermediates. */
int rknn_set_weight_mem(rknn_context ctx, rknn_tensor_mem *mem);
int rknn_set_internal_mem(rknn_context ctx, rknn_tensor_mem *mem);

/* Binds `mem` as the input or output that attr->index names, in attr's type/layout. */
int rknn_set_io_mem(rknn_context ctx, rknn_tensor_mem *mem, rknn_tensor_attr *attr);

/* Dynamic-shape models: selects one input's shape (deprecated) / every input's shape. */
int rknn_set_input_shape(rknn_context ctx, rknn_tensor_attr* attr);
int rknn_set_input_shapes(rknn_context ctx, uint32_t n_inputs, rknn_tensor_attr attr[]);

/* Makes CPU and NPU views of cacheable memory agree. */
int rknn_mem_sync(rknn_context context, rknn_tensor_mem* mem, rknn_mem_sync_mode mode);

#ifdef __cplusplus
}
#endif

#endif /* _RKNN_API_H */
