/*
 * svp-acl: compile-only conformance test of the public headers.
 *
 * This translation unit is never run. It proves at compile time that
 *  - every public header is self-contained, guarded and valid C99 / C++;
 *  - every macro and enumerator exists and has the contract value;
 *  - every struct member exists with the contract type and in contract order;
 *  - every public function exists with the exact contract prototype
 *    (a function pointer of the expected type is initialised from it; a
 *    mismatch is a diagnostic in C and a hard error in C++).
 *
 * Build (all must be warning-free):
 *   gcc   -std=c99   -Wall -Wextra -pedantic -Werror -c -I include tests/c99/all_headers.c
 *   clang -std=c99   -Wall -Wextra -pedantic -Werror -c -I include tests/c99/all_headers.c
 *   g++   -std=c++17 -Wall -Wextra -Werror -x c++ -c -I include tests/c99/all_headers.c
 * Optionally with -DSVP_FUNC_VISIBILITY and/or -DSVP_ACL_API_LEVEL=1..4.
 */

/* Each header on its own first (self-containment), in an order that differs
 * from the include graph, then everything again (include guards). */
#include "acl/svp_acl_ext.h"
#include "acl/svp_acl_prof.h"
#include "acl/svp_acl_mdl.h"
#include "acl/svp_acl.h"
#include "acl/svp_acl_rt.h"
#include "acl/svp_acl_base.h"
#include "acl/svp_acl_base.h"
#include "acl/svp_acl.h"
#include "acl/svp_acl_rt.h"
#include "acl/svp_acl_mdl.h"
#include "acl/svp_acl_prof.h"
#include "acl/svp_acl_ext.h"

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------ */
/* compile-time assertion usable in C99 and C++ at file scope          */
/* ------------------------------------------------------------------ */
#define SVP_T_CAT2(a, b) a##b
#define SVP_T_CAT(a, b) SVP_T_CAT2(a, b)
#define SVP_T_CHECK(cond) typedef char SVP_T_CAT(svp_t_check_line_, __LINE__)[(cond) ? 1 : -1]

/* member `m` of object `obj` has exactly type T (pointer types must match) */
#define SVP_T_MEMBER(T, obj, m) do { T *p_ = &(obj).m; (void)p_; } while (0)
/* member `m` is an array declared as T m[N] */
#define SVP_T_MEMBER_ARR(T, N, obj, m) do { T (*p_)[N] = &(obj).m; (void)p_; } while (0)
/* function `fn` has prototype `R fn ARGS` */
#define SVP_T_SIG(fn, R, ARGS) do { R (*fp_) ARGS = fn; (void)fp_; } while (0)
/* externally visible test objects (declared first so that no compiler warns
 * about unused or undeclared globals) */
#define SVP_T_GLOBAL(T, name) extern T name; T name
#define SVP_T_GLOBAL_ARR(T, name) extern T name[]; T name[]

/* ------------------------------------------------------------------ */
/* include guards and configuration macros                              */
/* ------------------------------------------------------------------ */
#if !defined(SVP_ACL_BASE_H) || !defined(SVP_ACL_H) || !defined(SVP_ACL_RT_H) || \
    !defined(SVP_ACL_MODEL_H) || !defined(SVP_ACL_PROF_H) || !defined(SVP_ACL_EXT_H)
#error "include guard macro missing"
#endif
#if !defined(SVP_ACL_FUNC_VISIBILITY)
#error "SVP_ACL_FUNC_VISIBILITY missing"
#endif
#if !defined(SVP_ACL_API_LEVEL) || SVP_ACL_API_LEVEL < 1 || SVP_ACL_API_LEVEL > 4
#error "SVP_ACL_API_LEVEL missing or out of range"
#endif
#if SVP_ACL_EXT_VERSION_MAJOR != 0 || SVP_ACL_EXT_VERSION_MINOR != 1
#error "unexpected svp-acl extension version"
#endif

/* ------------------------------------------------------------------ */
/* svp_acl_base.h: status codes                                         */
/* ------------------------------------------------------------------ */
SVP_T_CHECK(SVP_ACL_ERROR_NONE == 0);
SVP_T_CHECK(SVP_ACL_SUCCESS == 0);
SVP_T_CHECK(SVP_ACL_ERROR_INVALID_PARAM == 100000);
SVP_T_CHECK(SVP_ACL_ERROR_UNINITIALIZE == 100001);
SVP_T_CHECK(SVP_ACL_ERROR_REPEAT_INITIALIZE == 100002);
SVP_T_CHECK(SVP_ACL_ERROR_INVALID_FILE == 100003);
SVP_T_CHECK(SVP_ACL_ERROR_WRITE_FILE == 100004);
SVP_T_CHECK(SVP_ACL_ERROR_INVALID_FILE_SIZE == 100005);
SVP_T_CHECK(SVP_ACL_ERROR_PARSE_FILE == 100006);
SVP_T_CHECK(SVP_ACL_ERROR_FILE_MISSING_ATTR == 100007);
SVP_T_CHECK(SVP_ACL_ERROR_FILE_ATTR_INVALID == 100008);
SVP_T_CHECK(SVP_ACL_ERROR_INVALID_DUMP_CONFIG == 100009);
SVP_T_CHECK(SVP_ACL_ERROR_INVALID_PROFILING_CONFIG == 100010);
SVP_T_CHECK(SVP_ACL_ERROR_INVALID_MODEL_ID == 100011);
SVP_T_CHECK(SVP_ACL_ERROR_DESERIALIZE_MODEL == 100012);
SVP_T_CHECK(SVP_ACL_ERROR_PARSE_MODEL == 100013);
SVP_T_CHECK(SVP_ACL_ERROR_READ_MODEL_FAILURE == 100014);
SVP_T_CHECK(SVP_ACL_ERROR_MODEL_SIZE_INVALID == 100015);
SVP_T_CHECK(SVP_ACL_ERROR_MODEL_MISSING_ATTR == 100016);
SVP_T_CHECK(SVP_ACL_ERROR_MODEL_INPUT_NOT_MATCH == 100017);
SVP_T_CHECK(SVP_ACL_ERROR_MODEL_OUTPUT_NOT_MATCH == 100018);
SVP_T_CHECK(SVP_ACL_ERROR_MODEL_NOT_DYNAMIC == 100019);
SVP_T_CHECK(SVP_ACL_ERROR_OP_TYPE_NOT_MATCH == 100020);
SVP_T_CHECK(SVP_ACL_ERROR_OP_INPUT_NOT_MATCH == 100021);
SVP_T_CHECK(SVP_ACL_ERROR_OP_OUTPUT_NOT_MATCH == 100022);
SVP_T_CHECK(SVP_ACL_ERROR_OP_ATTR_NOT_MATCH == 100023);
SVP_T_CHECK(SVP_ACL_ERROR_OP_NOT_FOUND == 100024);
SVP_T_CHECK(SVP_ACL_ERROR_OP_LOAD_FAILED == 100025);
SVP_T_CHECK(SVP_ACL_ERROR_UNSUPPORTED_DATA_TYPE == 100026);
SVP_T_CHECK(SVP_ACL_ERROR_FORMAT_NOT_MATCH == 100027);
SVP_T_CHECK(SVP_ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED == 100028);
SVP_T_CHECK(SVP_ACL_ERROR_KERNEL_NOT_FOUND == 100029);
SVP_T_CHECK(SVP_ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED == 100030);
SVP_T_CHECK(SVP_ACL_ERROR_KERNEL_ALREADY_REGISTERED == 100031);
SVP_T_CHECK(SVP_ACL_ERROR_INVALID_QUEUE_ID == 100032);
SVP_T_CHECK(SVP_ACL_ERROR_REPEAT_SUBSCRIBE == 100033);
SVP_T_CHECK(SVP_ACL_ERROR_STREAM_NOT_SUBSCRIBE == 100034);
SVP_T_CHECK(SVP_ACL_ERROR_THREAD_NOT_SUBSCRIBE == 100035);
SVP_T_CHECK(SVP_ACL_ERROR_WAIT_CALLBACK_TIMEOUT == 100036);
SVP_T_CHECK(SVP_ACL_ERROR_REPEAT_FINALIZE == 100037);
SVP_T_CHECK(SVP_ACL_ERROR_NOT_STATIC_AIPP == 100038);
SVP_T_CHECK(SVP_ACL_ERROR_COMPILING_STUB_MODE == 100039);
SVP_T_CHECK(SVP_ACL_ERROR_GROUP_NOT_SET == 100040);
SVP_T_CHECK(SVP_ACL_ERROR_GROUP_NOT_CREATE == 100041);
SVP_T_CHECK(SVP_ACL_ERROR_PROF_ALREADY_RUN == 100042);
SVP_T_CHECK(SVP_ACL_ERROR_PROF_NOT_RUN == 100043);
SVP_T_CHECK(SVP_ACL_ERROR_DUMP_ALREADY_RUN == 100044);
SVP_T_CHECK(SVP_ACL_ERROR_DUMP_NOT_RUN == 100045);
SVP_T_CHECK(SVP_ACL_ERROR_PROF_REPEAT_SUBSCRIBE == 148046);
SVP_T_CHECK(SVP_ACL_ERROR_PROF_API_CONFLICT == 148047);
SVP_T_CHECK(SVP_ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG == 148048);
SVP_T_CHECK(SVP_ACL_ERROR_UNSUPPORTED_API == 148049);
SVP_T_CHECK(SVP_ACL_ERROR_BAD_ALLOC == 200000);
SVP_T_CHECK(SVP_ACL_ERROR_API_NOT_SUPPORT == 200001);
SVP_T_CHECK(SVP_ACL_ERROR_INVALID_DEVICE == 200002);
SVP_T_CHECK(SVP_ACL_ERROR_MEMORY_ADDRESS_UNALIGNED == 200003);
SVP_T_CHECK(SVP_ACL_ERROR_RESOURCE_NOT_MATCH == 200004);
SVP_T_CHECK(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE == 200005);
SVP_T_CHECK(SVP_ACL_ERROR_FEATURE_UNSUPPORTED == 200006);
SVP_T_CHECK(SVP_ACL_ERROR_PROF_MODULES_UNSUPPORTED == 200007);
SVP_T_CHECK(SVP_ACL_ERROR_STORAGE_OVER_LIMIT == 300000);
SVP_T_CHECK(SVP_ACL_ERROR_INTERNAL_ERROR == 500000);
SVP_T_CHECK(SVP_ACL_ERROR_FAILURE == 500001);
SVP_T_CHECK(SVP_ACL_ERROR_GE_FAILURE == 500002);
SVP_T_CHECK(SVP_ACL_ERROR_RT_FAILURE == 500003);
SVP_T_CHECK(SVP_ACL_ERROR_DRV_FAILURE == 500004);
SVP_T_CHECK(SVP_ACL_ERROR_PROFILING_FAILURE == 500005);
SVP_T_CHECK(SVP_ACL_ERROR_RT_REPORT_TIMEOUT == 507012);
SVP_T_CHECK(SVP_ACL_UNKNOWN_RANK == 0xFFFFFFFFFFFFFFFEull);

