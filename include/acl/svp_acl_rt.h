/*
 * svp-acl: open reimplementation of the SVP ACL NPU runtime C API.
 *
 * svp_acl_rt.h - runtime resources: host callbacks, contexts, devices,
 * events, NPU-visible memory and streams.
 *
 * Resource model:
 *  - svp_acl_rt_set_device(d) opens device d and creates its default context
 *    (with one default stream), which becomes the calling thread's current
 *    context. svp_acl_rt_create_context() makes an explicit context, also with
 *    its own default stream. Every OS thread has exactly one current context
 *    (thread-local); the last create_context/set_current_context call wins.
 *  - Wherever an svp_acl_rt_stream is expected, NULL selects the default
 *    stream of the calling thread's current context.
 *  - Streams execute their tasks in order; different streams may run
 *    concurrently. Contexts are isolated from each other.
 *  - Memory from svp_acl_rt_malloc*() is directly addressable by the CPU;
 *    there is no memcpy API.
 */

#ifndef SVP_ACL_RT_H
#define SVP_ACL_RT_H

#include <stdint.h>
#include <stddef.h>
#include "svp_acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Flag for svp_acl_rt_create_event_with_flag(): capture timestamps so the
 * event can be used with svp_acl_rt_event_elapsed_time(). */
#define SVP_ACL_EVENT_TIME_LINE 0x00000008u

typedef enum svp_acl_rt_run_mode {
    SVP_ACL_DEVICE,
    SVP_ACL_HOST,
} svp_acl_rt_run_mode;

typedef enum svp_acl_rt_event_status {
    SVP_ACL_EVENT_STATUS_COMPLETE = 0,
    SVP_ACL_EVENT_STATUS_NOT_READY = 1,
    SVP_ACL_EVENT_STATUS_RESERVED = 2,
} svp_acl_rt_event_status;

typedef enum svp_acl_rt_event_wait_status {
    SVP_ACL_EVENT_WAIT_STATUS_COMPLETE = 0,
    SVP_ACL_EVENT_WAIT_STATUS_NOT_READY = 1,
    SVP_ACL_EVENT_WAIT_STATUS_RESERVED = 0xFFFF,
} svp_acl_rt_event_wait_status;

/* Whether a host callback holds up the stream that launched it. */
typedef enum svp_acl_rt_callback_block_type {
    SVP_ACL_CALLBACK_NO_BLOCK,
    SVP_ACL_CALLBACK_BLOCK,
} svp_acl_rt_callback_block_type;

/* Allocation policy; svp-acl accepts all values and treats the HUGE_*
 * policies like SVP_ACL_MEM_MALLOC_NORMAL_ONLY. */
typedef enum svp_acl_rt_mem_malloc_policy {
    SVP_ACL_MEM_MALLOC_HUGE_FIRST,
    SVP_ACL_MEM_MALLOC_HUGE_ONLY,
    SVP_ACL_MEM_MALLOC_NORMAL_ONLY,
} svp_acl_rt_mem_malloc_policy;

/* Host callback; runs on the thread subscribed to the stream. */
typedef void (*svp_acl_rt_callback)(void *user_data);

/* ======================= host callbacks ======================= */

