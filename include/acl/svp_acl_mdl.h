/*
 * svp-acl: open reimplementation of the SVP ACL NPU runtime C API.
 *
 * svp_acl_mdl.h - offline models: loading, description queries, datasets,
 * execution, dynamic batch / resolution, AIPP, dump and model configuration.
 *
 * Model inputs. For a model with M = svp_acl_mdl_get_num_inputs() inputs:
 *  - indices 0 .. M-3 are the network's data inputs in model order (they may
 *    include raw-image inputs pre-processed by dynamic AIPP and the dynamic-AIPP
 *    parameter inputs that carry the AIPP settings);
 *  - index M-2 is "task_buf", per-execution scratch the runtime fills; it must
 *    not be touched or reused by another execution until this one completes;
 *  - index M-1 is "work_buf", intermediate results; one work_buf may be shared
 *    by all executions on the SAME stream (size it for the largest model) but
 *    never across streams.
 * The input dataset of an execution holds exactly M buffers in index order.
 * Sizes of data inputs/outputs are per batch (multiply by the batch count);
 * task_buf/work_buf sizes are total and never scaled.
 *
 * Strides. Tensors are stored as rows of their last dimension, `stride` bytes
 * apart. The default stride rounds the row byte size up to the model's
 * internal alignment (normally 16). A custom stride must be a non-zero
 * multiple of 16 and buffer addresses must be 16-byte aligned; buffer sizes
 * scale with the stride (size / default_stride * stride).
 *
 * Threading. Model ids, descriptions and datasets may be used from any
 * thread, but one dataset/description must not be modified concurrently, and
 * datasets/buffers in use by an asynchronous execution must not be destroyed
 * or updated until that execution has completed.
 */

#ifndef SVP_ACL_MODEL_H
#define SVP_ACL_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "svp_acl_base.h"
#include "svp_acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SVP_ACL_MAX_DIM_CNT          128
#define SVP_ACL_MAX_TENSOR_NAME_LEN  128
#define SVP_ACL_MAX_BATCH_NUM        1
/* Level 1 (the SS928 2022 headers) allows 128 resolution gears, later levels 100. The
 * library answers at most 100 gears at every level (svp_acl_mdl_get_dynamic_hw), which fits
 * the svp_acl_mdl_hw of both. */
#if SVP_ACL_API_LEVEL < 2
#define SVP_ACL_MAX_HW_NUM           128
#else
#define SVP_ACL_MAX_HW_NUM           100
#endif
#define SVP_ACL_MAX_SHAPE_COUNT      1
#define SVP_ACL_INVALID_NODE_INDEX   0xFFFFFFFF

/* values for SVP_ACL_MDL_LOAD_TYPE_SIZET; only SVP_ACL_MDL_LOAD_FROM_MEM is
 * supported */
#define SVP_ACL_MDL_LOAD_FROM_FILE            1
#define SVP_ACL_MDL_LOAD_FROM_FILE_WITH_MEM   2
#define SVP_ACL_MDL_LOAD_FROM_MEM             3
#define SVP_ACL_MDL_LOAD_FROM_MEM_WITH_MEM    4
#define SVP_ACL_MDL_LOAD_FROM_FILE_WITH_Q     5
#define SVP_ACL_MDL_LOAD_FROM_MEM_WITH_Q      6

/* values reported by svp_acl_ext_get_mdl_net_type() */
#define SVP_ACL_NET_TYPE_CNN        0x1
#define SVP_ACL_NET_TYPE_RECURRENT  (0x1 << 1)

/* Name to look up with svp_acl_mdl_get_input_index_by_name() to obtain the
 * `index` argument of svp_acl_mdl_set_dynamic_batch_size() and
 * svp_acl_mdl_set_dynamic_hw_size(). The lookup succeeds for every model and
 * the index needs no extra dataset buffer. */
#define SVP_ACL_DYNAMIC_TENSOR_NAME "svp_acl_mbatch_shape_data"
/* Reserved name of dynamic-AIPP parameter inputs. */
#define SVP_ACL_DYNAMIC_AIPP_NAME "svp_acl_dynamic_aipp_data"

typedef struct svp_acl_mdl_dataset svp_acl_mdl_dataset;
typedef struct svp_acl_mdl_desc svp_acl_mdl_desc;
typedef struct svp_acl_mdl_config_handle svp_acl_mdl_config_handle;
typedef struct svp_acl_mdl_aipp svp_acl_mdl_aipp;
typedef struct svp_acl_aipp_extend_info svp_acl_aipp_extend_info;

/* Attributes of svp_acl_mdl_set_config_opt(); the suffix names the type of the
 * value `attr_value` points to (for *_PTR: the address of a pointer variable). */