/* every status code is usable as an svp_acl_error and in a switch */
SVP_T_GLOBAL_ARR(svp_acl_error, svp_t_all_errors) = {
    SVP_ACL_ERROR_NONE, SVP_ACL_SUCCESS,
    SVP_ACL_ERROR_INVALID_PARAM, SVP_ACL_ERROR_UNINITIALIZE, SVP_ACL_ERROR_REPEAT_INITIALIZE,
    SVP_ACL_ERROR_INVALID_FILE, SVP_ACL_ERROR_WRITE_FILE, SVP_ACL_ERROR_INVALID_FILE_SIZE,
    SVP_ACL_ERROR_PARSE_FILE, SVP_ACL_ERROR_FILE_MISSING_ATTR, SVP_ACL_ERROR_FILE_ATTR_INVALID,
    SVP_ACL_ERROR_INVALID_DUMP_CONFIG, SVP_ACL_ERROR_INVALID_PROFILING_CONFIG,
    SVP_ACL_ERROR_INVALID_MODEL_ID, SVP_ACL_ERROR_DESERIALIZE_MODEL, SVP_ACL_ERROR_PARSE_MODEL,
    SVP_ACL_ERROR_READ_MODEL_FAILURE, SVP_ACL_ERROR_MODEL_SIZE_INVALID, SVP_ACL_ERROR_MODEL_MISSING_ATTR,
    SVP_ACL_ERROR_MODEL_INPUT_NOT_MATCH, SVP_ACL_ERROR_MODEL_OUTPUT_NOT_MATCH,
    SVP_ACL_ERROR_MODEL_NOT_DYNAMIC, SVP_ACL_ERROR_OP_TYPE_NOT_MATCH, SVP_ACL_ERROR_OP_INPUT_NOT_MATCH,
    SVP_ACL_ERROR_OP_OUTPUT_NOT_MATCH, SVP_ACL_ERROR_OP_ATTR_NOT_MATCH, SVP_ACL_ERROR_OP_NOT_FOUND,
    SVP_ACL_ERROR_OP_LOAD_FAILED, SVP_ACL_ERROR_UNSUPPORTED_DATA_TYPE, SVP_ACL_ERROR_FORMAT_NOT_MATCH,
    SVP_ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED, SVP_ACL_ERROR_KERNEL_NOT_FOUND,
    SVP_ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED, SVP_ACL_ERROR_KERNEL_ALREADY_REGISTERED,
    SVP_ACL_ERROR_INVALID_QUEUE_ID, SVP_ACL_ERROR_REPEAT_SUBSCRIBE, SVP_ACL_ERROR_STREAM_NOT_SUBSCRIBE,
    SVP_ACL_ERROR_THREAD_NOT_SUBSCRIBE, SVP_ACL_ERROR_WAIT_CALLBACK_TIMEOUT, SVP_ACL_ERROR_REPEAT_FINALIZE,
    SVP_ACL_ERROR_NOT_STATIC_AIPP, SVP_ACL_ERROR_COMPILING_STUB_MODE, SVP_ACL_ERROR_GROUP_NOT_SET,
    SVP_ACL_ERROR_GROUP_NOT_CREATE, SVP_ACL_ERROR_PROF_ALREADY_RUN, SVP_ACL_ERROR_PROF_NOT_RUN,
    SVP_ACL_ERROR_DUMP_ALREADY_RUN, SVP_ACL_ERROR_DUMP_NOT_RUN, SVP_ACL_ERROR_PROF_REPEAT_SUBSCRIBE,
    SVP_ACL_ERROR_PROF_API_CONFLICT, SVP_ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG,
    SVP_ACL_ERROR_UNSUPPORTED_API, SVP_ACL_ERROR_BAD_ALLOC, SVP_ACL_ERROR_API_NOT_SUPPORT,
    SVP_ACL_ERROR_INVALID_DEVICE, SVP_ACL_ERROR_MEMORY_ADDRESS_UNALIGNED, SVP_ACL_ERROR_RESOURCE_NOT_MATCH,
    SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, SVP_ACL_ERROR_FEATURE_UNSUPPORTED,
    SVP_ACL_ERROR_PROF_MODULES_UNSUPPORTED, SVP_ACL_ERROR_STORAGE_OVER_LIMIT, SVP_ACL_ERROR_INTERNAL_ERROR,
    SVP_ACL_ERROR_FAILURE, SVP_ACL_ERROR_GE_FAILURE, SVP_ACL_ERROR_RT_FAILURE, SVP_ACL_ERROR_DRV_FAILURE,
    SVP_ACL_ERROR_PROFILING_FAILURE, SVP_ACL_ERROR_RT_REPORT_TIMEOUT,
};
SVP_T_GLOBAL(uint64_t, svp_t_unknown_rank) = SVP_ACL_UNKNOWN_RANK;

int svp_t_error_is_timeout(svp_acl_error e);
int svp_t_error_is_timeout(svp_acl_error e)
{
    switch (e) {
        case SVP_ACL_ERROR_RT_REPORT_TIMEOUT:
            return 1;
        case SVP_ACL_SUCCESS:
        default:
            return 0;
    }
}

/* ------------------------------------------------------------------ */
/* svp_acl_base.h: enums                                                */
/* ------------------------------------------------------------------ */
SVP_T_CHECK(SVP_ACL_DT_UNDEFINED == -1);
SVP_T_CHECK(SVP_ACL_FLOAT == 0);
SVP_T_CHECK(SVP_ACL_FLOAT16 == 1);
SVP_T_CHECK(SVP_ACL_INT8 == 2);
SVP_T_CHECK(SVP_ACL_INT32 == 3);
SVP_T_CHECK(SVP_ACL_UINT8 == 4);
SVP_T_CHECK(SVP_ACL_INT16 == 6);
SVP_T_CHECK(SVP_ACL_UINT16 == 7);
SVP_T_CHECK(SVP_ACL_UINT32 == 8);
SVP_T_CHECK(SVP_ACL_INT64 == 9);
SVP_T_CHECK(SVP_ACL_UINT64 == 10);
SVP_T_CHECK(SVP_ACL_DOUBLE == 11);
SVP_T_CHECK(SVP_ACL_BOOL == 12);
SVP_T_CHECK(SVP_ACL_STRING == 13);
SVP_T_CHECK(SVP_ACL_INT10 == 100);
SVP_T_CHECK(SVP_ACL_UINT10 == 101);
SVP_T_CHECK(SVP_ACL_INT12 == 102);
SVP_T_CHECK(SVP_ACL_UINT12 == 103);
SVP_T_CHECK(SVP_ACL_INT14 == 104);
SVP_T_CHECK(SVP_ACL_UINT14 == 105);
SVP_T_CHECK(SVP_ACL_INT24 == 106);
SVP_T_CHECK(SVP_ACL_UINT24 == 107);
SVP_T_CHECK(SVP_ACL_UINT4 == 108);

SVP_T_GLOBAL_ARR(svp_acl_data_type, svp_t_data_types) = {
    SVP_ACL_DT_UNDEFINED, SVP_ACL_FLOAT, SVP_ACL_FLOAT16, SVP_ACL_INT8, SVP_ACL_INT32, SVP_ACL_UINT8,
    SVP_ACL_INT16, SVP_ACL_UINT16, SVP_ACL_UINT32, SVP_ACL_INT64, SVP_ACL_UINT64, SVP_ACL_DOUBLE,
    SVP_ACL_BOOL, SVP_ACL_STRING, SVP_ACL_INT10, SVP_ACL_UINT10, SVP_ACL_INT12, SVP_ACL_UINT12,
    SVP_ACL_INT14, SVP_ACL_UINT14, SVP_ACL_INT24, SVP_ACL_UINT24, SVP_ACL_UINT4,
};

SVP_T_CHECK(SVP_ACL_FORMAT_UNDEFINED == -1);
SVP_T_CHECK(SVP_ACL_FORMAT_NCHW == 0);
SVP_T_CHECK(SVP_ACL_FORMAT_NHWC == 1);
SVP_T_CHECK(SVP_ACL_FORMAT_ND == 2);
SVP_T_CHECK(SVP_ACL_FORMAT_NC1HWC0 == 3);
SVP_T_CHECK(SVP_ACL_FORMAT_FRACTAL_Z == 4);
SVP_T_CHECK(SVP_ACL_FORMAT_NC1HWC0_C04 == 12);
SVP_T_CHECK(SVP_ACL_FORMAT_FRACTAL_NZ == 29);

SVP_T_GLOBAL_ARR(svp_acl_format, svp_t_formats) = {
    SVP_ACL_FORMAT_UNDEFINED, SVP_ACL_FORMAT_NCHW, SVP_ACL_FORMAT_NHWC, SVP_ACL_FORMAT_ND,
    SVP_ACL_FORMAT_NC1HWC0, SVP_ACL_FORMAT_FRACTAL_Z, SVP_ACL_FORMAT_NC1HWC0_C04, SVP_ACL_FORMAT_FRACTAL_NZ,
};

/* base typedefs */
SVP_T_CHECK(sizeof(svp_acl_float16) == 2);
SVP_T_CHECK(sizeof(svp_acl_error) == sizeof(int));
SVP_T_CHECK(sizeof(svp_acl_rt_stream) == sizeof(void *));
SVP_T_CHECK(sizeof(svp_acl_rt_event) == sizeof(void *));
SVP_T_CHECK(sizeof(svp_acl_rt_context) == sizeof(void *));

/* ------------------------------------------------------------------ */
/* svp_acl_rt.h                                                         */
/* ------------------------------------------------------------------ */
SVP_T_CHECK(SVP_ACL_EVENT_TIME_LINE == 0x00000008u);
SVP_T_CHECK(SVP_ACL_DEVICE == 0);
SVP_T_CHECK(SVP_ACL_HOST == 1);
SVP_T_CHECK(SVP_ACL_EVENT_STATUS_COMPLETE == 0);
SVP_T_CHECK(SVP_ACL_EVENT_STATUS_NOT_READY == 1);
SVP_T_CHECK(SVP_ACL_EVENT_STATUS_RESERVED == 2);
SVP_T_CHECK(SVP_ACL_EVENT_WAIT_STATUS_COMPLETE == 0);
SVP_T_CHECK(SVP_ACL_EVENT_WAIT_STATUS_NOT_READY == 1);
SVP_T_CHECK(SVP_ACL_EVENT_WAIT_STATUS_RESERVED == 0xFFFF);
SVP_T_CHECK(SVP_ACL_CALLBACK_NO_BLOCK == 0);
SVP_T_CHECK(SVP_ACL_CALLBACK_BLOCK == 1);
SVP_T_CHECK(SVP_ACL_MEM_MALLOC_HUGE_FIRST == 0);
SVP_T_CHECK(SVP_ACL_MEM_MALLOC_HUGE_ONLY == 1);
SVP_T_CHECK(SVP_ACL_MEM_MALLOC_NORMAL_ONLY == 2);