/* Makes the OS thread `thread_id` (a pthread_t converted to an integer) the
 * one that executes host callbacks launched on `stream` (NULL = default
 * stream). A thread may serve several streams of the same device, but each
 * stream has at most one thread, and a thread id may not serve two devices.
 * At most 128 threads may be subscribed per process.
 * Errors: SVP_ACL_ERROR_REPEAT_SUBSCRIBE if the stream already has a thread;
 * SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE for a bad stream;
 * SVP_ACL_ERROR_STORAGE_OVER_LIMIT beyond the thread limit. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_subscribe_report(uint64_t thread_id, svp_acl_rt_stream stream);

/* Enqueues `fn(user_data)` as a task of `stream` (NULL = default stream);
 * returns immediately. When the stream reaches the task, the subscribed thread
 * runs `fn` inside its svp_acl_rt_process_report(). With
 * SVP_ACL_CALLBACK_BLOCK later tasks of the stream wait until `fn` returns;
 * with SVP_ACL_CALLBACK_NO_BLOCK the stream carries on at once. `user_data`
 * stays owned by the caller and must remain valid until `fn` has run.
 * Errors: SVP_ACL_ERROR_STREAM_NOT_SUBSCRIBE if no thread is subscribed to
 * the stream; SVP_ACL_ERROR_INVALID_PARAM for a NULL `fn`. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_launch_callback(svp_acl_rt_callback fn, void *user_data,
    svp_acl_rt_callback_block_type block_type, svp_acl_rt_stream stream);

/* Called in a loop by a subscribed thread: waits up to `timeout`
 * milliseconds (-1 = wait forever) for a due callback on any stream
 * subscribed to the calling thread and runs it on this thread.
 * Errors: SVP_ACL_ERROR_RT_REPORT_TIMEOUT when nothing became due in time
 * (benign, call again); SVP_ACL_ERROR_THREAD_NOT_SUBSCRIBE if the calling
 * thread serves no stream; SVP_ACL_ERROR_INVALID_PARAM for timeout < -1. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_process_report(int32_t timeout);

/* Cancels svp_acl_rt_subscribe_report(): callbacks of `stream` (NULL =
 * default stream) are no longer dispatched to `thread_id`.
 * Errors: SVP_ACL_ERROR_STREAM_NOT_SUBSCRIBE if that pairing does not exist. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_unsubscribe_report(uint64_t thread_id, svp_acl_rt_stream stream);

/* ======================= contexts ======================= */

/* Creates an explicit context on `device_id` (opening the device if
 * necessary) with its own default stream, stores it in `*context` and makes
 * it the calling thread's current context. Destroy it with
 * svp_acl_rt_destroy_context().
 * Errors: SVP_ACL_ERROR_INVALID_PARAM (NULL `context`),
 * SVP_ACL_ERROR_INVALID_DEVICE, SVP_ACL_ERROR_UNINITIALIZE. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_create_context(svp_acl_rt_context *context, int32_t device_id);

/* Destroys a context made by svp_acl_rt_create_context() together with its
 * default stream. The default context of a device cannot be destroyed this
 * way (use svp_acl_rt_reset_device()). No thread may still be using it.
 * Errors: SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_destroy_context(svp_acl_rt_context context);

/* Makes `context` current for the calling thread (affects only this
 * thread). Its device must not have been reset. A context may be current in
 * several threads at once; ordering work between them is then up to the
 * application.
 * Errors: SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_set_current_context(svp_acl_rt_context context);

/* Stores the calling thread's current context in `*context`.
 * Errors: SVP_ACL_ERROR_INVALID_PARAM (NULL `context`), or an error if the
 * thread has no current context. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_get_current_context(svp_acl_rt_context *context);

/* ======================= devices ======================= */

/* Opens device `device_id` (0 .. count-1) for the calling thread, creating
 * the device's default context and default stream on first use, and makes
 * that default context current for the thread. May be called from many
 * threads; each call should be paired with svp_acl_rt_reset_device() (the
 * device is reference counted and torn down when the count reaches 0 or at
 * svp_acl_finalize()).
 * Errors: SVP_ACL_ERROR_INVALID_DEVICE, SVP_ACL_ERROR_UNINITIALIZE. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_set_device(int32_t device_id);

/* Drops one reference to `device_id`; on the last one it synchronously
 * releases the default context, its default stream and every stream created
 * under the default context, discarding unfinished tasks. Destroy explicit
 * streams and contexts of the device before calling.
 * Errors: SVP_ACL_ERROR_INVALID_DEVICE. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_reset_device(int32_t device_id);

/* Stores the device of the calling thread's current context in `*device_id`.
 * Errors: SVP_ACL_ERROR_INVALID_PARAM; an error if no device is set. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_get_device(int32_t *device_id);

/* Stores the run mode in `*run_mode`; always SVP_ACL_DEVICE (the runtime
 * runs on the device side; SVP_ACL_HOST is not supported). */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_get_run_mode(svp_acl_rt_run_mode *run_mode);