typedef enum {
    SVP_ACL_MDL_PRIORITY_INT32 = 0,          /* int32_t 0..7, smaller = more urgent; default 3 */
    SVP_ACL_MDL_LOAD_TYPE_SIZET = 1,         /* size_t SVP_ACL_MDL_LOAD_FROM_*; required */
    SVP_ACL_MDL_PATH_PTR = 2,                /* unsupported */
    SVP_ACL_MDL_MEM_ADDR_PTR = 3,            /* void *: model image, not copied; required */
    SVP_ACL_MDL_MEM_SIZET = 4,               /* size_t: model image bytes; required */
    SVP_ACL_MDL_WEIGHT_ADDR_PTR = 5,         /* unsupported */
    SVP_ACL_MDL_WEIGHT_SIZET = 6,            /* unsupported */
    SVP_ACL_MDL_WORKSPACE_ADDR_PTR = 7,      /* unsupported */
    SVP_ACL_MDL_WORKSPACE_SIZET = 8,         /* unsupported */
    SVP_ACL_MDL_INPUTQ_NUM_SIZET = 9,        /* unsupported */
    SVP_ACL_MDL_INPUTQ_ADDR_PTR = 10,        /* unsupported */
    SVP_ACL_MDL_OUTPUTQ_NUM_SIZET = 11,      /* unsupported */
    SVP_ACL_MDL_OUTPUTQ_ADDR_PTR = 12,       /* unsupported */
    SVP_ACL_MDL_PRIORITY_PREEMP_EN_BOOL = 13,          /* 0/1 (1- or 4-byte value); default 1 */
    SVP_ACL_MDL_PRIORITY_UP_STEP_TIMEOUT_UINT32 = 14,  /* ms; 0 = off (default), else [15, 600000) */
    SVP_ACL_MDL_PRIORITY_UP_TOP_TIMEOUT_UINT32 = 15,   /* ms; 0 = off (default), else [15, 600000) */
} svp_acl_mdl_config_attr;

/* Source image formats for AIPP. Values marked "unsupported" are accepted by
 * the headers for compatibility but rejected at run time. */
typedef enum {
    SVP_ACL_YUV420SP_U8 = 0x1,
    SVP_ACL_XRGB8888_U8 = 0x2,
    SVP_ACL_RGB888_U8 = 0x3,
    SVP_ACL_YUV400_U8 = 0x4,
    SVP_ACL_NC1HWC0DI_FP16 = 0x5,   /* unsupported */
    SVP_ACL_NC1HWC0DI_S8 = 0x6,     /* unsupported */
    SVP_ACL_ARGB8888_U8 = 0x7,      /* unsupported */
    SVP_ACL_YUYV_U8 = 0x8,          /* unsupported */
    SVP_ACL_YUV422SP_U8 = 0x9,
    SVP_ACL_AYUV444_U8 = 0xA,       /* unsupported */
    SVP_ACL_RAW10 = 0xB,            /* unsupported */
    SVP_ACL_RAW12 = 0xC,            /* unsupported */
    SVP_ACL_RAW16 = 0xD,            /* unsupported */
    SVP_ACL_RAW24 = 0xE,            /* unsupported */
    SVP_ACL_FEATURE_MAP_U8 = 0x100,
    SVP_ACL_FEATURE_MAP_S8 = 0x101,
    SVP_ACL_FEATURE_MAP_U16 = 0x102,
    SVP_ACL_FEATURE_MAP_S16 = 0x103,
    SVP_ACL_FEATURE_MAP_FP16 = 0x104,
    SVP_ACL_FEATURE_MAP_FP32 = 0x105,
    SVP_ACL_YVU420SP_U8 = 0x106,
    SVP_ACL_YVU422SP_U8 = 0x107,
    SVP_ACL_BGR_PLANAR_U8 = 0x108,
    SVP_ACL_RGB_PLANAR_U8 = 0x109,
    SVP_ACL_BGR_PACKAGE_U8 = 0x10A,
    SVP_ACL_XRGB_PLANAR_U8 = 0x10B,
    SVP_ACL_XBGR_PLANAR_U8 = 0x10C,
    SVP_ACL_RGBX_PLANAR_U8 = 0x10D,
    SVP_ACL_BGRX_PLANAR_U8 = 0x10E,
    SVP_ACL_XBGR_PACKAGE_U8 = 0x10F,
    SVP_ACL_RGBX_PACKAGE_U8 = 0x110,
    SVP_ACL_BGRX_PACKAGE_U8 = 0x111,
    /* Bayer raw formats (Hi3519DV500 and later headers) */
    SVP_ACL_RGGB_RAW8 = 0x112,
    SVP_ACL_GRBG_RAW8 = 0x113,
    SVP_ACL_GBRG_RAW8 = 0x114,
    SVP_ACL_BGGR_RAW8 = 0x115,
    SVP_ACL_RGGB_RAW10 = 0x116,
    SVP_ACL_GRBG_RAW10 = 0x117,
    SVP_ACL_GBRG_RAW10 = 0x118,
    SVP_ACL_BGGR_RAW10 = 0x119,
    SVP_ACL_RGGB_RAW12 = 0x11a,
    SVP_ACL_GRBG_RAW12 = 0x11b,
    SVP_ACL_GBRG_RAW12 = 0x11c,
    SVP_ACL_BGGR_RAW12 = 0x11d,
    SVP_ACL_RGGB_RAW14 = 0x11e,
    SVP_ACL_GRBG_RAW14 = 0x11f,
    SVP_ACL_GBRG_RAW14 = 0x120,
    SVP_ACL_BGGR_RAW14 = 0x121,
    SVP_ACL_RGGB_RAW16 = 0x122,
    SVP_ACL_GRBG_RAW16 = 0x123,
    SVP_ACL_GBRG_RAW16 = 0x124,
    SVP_ACL_BGGR_RAW16 = 0x125,
    SVP_ACL_UV_PLANNAR_U8 = 0x126,  /* unsupported */
    SVP_ACL_VU_PLANNAR_U8 = 0x127,  /* unsupported */
    SVP_ACL_UV_PACKAGE_U8 = 0x128,
    SVP_ACL_VU_PACKAGE_U8 = 0x129,

    SVP_ACL_AIPP_RESERVED = 0xFFFF
} svp_acl_aipp_format;