SVP_T_GLOBAL(uint32_t, svp_t_event_flag) = SVP_ACL_EVENT_TIME_LINE;
/* the rt enums carry tags as in the vendor header */
SVP_T_GLOBAL_ARR(enum svp_acl_rt_run_mode, svp_t_run_modes) = { SVP_ACL_DEVICE, SVP_ACL_HOST };
SVP_T_GLOBAL_ARR(enum svp_acl_rt_event_status, svp_t_event_status) = {
    SVP_ACL_EVENT_STATUS_COMPLETE, SVP_ACL_EVENT_STATUS_NOT_READY, SVP_ACL_EVENT_STATUS_RESERVED,
};
SVP_T_GLOBAL_ARR(enum svp_acl_rt_event_wait_status, svp_t_event_wait_status) = {
    SVP_ACL_EVENT_WAIT_STATUS_COMPLETE, SVP_ACL_EVENT_WAIT_STATUS_NOT_READY, SVP_ACL_EVENT_WAIT_STATUS_RESERVED,
};
SVP_T_GLOBAL_ARR(enum svp_acl_rt_callback_block_type, svp_t_block_types) = {
    SVP_ACL_CALLBACK_NO_BLOCK, SVP_ACL_CALLBACK_BLOCK,
};
SVP_T_GLOBAL_ARR(enum svp_acl_rt_mem_malloc_policy, svp_t_policies) = {
    SVP_ACL_MEM_MALLOC_HUGE_FIRST, SVP_ACL_MEM_MALLOC_HUGE_ONLY, SVP_ACL_MEM_MALLOC_NORMAL_ONLY,
};
SVP_T_GLOBAL(svp_acl_rt_run_mode *, svp_t_run_mode_typedef) = &svp_t_run_modes[0];
SVP_T_GLOBAL(svp_acl_rt_event_status *, svp_t_event_status_typedef) = &svp_t_event_status[0];
SVP_T_GLOBAL(svp_acl_rt_event_wait_status *, svp_t_event_wait_status_typedef) = &svp_t_event_wait_status[0];
SVP_T_GLOBAL(svp_acl_rt_callback_block_type *, svp_t_block_type_typedef) = &svp_t_block_types[0];
SVP_T_GLOBAL(svp_acl_rt_mem_malloc_policy *, svp_t_policy_typedef) = &svp_t_policies[0];

void svp_t_callback(void *user_data);
void svp_t_callback(void *user_data)
{
    (void)user_data;
}
SVP_T_GLOBAL(svp_acl_rt_callback, svp_t_cb) = svp_t_callback;

/* ------------------------------------------------------------------ */
/* svp_acl_mdl.h: macros                                                */
/* ------------------------------------------------------------------ */
SVP_T_CHECK(SVP_ACL_MAX_DIM_CNT == 128);
SVP_T_CHECK(SVP_ACL_MAX_TENSOR_NAME_LEN == 128);
SVP_T_CHECK(SVP_ACL_MAX_BATCH_NUM == 1);
#if SVP_ACL_API_LEVEL < 2
SVP_T_CHECK(SVP_ACL_MAX_HW_NUM == 128); /* SS928 (2022) svp_acl_mdl.h */
#else
SVP_T_CHECK(SVP_ACL_MAX_HW_NUM == 100);
#endif
SVP_T_CHECK(SVP_ACL_MAX_SHAPE_COUNT == 1);
SVP_T_CHECK(SVP_ACL_INVALID_NODE_INDEX == 0xFFFFFFFFu);
SVP_T_CHECK(SVP_ACL_MDL_LOAD_FROM_FILE == 1);
SVP_T_CHECK(SVP_ACL_MDL_LOAD_FROM_FILE_WITH_MEM == 2);
SVP_T_CHECK(SVP_ACL_MDL_LOAD_FROM_MEM == 3);
SVP_T_CHECK(SVP_ACL_MDL_LOAD_FROM_MEM_WITH_MEM == 4);
SVP_T_CHECK(SVP_ACL_MDL_LOAD_FROM_FILE_WITH_Q == 5);
SVP_T_CHECK(SVP_ACL_MDL_LOAD_FROM_MEM_WITH_Q == 6);
SVP_T_CHECK(SVP_ACL_NET_TYPE_CNN == 1);
SVP_T_CHECK(SVP_ACL_NET_TYPE_RECURRENT == 2);
SVP_T_CHECK(sizeof(SVP_ACL_DYNAMIC_TENSOR_NAME) == sizeof("svp_acl_mbatch_shape_data"));
SVP_T_CHECK(sizeof(SVP_ACL_DYNAMIC_AIPP_NAME) == sizeof("svp_acl_dynamic_aipp_data"));

SVP_T_GLOBAL(const char *, svp_t_dynamic_tensor_name) = SVP_ACL_DYNAMIC_TENSOR_NAME;
SVP_T_GLOBAL(const char *, svp_t_dynamic_aipp_name) = SVP_ACL_DYNAMIC_AIPP_NAME;
SVP_T_GLOBAL_ARR(size_t, svp_t_mdl_macros) = {
    SVP_ACL_MAX_DIM_CNT, SVP_ACL_MAX_TENSOR_NAME_LEN, SVP_ACL_MAX_BATCH_NUM, SVP_ACL_MAX_HW_NUM,
    SVP_ACL_MAX_SHAPE_COUNT, SVP_ACL_INVALID_NODE_INDEX,
    SVP_ACL_MDL_LOAD_FROM_FILE, SVP_ACL_MDL_LOAD_FROM_FILE_WITH_MEM, SVP_ACL_MDL_LOAD_FROM_MEM,
    SVP_ACL_MDL_LOAD_FROM_MEM_WITH_MEM, SVP_ACL_MDL_LOAD_FROM_FILE_WITH_Q, SVP_ACL_MDL_LOAD_FROM_MEM_WITH_Q,
    SVP_ACL_NET_TYPE_CNN, SVP_ACL_NET_TYPE_RECURRENT,
};

/* ------------------------------------------------------------------ */
/* svp_acl_mdl.h: enums                                                 */
/* ------------------------------------------------------------------ */
SVP_T_CHECK(SVP_ACL_MDL_PRIORITY_INT32 == 0);
SVP_T_CHECK(SVP_ACL_MDL_LOAD_TYPE_SIZET == 1);
SVP_T_CHECK(SVP_ACL_MDL_PATH_PTR == 2);
SVP_T_CHECK(SVP_ACL_MDL_MEM_ADDR_PTR == 3);
SVP_T_CHECK(SVP_ACL_MDL_MEM_SIZET == 4);
SVP_T_CHECK(SVP_ACL_MDL_WEIGHT_ADDR_PTR == 5);
SVP_T_CHECK(SVP_ACL_MDL_WEIGHT_SIZET == 6);
SVP_T_CHECK(SVP_ACL_MDL_WORKSPACE_ADDR_PTR == 7);
SVP_T_CHECK(SVP_ACL_MDL_WORKSPACE_SIZET == 8);
SVP_T_CHECK(SVP_ACL_MDL_INPUTQ_NUM_SIZET == 9);
SVP_T_CHECK(SVP_ACL_MDL_INPUTQ_ADDR_PTR == 10);
SVP_T_CHECK(SVP_ACL_MDL_OUTPUTQ_NUM_SIZET == 11);
SVP_T_CHECK(SVP_ACL_MDL_OUTPUTQ_ADDR_PTR == 12);
SVP_T_CHECK(SVP_ACL_MDL_PRIORITY_PREEMP_EN_BOOL == 13);
SVP_T_CHECK(SVP_ACL_MDL_PRIORITY_UP_STEP_TIMEOUT_UINT32 == 14);
SVP_T_CHECK(SVP_ACL_MDL_PRIORITY_UP_TOP_TIMEOUT_UINT32 == 15);

SVP_T_GLOBAL_ARR(svp_acl_mdl_config_attr, svp_t_config_attrs) = {
    SVP_ACL_MDL_PRIORITY_INT32, SVP_ACL_MDL_LOAD_TYPE_SIZET, SVP_ACL_MDL_PATH_PTR, SVP_ACL_MDL_MEM_ADDR_PTR,
    SVP_ACL_MDL_MEM_SIZET, SVP_ACL_MDL_WEIGHT_ADDR_PTR, SVP_ACL_MDL_WEIGHT_SIZET,
    SVP_ACL_MDL_WORKSPACE_ADDR_PTR, SVP_ACL_MDL_WORKSPACE_SIZET, SVP_ACL_MDL_INPUTQ_NUM_SIZET,
    SVP_ACL_MDL_INPUTQ_ADDR_PTR, SVP_ACL_MDL_OUTPUTQ_NUM_SIZET, SVP_ACL_MDL_OUTPUTQ_ADDR_PTR,
    SVP_ACL_MDL_PRIORITY_PREEMP_EN_BOOL, SVP_ACL_MDL_PRIORITY_UP_STEP_TIMEOUT_UINT32,
    SVP_ACL_MDL_PRIORITY_UP_TOP_TIMEOUT_UINT32,
};