/* Blocks until all work on the device of the current context has finished
 * (bounded by svp_acl_rt_set_op_wait_timeout()). Do not call concurrently
 * from several threads. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_synchronize_device(void);

/* Stores the number of devices in `*count` (1 on the supported SoCs). */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_get_device_count(uint32_t *count);

/* ======================= events ======================= */
/*
 * An event starts "not recorded". svp_acl_rt_record_event() places a marker in
 * a stream; the event completes once everything enqueued before the marker
 * has finished. Waiting on or synchronizing an event that has never been
 * recorded (or was reset and not recorded again) is an ERROR, it does not
 * return immediately: svp_acl_rt_synchronize_event() and
 * svp_acl_rt_stream_wait_event() then fail (SVP_ACL_ERROR_INVALID_PARAM).
 */

/* Creates an event (not recorded) and stores it in `*event`. Destroy with
 * svp_acl_rt_destroy_event(). */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_create_event(svp_acl_rt_event *event);

/* As svp_acl_rt_create_event() with `flag`; SVP_ACL_EVENT_TIME_LINE makes the
 * event capture timestamps for svp_acl_rt_event_elapsed_time().
 * Errors: SVP_ACL_ERROR_INVALID_PARAM for unknown flag bits. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_create_event_with_flag(svp_acl_rt_event *event, uint32_t flag);

/* Destroys `event`. The caller must make sure no pending
 * svp_acl_rt_synchronize_event()/svp_acl_rt_stream_wait_event() still
 * depends on it.
 * Errors: SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_destroy_event(svp_acl_rt_event event);

/* Enqueues a record marker for `event` in `stream` (NULL = default stream);
 * the event completes when all earlier work of the stream has finished.
 * Does not block the host. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_record_event(svp_acl_rt_event event, svp_acl_rt_stream stream);

/* Makes work enqueued on `stream` (NULL = default stream) after this call wait
 * until `event` completes. Several streams may wait on one event. Does not
 * block the host. Fails if `event` has never been recorded. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_stream_wait_event(svp_acl_rt_stream stream, svp_acl_rt_event event);

/* Returns `event` to the "not recorded" state so it can be recorded again;
 * the reset is ordered on `stream` (NULL = default stream). Work that waits on
 * the event must have completed (e.g. synchronize the event first). */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_reset_event(svp_acl_rt_event event, svp_acl_rt_stream stream);

/* Non-blocking: stores SVP_ACL_EVENT_STATUS_COMPLETE or _NOT_READY in
 * `*status`. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_query_event(svp_acl_rt_event event, svp_acl_rt_event_status *status);

/* Non-blocking: stores in `*status` whether the stream waits on `event` have
 * been satisfied (SVP_ACL_EVENT_WAIT_STATUS_COMPLETE) or not (_NOT_READY). */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_query_event_wait_status(svp_acl_rt_event event,
    svp_acl_rt_event_wait_status *status);

/* Blocks the calling thread until `event` completes (bounded by
 * svp_acl_rt_set_op_wait_timeout()). Fails if `event` has never been
 * recorded. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_synchronize_event(svp_acl_rt_event event);

/* Stores in `*ms` the time in MILLISECONDS between the completion of
 * `start_event` and `end_event`. Both must be recorded and complete.
 * Errors: SVP_ACL_ERROR_INVALID_PARAM (NULL `ms`, event not recorded or not
 * complete). */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_event_elapsed_time(float *ms, svp_acl_rt_event start_event,
    svp_acl_rt_event end_event);

