/*
 * svp-acl: open reimplementation of the SVP ACL NPU runtime C API.
 *
 * svp_acl_base.h - common types, status codes, data types/formats and the
 * data-buffer descriptor API. Every other public header includes this one.
 *
 * Conventions used by all svp-acl headers:
 *  - Functions returning svp_acl_error return SVP_ACL_SUCCESS (0) on success
 *    and one of the SVP_ACL_ERROR_* codes below otherwise. After a failure the
 *    text of the error is available from svp_acl_get_recent_err_msg() on the
 *    same thread.
 *  - Functions returning a pointer return NULL on failure; functions returning
 *    size_t return 0 on failure unless stated otherwise.
 *  - "Caller-owned" memory is never copied, freed or retained beyond the
 *    documented lifetime by the library.
 *  - Unless a comment says otherwise, a function may be called from any
 *    thread; handles that are mutated (datasets, buffers, config objects) must
 *    not be modified concurrently from several threads.
 */

#ifndef SVP_ACL_BASE_H
#define SVP_ACL_BASE_H

#include <stdint.h>
#include <stdlib.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef SVP_FUNC_VISIBILITY
#define SVP_ACL_FUNC_VISIBILITY __attribute__((visibility("default")))
#else
#define SVP_ACL_FUNC_VISIBILITY
#endif

/*
 * svp-acl extension (not in the vendor SDK): header API level.
 *
 * Selects which vendor header generation the few layout-incompatible
 * declarations follow. 1 = A (SS928/Hi3403 2022), 2 = B (Hi3519DV500 early),
 * 3 = C (Hi3519DV500 2024), 4 = D (Hi3516CV610 2024, default).
 * Only the layout of svp_acl_aipp_info (svp_acl_mdl.h) depends on it; every
 * other declaration is the union of all generations and always present.
 * Define it identically for every translation unit of an application.
 */
#ifndef SVP_ACL_API_LEVEL
#define SVP_ACL_API_LEVEL 4
#endif
#if (SVP_ACL_API_LEVEL < 1) || (SVP_ACL_API_LEVEL > 4)
#error "SVP_ACL_API_LEVEL must be 1 (A), 2 (B), 3 (C) or 4 (D)"
#endif

/*
 * svp-acl extension (not in the vendor SDK): version of the svp-acl
 * extensions declared in these headers.
 */
#define SVP_ACL_EXT_VERSION_MAJOR 0
#define SVP_ACL_EXT_VERSION_MINOR 1

/* Opaque handles. NULL as a stream means "default stream of the calling
 * thread's current context". */
typedef void *svp_acl_rt_stream;
typedef void *svp_acl_rt_event;
typedef void *svp_acl_rt_context;
typedef int svp_acl_error;
typedef uint16_t svp_acl_float16;
typedef struct svp_acl_data_buffer svp_acl_data_buffer;

/* ---- status codes (values of svp_acl_error) ---- */
#define SVP_ACL_ERROR_NONE 0
#define SVP_ACL_SUCCESS 0

/* caller / configuration errors */
#define SVP_ACL_ERROR_INVALID_PARAM 100000
#define SVP_ACL_ERROR_UNINITIALIZE 100001
#define SVP_ACL_ERROR_REPEAT_INITIALIZE 100002
#define SVP_ACL_ERROR_INVALID_FILE 100003
#define SVP_ACL_ERROR_WRITE_FILE 100004
#define SVP_ACL_ERROR_INVALID_FILE_SIZE 100005
#define SVP_ACL_ERROR_PARSE_FILE 100006
#define SVP_ACL_ERROR_FILE_MISSING_ATTR 100007
#define SVP_ACL_ERROR_FILE_ATTR_INVALID 100008
#define SVP_ACL_ERROR_INVALID_DUMP_CONFIG 100009
#define SVP_ACL_ERROR_INVALID_PROFILING_CONFIG 100010
#define SVP_ACL_ERROR_INVALID_MODEL_ID 100011
#define SVP_ACL_ERROR_DESERIALIZE_MODEL 100012
#define SVP_ACL_ERROR_PARSE_MODEL 100013
#define SVP_ACL_ERROR_READ_MODEL_FAILURE 100014
#define SVP_ACL_ERROR_MODEL_SIZE_INVALID 100015
#define SVP_ACL_ERROR_MODEL_MISSING_ATTR 100016
#define SVP_ACL_ERROR_MODEL_INPUT_NOT_MATCH 100017
#define SVP_ACL_ERROR_MODEL_OUTPUT_NOT_MATCH 100018
#define SVP_ACL_ERROR_MODEL_NOT_DYNAMIC 100019
/* 100020-100025 and 100028-100031 belong to the single-operator API of the
 * wider ACL family; svp-acl defines them for source compatibility only. */