/* Older name of svp_acl_aipp_format, still used by some prototypes. */
typedef svp_acl_aipp_format svp_acl_aipp_input_format;

/* AIPP role of a model input/output (svp_acl_mdl_get_input_aipp_type()). */
typedef enum {
    SVP_ACL_DATA_WITHOUT_AIPP = 0,
    SVP_ACL_DATA_WITH_STATIC_AIPP = 1,
    SVP_ACL_DATA_WITH_DYNAMIC_AIPP = 2,
    SVP_ACL_DYNAMIC_AIPP_NODE = 3
} svp_acl_mdl_aipp_type;

typedef struct svp_acl_mdl_io_dims {
    char name[SVP_ACL_MAX_TENSOR_NAME_LEN];   /* NUL-terminated tensor name */
    size_t dim_count;                         /* valid entries in dims */
    int64_t dims[SVP_ACL_MAX_DIM_CNT];
} svp_acl_mdl_io_dims;

/* Shapes of one AIPP-processed input before and after AIPP. */
typedef struct {
    svp_acl_mdl_io_dims src_dims;       /* raw source image as written by the application */
    size_t src_size;                    /* bytes of the raw source image */
    svp_acl_mdl_io_dims aipp_out_dims;  /* tensor produced by AIPP */
    size_t aipp_out_size;               /* bytes of the AIPP output */
} svp_acl_aipp_dims;

/* Resolution gears of a dynamic-resolution model: hw[i][0] = height,
 * hw[i][1] = width; hw_count == 0 means the model is not dynamic. */
typedef struct svp_acl_mdl_hw {
    size_t hw_count;
    uint64_t hw[SVP_ACL_MAX_HW_NUM][2];
} svp_acl_mdl_hw;

/* Values for the `padding_switch` argument of
 * svp_acl_mdl_set_aipp_padding_params() (no SVP_ prefix, as in the SDK). */
typedef enum {
    AIPP_PADDING_SWITCH_OFF = 0,
    AIPP_PADDING_SWITCH_CONSTANT = 1,
    AIPP_PADDING_SWITCH_REPLICATION = 2,
    AIPP_PADDING_SWITCH_REFLECTION = 3,
    AIPP_PADDING_SWITCH_SYMMETRIC = 4,
    AIPP_PADDING_SWITCH_BUTT = 5
} svp_acl_aipp_padding_switch;

/* Values for the `scf_switch` argument of svp_acl_mdl_set_aipp_scf_params(). */
typedef enum {
    AIPP_RESIZE_SWITCH_OFF = 0,
    AIPP_RESIZE_SWITCH_NEAREST = 1,
    AIPP_RESIZE_SWITCH_BILINEAR = 2,
    AIPP_RESIZE_SWITCH_BUTT = 3
} svp_acl_aipp_resize_switch;

/* Compiled (static) AIPP configuration of an input, filled by
 * svp_acl_mdl_get_first_aipp_info() / svp_acl_mdl_get_last_aipp_info().
 * The layout depends on SVP_ACL_API_LEVEL (see svp_acl_base.h): level 1 (A)
 * only carries the source format as `input_format`; level >= 2 carries the
 * full configuration and names the format `aipp_format`.
 * At level 1 the two getters are routed (by macro) to the library's
 * svp_acl_mdl_get_first/last_aipp_info_v1 symbols, which fill only
 * `input_format`, so the old one-member struct is never overrun. Binaries
 * compiled against the vendor's level-A header call the full-layout symbol
 * and must provide storage of the full size. */
#if SVP_ACL_API_LEVEL >= 2
typedef struct {
    svp_acl_aipp_format aipp_format;
    int32_t src_image_width;
    int32_t src_image_height;
    int8_t crop_switch;
    int32_t crop_start_width;
    int32_t crop_start_height;
    int32_t crop_width;
    int32_t crop_height;
    int8_t resize_switch;
    int32_t resize_output_width;
    int32_t resize_output_height;
    int8_t padding_switch;
    int32_t left_padding_size;
    int32_t right_padding_size;
    int32_t top_padding_size;
    int32_t bottom_padding_size;
    int8_t csc_switch;
    int8_t rbuv_swap_switch;
    int8_t ax_swap_switch;
    int8_t cmp_switch;
    int32_t matrix_r0c0;
    int32_t matrix_r0c1;
    int32_t matrix_r0c2;
    int32_t matrix_r1c0;
    int32_t matrix_r1c1;
    int32_t matrix_r1c2;
    int32_t matrix_r2c0;
    int32_t matrix_r2c1;
    int32_t matrix_r2c2;
    int32_t output_bias0;
    int32_t output_bias1;
    int32_t output_bias2;
    int32_t input_bias0;
    int32_t input_bias1;
    int32_t input_bias2;
    float mean_chn0;
    float mean_chn1;
    float mean_chn2;
    float mean_chn3;
    float min_chn0;
    float min_chn1;
    float min_chn2;
    float min_chn3;
    float var_reci_chn0;
    float var_reci_chn1;
    float var_reci_chn2;
    float var_reci_chn3;
    svp_acl_format src_format;
    svp_acl_data_type src_data_type;
    size_t src_dim_num;
    size_t shape_count;                                   /* valid entries in out_dims */
    svp_acl_aipp_dims out_dims[SVP_ACL_MAX_SHAPE_COUNT];
    svp_acl_aipp_extend_info *aipp_extend;                /* owned by the library; may be NULL */
} svp_acl_aipp_info;
#else
typedef struct svp_acl_aipp_info {
    svp_acl_aipp_input_format input_format;
} svp_acl_aipp_info;
#endif