/* ======================= memory ======================= */
/*
 * All device memory is allocated by the library and owned by the caller until
 * it is freed with the matching free function. Addresses are at least 16-byte
 * aligned (svp-acl uses 64). Sizes are in bytes and must be > 0.
 */

/* Allocates `size` bytes of uncached, NPU-visible memory into `*dev_ptr`.
 * The CPU can read/write it directly; no cache maintenance needed.
 * Free with svp_acl_rt_free().
 * Errors: SVP_ACL_ERROR_INVALID_PARAM, SVP_ACL_ERROR_BAD_ALLOC. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_malloc(void **dev_ptr, size_t size,
    svp_acl_rt_mem_malloc_policy policy);

/* As svp_acl_rt_malloc() but CPU-cached: the caller must call
 * svp_acl_rt_mem_flush() after CPU writes the NPU will read, and
 * svp_acl_rt_mem_invalidate() before the CPU reads NPU results.
 * Free with svp_acl_rt_free(). */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_malloc_cached(void **dev_ptr, size_t size,
    svp_acl_rt_mem_malloc_policy policy);

/* Allocates `size` bytes of secure memory of security class `class_id` (as
 * reported by svp_acl_mdl_get_input/output_class_id_by_index(); only needed
 * when that is non-zero). Free with svp_acl_rt_free_sec(). */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_malloc_sec(void **dev_ptr, size_t size, size_t class_id);

/* Writes back (and invalidates) the CPU cache for [dev_ptr, dev_ptr+size) so
 * the NPU sees CPU writes. Use on cached memory before execution (inputs,
 * task/work buffers, model images). */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_mem_flush(const void *dev_ptr, size_t size);

/* Discards CPU cache lines for [dev_ptr, dev_ptr+size) so the CPU sees NPU
 * writes. Use on cached output memory after execution has completed. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_mem_invalidate(const void *dev_ptr, size_t size);

/* Frees memory from svp_acl_rt_malloc(), svp_acl_rt_malloc_cached() or
 * svp_acl_rt_malloc_host(). No execution may still be using it.
 * Errors: SVP_ACL_ERROR_INVALID_PARAM for NULL or an unknown address. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_free(const void *dev_ptr);

/* Frees memory from svp_acl_rt_malloc_sec(). */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_free_sec(const void *dev_ptr);

/* Allocates `size` bytes of "host" memory; on the SoC this is ordinary
 * device memory, 64-byte aligned. Free with svp_acl_rt_free_host() (or
 * svp_acl_rt_free()). */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_malloc_host(void **host_ptr, size_t size);

/* Frees memory from svp_acl_rt_malloc_host() (also accepts
 * svp_acl_rt_malloc() memory). */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_free_host(const void *host_ptr);

/* ======================= streams ======================= */

/* Creates an in-order task queue in the current context and stores it in
 * `*stream`. At most 128 streams per device, default streams included.
 * Errors: SVP_ACL_ERROR_STORAGE_OVER_LIMIT, SVP_ACL_ERROR_INVALID_PARAM. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_create_stream(svp_acl_rt_stream *stream);

/* Destroys an explicit stream of the current context (never a default
 * stream). Synchronize it first; no other thread may be using it.
 * Errors: SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE,
 * SVP_ACL_ERROR_RESOURCE_NOT_MATCH (stream of another context). */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_destroy_stream(svp_acl_rt_stream stream);

/* Blocks the calling thread until every task enqueued on `stream` (NULL =
 * default stream) has finished, bounded by svp_acl_rt_set_op_wait_timeout(). */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_synchronize_stream(svp_acl_rt_stream stream);

/* Sets the timeout, in SECONDS, applied to waits for stream/device/event
 * completion; 0 = never time out. Range [0, 4000000]; default 120 s.
 * Errors: SVP_ACL_ERROR_INVALID_PARAM when out of range. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_rt_set_op_wait_timeout(uint32_t timeout);

#ifdef __cplusplus
}
#endif

#endif /* SVP_ACL_RT_H */
