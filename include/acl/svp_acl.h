/*
 * svp-acl: open reimplementation of the SVP ACL NPU runtime C API.
 *
 * svp_acl.h - process-wide initialisation and teardown. Including this header
 * also provides the runtime API (svp_acl_rt.h) and the base types
 * (svp_acl_base.h).
 */

#ifndef SVP_ACL_H
#define SVP_ACL_H

#include "svp_acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Initialises the library for the whole process. Must be the first svp_acl
 * call and may succeed only once per process.
 * `config_path`: path of an acl.json-style JSON file; NULL, "" or a file
 * holding "{}" select the defaults (no dump, no profiling). Recognised
 * top-level objects are "dump" and "profiler"; nesting depth is limited to 10.
 * Call from one thread, before any other thread uses the API.
 * Errors: SVP_ACL_ERROR_REPEAT_INITIALIZE on a second call;
 * SVP_ACL_ERROR_INVALID_FILE / SVP_ACL_ERROR_PARSE_FILE /
 * SVP_ACL_ERROR_FILE_ATTR_INVALID / SVP_ACL_ERROR_INVALID_DUMP_CONFIG /
 * SVP_ACL_ERROR_INVALID_PROFILING_CONFIG for an unusable configuration. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_init(const char *config_path);

/* Releases every resource the library still holds for the process. The
 * application should first free its own objects (models, datasets, streams,
 * contexts, devices). Call explicitly before the process exits, not from a
 * static destructor or atexit handler; no other thread may be using the API.
 * Afterwards no svp_acl function may be called again.
 * Errors: SVP_ACL_ERROR_UNINITIALIZE if svp_acl_init() did not succeed,
 * SVP_ACL_ERROR_REPEAT_FINALIZE on a second call. */
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_finalize(void);

#ifdef __cplusplus
}
#endif

#endif /* SVP_ACL_H */