/* Compiled batch setting (svp_acl_mdl_get_dynamic_batch()). */
typedef struct svp_acl_mdl_batch {
    size_t batch_count;                       /* at most SVP_ACL_MAX_BATCH_NUM */
    uint64_t batch[SVP_ACL_MAX_BATCH_NUM];
} svp_acl_mdl_batch;

/* How the compiled model lets input/output (and work) memory be shared or
 * laid out contiguously (svp_acl_mdl_get_reuse_buffer_type()). */
typedef enum {
    SVP_ACL_BUFFER_REUSE_UNDEFINED = -1,
    SVP_ACL_BUFFER_REUSE_NONE = 0,            /* no sharing */
    SVP_ACL_BUFFER_REUSE_DISCONT = 1,         /* separate buffers */
    SVP_ACL_BUFFER_REUSE_IN_CONT = 2,         /* inputs in one contiguous block */
    SVP_ACL_BUFFER_REUSE_OUT_CONT = 3,        /* outputs in one contiguous block */
    SVP_ACL_BUFFER_REUSE_IN_OUT_CONT = 4,     /* inputs contiguous, outputs contiguous, separately */
    SVP_ACL_BUFFER_REUSE_INOUT_CONT = 5,      /* inputs and outputs in one block */
    SVP_ACL_BUFFER_REUSE_INOUTWORK_CONT = 6,  /* inputs, outputs and work_buf in one block */
    SVP_ACL_BUFFER_REUSE_OUTWORK_CONT = 7,    /* outputs and work_buf in one block */
} svp_acl_buffer_reuse_type;

/* Per-tensor reuse class (svp_acl_mdl_get_input/output_reuse_type()). */
typedef enum {
    SVP_ACL_INOUT_REUSE_UNDEFINED = -1,
    SVP_ACL_INOUT_REUSE_NONE = 0,
    SVP_ACL_INOUT_REUSE_DISCONT = 1,
    SVP_ACL_INOUT_REUSE_CONT = 2,
} svp_acl_inout_reuse_type;

/* ======================= model description ======================= */

/* Creates an empty description object (fill it with svp_acl_mdl_get_desc());
 * owned by the caller, release with svp_acl_mdl_destroy_desc(). NULL when out
 * of memory. */
SVP_ACL_FUNC_VISIBILITY svp_acl_mdl_desc *svp_acl_mdl_create_desc(void);

/* Releases a description object. Strings returned by the name queries become
 * invalid. Errors: SVP_ACL_ERROR_INVALID_PARAM. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_destroy_desc(svp_acl_mdl_desc *model_desc);

/* Fills `model_desc` with the description of loaded model `model_id`.
 * Errors: SVP_ACL_ERROR_INVALID_PARAM, SVP_ACL_ERROR_INVALID_MODEL_ID. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_get_desc(svp_acl_mdl_desc *model_desc, uint32_t model_id);

/* Number of inputs, INCLUDING task_buf, work_buf and dynamic-AIPP parameter
 * inputs; 0 on error. */
SVP_ACL_FUNC_VISIBILITY size_t svp_acl_mdl_get_num_inputs(const svp_acl_mdl_desc *model_desc);

/* Number of outputs; 0 on error. */
SVP_ACL_FUNC_VISIBILITY size_t svp_acl_mdl_get_num_outputs(const svp_acl_mdl_desc *model_desc);

/* Bytes of ONE batch of input `index` at the default stride (multiply by the
 * batch count when allocating); for task_buf/work_buf the full size. For AIPP
 * inputs the size of the raw source image the application writes; for a
 * dynamic-AIPP parameter input the size of the parameter block. For
 * dynamic-resolution models: maximum gear until svp_acl_mdl_set_dynamic_hw_size()
 * selects one. 0 on error. */
SVP_ACL_FUNC_VISIBILITY size_t svp_acl_mdl_get_input_size_by_index(const svp_acl_mdl_desc *model_desc,
    size_t index);

/* Bytes of ONE batch of output `index` at the default stride; 0 on error. */
SVP_ACL_FUNC_VISIBILITY size_t svp_acl_mdl_get_output_size_by_index(const svp_acl_mdl_desc *model_desc,
    size_t index);

/* Buffer reuse/contiguity requirement of the whole model;
 * SVP_ACL_BUFFER_REUSE_UNDEFINED on error. */
SVP_ACL_FUNC_VISIBILITY svp_acl_buffer_reuse_type svp_acl_mdl_get_reuse_buffer_type(
    const svp_acl_mdl_desc *model_desc);

/* Reuse class of input `index`; SVP_ACL_INOUT_REUSE_UNDEFINED on a bad
 * argument or index. */