SVP_T_CHECK(SVP_ACL_YUV420SP_U8 == 0x1);
SVP_T_CHECK(SVP_ACL_XRGB8888_U8 == 0x2);
SVP_T_CHECK(SVP_ACL_RGB888_U8 == 0x3);
SVP_T_CHECK(SVP_ACL_YUV400_U8 == 0x4);
SVP_T_CHECK(SVP_ACL_NC1HWC0DI_FP16 == 0x5);
SVP_T_CHECK(SVP_ACL_NC1HWC0DI_S8 == 0x6);
SVP_T_CHECK(SVP_ACL_ARGB8888_U8 == 0x7);
SVP_T_CHECK(SVP_ACL_YUYV_U8 == 0x8);
SVP_T_CHECK(SVP_ACL_YUV422SP_U8 == 0x9);
SVP_T_CHECK(SVP_ACL_AYUV444_U8 == 0xA);
SVP_T_CHECK(SVP_ACL_RAW10 == 0xB);
SVP_T_CHECK(SVP_ACL_RAW12 == 0xC);
SVP_T_CHECK(SVP_ACL_RAW16 == 0xD);
SVP_T_CHECK(SVP_ACL_RAW24 == 0xE);
SVP_T_CHECK(SVP_ACL_FEATURE_MAP_U8 == 0x100);
SVP_T_CHECK(SVP_ACL_FEATURE_MAP_S8 == 0x101);
SVP_T_CHECK(SVP_ACL_FEATURE_MAP_U16 == 0x102);
SVP_T_CHECK(SVP_ACL_FEATURE_MAP_S16 == 0x103);
SVP_T_CHECK(SVP_ACL_FEATURE_MAP_FP16 == 0x104);
SVP_T_CHECK(SVP_ACL_FEATURE_MAP_FP32 == 0x105);
SVP_T_CHECK(SVP_ACL_YVU420SP_U8 == 0x106);
SVP_T_CHECK(SVP_ACL_YVU422SP_U8 == 0x107);
SVP_T_CHECK(SVP_ACL_BGR_PLANAR_U8 == 0x108);
SVP_T_CHECK(SVP_ACL_RGB_PLANAR_U8 == 0x109);
SVP_T_CHECK(SVP_ACL_BGR_PACKAGE_U8 == 0x10A);
SVP_T_CHECK(SVP_ACL_XRGB_PLANAR_U8 == 0x10B);
SVP_T_CHECK(SVP_ACL_XBGR_PLANAR_U8 == 0x10C);
SVP_T_CHECK(SVP_ACL_RGBX_PLANAR_U8 == 0x10D);
SVP_T_CHECK(SVP_ACL_BGRX_PLANAR_U8 == 0x10E);
SVP_T_CHECK(SVP_ACL_XBGR_PACKAGE_U8 == 0x10F);
SVP_T_CHECK(SVP_ACL_RGBX_PACKAGE_U8 == 0x110);
SVP_T_CHECK(SVP_ACL_BGRX_PACKAGE_U8 == 0x111);
SVP_T_CHECK(SVP_ACL_RGGB_RAW8 == 0x112);
SVP_T_CHECK(SVP_ACL_GRBG_RAW8 == 0x113);
SVP_T_CHECK(SVP_ACL_GBRG_RAW8 == 0x114);
SVP_T_CHECK(SVP_ACL_BGGR_RAW8 == 0x115);
SVP_T_CHECK(SVP_ACL_RGGB_RAW10 == 0x116);
SVP_T_CHECK(SVP_ACL_GRBG_RAW10 == 0x117);
SVP_T_CHECK(SVP_ACL_GBRG_RAW10 == 0x118);
SVP_T_CHECK(SVP_ACL_BGGR_RAW10 == 0x119);
SVP_T_CHECK(SVP_ACL_RGGB_RAW12 == 0x11a);
SVP_T_CHECK(SVP_ACL_GRBG_RAW12 == 0x11b);
SVP_T_CHECK(SVP_ACL_GBRG_RAW12 == 0x11c);
SVP_T_CHECK(SVP_ACL_BGGR_RAW12 == 0x11d);
SVP_T_CHECK(SVP_ACL_RGGB_RAW14 == 0x11e);
SVP_T_CHECK(SVP_ACL_GRBG_RAW14 == 0x11f);
SVP_T_CHECK(SVP_ACL_GBRG_RAW14 == 0x120);
SVP_T_CHECK(SVP_ACL_BGGR_RAW14 == 0x121);
SVP_T_CHECK(SVP_ACL_RGGB_RAW16 == 0x122);
SVP_T_CHECK(SVP_ACL_GRBG_RAW16 == 0x123);
SVP_T_CHECK(SVP_ACL_GBRG_RAW16 == 0x124);
SVP_T_CHECK(SVP_ACL_BGGR_RAW16 == 0x125);
SVP_T_CHECK(SVP_ACL_UV_PLANNAR_U8 == 0x126);
SVP_T_CHECK(SVP_ACL_VU_PLANNAR_U8 == 0x127);
SVP_T_CHECK(SVP_ACL_UV_PACKAGE_U8 == 0x128);
SVP_T_CHECK(SVP_ACL_VU_PACKAGE_U8 == 0x129);
SVP_T_CHECK(SVP_ACL_AIPP_RESERVED == 0xFFFF);

SVP_T_GLOBAL_ARR(svp_acl_aipp_format, svp_t_aipp_formats) = {
    SVP_ACL_YUV420SP_U8, SVP_ACL_XRGB8888_U8, SVP_ACL_RGB888_U8, SVP_ACL_YUV400_U8, SVP_ACL_NC1HWC0DI_FP16,
    SVP_ACL_NC1HWC0DI_S8, SVP_ACL_ARGB8888_U8, SVP_ACL_YUYV_U8, SVP_ACL_YUV422SP_U8, SVP_ACL_AYUV444_U8,
    SVP_ACL_RAW10, SVP_ACL_RAW12, SVP_ACL_RAW16, SVP_ACL_RAW24, SVP_ACL_FEATURE_MAP_U8,
    SVP_ACL_FEATURE_MAP_S8, SVP_ACL_FEATURE_MAP_U16, SVP_ACL_FEATURE_MAP_S16, SVP_ACL_FEATURE_MAP_FP16,
    SVP_ACL_FEATURE_MAP_FP32, SVP_ACL_YVU420SP_U8, SVP_ACL_YVU422SP_U8, SVP_ACL_BGR_PLANAR_U8,
    SVP_ACL_RGB_PLANAR_U8, SVP_ACL_BGR_PACKAGE_U8, SVP_ACL_XRGB_PLANAR_U8, SVP_ACL_XBGR_PLANAR_U8,
    SVP_ACL_RGBX_PLANAR_U8, SVP_ACL_BGRX_PLANAR_U8, SVP_ACL_XBGR_PACKAGE_U8, SVP_ACL_RGBX_PACKAGE_U8,
    SVP_ACL_BGRX_PACKAGE_U8, SVP_ACL_RGGB_RAW8, SVP_ACL_GRBG_RAW8, SVP_ACL_GBRG_RAW8, SVP_ACL_BGGR_RAW8,
    SVP_ACL_RGGB_RAW10, SVP_ACL_GRBG_RAW10, SVP_ACL_GBRG_RAW10, SVP_ACL_BGGR_RAW10, SVP_ACL_RGGB_RAW12,
    SVP_ACL_GRBG_RAW12, SVP_ACL_GBRG_RAW12, SVP_ACL_BGGR_RAW12, SVP_ACL_RGGB_RAW14, SVP_ACL_GRBG_RAW14,
    SVP_ACL_GBRG_RAW14, SVP_ACL_BGGR_RAW14, SVP_ACL_RGGB_RAW16, SVP_ACL_GRBG_RAW16, SVP_ACL_GBRG_RAW16,
    SVP_ACL_BGGR_RAW16, SVP_ACL_UV_PLANNAR_U8, SVP_ACL_VU_PLANNAR_U8, SVP_ACL_UV_PACKAGE_U8,
    SVP_ACL_VU_PACKAGE_U8, SVP_ACL_AIPP_RESERVED,
};
/* the legacy name is an alias of the same type */
SVP_T_GLOBAL(svp_acl_aipp_input_format *, svp_t_aipp_input_format_alias) = &svp_t_aipp_formats[0];

SVP_T_CHECK(SVP_ACL_DATA_WITHOUT_AIPP == 0);
SVP_T_CHECK(SVP_ACL_DATA_WITH_STATIC_AIPP == 1);
SVP_T_CHECK(SVP_ACL_DATA_WITH_DYNAMIC_AIPP == 2);
SVP_T_CHECK(SVP_ACL_DYNAMIC_AIPP_NODE == 3);
SVP_T_GLOBAL_ARR(svp_acl_mdl_aipp_type, svp_t_aipp_types) = {
    SVP_ACL_DATA_WITHOUT_AIPP, SVP_ACL_DATA_WITH_STATIC_AIPP, SVP_ACL_DATA_WITH_DYNAMIC_AIPP,
    SVP_ACL_DYNAMIC_AIPP_NODE,
};

SVP_T_CHECK(AIPP_PADDING_SWITCH_OFF == 0);
SVP_T_CHECK(AIPP_PADDING_SWITCH_CONSTANT == 1);
SVP_T_CHECK(AIPP_PADDING_SWITCH_REPLICATION == 2);
SVP_T_CHECK(AIPP_PADDING_SWITCH_REFLECTION == 3);
SVP_T_CHECK(AIPP_PADDING_SWITCH_SYMMETRIC == 4);
SVP_T_CHECK(AIPP_PADDING_SWITCH_BUTT == 5);
SVP_T_GLOBAL_ARR(svp_acl_aipp_padding_switch, svp_t_padding_switches) = {
    AIPP_PADDING_SWITCH_OFF, AIPP_PADDING_SWITCH_CONSTANT, AIPP_PADDING_SWITCH_REPLICATION,
    AIPP_PADDING_SWITCH_REFLECTION, AIPP_PADDING_SWITCH_SYMMETRIC, AIPP_PADDING_SWITCH_BUTT,
};

SVP_T_CHECK(AIPP_RESIZE_SWITCH_OFF == 0);
SVP_T_CHECK(AIPP_RESIZE_SWITCH_NEAREST == 1);
SVP_T_CHECK(AIPP_RESIZE_SWITCH_BILINEAR == 2);
SVP_T_CHECK(AIPP_RESIZE_SWITCH_BUTT == 3);
SVP_T_GLOBAL_ARR(svp_acl_aipp_resize_switch, svp_t_resize_switches) = {
    AIPP_RESIZE_SWITCH_OFF, AIPP_RESIZE_SWITCH_NEAREST, AIPP_RESIZE_SWITCH_BILINEAR, AIPP_RESIZE_SWITCH_BUTT,
};

SVP_T_CHECK(SVP_ACL_BUFFER_REUSE_UNDEFINED == -1);
SVP_T_CHECK(SVP_ACL_BUFFER_REUSE_NONE == 0);
SVP_T_CHECK(SVP_ACL_BUFFER_REUSE_DISCONT == 1);
SVP_T_CHECK(SVP_ACL_BUFFER_REUSE_IN_CONT == 2);
SVP_T_CHECK(SVP_ACL_BUFFER_REUSE_OUT_CONT == 3);
SVP_T_CHECK(SVP_ACL_BUFFER_REUSE_IN_OUT_CONT == 4);
SVP_T_CHECK(SVP_ACL_BUFFER_REUSE_INOUT_CONT == 5);
SVP_T_CHECK(SVP_ACL_BUFFER_REUSE_INOUTWORK_CONT == 6);
SVP_T_CHECK(SVP_ACL_BUFFER_REUSE_OUTWORK_CONT == 7);
SVP_T_GLOBAL_ARR(svp_acl_buffer_reuse_type, svp_t_buffer_reuse_types) = {
    SVP_ACL_BUFFER_REUSE_UNDEFINED, SVP_ACL_BUFFER_REUSE_NONE, SVP_ACL_BUFFER_REUSE_DISCONT,
    SVP_ACL_BUFFER_REUSE_IN_CONT, SVP_ACL_BUFFER_REUSE_OUT_CONT, SVP_ACL_BUFFER_REUSE_IN_OUT_CONT,
    SVP_ACL_BUFFER_REUSE_INOUT_CONT, SVP_ACL_BUFFER_REUSE_INOUTWORK_CONT, SVP_ACL_BUFFER_REUSE_OUTWORK_CONT,
};

