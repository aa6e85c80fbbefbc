/*
 * svp-acl: open reimplementation of the SVP ACL NPU runtime C API.
 *
 * svp_acl_prof.h - profiling.
 *
 * Two mutually exclusive modes; mixing them fails with
 * SVP_ACL_ERROR_PROF_API_CONFLICT:
 *  - file mode: svp_acl_prof_init/start/stop/finalize (or the "profiler"
 *    object of the svp_acl_init() JSON file, in which case these calls fail).
 *    Data files are written below the result directory for offline analysis.
 *    File mode is process-global; drive it from one thread.
 *  - subscribe mode: per-model operator records are written as fixed-size
 *    binary records to a pipe supplied by the application and decoded with the
 *    svp_acl_prof_get_* helpers below.
 *
 * Time unit: the operator start/end timestamps and durations returned by
 * svp_acl_prof_get_op_start(), svp_acl_prof_get_op_end() and
 * svp_acl_prof_get_op_duration() are in MICROSECONDS.
 */

#ifndef SVP_ACL_PROF_H
#define SVP_ACL_PROF_H

#include <stdint.h>
#include <stddef.h>
#include "svp_acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Items for the `data_type_config` bit mask of svp_acl_prof_create_config(). */
#define SVP_ACL_PROF_ACL_API                0x0001  /* timing of svp_acl API calls */
#define SVP_ACL_PROF_TASK_TIME              0x0002  /* NPU operator/task execution time */
#define SVP_ACL_PROF_AICORE_METRICS         0x0004  /* enables the aicore_metrics argument */
#define SVP_ACL_PROF_AICPU_TRACE            0x0008  /* AI-CPU task start/end */

/*
 * svp-acl extension (not in the vendor SDK): the vendor guide's prose calls
 * the AI-CPU trace item SVP_ACL_PROF_AICPU; this alias lets such code build.
 */
#define SVP_ACL_PROF_AICPU SVP_ACL_PROF_AICPU_TRACE

/* Maximum string sizes, terminating NUL included. */
#define SVP_ACL_PROF_MAX_OP_NAME_LEN        257
#define SVP_ACL_PROF_MAX_OP_TYPE_LEN        65

typedef enum {
    SVP_ACL_AICORE_ARITHMETIC_UTILIZATION = 0,
    SVP_ACL_AICORE_NONE = 0xFF
} svp_acl_prof_aicore_metrics;

typedef struct svp_acl_prof_config svp_acl_prof_config;
typedef struct svp_acl_prof_aicore_events svp_acl_prof_aicore_events;  /* reserved: always pass NULL */
typedef struct svp_acl_prof_subscribe_config svp_acl_prof_subscribe_config;

/* ======================= file mode ======================= */

/* Sets the output directory `result_path` (`length` = strlen, at most 4096;
 * an existing writable directory, absolute or relative to the working
 * directory). Call after svp_acl_init(). The first svp_acl_prof_start()
 * creates a JOB... directory in it (docs/profiling.md).
 * Errors: SVP_ACL_ERROR_INVALID_PARAM, SVP_ACL_ERROR_PROF_ALREADY_RUN,
 * SVP_ACL_ERROR_PROF_API_CONFLICT (profiling configured via JSON or subscribe
 * mode active). */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_prof_init(const char *result_path, size_t length);

/* Ends file-mode profiling started by svp_acl_prof_init() and flushes data
 * (configs still started are stopped, with a warning).
 * Errors: SVP_ACL_ERROR_PROF_NOT_RUN. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_prof_finalize(void);

/* Starts collecting the items of `profiler_config` (call before executing the
 * models of interest). Errors: SVP_ACL_ERROR_PROF_NOT_RUN (no init),
 * SVP_ACL_ERROR_PROF_ALREADY_RUN (same devices/items already started),
 * SVP_ACL_ERROR_INVALID_PARAM. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_prof_start(const svp_acl_prof_config *profiler_config);

/* Builds a configuration: `device_nums` ids from `device_id_list` (copied),
 * `aicore_metrics` (only SVP_ACL_AICORE_ARITHMETIC_UTILIZATION),
 * `aicore_events` must be NULL, `data_type_config` = OR of SVP_ACL_PROF_*
 * items. Caller-owned; release with svp_acl_prof_destroy_config(). NULL on
 * invalid arguments or out of memory. */
SVP_ACL_FUNC_VISIBILITY svp_acl_prof_config *svp_acl_prof_create_config(const uint32_t *device_id_list,
    uint32_t device_nums, svp_acl_prof_aicore_metrics aicore_metrics,
    const svp_acl_prof_aicore_events *aicore_events, uint64_t data_type_config);

/* Releases a configuration. Errors: SVP_ACL_ERROR_INVALID_PARAM (started:
 * stop it first; stale handle). */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_prof_destroy_config(const svp_acl_prof_config *profiler_config);

/* Stops collection; pass the configuration given to svp_acl_prof_start().
 * Errors: SVP_ACL_ERROR_PROF_NOT_RUN, SVP_ACL_ERROR_INVALID_PARAM. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_prof_stop(const svp_acl_prof_config *profiler_config);

/* ======================= subscribe mode ======================= */