SVP_ACL_FUNC_VISIBILITY svp_acl_inout_reuse_type svp_acl_mdl_get_input_reuse_type(
    const svp_acl_mdl_desc *model_desc, size_t index);

/* Reuse class of output `index`; SVP_ACL_INOUT_REUSE_UNDEFINED on a bad
 * argument or index. */
SVP_ACL_FUNC_VISIBILITY svp_acl_inout_reuse_type svp_acl_mdl_get_output_reuse_type(
    const svp_acl_mdl_desc *model_desc, size_t index);

/* ======================= datasets ======================= */

/* Creates an empty dataset (ordered list of data-buffer descriptors); owned by
 * the caller, release with svp_acl_mdl_destroy_dataset(). NULL when out of
 * memory. */
SVP_ACL_FUNC_VISIBILITY svp_acl_mdl_dataset *svp_acl_mdl_create_dataset(void);

/* Releases the dataset container only: neither the descriptors it references
 * nor their memory are freed (destroy those separately).
 * Errors: SVP_ACL_ERROR_INVALID_PARAM. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_destroy_dataset(const svp_acl_mdl_dataset *dataset);

/* Appends `data_buffer`; its position becomes the model input/output index.
 * The dataset keeps a reference, not a copy: the descriptor must outlive the
 * dataset's use. Errors: SVP_ACL_ERROR_INVALID_PARAM. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_add_dataset_buffer(svp_acl_mdl_dataset *dataset,
    svp_acl_data_buffer *data_buffer);

/* Number of descriptors in `dataset`; 0 on error. */
SVP_ACL_FUNC_VISIBILITY size_t svp_acl_mdl_get_dataset_num_buffers(const svp_acl_mdl_dataset *dataset);

/* Descriptor at `index` (still owned by the caller who created it), NULL if
 * out of range. */
SVP_ACL_FUNC_VISIBILITY svp_acl_data_buffer *svp_acl_mdl_get_dataset_buffer(const svp_acl_mdl_dataset *dataset,
    size_t index);

/* ======================= load / execute ======================= */

/* Loads an offline model image of `model_size` bytes and stores its id in
 * `*model_id`. The image is NOT copied: it stays owned by the caller and must
 * remain valid and unchanged until svp_acl_mdl_unload() (flush it first if it
 * lives in cached memory). The model is not bound to a context or stream.
 * Scheduling defaults: priority 3, preemption enabled, no promotion.
 * At most 128 models may be loaded at once.
 * Errors: SVP_ACL_ERROR_INVALID_PARAM, SVP_ACL_ERROR_DESERIALIZE_MODEL,
 * SVP_ACL_ERROR_PARSE_MODEL, SVP_ACL_ERROR_MODEL_SIZE_INVALID,
 * SVP_ACL_ERROR_STORAGE_OVER_LIMIT, SVP_ACL_ERROR_BAD_ALLOC. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_load_from_mem(const void *model, size_t model_size,
    uint32_t *model_id);

/* Runs one inference synchronously and returns when the outputs are written.
 * `input` holds all svp_acl_mdl_get_num_inputs() buffers (task_buf and
 * work_buf included) in index order; `output` one buffer per output.
 * AI-CPU operators are executed internally.
 * Errors: SVP_ACL_ERROR_INVALID_MODEL_ID, SVP_ACL_ERROR_MODEL_INPUT_NOT_MATCH,
 * SVP_ACL_ERROR_MODEL_OUTPUT_NOT_MATCH, SVP_ACL_ERROR_MEMORY_ADDRESS_UNALIGNED. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_execute(uint32_t model_id, const svp_acl_mdl_dataset *input,
    const svp_acl_mdl_dataset *output);

/* Enqueues one inference on `stream` (NULL = default stream) and returns.
 * The datasets, their descriptors and memory must stay untouched until the
 * stream has been synchronized (or an event/callback signals completion).
 * If the model has AI-CPU tasks, an application thread must serve them with
 * svp_acl_ext_process_aicpu_task(). Errors: as svp_acl_mdl_execute(), plus
 * SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE for a bad stream. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_execute_async(uint32_t model_id,
    const svp_acl_mdl_dataset *input, const svp_acl_mdl_dataset *output, svp_acl_rt_stream stream);

/* Unloads model `model_id`; after this the caller may free the model image.
 * No execution of the model may be pending or started concurrently.
 * Errors: SVP_ACL_ERROR_INVALID_MODEL_ID. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_unload(uint32_t model_id);

/* ======================= dynamic shapes ======================= */