SVP_T_CHECK(SVP_ACL_INOUT_REUSE_UNDEFINED == -1);
SVP_T_CHECK(SVP_ACL_INOUT_REUSE_NONE == 0);
SVP_T_CHECK(SVP_ACL_INOUT_REUSE_DISCONT == 1);
SVP_T_CHECK(SVP_ACL_INOUT_REUSE_CONT == 2);
SVP_T_GLOBAL_ARR(svp_acl_inout_reuse_type, svp_t_inout_reuse_types) = {
    SVP_ACL_INOUT_REUSE_UNDEFINED, SVP_ACL_INOUT_REUSE_NONE, SVP_ACL_INOUT_REUSE_DISCONT,
    SVP_ACL_INOUT_REUSE_CONT,
};

/* ------------------------------------------------------------------ */
/* svp_acl_mdl.h: struct layouts (member order)                         */
/* ------------------------------------------------------------------ */
#define SVP_T_BEFORE(T, a, b) SVP_T_CHECK(offsetof(T, a) < offsetof(T, b))

SVP_T_CHECK(offsetof(svp_acl_mdl_io_dims, name) == 0);
SVP_T_BEFORE(svp_acl_mdl_io_dims, name, dim_count);
SVP_T_BEFORE(svp_acl_mdl_io_dims, dim_count, dims);

SVP_T_CHECK(offsetof(svp_acl_aipp_dims, src_dims) == 0);
SVP_T_BEFORE(svp_acl_aipp_dims, src_dims, src_size);
SVP_T_BEFORE(svp_acl_aipp_dims, src_size, aipp_out_dims);
SVP_T_BEFORE(svp_acl_aipp_dims, aipp_out_dims, aipp_out_size);

SVP_T_CHECK(offsetof(svp_acl_mdl_hw, hw_count) == 0);
SVP_T_BEFORE(svp_acl_mdl_hw, hw_count, hw);
extern svp_acl_mdl_hw svp_t_hw_object;
SVP_T_CHECK(sizeof(svp_t_hw_object.hw) == SVP_ACL_MAX_HW_NUM * 2 * sizeof(uint64_t));

SVP_T_CHECK(offsetof(svp_acl_mdl_batch, batch_count) == 0);
SVP_T_BEFORE(svp_acl_mdl_batch, batch_count, batch);

#if SVP_ACL_API_LEVEL >= 2
SVP_T_CHECK(offsetof(svp_acl_aipp_info, aipp_format) == 0);
SVP_T_BEFORE(svp_acl_aipp_info, aipp_format, src_image_width);
SVP_T_BEFORE(svp_acl_aipp_info, src_image_width, src_image_height);
SVP_T_BEFORE(svp_acl_aipp_info, src_image_height, crop_switch);
SVP_T_BEFORE(svp_acl_aipp_info, crop_switch, crop_start_width);
SVP_T_BEFORE(svp_acl_aipp_info, crop_start_width, crop_start_height);
SVP_T_BEFORE(svp_acl_aipp_info, crop_start_height, crop_width);
SVP_T_BEFORE(svp_acl_aipp_info, crop_width, crop_height);
SVP_T_BEFORE(svp_acl_aipp_info, crop_height, resize_switch);
SVP_T_BEFORE(svp_acl_aipp_info, resize_switch, resize_output_width);
SVP_T_BEFORE(svp_acl_aipp_info, resize_output_width, resize_output_height);
SVP_T_BEFORE(svp_acl_aipp_info, resize_output_height, padding_switch);
SVP_T_BEFORE(svp_acl_aipp_info, padding_switch, left_padding_size);
SVP_T_BEFORE(svp_acl_aipp_info, left_padding_size, right_padding_size);
SVP_T_BEFORE(svp_acl_aipp_info, right_padding_size, top_padding_size);
SVP_T_BEFORE(svp_acl_aipp_info, top_padding_size, bottom_padding_size);
SVP_T_BEFORE(svp_acl_aipp_info, bottom_padding_size, csc_switch);
SVP_T_BEFORE(svp_acl_aipp_info, csc_switch, rbuv_swap_switch);
SVP_T_BEFORE(svp_acl_aipp_info, rbuv_swap_switch, ax_swap_switch);
SVP_T_BEFORE(svp_acl_aipp_info, ax_swap_switch, cmp_switch);
SVP_T_BEFORE(svp_acl_aipp_info, cmp_switch, matrix_r0c0);
SVP_T_BEFORE(svp_acl_aipp_info, matrix_r0c0, matrix_r0c1);
SVP_T_BEFORE(svp_acl_aipp_info, matrix_r0c1, matrix_r0c2);
SVP_T_BEFORE(svp_acl_aipp_info, matrix_r0c2, matrix_r1c0);
SVP_T_BEFORE(svp_acl_aipp_info, matrix_r1c0, matrix_r1c1);
SVP_T_BEFORE(svp_acl_aipp_info, matrix_r1c1, matrix_r1c2);
SVP_T_BEFORE(svp_acl_aipp_info, matrix_r1c2, matrix_r2c0);
SVP_T_BEFORE(svp_acl_aipp_info, matrix_r2c0, matrix_r2c1);
SVP_T_BEFORE(svp_acl_aipp_info, matrix_r2c1, matrix_r2c2);
SVP_T_BEFORE(svp_acl_aipp_info, matrix_r2c2, output_bias0);
SVP_T_BEFORE(svp_acl_aipp_info, output_bias0, output_bias1);
SVP_T_BEFORE(svp_acl_aipp_info, output_bias1, output_bias2);
SVP_T_BEFORE(svp_acl_aipp_info, output_bias2, input_bias0);
SVP_T_BEFORE(svp_acl_aipp_info, input_bias0, input_bias1);
SVP_T_BEFORE(svp_acl_aipp_info, input_bias1, input_bias2);
SVP_T_BEFORE(svp_acl_aipp_info, input_bias2, mean_chn0);
SVP_T_BEFORE(svp_acl_aipp_info, mean_chn0, mean_chn1);
SVP_T_BEFORE(svp_acl_aipp_info, mean_chn1, mean_chn2);
SVP_T_BEFORE(svp_acl_aipp_info, mean_chn2, mean_chn3);
SVP_T_BEFORE(svp_acl_aipp_info, mean_chn3, min_chn0);
SVP_T_BEFORE(svp_acl_aipp_info, min_chn0, min_chn1);
SVP_T_BEFORE(svp_acl_aipp_info, min_chn1, min_chn2);
SVP_T_BEFORE(svp_acl_aipp_info, min_chn2, min_chn3);
SVP_T_BEFORE(svp_acl_aipp_info, min_chn3, var_reci_chn0);
SVP_T_BEFORE(svp_acl_aipp_info, var_reci_chn0, var_reci_chn1);
SVP_T_BEFORE(svp_acl_aipp_info, var_reci_chn1, var_reci_chn2);
SVP_T_BEFORE(svp_acl_aipp_info, var_reci_chn2, var_reci_chn3);
SVP_T_BEFORE(svp_acl_aipp_info, var_reci_chn3, src_format);
SVP_T_BEFORE(svp_acl_aipp_info, src_format, src_data_type);
SVP_T_BEFORE(svp_acl_aipp_info, src_data_type, src_dim_num);
SVP_T_BEFORE(svp_acl_aipp_info, src_dim_num, shape_count);
SVP_T_BEFORE(svp_acl_aipp_info, shape_count, out_dims);
SVP_T_BEFORE(svp_acl_aipp_info, out_dims, aipp_extend);
#else
SVP_T_CHECK(offsetof(svp_acl_aipp_info, input_format) == 0);
SVP_T_CHECK(sizeof(svp_acl_aipp_info) == sizeof(svp_acl_aipp_input_format));
#endif

/* ------------------------------------------------------------------ */
/* svp_acl_prof.h                                                       */
/* ------------------------------------------------------------------ */
SVP_T_CHECK(SVP_ACL_PROF_ACL_API == 0x0001);
SVP_T_CHECK(SVP_ACL_PROF_TASK_TIME == 0x0002);
SVP_T_CHECK(SVP_ACL_PROF_AICORE_METRICS == 0x0004);
SVP_T_CHECK(SVP_ACL_PROF_AICPU_TRACE == 0x0008);
SVP_T_CHECK(SVP_ACL_PROF_AICPU == SVP_ACL_PROF_AICPU_TRACE);
SVP_T_CHECK(SVP_ACL_PROF_MAX_OP_NAME_LEN == 257);
SVP_T_CHECK(SVP_ACL_PROF_MAX_OP_TYPE_LEN == 65);
SVP_T_CHECK(SVP_ACL_AICORE_ARITHMETIC_UTILIZATION == 0);
SVP_T_CHECK(SVP_ACL_AICORE_NONE == 0xFF);

SVP_T_GLOBAL(uint64_t, svp_t_prof_items) = SVP_ACL_PROF_ACL_API | SVP_ACL_PROF_TASK_TIME | SVP_ACL_PROF_AICORE_METRICS |
    SVP_ACL_PROF_AICPU_TRACE | SVP_ACL_PROF_AICPU;
extern char svp_t_op_name[SVP_ACL_PROF_MAX_OP_NAME_LEN];
char svp_t_op_name[SVP_ACL_PROF_MAX_OP_NAME_LEN];
extern char svp_t_op_type[SVP_ACL_PROF_MAX_OP_TYPE_LEN];
char svp_t_op_type[SVP_ACL_PROF_MAX_OP_TYPE_LEN];
SVP_T_GLOBAL_ARR(svp_acl_prof_aicore_metrics, svp_t_aicore_metrics) = {
    SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, SVP_ACL_AICORE_NONE,
};

/* ------------------------------------------------------------------ */
/* svp_acl_ext.h                                                        */
/* ------------------------------------------------------------------ */
SVP_T_CHECK(SVP_ACL_MAX_IP_NUM == 8);
SVP_T_CHECK(offsetof(svp_acl_status, ip_num) == 0);
SVP_T_BEFORE(svp_acl_status, ip_num, hw_utilization);
SVP_T_BEFORE(svp_acl_status, hw_utilization, tflops_100x);

