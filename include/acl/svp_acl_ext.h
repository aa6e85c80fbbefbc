/*
 * svp-acl: open reimplementation of the SVP ACL NPU runtime C API.
 *
 * svp_acl_ext.h - SVP-specific extras: AI-CPU task service loop, model
 * properties and NPU status.
 */

#ifndef SVP_ACL_EXT_H
#define SVP_ACL_EXT_H

#include "svp_acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SVP_ACL_MAX_IP_NUM 8

/* NPU status reported by svp_acl_query_status(). */
typedef struct {
    uint32_t ip_num;                                /* number of NPU cores; valid array entries */
    uint32_t hw_utilization[SVP_ACL_MAX_IP_NUM];    /* per-core utilisation */
    uint32_t tflops_100x[SVP_ACL_MAX_IP_NUM];       /* per-core throughput, TFLOPS x 100 */
} svp_acl_status;

/* Service loop body for CPU-side (AI-CPU) operators of ASYNCHRONOUSLY
 * executed models: waits up to `timeout` milliseconds (-1 = forever) for a
 * pending AI-CPU task and executes it on the calling thread. Call it in a
 * loop from a dedicated application thread while such models run; not needed
 * for svp_acl_mdl_execute(), which runs AI-CPU operators itself.
 * Errors: SVP_ACL_ERROR_RT_REPORT_TIMEOUT when nothing arrived (benign, call
 * again); an error if the process has created no stream;
 * SVP_ACL_ERROR_INVALID_PARAM for timeout < -1. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_ext_process_aicpu_task(int32_t timeout);

/* Stores the number of AI-CPU tasks of loaded model `model_id` in `*num`
 * (start an AI-CPU service thread only if it is > 0).
 * Errors: SVP_ACL_ERROR_INVALID_PARAM, SVP_ACL_ERROR_INVALID_MODEL_ID. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_ext_get_mdl_aicpu_task_num(uint32_t model_id, uint32_t *num);

/* Stores SVP_ACL_NET_TYPE_RECURRENT in `*net_type` if model `model_id`
 * contains a recurrent network, SVP_ACL_NET_TYPE_CNN otherwise (macros in
 * svp_acl_mdl.h). Errors: SVP_ACL_ERROR_INVALID_PARAM,
 * SVP_ACL_ERROR_INVALID_MODEL_ID. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_ext_get_mdl_net_type(uint32_t model_id, uint32_t *net_type);

/* Fills the caller-provided `*status` with the current NPU status.
 * Errors: SVP_ACL_ERROR_INVALID_PARAM (NULL). */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_query_status(svp_acl_status *status);

/*
 * ---------------------------------------------------------------------------
 * svp-acl extension (not in the vendor SDK): synthetic NPU tasks.
 *
 * Enqueues on `stream` (NULL = default stream of the current context) an NPU
 * task made of `segment_count` segments. When the task is scheduled, an
 * emulated NPU core calls `fn(user_data, i)` for i = 0 .. segment_count-1, in
 * order. Segments are the unit of preemption, exactly like the fused-layer
 * groups of a compiled model: a higher-priority task may take the core only
 * between two segments. `fn` runs on an emulated-core thread, never
 * concurrently with itself for one task; a non-zero return fails the task and
 * that error is reported by the next synchronize of the stream (and by events
 * recorded after it). `attr` may be NULL for the defaults of a model loaded
 * with svp_acl_mdl_load_from_mem (priority 3, may preempt, not preemptible,
 * no promotion, no AI-CPU segments). `user_data` stays owned by the caller and must stay valid
 * until the task has completed.
 *
 * Useful for exercising streams, events, callbacks and the priority scheduler
 * without a model. Errors: SVP_ACL_ERROR_INVALID_PARAM (NULL fn, 0 segments,
 * priority outside 0..7, timeouts out of range or both set), and the stream
 * errors of svp_acl_rt_launch_callback().
 * ---------------------------------------------------------------------------
 */
typedef svp_acl_error (*svp_acl_ext_segment_fn)(void *user_data, uint32_t segment_index);

typedef struct svp_acl_ext_task_attr {
    int32_t priority;               /* 0 (highest) .. 7 */
    int32_t preempt_enable;         /* 1: may interrupt lower-priority tasks */
    int32_t preemptible;            /* 1: may be interrupted between segments */
    uint32_t step_timeout_ms;       /* STEP promotion period; 0 = off, else 15..599999 */
    uint32_t top_timeout_ms;        /* TOP promotion timeout; 0 = off, else 15..599999 */
    uint64_t aicpu_segment_mask;    /* bit i set: segment i (< 64) is an AI-CPU operator, run by a
                                       thread in svp_acl_ext_process_aicpu_task() */
    int32_t aicpu_busy_wait;        /* 1: the NPU core waits for AI-CPU segments; 0: it serves
                                       other streams meanwhile */
} svp_acl_ext_task_attr;

SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_ext_launch_segmented_task(svp_acl_ext_segment_fn fn, void *user_data,
                                                                        uint32_t segment_count,
                                                                        const svp_acl_ext_task_attr *attr,
                                                                        svp_acl_rt_stream stream);

/* ---------------------------------------------------------------------------
 * Board clock (acl.json "softnpu": {"clock": "board"}; docs/scheduling.md).
 * The stream's next entry does not start before `board_time_us`, microseconds of
 * predicted board time since the device was set: a frame source on the board's
 * clock (a camera delivering a frame every 33.3 ms). Work submitted behind it
 * waits on the device, not on the host. Errors: SVP_ACL_ERROR_FEATURE_UNSUPPORTED
 * when the clock is the host's (there is no board time to wait for), and the
 * stream errors of svp_acl_rt_launch_callback(). An svp-acl extension.
 * ---------------------------------------------------------------------------
 */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_ext_stream_release_at(svp_acl_rt_stream stream, uint64_t board_time_us);

#ifdef __cplusplus
}
#endif

#endif /* SVP_ACL_EXT_H */
