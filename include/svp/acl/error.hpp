// svp::acl errors: the exception type, the std::error_code category of svp_acl codes and
// the plumbing every wrapper uses to turn a C return code into one or the other.
//
// Every throwing member of svp::acl has a non-throwing overload taking std::error_code&
// as its last argument. On failure the overload sets the code (category svp::acl::
// category(), value = the vendor code) and leaves the function name and the library's
// message in svp::acl::last_failure() of the calling thread; on success it clears the
// code. Built with -fno-exceptions, the throwing overloads print the failure and abort,
// so such code must use the std::error_code overloads.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <system_error>
#include <utility>

#include "acl/svp_acl_base.h"

namespace svp::acl {

// The vendor's status codes (svp_acl_base.h) as an error-code enum.
#define SVP_ACL_CPP_ERROR_CODES(X) \
  X(invalid_param, SVP_ACL_ERROR_INVALID_PARAM) \
  X(uninitialize, SVP_ACL_ERROR_UNINITIALIZE) \
  X(repeat_initialize, SVP_ACL_ERROR_REPEAT_INITIALIZE) \
  X(invalid_file, SVP_ACL_ERROR_INVALID_FILE) \
  X(write_file, SVP_ACL_ERROR_WRITE_FILE) \
  X(invalid_file_size, SVP_ACL_ERROR_INVALID_FILE_SIZE) \
  X(parse_file, SVP_ACL_ERROR_PARSE_FILE) \
  X(file_missing_attr, SVP_ACL_ERROR_FILE_MISSING_ATTR) \
  X(file_attr_invalid, SVP_ACL_ERROR_FILE_ATTR_INVALID) \
  X(invalid_dump_config, SVP_ACL_ERROR_INVALID_DUMP_CONFIG) \
  X(invalid_profiling_config, SVP_ACL_ERROR_INVALID_PROFILING_CONFIG) \
  X(invalid_model_id, SVP_ACL_ERROR_INVALID_MODEL_ID) \
  X(deserialize_model, SVP_ACL_ERROR_DESERIALIZE_MODEL) \
  X(parse_model, SVP_ACL_ERROR_PARSE_MODEL) \
  X(read_model_failure, SVP_ACL_ERROR_READ_MODEL_FAILURE) \
  X(model_size_invalid, SVP_ACL_ERROR_MODEL_SIZE_INVALID) \
  X(model_missing_attr, SVP_ACL_ERROR_MODEL_MISSING_ATTR) \
  X(model_input_not_match, SVP_ACL_ERROR_MODEL_INPUT_NOT_MATCH) \
  X(model_output_not_match, SVP_ACL_ERROR_MODEL_OUTPUT_NOT_MATCH) \
  X(model_not_dynamic, SVP_ACL_ERROR_MODEL_NOT_DYNAMIC) \
  X(op_type_not_match, SVP_ACL_ERROR_OP_TYPE_NOT_MATCH) \
  X(op_input_not_match, SVP_ACL_ERROR_OP_INPUT_NOT_MATCH) \
  X(op_output_not_match, SVP_ACL_ERROR_OP_OUTPUT_NOT_MATCH) \
  X(op_attr_not_match, SVP_ACL_ERROR_OP_ATTR_NOT_MATCH) \
  X(op_not_found, SVP_ACL_ERROR_OP_NOT_FOUND) \
  X(op_load_failed, SVP_ACL_ERROR_OP_LOAD_FAILED) \
  X(unsupported_data_type, SVP_ACL_ERROR_UNSUPPORTED_DATA_TYPE) \
  X(format_not_match, SVP_ACL_ERROR_FORMAT_NOT_MATCH) \
  X(bin_selector_not_registered, SVP_ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED) \
  X(kernel_not_found, SVP_ACL_ERROR_KERNEL_NOT_FOUND) \
  X(bin_selector_already_registered, SVP_ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED) \
  X(kernel_already_registered, SVP_ACL_ERROR_KERNEL_ALREADY_REGISTERED) \
  X(invalid_queue_id, SVP_ACL_ERROR_INVALID_QUEUE_ID) \
  X(repeat_subscribe, SVP_ACL_ERROR_REPEAT_SUBSCRIBE) \
  X(stream_not_subscribe, SVP_ACL_ERROR_STREAM_NOT_SUBSCRIBE) \
  X(thread_not_subscribe, SVP_ACL_ERROR_THREAD_NOT_SUBSCRIBE) \
  X(wait_callback_timeout, SVP_ACL_ERROR_WAIT_CALLBACK_TIMEOUT) \
  X(repeat_finalize, SVP_ACL_ERROR_REPEAT_FINALIZE) \
  X(not_static_aipp, SVP_ACL_ERROR_NOT_STATIC_AIPP) \
  X(compiling_stub_mode, SVP_ACL_ERROR_COMPILING_STUB_MODE) \
  X(group_not_set, SVP_ACL_ERROR_GROUP_NOT_SET) \
  X(group_not_create, SVP_ACL_ERROR_GROUP_NOT_CREATE) \
  X(prof_already_run, SVP_ACL_ERROR_PROF_ALREADY_RUN) \
  X(prof_not_run, SVP_ACL_ERROR_PROF_NOT_RUN) \
  X(dump_already_run, SVP_ACL_ERROR_DUMP_ALREADY_RUN) \
  X(dump_not_run, SVP_ACL_ERROR_DUMP_NOT_RUN) \
  X(prof_repeat_subscribe, SVP_ACL_ERROR_PROF_REPEAT_SUBSCRIBE) \
  X(prof_api_conflict, SVP_ACL_ERROR_PROF_API_CONFLICT) \
  X(invalid_max_opqueue_num_config, SVP_ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG) \
  X(unsupported_api, SVP_ACL_ERROR_UNSUPPORTED_API) \
  X(bad_alloc, SVP_ACL_ERROR_BAD_ALLOC) \
  X(api_not_support, SVP_ACL_ERROR_API_NOT_SUPPORT) \
  X(invalid_device, SVP_ACL_ERROR_INVALID_DEVICE) \
  X(memory_address_unaligned, SVP_ACL_ERROR_MEMORY_ADDRESS_UNALIGNED) \
  X(resource_not_match, SVP_ACL_ERROR_RESOURCE_NOT_MATCH) \
  X(invalid_resource_handle, SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE) \
  X(feature_unsupported, SVP_ACL_ERROR_FEATURE_UNSUPPORTED) \
  X(prof_modules_unsupported, SVP_ACL_ERROR_PROF_MODULES_UNSUPPORTED) \
  X(storage_over_limit, SVP_ACL_ERROR_STORAGE_OVER_LIMIT) \
  X(internal_error, SVP_ACL_ERROR_INTERNAL_ERROR) \
  X(failure, SVP_ACL_ERROR_FAILURE) \
  X(ge_failure, SVP_ACL_ERROR_GE_FAILURE) \
  X(rt_failure, SVP_ACL_ERROR_RT_FAILURE) \
  X(drv_failure, SVP_ACL_ERROR_DRV_FAILURE) \
  X(profiling_failure, SVP_ACL_ERROR_PROFILING_FAILURE) \
  X(rt_report_timeout, SVP_ACL_ERROR_RT_REPORT_TIMEOUT)

enum class errc : int {
#define SVP_ACL_CPP_ENUM(name, value) name = value,
  SVP_ACL_CPP_ERROR_CODES(SVP_ACL_CPP_ENUM)
#undef SVP_ACL_CPP_ENUM
};

// "SVP_ACL_ERROR_INVALID_PARAM (100000)"; unknown values are printed as numbers.
inline std::string code_name(int code) {
  switch (code) {
    case SVP_ACL_SUCCESS:
      return "SVP_ACL_SUCCESS (0)";
#define SVP_ACL_CPP_CASE(name, value) \
  case value:                          \
    return #value " (" + std::to_string(value) + ")";
      SVP_ACL_CPP_ERROR_CODES(SVP_ACL_CPP_CASE)
#undef SVP_ACL_CPP_CASE
    default:
      return "svp_acl error " + std::to_string(code);
  }
}

namespace detail {
class category_impl final : public std::error_category {
 public:
  const char* name() const noexcept override { return "svp_acl"; }
  std::string message(int code) const override { return code_name(code); }
};
}  // namespace detail

// The category of svp_acl codes; one instance per program (inline function static).
inline const std::error_category& category() noexcept {
  static const detail::category_impl instance;
  return instance;
}

inline std::error_code make_error_code(errc e) noexcept { return {static_cast<int>(e), category()}; }

// What the last failing svp::acl call of this thread reported (also for the std::error_code
// overloads, which cannot carry text).
struct failure {
  svp_acl_error code = SVP_ACL_SUCCESS;
  std::string function;  // the C function (or C++ member) that failed
  std::string message;   // svp_acl_get_recent_err_msg() right after the failure
};

namespace detail {
inline failure& thread_failure() {
  thread_local failure f;
  return f;
}
}  // namespace detail

inline const failure& last_failure() { return detail::thread_failure(); }

// Thrown by every throwing member of svp::acl. code() is the vendor code in category();
// what() reads "<function>: <library message> [SVP_ACL_ERROR_... (code)]".
class error : public std::system_error {
 public:
  error(svp_acl_error code, std::string function, std::string message)
      : std::system_error(code, category(), function + ": " + (message.empty() ? "failed" : message)),
        function_(std::move(function)),
        message_(std::move(message)) {}
  svp_acl_error vendor_code() const noexcept { return code().value(); }
  const std::string& function() const noexcept { return function_; }
  const std::string& message() const noexcept { return message_; }