/* ------------------------------------------------------------------ */
/* every public typedef, passed by pointer                              */
/* ------------------------------------------------------------------ */
void svp_t_all_types(svp_acl_rt_stream *a, svp_acl_rt_event *b, svp_acl_rt_context *c, svp_acl_error *d,
    svp_acl_float16 *e, svp_acl_data_buffer *f, svp_acl_data_type *g, svp_acl_format *h,
    svp_acl_rt_run_mode *i, svp_acl_rt_event_status *j, svp_acl_rt_event_wait_status *k,
    svp_acl_rt_callback_block_type *l, svp_acl_rt_mem_malloc_policy *m, svp_acl_rt_callback *n,
    svp_acl_mdl_dataset *o, svp_acl_mdl_desc *p, svp_acl_mdl_config_handle *q, svp_acl_mdl_aipp *r,
    svp_acl_aipp_extend_info *s, svp_acl_mdl_config_attr *t, svp_acl_aipp_format *u,
    svp_acl_aipp_input_format *v, svp_acl_mdl_aipp_type *w, svp_acl_mdl_io_dims *x, svp_acl_aipp_dims *y,
    svp_acl_mdl_hw *z, svp_acl_aipp_padding_switch *a2, svp_acl_aipp_resize_switch *b2,
    svp_acl_aipp_info *c2, svp_acl_mdl_batch *d2, svp_acl_buffer_reuse_type *e2,
    svp_acl_inout_reuse_type *f2, svp_acl_prof_aicore_metrics *g2, svp_acl_prof_config *h2,
    svp_acl_prof_aicore_events *i2, svp_acl_prof_subscribe_config *j2, svp_acl_status *k2,
    struct svp_acl_mdl_io_dims *l2, struct svp_acl_mdl_hw *m2, struct svp_acl_mdl_batch *n2);
void svp_t_all_types(svp_acl_rt_stream *a, svp_acl_rt_event *b, svp_acl_rt_context *c, svp_acl_error *d,
    svp_acl_float16 *e, svp_acl_data_buffer *f, svp_acl_data_type *g, svp_acl_format *h,
    svp_acl_rt_run_mode *i, svp_acl_rt_event_status *j, svp_acl_rt_event_wait_status *k,
    svp_acl_rt_callback_block_type *l, svp_acl_rt_mem_malloc_policy *m, svp_acl_rt_callback *n,
    svp_acl_mdl_dataset *o, svp_acl_mdl_desc *p, svp_acl_mdl_config_handle *q, svp_acl_mdl_aipp *r,
    svp_acl_aipp_extend_info *s, svp_acl_mdl_config_attr *t, svp_acl_aipp_format *u,
    svp_acl_aipp_input_format *v, svp_acl_mdl_aipp_type *w, svp_acl_mdl_io_dims *x, svp_acl_aipp_dims *y,
    svp_acl_mdl_hw *z, svp_acl_aipp_padding_switch *a2, svp_acl_aipp_resize_switch *b2,
    svp_acl_aipp_info *c2, svp_acl_mdl_batch *d2, svp_acl_buffer_reuse_type *e2,
    svp_acl_inout_reuse_type *f2, svp_acl_prof_aicore_metrics *g2, svp_acl_prof_config *h2,
    svp_acl_prof_aicore_events *i2, svp_acl_prof_subscribe_config *j2, svp_acl_status *k2,
    struct svp_acl_mdl_io_dims *l2, struct svp_acl_mdl_hw *m2, struct svp_acl_mdl_batch *n2)
{
    /* tagged and typedef names denote the same types */
    svp_acl_mdl_io_dims *x_alias = l2;
    svp_acl_mdl_hw *z_alias = m2;
    svp_acl_mdl_batch *d2_alias = n2;
    /* the vendor defines svp_acl_float16 as uint16_t */
    uint16_t *e_alias = e;
    /* svp_acl_error is plain int */
    int *d_alias = d;
    (void)a; (void)b; (void)c; (void)f; (void)g; (void)h; (void)i; (void)j; (void)k; (void)l; (void)m;
    (void)n; (void)o; (void)p; (void)q; (void)r; (void)s; (void)t; (void)u; (void)v; (void)w; (void)x;
    (void)y; (void)z; (void)a2; (void)b2; (void)c2; (void)d2; (void)e2; (void)f2; (void)g2; (void)h2;
    (void)i2; (void)j2; (void)k2;
    (void)x_alias; (void)z_alias; (void)d2_alias; (void)e_alias; (void)d_alias;
}

/* ------------------------------------------------------------------ */
/* struct members: exact types                                          */
/* ------------------------------------------------------------------ */
void svp_t_struct_members(void);
void svp_t_struct_members(void)
{
    svp_acl_mdl_io_dims io_dims;
    svp_acl_aipp_dims aipp_dims;
    svp_acl_mdl_hw hw;
    svp_acl_mdl_batch batch;
    svp_acl_aipp_info info;
    svp_acl_status status;

    SVP_T_MEMBER_ARR(char, SVP_ACL_MAX_TENSOR_NAME_LEN, io_dims, name);
    SVP_T_MEMBER(size_t, io_dims, dim_count);
    SVP_T_MEMBER_ARR(int64_t, SVP_ACL_MAX_DIM_CNT, io_dims, dims);

    SVP_T_MEMBER(svp_acl_mdl_io_dims, aipp_dims, src_dims);
    SVP_T_MEMBER(size_t, aipp_dims, src_size);
    SVP_T_MEMBER(svp_acl_mdl_io_dims, aipp_dims, aipp_out_dims);
    SVP_T_MEMBER(size_t, aipp_dims, aipp_out_size);

    SVP_T_MEMBER(size_t, hw, hw_count);
    {
        uint64_t (*p_)[SVP_ACL_MAX_HW_NUM][2] = &hw.hw;
        (void)p_;
    }

    SVP_T_MEMBER(size_t, batch, batch_count);
    SVP_T_MEMBER_ARR(uint64_t, SVP_ACL_MAX_BATCH_NUM, batch, batch);

#if SVP_ACL_API_LEVEL >= 2
    SVP_T_MEMBER(svp_acl_aipp_format, info, aipp_format);
    SVP_T_MEMBER(int32_t, info, src_image_width);
    SVP_T_MEMBER(int32_t, info, src_image_height);
    SVP_T_MEMBER(int8_t, info, crop_switch);
    SVP_T_MEMBER(int32_t, info, crop_start_width);
    SVP_T_MEMBER(int32_t, info, crop_start_height);
    SVP_T_MEMBER(int32_t, info, crop_width);
    SVP_T_MEMBER(int32_t, info, crop_height);
    SVP_T_MEMBER(int8_t, info, resize_switch);
    SVP_T_MEMBER(int32_t, info, resize_output_width);
    SVP_T_MEMBER(int32_t, info, resize_output_height);
    SVP_T_MEMBER(int8_t, info, padding_switch);
    SVP_T_MEMBER(int32_t, info, left_padding_size);
    SVP_T_MEMBER(int32_t, info, right_padding_size);
    SVP_T_MEMBER(int32_t, info, top_padding_size);
    SVP_T_MEMBER(int32_t, info, bottom_padding_size);
    SVP_T_MEMBER(int8_t, info, csc_switch);
    SVP_T_MEMBER(int8_t, info, rbuv_swap_switch);
    SVP_T_MEMBER(int8_t, info, ax_swap_switch);
    SVP_T_MEMBER(int8_t, info, cmp_switch);
    SVP_T_MEMBER(int32_t, info, matrix_r0c0);
    SVP_T_MEMBER(int32_t, info, matrix_r0c1);
    SVP_T_MEMBER(int32_t, info, matrix_r0c2);
    SVP_T_MEMBER(int32_t, info, matrix_r1c0);
    SVP_T_MEMBER(int32_t, info, matrix_r1c1);
    SVP_T_MEMBER(int32_t, info, matrix_r1c2);
    SVP_T_MEMBER(int32_t, info, matrix_r2c0);
    SVP_T_MEMBER(int32_t, info, matrix_r2c1);
    SVP_T_MEMBER(int32_t, info, matrix_r2c2);
    SVP_T_MEMBER(int32_t, info, output_bias0);
    SVP_T_MEMBER(int32_t, info, output_bias1);
    SVP_T_MEMBER(int32_t, info, output_bias2);
    SVP_T_MEMBER(int32_t, info, input_bias0);
    SVP_T_MEMBER(int32_t, info, input_bias1);
    SVP_T_MEMBER(int32_t, info, input_bias2);
    SVP_T_MEMBER(float, info, mean_chn0);
    SVP_T_MEMBER(float, info, mean_chn1);
    SVP_T_MEMBER(float, info, mean_chn2);
    SVP_T_MEMBER(float, info, mean_chn3);
    SVP_T_MEMBER(float, info, min_chn0);
    SVP_T_MEMBER(float, info, min_chn1);
    SVP_T_MEMBER(float, info, min_chn2);
    SVP_T_MEMBER(float, info, min_chn3);
    SVP_T_MEMBER(float, info, var_reci_chn0);
    SVP_T_MEMBER(float, info, var_reci_chn1);
    SVP_T_MEMBER(float, info, var_reci_chn2);
    SVP_T_MEMBER(float, info, var_reci_chn3);
    SVP_T_MEMBER(svp_acl_format, info, src_format);
    SVP_T_MEMBER(svp_acl_data_type, info, src_data_type);
    SVP_T_MEMBER(size_t, info, src_dim_num);
    SVP_T_MEMBER(size_t, info, shape_count);
    SVP_T_MEMBER_ARR(svp_acl_aipp_dims, SVP_ACL_MAX_SHAPE_COUNT, info, out_dims);
    SVP_T_MEMBER(svp_acl_aipp_extend_info *, info, aipp_extend);
#else
    SVP_T_MEMBER(svp_acl_aipp_input_format, info, input_format);
    {
        struct svp_acl_aipp_info *tagged = &info;  /* level 1 keeps the vendor tag */
        (void)tagged;
    }
#endif

    SVP_T_MEMBER(uint32_t, status, ip_num);
    SVP_T_MEMBER_ARR(uint32_t, SVP_ACL_MAX_IP_NUM, status, hw_utilization);
    SVP_T_MEMBER_ARR(uint32_t, SVP_ACL_MAX_IP_NUM, status, tflops_100x);
}