/* Records in `dataset` how many batches the next execution processes.
 * `index` = input index of SVP_ACL_DYNAMIC_TENSOR_NAME. Range 1..256 for
 * image inputs, 1..5000 otherwise; default 1; recurrent nets only 1.
 * Errors: SVP_ACL_ERROR_INVALID_PARAM, SVP_ACL_ERROR_INVALID_MODEL_ID. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_set_dynamic_batch_size(uint32_t model_id,
    svp_acl_mdl_dataset *dataset, size_t index, uint64_t batch_size);

/* Recurrent nets only: number of frames (1..compiled maximum, which is the
 * default) the next execution with `dataset` processes.
 * Errors: SVP_ACL_ERROR_INVALID_PARAM, SVP_ACL_ERROR_INVALID_MODEL_ID. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_set_total_t(uint32_t model_id, svp_acl_mdl_dataset *dataset,
    uint64_t total_t);

/* Selects one compiled resolution gear (height x width) before execution.
 * `index` = input index of SVP_ACL_DYNAMIC_TENSOR_NAME. The choice applies to
 * the MODEL, not just this dataset, so serialize concurrent users. Afterwards
 * size/stride/dims queries report the selected gear (task_buf/work_buf keep
 * their maximum sizes).
 * Errors: SVP_ACL_ERROR_INVALID_PARAM (no such gear),
 * SVP_ACL_ERROR_MODEL_NOT_DYNAMIC. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_set_dynamic_hw_size(uint32_t model_id,
    svp_acl_mdl_dataset *dataset, size_t index, uint64_t height, uint64_t width);

/* Fills `*hw` (caller-provided) with the compiled resolution gears;
 * hw_count == 0 if the model is not dynamic. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_get_dynamic_hw(const svp_acl_mdl_desc *model_desc, size_t index,
    svp_acl_mdl_hw *hw);

/* ======================= security class ======================= */

/* Stores the secure-memory class of input `index` in `*class_id`: 0 means
 * ordinary memory, otherwise allocate with svp_acl_rt_malloc_sec(). */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_get_input_class_id_by_index(const svp_acl_mdl_desc *model_desc,
    size_t index, size_t *class_id);

/* As above for output `index`. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_get_output_class_id_by_index(const svp_acl_mdl_desc *model_desc,
    size_t index, size_t *class_id);

/* ======================= tensor information ======================= */

/* Fills `*dims` (caller-provided) with the name and shape of input `index`.
 * For AIPP inputs the shape is that of the raw source image. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_get_input_dims(const svp_acl_mdl_desc *model_desc, size_t index,
    svp_acl_mdl_io_dims *dims);

/* Fills `*dims` (caller-provided) with the name and shape of output `index`. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_get_output_dims(const svp_acl_mdl_desc *model_desc, size_t index,
    svp_acl_mdl_io_dims *dims);

/* Name of input `index` ("task_buf"/"work_buf" for the last two); the string
 * belongs to `model_desc` and lives as long as it. NULL on error. */
SVP_ACL_FUNC_VISIBILITY const char *svp_acl_mdl_get_input_name_by_index(const svp_acl_mdl_desc *model_desc,
    size_t index);

/* Name of output `index`; owned by `model_desc`. NULL on error. */
SVP_ACL_FUNC_VISIBILITY const char *svp_acl_mdl_get_output_name_by_index(const svp_acl_mdl_desc *model_desc,
    size_t index);

/* Layout of input `index`; SVP_ACL_FORMAT_UNDEFINED on error. */
SVP_ACL_FUNC_VISIBILITY svp_acl_format svp_acl_mdl_get_input_format(const svp_acl_mdl_desc *model_desc,
    size_t index);

/* Layout of output `index`; SVP_ACL_FORMAT_UNDEFINED on error. */
SVP_ACL_FUNC_VISIBILITY svp_acl_format svp_acl_mdl_get_output_format(const svp_acl_mdl_desc *model_desc,
    size_t index);

/* Element type of input `index`; SVP_ACL_DT_UNDEFINED on error. */
SVP_ACL_FUNC_VISIBILITY svp_acl_data_type svp_acl_mdl_get_input_data_type(const svp_acl_mdl_desc *model_desc,
    size_t index);

/* Element type of output `index`; SVP_ACL_DT_UNDEFINED on error. */
SVP_ACL_FUNC_VISIBILITY svp_acl_data_type svp_acl_mdl_get_output_data_type(const svp_acl_mdl_desc *model_desc,
    size_t index);

/* Stores the index of the input called `name` in `*index`. Always succeeds
 * for SVP_ACL_DYNAMIC_TENSOR_NAME.
 * Errors: SVP_ACL_ERROR_INVALID_PARAM (NULL or unknown name). */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_get_input_index_by_name(const svp_acl_mdl_desc *model_desc,
    const char *name, size_t *index);

/* Stores the index of the output called `name` in `*index`.
 * Errors: SVP_ACL_ERROR_INVALID_PARAM. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_get_output_index_by_name(const svp_acl_mdl_desc *model_desc,
    const char *name, size_t *index);

/* Default row pitch of input `index` in bytes; 0 on error. */
SVP_ACL_FUNC_VISIBILITY size_t svp_acl_mdl_get_input_default_stride(const svp_acl_mdl_desc *model_desc,
    size_t index);

/* Default row pitch of output `index` in bytes; 0 on error. */
SVP_ACL_FUNC_VISIBILITY size_t svp_acl_mdl_get_output_default_stride(const svp_acl_mdl_desc *model_desc,
    size_t index);

/* ======================= dump ======================= */

/* Starts a dump configuration session (after svp_acl_init(), before loading
 * the models to dump). Process-wide; call from one thread.
 * Errors: SVP_ACL_ERROR_DUMP_ALREADY_RUN, or a conflict error if dumping was
 * configured in the svp_acl_init() JSON file. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_init_dump(void);

/* Reads the "dump" object of the JSON file `dump_cfg_path`; applies to
 * models loaded afterwards; the last call wins. Needs dump-enabled models.
 * Errors: SVP_ACL_ERROR_DUMP_NOT_RUN, SVP_ACL_ERROR_INVALID_FILE,
 * SVP_ACL_ERROR_INVALID_DUMP_CONFIG. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_set_dump(const char *dump_cfg_path);

/* Ends the dump configuration session. Errors: SVP_ACL_ERROR_DUMP_NOT_RUN. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_finalize_dump(void);

/* ======================= load with configuration ======================= */