 private:
  std::string function_;
  std::string message_;
};

namespace detail {

// Outcome of one wrapped operation: success, or the failing function and its message,
// captured at once (a later svp_acl call on the thread replaces the library's message).
struct status {
  svp_acl_error code = SVP_ACL_SUCCESS;
  const char* function = "";
  std::string message;
  bool failed() const noexcept { return code != SVP_ACL_SUCCESS; }
};

// Checks the return code of the C function `function`.
inline status call(svp_acl_error rc, const char* function) {
  if (rc == SVP_ACL_SUCCESS) return {};
  return status{rc, function, svp_acl_get_recent_err_msg()};
}

// A failure found by the C++ layer itself (no C call to ask for a message).
inline status fail(svp_acl_error rc, const char* function, std::string message) {
  return status{rc, function, std::move(message)};
}

inline void remember(const status& s) {
  failure& f = thread_failure();
  f.code = s.code;
  f.function = s.function;
  f.message = s.message;
}

// The throwing overloads end here.
inline void raise_if(status s) {
  if (!s.failed()) return;
  remember(s);
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
  throw error(s.code, s.function, std::move(s.message));
#else
  std::fprintf(stderr, "svp::acl: %s: %s [%s]\n", s.function, s.message.c_str(), code_name(s.code).c_str());
  std::abort();
#endif
}

// The std::error_code overloads end here.
inline void assign(const status& s, std::error_code& ec) {
  if (!s.failed()) {
    ec.clear();
    return;
  }
  remember(s);
  ec = std::error_code(s.code, category());
}

inline status moved_from(const char* what) {
  return fail(SVP_ACL_ERROR_INVALID_PARAM, what, "the object is empty (moved from or default-constructed)");
}

}  // namespace detail
}  // namespace svp::acl

namespace std {
template <>
struct is_error_code_enum<svp::acl::errc> : true_type {};
}  // namespace std