/* ------------------------------------------------------------------ */
/* every function: exact prototype                                      */
/* ------------------------------------------------------------------ */
void svp_t_signatures(void);
void svp_t_signatures(void)
{
    /* svp_acl_base.h (7 + extension) */
    SVP_T_SIG(svp_acl_create_data_buffer, svp_acl_data_buffer *, (void *, size_t, size_t));
    SVP_T_SIG(svp_acl_destroy_data_buffer, svp_acl_error, (const svp_acl_data_buffer *));
    SVP_T_SIG(svp_acl_get_data_buffer_addr, void *, (const svp_acl_data_buffer *));
    SVP_T_SIG(svp_acl_get_data_buffer_size, size_t, (const svp_acl_data_buffer *));
    SVP_T_SIG(svp_acl_get_data_buffer_stride, size_t, (const svp_acl_data_buffer *));
    SVP_T_SIG(svp_acl_update_data_buffer, svp_acl_error, (svp_acl_data_buffer *, void *, size_t, size_t));
    SVP_T_SIG(svp_acl_data_type_size, size_t, (svp_acl_data_type));
    SVP_T_SIG(svp_acl_get_recent_err_msg, const char *, (void));

    /* svp_acl.h (2) */
    SVP_T_SIG(svp_acl_init, svp_acl_error, (const char *));
    SVP_T_SIG(svp_acl_finalize, svp_acl_error, (void));

    /* svp_acl_rt.h (37) */
    SVP_T_SIG(svp_acl_rt_subscribe_report, svp_acl_error, (uint64_t, svp_acl_rt_stream));
    SVP_T_SIG(svp_acl_rt_launch_callback, svp_acl_error,
        (svp_acl_rt_callback, void *, svp_acl_rt_callback_block_type, svp_acl_rt_stream));
    SVP_T_SIG(svp_acl_rt_process_report, svp_acl_error, (int32_t));
    SVP_T_SIG(svp_acl_rt_unsubscribe_report, svp_acl_error, (uint64_t, svp_acl_rt_stream));
    SVP_T_SIG(svp_acl_rt_create_context, svp_acl_error, (svp_acl_rt_context *, int32_t));
    SVP_T_SIG(svp_acl_rt_destroy_context, svp_acl_error, (svp_acl_rt_context));
    SVP_T_SIG(svp_acl_rt_set_current_context, svp_acl_error, (svp_acl_rt_context));
    SVP_T_SIG(svp_acl_rt_get_current_context, svp_acl_error, (svp_acl_rt_context *));
    SVP_T_SIG(svp_acl_rt_set_device, svp_acl_error, (int32_t));
    SVP_T_SIG(svp_acl_rt_reset_device, svp_acl_error, (int32_t));
    SVP_T_SIG(svp_acl_rt_get_device, svp_acl_error, (int32_t *));
    SVP_T_SIG(svp_acl_rt_get_run_mode, svp_acl_error, (svp_acl_rt_run_mode *));
    SVP_T_SIG(svp_acl_rt_synchronize_device, svp_acl_error, (void));
    SVP_T_SIG(svp_acl_rt_get_device_count, svp_acl_error, (uint32_t *));
    SVP_T_SIG(svp_acl_rt_create_event, svp_acl_error, (svp_acl_rt_event *));
    SVP_T_SIG(svp_acl_rt_create_event_with_flag, svp_acl_error, (svp_acl_rt_event *, uint32_t));
    SVP_T_SIG(svp_acl_rt_destroy_event, svp_acl_error, (svp_acl_rt_event));
    SVP_T_SIG(svp_acl_rt_record_event, svp_acl_error, (svp_acl_rt_event, svp_acl_rt_stream));
    SVP_T_SIG(svp_acl_rt_stream_wait_event, svp_acl_error, (svp_acl_rt_stream, svp_acl_rt_event));
    SVP_T_SIG(svp_acl_rt_reset_event, svp_acl_error, (svp_acl_rt_event, svp_acl_rt_stream));
    SVP_T_SIG(svp_acl_rt_query_event, svp_acl_error, (svp_acl_rt_event, svp_acl_rt_event_status *));
    SVP_T_SIG(svp_acl_rt_query_event_wait_status, svp_acl_error,
        (svp_acl_rt_event, svp_acl_rt_event_wait_status *));
    SVP_T_SIG(svp_acl_rt_synchronize_event, svp_acl_error, (svp_acl_rt_event));
    SVP_T_SIG(svp_acl_rt_event_elapsed_time, svp_acl_error, (float *, svp_acl_rt_event, svp_acl_rt_event));
    SVP_T_SIG(svp_acl_rt_malloc, svp_acl_error, (void **, size_t, svp_acl_rt_mem_malloc_policy));
    SVP_T_SIG(svp_acl_rt_malloc_cached, svp_acl_error, (void **, size_t, svp_acl_rt_mem_malloc_policy));
    SVP_T_SIG(svp_acl_rt_malloc_sec, svp_acl_error, (void **, size_t, size_t));
    SVP_T_SIG(svp_acl_rt_mem_flush, svp_acl_error, (const void *, size_t));
    SVP_T_SIG(svp_acl_rt_mem_invalidate, svp_acl_error, (const void *, size_t));
    SVP_T_SIG(svp_acl_rt_free, svp_acl_error, (const void *));
    SVP_T_SIG(svp_acl_rt_free_sec, svp_acl_error, (const void *));
    SVP_T_SIG(svp_acl_rt_malloc_host, svp_acl_error, (void **, size_t));
    SVP_T_SIG(svp_acl_rt_free_host, svp_acl_error, (const void *));
    SVP_T_SIG(svp_acl_rt_create_stream, svp_acl_error, (svp_acl_rt_stream *));
    SVP_T_SIG(svp_acl_rt_destroy_stream, svp_acl_error, (svp_acl_rt_stream));
    SVP_T_SIG(svp_acl_rt_synchronize_stream, svp_acl_error, (svp_acl_rt_stream));
    SVP_T_SIG(svp_acl_rt_set_op_wait_timeout, svp_acl_error, (uint32_t));

    /* svp_acl_mdl.h (67) */
    SVP_T_SIG(svp_acl_mdl_create_desc, svp_acl_mdl_desc *, (void));
    SVP_T_SIG(svp_acl_mdl_destroy_desc, svp_acl_error, (svp_acl_mdl_desc *));
    SVP_T_SIG(svp_acl_mdl_get_desc, svp_acl_error, (svp_acl_mdl_desc *, uint32_t));
    SVP_T_SIG(svp_acl_mdl_get_num_inputs, size_t, (const svp_acl_mdl_desc *));
    SVP_T_SIG(svp_acl_mdl_get_num_outputs, size_t, (const svp_acl_mdl_desc *));
    SVP_T_SIG(svp_acl_mdl_get_input_size_by_index, size_t, (const svp_acl_mdl_desc *, size_t));
    SVP_T_SIG(svp_acl_mdl_get_output_size_by_index, size_t, (const svp_acl_mdl_desc *, size_t));
    SVP_T_SIG(svp_acl_mdl_get_reuse_buffer_type, svp_acl_buffer_reuse_type, (const svp_acl_mdl_desc *));
    SVP_T_SIG(svp_acl_mdl_get_input_reuse_type, svp_acl_inout_reuse_type, (const svp_acl_mdl_desc *, size_t));
    SVP_T_SIG(svp_acl_mdl_get_output_reuse_type, svp_acl_inout_reuse_type, (const svp_acl_mdl_desc *, size_t));
    SVP_T_SIG(svp_acl_mdl_create_dataset, svp_acl_mdl_dataset *, (void));
    SVP_T_SIG(svp_acl_mdl_destroy_dataset, svp_acl_error, (const svp_acl_mdl_dataset *));
    SVP_T_SIG(svp_acl_mdl_add_dataset_buffer, svp_acl_error, (svp_acl_mdl_dataset *, svp_acl_data_buffer *));
    SVP_T_SIG(svp_acl_mdl_get_dataset_num_buffers, size_t, (const svp_acl_mdl_dataset *));
    SVP_T_SIG(svp_acl_mdl_get_dataset_buffer, svp_acl_data_buffer *, (const svp_acl_mdl_dataset *, size_t));
    SVP_T_SIG(svp_acl_mdl_load_from_mem, svp_acl_error, (const void *, size_t, uint32_t *));
    SVP_T_SIG(svp_acl_mdl_execute, svp_acl_error,
        (uint32_t, const svp_acl_mdl_dataset *, const svp_acl_mdl_dataset *));
    SVP_T_SIG(svp_acl_mdl_execute_async, svp_acl_error,
        (uint32_t, const svp_acl_mdl_dataset *, const svp_acl_mdl_dataset *, svp_acl_rt_stream));
    SVP_T_SIG(svp_acl_mdl_unload, svp_acl_error, (uint32_t));
    SVP_T_SIG(svp_acl_mdl_set_dynamic_batch_size, svp_acl_error,
        (uint32_t, svp_acl_mdl_dataset *, size_t, uint64_t));
    SVP_T_SIG(svp_acl_mdl_set_total_t, svp_acl_error, (uint32_t, svp_acl_mdl_dataset *, uint64_t));
    SVP_T_SIG(svp_acl_mdl_set_dynamic_hw_size, svp_acl_error,
        (uint32_t, svp_acl_mdl_dataset *, size_t, uint64_t, uint64_t));
    SVP_T_SIG(svp_acl_mdl_get_dynamic_hw, svp_acl_error, (const svp_acl_mdl_desc *, size_t, svp_acl_mdl_hw *));
    SVP_T_SIG(svp_acl_mdl_get_input_class_id_by_index, svp_acl_error,
        (const svp_acl_mdl_desc *, size_t, size_t *));
    SVP_T_SIG(svp_acl_mdl_get_output_class_id_by_index, svp_acl_error,
        (const svp_acl_mdl_desc *, size_t, size_t *));
    SVP_T_SIG(svp_acl_mdl_get_input_dims, svp_acl_error, (const svp_acl_mdl_desc *, size_t, svp_acl_mdl_io_dims *));
    SVP_T_SIG(svp_acl_mdl_get_output_dims, svp_acl_error,
        (const svp_acl_mdl_desc *, size_t, svp_acl_mdl_io_dims *));
    SVP_T_SIG(svp_acl_mdl_get_input_name_by_index, const char *, (const svp_acl_mdl_desc *, size_t));
    SVP_T_SIG(svp_acl_mdl_get_output_name_by_index, const char *, (const svp_acl_mdl_desc *, size_t));
    SVP_T_SIG(svp_acl_mdl_get_input_format, svp_acl_format, (const svp_acl_mdl_desc *, size_t));
    SVP_T_SIG(svp_acl_mdl_get_output_format, svp_acl_format, (const svp_acl_mdl_desc *, size_t));
    SVP_T_SIG(svp_acl_mdl_get_input_data_type, svp_acl_data_type, (const svp_acl_mdl_desc *, size_t));
    SVP_T_SIG(svp_acl_mdl_get_output_data_type, svp_acl_data_type, (const svp_acl_mdl_desc *, size_t));
    SVP_T_SIG(svp_acl_mdl_get_input_index_by_name, svp_acl_error,
        (const svp_acl_mdl_desc *, const char *, size_t *));
    SVP_T_SIG(svp_acl_mdl_get_output_index_by_name, svp_acl_error,
        (const svp_acl_mdl_desc *, const char *, size_t *));
    SVP_T_SIG(svp_acl_mdl_get_input_default_stride, size_t, (const svp_acl_mdl_desc *, size_t));
    SVP_T_SIG(svp_acl_mdl_get_output_default_stride, size_t, (const svp_acl_mdl_desc *, size_t));
    SVP_T_SIG(svp_acl_mdl_init_dump, svp_acl_error, (void));
    SVP_T_SIG(svp_acl_mdl_set_dump, svp_acl_error, (const char *));
    SVP_T_SIG(svp_acl_mdl_finalize_dump, svp_acl_error, (void));
    SVP_T_SIG(svp_acl_mdl_load_with_config, svp_acl_error, (const svp_acl_mdl_config_handle *, uint32_t *));
    SVP_T_SIG(svp_acl_mdl_set_model_config, svp_acl_error, (uint32_t, const svp_acl_mdl_config_handle *));
    SVP_T_SIG(svp_acl_mdl_create_config_handle, svp_acl_mdl_config_handle *, (void));
    SVP_T_SIG(svp_acl_mdl_destroy_config_handle, svp_acl_error, (svp_acl_mdl_config_handle *));
    SVP_T_SIG(svp_acl_mdl_set_config_opt, svp_acl_error,
        (svp_acl_mdl_config_handle *, svp_acl_mdl_config_attr, const void *, size_t));
    SVP_T_SIG(svp_acl_mdl_get_config_opt, svp_acl_error,
        (svp_acl_mdl_config_handle *, svp_acl_mdl_config_attr, void *, size_t));
    SVP_T_SIG(svp_acl_mdl_get_dynamic_batch, svp_acl_error, (const svp_acl_mdl_desc *, svp_acl_mdl_batch *));
    SVP_T_SIG(svp_acl_mdl_create_aipp, svp_acl_mdl_aipp *, (uint64_t));
    SVP_T_SIG(svp_acl_mdl_destroy_aipp, svp_acl_error, (svp_acl_mdl_aipp *));
    SVP_T_SIG(svp_acl_mdl_set_aipp_input_format, svp_acl_error, (svp_acl_mdl_aipp *, svp_acl_aipp_input_format));
    SVP_T_SIG(svp_acl_mdl_set_aipp_csc_params, svp_acl_error,
        (svp_acl_mdl_aipp *, int8_t, int16_t, int16_t, int16_t, int16_t, int16_t, int16_t, int16_t, int16_t,
         int16_t, uint8_t, uint8_t, uint8_t, uint8_t, uint8_t, uint8_t));
    SVP_T_SIG(svp_acl_mdl_set_aipp_rbuv_swap_switch, svp_acl_error, (svp_acl_mdl_aipp *, int8_t));
    SVP_T_SIG(svp_acl_mdl_set_aipp_ax_swap_switch, svp_acl_error, (svp_acl_mdl_aipp *, int8_t));
    SVP_T_SIG(svp_acl_mdl_set_aipp_src_image_size, svp_acl_error, (svp_acl_mdl_aipp *, int32_t, int32_t));
    SVP_T_SIG(svp_acl_mdl_set_aipp_scf_params, svp_acl_error,
        (svp_acl_mdl_aipp *, int8_t, int32_t, int32_t, int32_t, int32_t, uint64_t));
    SVP_T_SIG(svp_acl_mdl_set_aipp_crop_params, svp_acl_error,
        (svp_acl_mdl_aipp *, int8_t, int32_t, int32_t, int32_t, int32_t, uint64_t));
    SVP_T_SIG(svp_acl_mdl_set_aipp_padding_params, svp_acl_error,
        (svp_acl_mdl_aipp *, int8_t, int32_t, int32_t, int32_t, int32_t, uint64_t));
    SVP_T_SIG(svp_acl_mdl_set_aipp_dtc_pixel_mean, svp_acl_error,
        (svp_acl_mdl_aipp *, float, float, float, float, uint64_t));
    SVP_T_SIG(svp_acl_mdl_set_aipp_dtc_pixel_min, svp_acl_error,
        (svp_acl_mdl_aipp *, float, float, float, float, uint64_t));
    SVP_T_SIG(svp_acl_mdl_set_aipp_pixel_var_reci, svp_acl_error,
        (svp_acl_mdl_aipp *, float, float, float, float, uint64_t));
    SVP_T_SIG(svp_acl_mdl_set_input_aipp, svp_acl_error,
        (uint32_t, svp_acl_mdl_dataset *, size_t, const svp_acl_mdl_aipp *));
    SVP_T_SIG(svp_acl_mdl_set_output_aipp, svp_acl_error,
        (uint32_t, svp_acl_mdl_dataset *, size_t, const svp_acl_mdl_aipp *));
    SVP_T_SIG(svp_acl_mdl_set_aipp_by_input_index, svp_acl_error,
        (uint32_t, svp_acl_mdl_dataset *, size_t, const svp_acl_mdl_aipp *));
    SVP_T_SIG(svp_acl_mdl_get_input_aipp_type, svp_acl_error,
        (uint32_t, size_t, svp_acl_mdl_aipp_type *, size_t *));
    SVP_T_SIG(svp_acl_mdl_get_output_aipp_type, svp_acl_error,
        (uint32_t, size_t, svp_acl_mdl_aipp_type *, size_t *));
    SVP_T_SIG(svp_acl_mdl_get_first_aipp_info, svp_acl_error, (uint32_t, size_t, svp_acl_aipp_info *));
    SVP_T_SIG(svp_acl_mdl_get_last_aipp_info, svp_acl_error, (uint32_t, size_t, svp_acl_aipp_info *));

    /* svp_acl_prof.h (20) */
    SVP_T_SIG(svp_acl_prof_init, svp_acl_error, (const char *, size_t));
    SVP_T_SIG(svp_acl_prof_finalize, svp_acl_error, (void));
    SVP_T_SIG(svp_acl_prof_start, svp_acl_error, (const svp_acl_prof_config *));
    SVP_T_SIG(svp_acl_prof_create_config, svp_acl_prof_config *,
        (const uint32_t *, uint32_t, svp_acl_prof_aicore_metrics, const svp_acl_prof_aicore_events *, uint64_t));
    SVP_T_SIG(svp_acl_prof_destroy_config, svp_acl_error, (const svp_acl_prof_config *));
    SVP_T_SIG(svp_acl_prof_stop, svp_acl_error, (const svp_acl_prof_config *));
    SVP_T_SIG(svp_acl_prof_model_subscribe, svp_acl_error, (uint32_t, const svp_acl_prof_subscribe_config *));
    SVP_T_SIG(svp_acl_prof_model_unsubscribe, svp_acl_error, (uint32_t));
    SVP_T_SIG(svp_acl_prof_create_subscribe_config, svp_acl_prof_subscribe_config *,
        (int8_t, svp_acl_prof_aicore_metrics, const void *));
    SVP_T_SIG(svp_acl_prof_destroy_subscribe_config, svp_acl_error, (const svp_acl_prof_subscribe_config *));
    SVP_T_SIG(svp_acl_prof_get_op_desc_size, svp_acl_error, (size_t *));
    SVP_T_SIG(svp_acl_prof_get_op_num, svp_acl_error, (const void *, size_t, uint32_t *));
    SVP_T_SIG(svp_acl_prof_get_op_type_len, svp_acl_error, (const void *, size_t, uint32_t, size_t *));
    SVP_T_SIG(svp_acl_prof_get_op_type, svp_acl_error, (const void *, size_t, uint32_t, char *, size_t));
    SVP_T_SIG(svp_acl_prof_get_op_name_len, svp_acl_error, (const void *, size_t, uint32_t, size_t *));
    SVP_T_SIG(svp_acl_prof_get_op_name, svp_acl_error, (const void *, size_t, uint32_t, char *, size_t));
    SVP_T_SIG(svp_acl_prof_get_op_start, uint64_t, (const void *, size_t, uint32_t));
    SVP_T_SIG(svp_acl_prof_get_op_end, uint64_t, (const void *, size_t, uint32_t));
    SVP_T_SIG(svp_acl_prof_get_op_duration, uint64_t, (const void *, size_t, uint32_t));
    SVP_T_SIG(svp_acl_prof_get_model_id, size_t, (const void *, size_t, uint32_t));

    /* svp_acl_ext.h (5) */
    SVP_T_SIG(svp_acl_ext_process_aicpu_task, svp_acl_error, (int32_t));
    SVP_T_SIG(svp_acl_ext_get_mdl_aicpu_task_num, svp_acl_error, (uint32_t, uint32_t *));
    SVP_T_SIG(svp_acl_ext_get_mdl_net_type, svp_acl_error, (uint32_t, uint32_t *));
    SVP_T_SIG(svp_acl_ext_stream_release_at, svp_acl_error, (svp_acl_rt_stream, uint64_t));
    SVP_T_SIG(svp_acl_query_status, svp_acl_error, (svp_acl_status *));
}

