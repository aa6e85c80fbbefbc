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

// The vendor's status codes as an error-code enum, made from the one table of codes
// (svp/acl/error_codes.def): errc::invalid_param == SVP_ACL_ERROR_INVALID_PARAM.
enum class errc : int {
#define SVP_ACL_ERROR_CODE(MACRO, snake, Camel, value, message) snake = value,
#include "svp/acl/error_codes.def"
};

// The public C header keeps the vendor's literal #defines; every row of the table must
// agree with them (the reverse, no header code missing from the table, is checked by
// tests/unit/error_code_table_test.cpp).
#define SVP_ACL_ERROR_CODE(MACRO, snake, Camel, value, message) \
  static_assert(SVP_ACL_ERROR_##MACRO == (value), "svp/acl/error_codes.def disagrees with acl/svp_acl_base.h on SVP_ACL_ERROR_" #MACRO);
#include "svp/acl/error_codes.def"

// "SVP_ACL_ERROR_INVALID_PARAM (100000)"; unknown values are printed as numbers.
inline std::string code_name(int code) {
  switch (code) {
    case SVP_ACL_SUCCESS:
      return "SVP_ACL_SUCCESS (0)";
#define SVP_ACL_ERROR_CODE(MACRO, snake, Camel, value, message) \
  case value:                                                   \
    return "SVP_ACL_ERROR_" #MACRO " (" #value ")";
#include "svp/acl/error_codes.def"
    default:
      return "svp_acl error " + std::to_string(code);
  }
}

// What a code means, in the vendor specification's words ("bad argument"); unknown
// values give "unknown svp_acl error".
inline const char* code_message(int code) noexcept {
  switch (code) {
    case SVP_ACL_SUCCESS:
      return "success";
#define SVP_ACL_ERROR_CODE(MACRO, snake, Camel, value, message) \
  case value:                                                   \
    return message;
#include "svp/acl/error_codes.def"
    default:
      return "unknown svp_acl error";
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
      : std::system_error(code, category(), prefixed(function, message)),
        function_(std::move(function)),
        message_(std::move(message)) {}
  svp_acl_error vendor_code() const noexcept { return code().value(); }
  const std::string& function() const noexcept { return function_; }
  const std::string& message() const noexcept { return message_; }

 private:
  // The library's own messages already start with "<function>: "; said once.
  static std::string prefixed(const std::string& function, const std::string& message) {
    if (message.empty()) return function + ": failed";
    if (message.size() > function.size() + 1 && message.compare(0, function.size(), function) == 0 &&
        message.compare(function.size(), 2, ": ") == 0) {
      return message;
    }
    return function + ": " + message;
  }

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