/* Loads a model as described by `handle` (SVP_ACL_MDL_LOAD_TYPE_SIZET =
 * SVP_ACL_MDL_LOAD_FROM_MEM, SVP_ACL_MDL_MEM_ADDR_PTR and SVP_ACL_MDL_MEM_SIZET
 * are required; priority attributes optional) and stores its id in
 * `*model_id`. Memory ownership as for svp_acl_mdl_load_from_mem(); the handle
 * may be destroyed afterwards. Unload with svp_acl_mdl_unload().
 * Errors: SVP_ACL_ERROR_INVALID_PARAM (missing/unsupported attribute), plus
 * those of svp_acl_mdl_load_from_mem(). */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_load_with_config(const svp_acl_mdl_config_handle *handle,
    uint32_t *model_id);

/* Applies the scheduling attributes set in `handle` (priority, preemption,
 * promotion timeouts) to the already loaded model `model_id`; affects
 * executions submitted afterwards.
 * Errors: SVP_ACL_ERROR_INVALID_MODEL_ID, SVP_ACL_ERROR_INVALID_PARAM. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_set_model_config(uint32_t model_id,
    const svp_acl_mdl_config_handle *handle);

/* Creates an empty configuration handle (caller-owned; release with
 * svp_acl_mdl_destroy_config_handle()). NULL when out of memory. */
SVP_ACL_FUNC_VISIBILITY svp_acl_mdl_config_handle *svp_acl_mdl_create_config_handle(void);

/* Releases a configuration handle; allowed right after a successful load. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_destroy_config_handle(svp_acl_mdl_config_handle *handle);

/* Stores one attribute in `handle`. `attr_value` points to the value (for
 * *_PTR attributes to the pointer variable) and `value_size` is that value's
 * size in bytes; the value is copied (a pointed-to model image is not).
 * Errors: SVP_ACL_ERROR_INVALID_PARAM (wrong size or out-of-range value),
 * SVP_ACL_ERROR_API_NOT_SUPPORT for unsupported attributes. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_set_config_opt(svp_acl_mdl_config_handle *handle,
    svp_acl_mdl_config_attr attr, const void *attr_value, size_t value_size);

/* Copies attribute `attr` of `handle` into caller memory `attr_value` of
 * `value_size` bytes. Errors: SVP_ACL_ERROR_INVALID_PARAM. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_get_config_opt(svp_acl_mdl_config_handle *handle,
    svp_acl_mdl_config_attr attr, void *attr_value, size_t value_size);

/* Fills `*batch` (caller-provided) with the compiled batch setting
 * (batch_count <= SVP_ACL_MAX_BATCH_NUM). */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_get_dynamic_batch(const svp_acl_mdl_desc *model_desc,
    svp_acl_mdl_batch *batch);

/* ======================= dynamic AIPP ======================= */
/*
 * An svp_acl_mdl_aipp object collects dynamic-AIPP parameters on the host.
 * Per-batch setters take `batch_index` < the batch_size given to
 * svp_acl_mdl_create_aipp(). Switch arguments are 0 (off) / 1 (on) unless a
 * switch enum is named. Setters only modify the object; the parameters reach
 * the model through svp_acl_mdl_set_input_aipp() and friends. An object must
 * not be modified concurrently from several threads.
 * Setter errors: SVP_ACL_ERROR_INVALID_PARAM (NULL object, bad value or
 * batch_index out of range).
 */

/* Creates a parameter object for `batch_size` batches (caller-owned, release
 * with svp_acl_mdl_destroy_aipp()). NULL on bad size or out of memory. */
SVP_ACL_FUNC_VISIBILITY svp_acl_mdl_aipp *svp_acl_mdl_create_aipp(uint64_t batch_size);

/* Releases a parameter object. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_destroy_aipp(svp_acl_mdl_aipp *aipp_set);

/* Sets the source image format. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_set_aipp_input_format(svp_acl_mdl_aipp *aipp_set,
    svp_acl_aipp_input_format input_format);

/* Colour-space conversion: a 3x3 fixed-point matrix (Q10: 1024 = 1.0, as the
 * vendor sample's YUV->BGR matrix {1192, 2166, 0, ...} shows), output bias
 * (added, for RGB->YUV) and input bias (subtracted, for YUV->RGB). Row r of
 * the matrix produces output channel r. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_set_aipp_csc_params(svp_acl_mdl_aipp *aipp_set, int8_t csc_switch,
    int16_t matrix_r0c0, int16_t matrix_r0c1, int16_t matrix_r0c2,
    int16_t matrix_r1c0, int16_t matrix_r1c1, int16_t matrix_r1c2,
    int16_t matrix_r2c0, int16_t matrix_r2c1, int16_t matrix_r2c2,
    uint8_t output_bias_r0, uint8_t output_bias_r1, uint8_t output_bias_r2,
    uint8_t input_bias_r0, uint8_t input_bias_r1, uint8_t input_bias_r2);

/* Swaps the R/B (or U/V) channels of the source. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_set_aipp_rbuv_swap_switch(svp_acl_mdl_aipp *aipp_set,
    int8_t rbuv_swap_switch);

/* Moves the alpha/X channel (RGBA->ARGB, YUVA->AYUV). */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_set_aipp_ax_swap_switch(svp_acl_mdl_aipp *aipp_set,
    int8_t ax_swap_switch);