/* Subscribes loaded model `model_id` (before executing it): one record per
 * operator execution is written to the pipe of `subscribe_config` (the vendor
 * requires one configuration for all models of a device; this library also
 * accepts a pipe per model). Threading: any thread; the records are written
 * by a library thread and never block execution (a full pipe drops and
 * counts records).
 * Errors: SVP_ACL_ERROR_PROF_REPEAT_SUBSCRIBE, SVP_ACL_ERROR_INVALID_MODEL_ID,
 * SVP_ACL_ERROR_PROF_API_CONFLICT (file mode active). */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_prof_model_subscribe(uint32_t model_id,
    const svp_acl_prof_subscribe_config *subscribe_config);

/* Ends the subscription of `model_id`: records of work finished before the
 * call are written to the pipe first (while the reader keeps reading), then
 * the library lets go of the pipe, so the reader sees end-of-file once the
 * application closes its write end. Synchronize executions before calling.
 * Errors: SVP_ACL_ERROR_INVALID_MODEL_ID (not subscribed). */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_prof_model_unsubscribe(uint32_t model_id);

/* Builds a subscription configuration: `time_info_switch` 1 = record operator
 * timing, 0 = not; `aicore_metrics` must be 0; `fd` points to an int holding
 * the write end (>= 0) of a pipe owned by the application (the library writes
 * to it but never closes it). Caller-owned; release with
 * svp_acl_prof_destroy_subscribe_config(). NULL on failure. */
SVP_ACL_FUNC_VISIBILITY svp_acl_prof_subscribe_config *svp_acl_prof_create_subscribe_config(int8_t time_info_switch,
    svp_acl_prof_aicore_metrics aicore_metrics, const void *fd);

/* Releases a subscription configuration (after unsubscribing its models). */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_prof_destroy_subscribe_config(
    const svp_acl_prof_subscribe_config *subscribe_config);

/*
 * Record decoding. `op_info` is a caller-owned buffer of `op_info_len` bytes
 * read from the pipe; it must hold whole records (a multiple of the size from
 * svp_acl_prof_get_op_desc_size()). `index` selects a record in it. These
 * helpers are pure functions and may be called from any thread.
 */

/* Stores the size in bytes of one operator record in `*op_desc_size`. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_prof_get_op_desc_size(size_t *op_desc_size);

/* Stores the number of records contained in `op_info` in `*op_number`.
 * Errors: SVP_ACL_ERROR_INVALID_PARAM (NULL or length not a whole number of
 * records). */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_prof_get_op_num(const void *op_info, size_t op_info_len,
    uint32_t *op_number);

/* Stores the buffer size (NUL included, <= SVP_ACL_PROF_MAX_OP_TYPE_LEN)
 * needed for the operator type of record `index` in `*op_type_len`. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_prof_get_op_type_len(const void *op_info, size_t op_info_len,
    uint32_t index, size_t *op_type_len);

/* Copies the NUL-terminated operator type of record `index` into the caller's
 * `op_type` buffer of `op_type_len` bytes.
 * Errors: SVP_ACL_ERROR_INVALID_PARAM (buffer too small, bad index). */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_prof_get_op_type(const void *op_info, size_t op_info_len,
    uint32_t index, char *op_type, size_t op_type_len);

/* Stores the buffer size (NUL included, <= SVP_ACL_PROF_MAX_OP_NAME_LEN)
 * needed for the operator name of record `index` in `*op_name_len`. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_prof_get_op_name_len(const void *op_info, size_t op_info_len,
    uint32_t index, size_t *op_name_len);

/* Copies the NUL-terminated operator name of record `index` into the caller's
 * `op_name` buffer of `op_name_len` bytes.
 * Errors: SVP_ACL_ERROR_INVALID_PARAM (buffer too small, bad index). */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_prof_get_op_name(const void *op_info, size_t op_info_len,
    uint32_t index, char *op_name, size_t op_name_len);

/* Start timestamp of record `index`, in MICROSECONDS; 0 on failure. */
SVP_ACL_FUNC_VISIBILITY uint64_t svp_acl_prof_get_op_start(const void *op_info, size_t op_info_len, uint32_t index);

/* End timestamp of record `index`, in MICROSECONDS; 0 on failure. */
SVP_ACL_FUNC_VISIBILITY uint64_t svp_acl_prof_get_op_end(const void *op_info, size_t op_info_len, uint32_t index);

/* Duration (end - start) of record `index`, in MICROSECONDS; 0 on failure. */
SVP_ACL_FUNC_VISIBILITY uint64_t svp_acl_prof_get_op_duration(const void *op_info, size_t op_info_len,
    uint32_t index);

/* Model id of record `index` (returned as size_t); 0 on failure. */
SVP_ACL_FUNC_VISIBILITY size_t svp_acl_prof_get_model_id(const void *op_info, size_t op_info_len, uint32_t index);

#ifdef __cplusplus
}
#endif

#endif /* SVP_ACL_PROF_H */