/* ------------------------------------------------------------------ */
/* vendor-style call sites (parameterless functions called with ())     */
/* ------------------------------------------------------------------ */
int svp_t_vendor_style_calls(void);
int svp_t_vendor_style_calls(void)
{
    svp_acl_mdl_desc *desc = svp_acl_mdl_create_desc();
    svp_acl_mdl_dataset *ds = svp_acl_mdl_create_dataset();
    svp_acl_mdl_config_handle *cfg = svp_acl_mdl_create_config_handle();
    const char *msg = svp_acl_get_recent_err_msg();
    svp_acl_error ret = svp_acl_init(NULL);
    size_t idx = 0;
    svp_acl_rt_stream stream = NULL;   /* default stream */
    size_t bytes = (svp_acl_data_type_size(SVP_ACL_UINT8) + 7) / 8;

    (void)msg;
    (void)bytes;
    if (ret != SVP_ACL_SUCCESS) {
        return 1;
    }
    ret = svp_acl_mdl_get_input_index_by_name(desc, SVP_ACL_DYNAMIC_TENSOR_NAME, &idx);
    ret |= svp_acl_mdl_execute_async(0, ds, ds, stream);
    ret |= svp_acl_rt_synchronize_stream(NULL);
    ret |= svp_acl_mdl_destroy_config_handle(cfg);
    ret |= svp_acl_mdl_destroy_dataset(ds);
    ret |= svp_acl_mdl_destroy_desc(desc);
    ret |= svp_acl_finalize();
    return ret == SVP_ACL_SUCCESS ? 0 : 1;
}