/* Source image size in pixels. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_set_aipp_src_image_size(svp_acl_mdl_aipp *aipp_set,
    int32_t image_width, int32_t image_height);

/* Resize of batch `batch_index`; `scf_switch` takes svp_acl_aipp_resize_switch
 * values; sizes in pixels. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_set_aipp_scf_params(svp_acl_mdl_aipp *aipp_set,
    int8_t scf_switch, int32_t input_width, int32_t input_height, int32_t output_width, int32_t output_height,
    uint64_t batch_index);

/* Crop window of batch `batch_index` in pixels. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_set_aipp_crop_params(svp_acl_mdl_aipp *aipp_set,
    int8_t crop_switch, int32_t width_start_pos, int32_t height_start_pos, int32_t width, int32_t height,
    uint64_t batch_index);

/* Padding of batch `batch_index` in pixels; `padding_switch` takes
 * svp_acl_aipp_padding_switch values. Argument order: top, bottom, left,
 * right. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_set_aipp_padding_params(svp_acl_mdl_aipp *aipp_set,
    int8_t padding_switch, int32_t top, int32_t bottom, int32_t left, int32_t right, uint64_t batch_index);

/* Per-channel mean subtracted during data-type conversion
 * (out = (in - mean - min) * var_reci). */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_set_aipp_dtc_pixel_mean(svp_acl_mdl_aipp *aipp_set,
    float mean_chn0, float mean_chn1, float mean_chn2, float mean_chn3, uint64_t batch_index);

/* Per-channel minimum subtracted during data-type conversion. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_set_aipp_dtc_pixel_min(svp_acl_mdl_aipp *aipp_set,
    float min_chn0, float min_chn1, float min_chn2, float min_chn3, uint64_t batch_index);

/* Per-channel scale (reciprocal of the variance) of data-type conversion. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_set_aipp_pixel_var_reci(svp_acl_mdl_aipp *aipp_set,
    float reci_chn0, float reci_chn1, float reci_chn2, float reci_chn3, uint64_t batch_index);

/* Writes the parameters of `aipp_set` into the dataset buffer of the AIPP
 * PARAMETER input `index` (type SVP_ACL_DYNAMIC_AIPP_NODE, i.e. the
 * attached_index reported by svp_acl_mdl_get_input_aipp_type()). The buffer
 * must be allocated by the caller with the size the model reports. Afterwards
 * re-query size/stride of the linked data input and update its descriptor.
 * Errors: SVP_ACL_ERROR_INVALID_PARAM, SVP_ACL_ERROR_INVALID_MODEL_ID. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_set_input_aipp(uint32_t model_id, svp_acl_mdl_dataset *dataset,
    size_t index, const svp_acl_mdl_aipp *aipp_set);

/* As svp_acl_mdl_set_input_aipp() for an output-side AIPP node. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_set_output_aipp(uint32_t model_id, svp_acl_mdl_dataset *dataset,
    size_t index, const svp_acl_mdl_aipp *aipp_set);

/* As svp_acl_mdl_set_input_aipp(), but `index` is the DATA input that uses
 * dynamic AIPP (type SVP_ACL_DATA_WITH_DYNAMIC_AIPP); the attached parameter
 * input is located by the runtime. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_set_aipp_by_input_index(uint32_t model_id,
    svp_acl_mdl_dataset *dataset, size_t index, const svp_acl_mdl_aipp *aipp_set);

/* Stores the AIPP role of input `index` in `*type`. For
 * SVP_ACL_DATA_WITH_DYNAMIC_AIPP `*attached_index` receives the index of its
 * parameter input, otherwise SVP_ACL_INVALID_NODE_INDEX. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_get_input_aipp_type(uint32_t model_id, size_t index,
    svp_acl_mdl_aipp_type *type, size_t *attached_index);

/* As above for output `index`. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_get_output_aipp_type(uint32_t model_id, size_t index,
    svp_acl_mdl_aipp_type *type, size_t *attached_index);

/* Fills `*aipp_info` (caller-provided) with the static AIPP configuration
 * compiled into input `index` (not valid for task_buf/work_buf). See the
 * SVP_ACL_API_LEVEL caution at svp_acl_aipp_info.
 * Errors: SVP_ACL_ERROR_NOT_STATIC_AIPP if the input has no static AIPP,
 * SVP_ACL_ERROR_INVALID_PARAM, SVP_ACL_ERROR_INVALID_MODEL_ID. */
#if SVP_ACL_API_LEVEL < 2
#define svp_acl_mdl_get_first_aipp_info svp_acl_mdl_get_first_aipp_info_v1
#define svp_acl_mdl_get_last_aipp_info svp_acl_mdl_get_last_aipp_info_v1
#endif
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_get_first_aipp_info(uint32_t model_id, size_t index,
    svp_acl_aipp_info *aipp_info);

/* As svp_acl_mdl_get_first_aipp_info() for output `index`. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_get_last_aipp_info(uint32_t model_id, size_t index,
    svp_acl_aipp_info *aipp_info);

#ifdef __cplusplus
}
#endif

#endif /* SVP_ACL_MODEL_H */