#define SVP_ACL_ERROR_OP_TYPE_NOT_MATCH 100020
#define SVP_ACL_ERROR_OP_INPUT_NOT_MATCH 100021
#define SVP_ACL_ERROR_OP_OUTPUT_NOT_MATCH 100022
#define SVP_ACL_ERROR_OP_ATTR_NOT_MATCH 100023
#define SVP_ACL_ERROR_OP_NOT_FOUND 100024
#define SVP_ACL_ERROR_OP_LOAD_FAILED 100025
#define SVP_ACL_ERROR_UNSUPPORTED_DATA_TYPE 100026
#define SVP_ACL_ERROR_FORMAT_NOT_MATCH 100027
#define SVP_ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED 100028
#define SVP_ACL_ERROR_KERNEL_NOT_FOUND 100029
#define SVP_ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED 100030
#define SVP_ACL_ERROR_KERNEL_ALREADY_REGISTERED 100031
#define SVP_ACL_ERROR_INVALID_QUEUE_ID 100032
#define SVP_ACL_ERROR_REPEAT_SUBSCRIBE 100033
#define SVP_ACL_ERROR_STREAM_NOT_SUBSCRIBE 100034
#define SVP_ACL_ERROR_THREAD_NOT_SUBSCRIBE 100035
#define SVP_ACL_ERROR_WAIT_CALLBACK_TIMEOUT 100036
#define SVP_ACL_ERROR_REPEAT_FINALIZE 100037
#define SVP_ACL_ERROR_NOT_STATIC_AIPP 100038
#define SVP_ACL_ERROR_COMPILING_STUB_MODE 100039
#define SVP_ACL_ERROR_GROUP_NOT_SET 100040
#define SVP_ACL_ERROR_GROUP_NOT_CREATE 100041
#define SVP_ACL_ERROR_PROF_ALREADY_RUN 100042
#define SVP_ACL_ERROR_PROF_NOT_RUN 100043
#define SVP_ACL_ERROR_DUMP_ALREADY_RUN 100044
#define SVP_ACL_ERROR_DUMP_NOT_RUN 100045
#define SVP_ACL_ERROR_PROF_REPEAT_SUBSCRIBE 148046
#define SVP_ACL_ERROR_PROF_API_CONFLICT 148047
#define SVP_ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG 148048
#define SVP_ACL_ERROR_UNSUPPORTED_API 148049

/* resource errors */
#define SVP_ACL_ERROR_BAD_ALLOC 200000
#define SVP_ACL_ERROR_API_NOT_SUPPORT 200001
#define SVP_ACL_ERROR_INVALID_DEVICE 200002
#define SVP_ACL_ERROR_MEMORY_ADDRESS_UNALIGNED 200003
#define SVP_ACL_ERROR_RESOURCE_NOT_MATCH 200004
#define SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE 200005
#define SVP_ACL_ERROR_FEATURE_UNSUPPORTED 200006
#define SVP_ACL_ERROR_PROF_MODULES_UNSUPPORTED 200007

/* limit errors */
#define SVP_ACL_ERROR_STORAGE_OVER_LIMIT 300000

/* internal / lower-layer errors */
#define SVP_ACL_ERROR_INTERNAL_ERROR 500000
#define SVP_ACL_ERROR_FAILURE 500001
#define SVP_ACL_ERROR_GE_FAILURE 500002
#define SVP_ACL_ERROR_RT_FAILURE 500003
#define SVP_ACL_ERROR_DRV_FAILURE 500004
#define SVP_ACL_ERROR_PROFILING_FAILURE 500005
/* Returned by svp_acl_rt_process_report() and svp_acl_ext_process_aicpu_task()
 * when nothing became due within the timeout. Not a fault: service loops
 * normally just call again. */
#define SVP_ACL_ERROR_RT_REPORT_TIMEOUT 507012

/* Defined for source compatibility; no svp-acl function uses it. */
#define SVP_ACL_UNKNOWN_RANK 0xFFFFFFFFFFFFFFFE

/* Element type of a tensor. svp_acl_data_type_size() gives the width in bits. */
typedef enum {
    SVP_ACL_DT_UNDEFINED = -1,
    SVP_ACL_FLOAT = 0,
    SVP_ACL_FLOAT16 = 1,
    SVP_ACL_INT8 = 2,
    SVP_ACL_INT32 = 3,
    SVP_ACL_UINT8 = 4,
    /* 5 is not used */
    SVP_ACL_INT16 = 6,
    SVP_ACL_UINT16 = 7,
    SVP_ACL_UINT32 = 8,
    SVP_ACL_INT64 = 9,
    SVP_ACL_UINT64 = 10,
    SVP_ACL_DOUBLE = 11,
    SVP_ACL_BOOL = 12,
    SVP_ACL_STRING = 13,

    SVP_ACL_INT10 = 100,
    SVP_ACL_UINT10 = 101,
    SVP_ACL_INT12 = 102,
    SVP_ACL_UINT12 = 103,
    SVP_ACL_INT14 = 104,
    SVP_ACL_UINT14 = 105,
    SVP_ACL_INT24 = 106,
    SVP_ACL_UINT24 = 107,
    SVP_ACL_UINT4 = 108,
} svp_acl_data_type;

/* Memory layout of a tensor. */
typedef enum {
    SVP_ACL_FORMAT_UNDEFINED = -1,
    SVP_ACL_FORMAT_NCHW = 0,
    SVP_ACL_FORMAT_NHWC = 1,
    SVP_ACL_FORMAT_ND = 2,
    SVP_ACL_FORMAT_NC1HWC0 = 3,
    SVP_ACL_FORMAT_FRACTAL_Z = 4,
    SVP_ACL_FORMAT_NC1HWC0_C04 = 12,
    SVP_ACL_FORMAT_FRACTAL_NZ = 29,
} svp_acl_format;

/*
 * Data buffers.
 *
 * An svp_acl_data_buffer is a small descriptor (address, total size in bytes,
 * row stride in bytes) around memory that the CALLER owns, normally obtained
 * from svp_acl_rt_malloc*(). The library never copies, frees or reallocates
 * the wrapped memory. Size and stride describe the whole buffer, i.e. all
 * batches. Tensors are stored row by row (one row = the last dimension), rows
 * `stride` bytes apart; a caller-chosen stride must be a non-zero multiple of
 * 16 and the address 16-byte aligned when the buffer is used for execution.
 */

/* Creates a descriptor for caller-owned memory `data` of `size` bytes laid out
 * with row pitch `stride` bytes. No copy, no ownership transfer.
 * Returns the new descriptor (release with svp_acl_destroy_data_buffer) or
 * NULL when out of memory. */
SVP_ACL_FUNC_VISIBILITY svp_acl_data_buffer *svp_acl_create_data_buffer(void *data, size_t size, size_t stride);

/* Releases the descriptor only; the wrapped memory stays with the caller and
 * must be freed separately. Must not be called while a dataset that still
 * references the descriptor is in use by an execution.
 * Errors: SVP_ACL_ERROR_INVALID_PARAM for NULL or an unknown descriptor. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_destroy_data_buffer(const svp_acl_data_buffer *data_buffer);

/* Returns the wrapped address (not owned by the descriptor), NULL if
 * `data_buffer` is NULL/invalid. */
SVP_ACL_FUNC_VISIBILITY void *svp_acl_get_data_buffer_addr(const svp_acl_data_buffer *data_buffer);

/* Returns the total size in bytes, 0 if `data_buffer` is NULL/invalid. */
SVP_ACL_FUNC_VISIBILITY size_t svp_acl_get_data_buffer_size(const svp_acl_data_buffer *data_buffer);

/* Returns the row stride in bytes, 0 if `data_buffer` is NULL/invalid
 * (callers should treat 0 as an error). */
SVP_ACL_FUNC_VISIBILITY size_t svp_acl_get_data_buffer_stride(const svp_acl_data_buffer *data_buffer);

/* Re-points an existing descriptor (also one already added to a dataset) at
 * new caller-owned memory, size and stride, e.g. per video frame for
 * zero-copy input or after a dynamic-AIPP reconfiguration. The previous memory
 * is not freed. Must not be called while an execution using this descriptor
 * is still in flight (synchronize first).
 * Errors: SVP_ACL_ERROR_INVALID_PARAM. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_update_data_buffer(svp_acl_data_buffer *data_buffer, void *data,
    size_t size, size_t stride);

/* Returns the width of one element of `data_type` in BITS, not bytes
 * (FLOAT 32, FLOAT16 16, INT8/UINT8 8, UINT4 4, INT10 10, ...); 0 for
 * SVP_ACL_DT_UNDEFINED or an unknown value. Bytes per element = (bits + 7) / 8. */
SVP_ACL_FUNC_VISIBILITY size_t svp_acl_data_type_size(svp_acl_data_type data_type);

/*
 * svp-acl extension (not in the vendor SDK)
 *
 * Returns the message describing the most recent error raised by an svp_acl
 * call on the CALLING thread (errors are tracked per thread). Returns "" (never
 * NULL) when no error has been recorded on this thread. The string is owned by
 * the library; it remains valid until the next svp_acl call made by the same
 * thread, so copy it if you need it longer. Do not free it.
 */
SVP_ACL_FUNC_VISIBILITY const char *svp_acl_get_recent_err_msg(void);

#ifdef __cplusplus
}
#endif

#endif /* SVP_ACL_BASE_H */
