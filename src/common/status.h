// Status: the one error currency of the C++ core.
//
// Every internal function that can fail returns a Status (or a Result<T>) carrying the
// vendor error code it will surface as, plus a human-readable message. The C shims turn
// it into an svp_acl_error at exactly one place (capi/guard.h), which also records the
// message for svp_acl_get_recent_err_msg() and the log. Keeping the vendor code inside
// the core (rather than an internal enum mapped later) means the place that detects a
// problem is also the place that decides what the application sees.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

namespace svp {

// Vendor codes used by the core, made from the one table of codes
// (include/svp/acl/error_codes.def): err::kInvalidParam == SVP_ACL_ERROR_INVALID_PARAM.
// The core does not include the public C headers so that it can be tested and reused
// without the C API; the table is what both sides share.
namespace err {
inline constexpr int kNone = 0;
#define SVP_ACL_ERROR_CODE(MACRO, snake, Camel, value, message) inline constexpr int k##Camel = value;
#include "svp/acl/error_codes.def"

// "SVP_ACL_ERROR_INVALID_PARAM" ("SVP_ACL_SUCCESS" for 0); nullptr for a value that is no code.
constexpr const char* name(int code) {
  switch (code) {
    case kNone:
      return "SVP_ACL_SUCCESS";
#define SVP_ACL_ERROR_CODE(MACRO, snake, Camel, value, message) \
  case value:                                                   \
    return "SVP_ACL_ERROR_" #MACRO;
#include "svp/acl/error_codes.def"
    default:
      return nullptr;
  }
}

// What the code means ("bad argument"); nullptr for a value that is no code.
constexpr const char* message(int code) {
  switch (code) {
    case kNone:
      return "success";
#define SVP_ACL_ERROR_CODE(MACRO, snake, Camel, value, message) \
  case value:                                                   \
    return message;
#include "svp/acl/error_codes.def"
    default:
      return nullptr;
  }
}
}  // namespace err

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(int code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }

  bool ok() const { return code_ == err::kNone; }
  int code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  int code_ = err::kNone;
  std::string message_;
};

// Builds a failed Status with an fmt-formatted message.
template <typename... Args>
Status Error(int code, fmt::format_string<Args...> f, Args&&... args) {
  return Status(code, fmt::format(f, std::forward<Args>(args)...));
}

// A value or the Status explaining why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Status status) : status_(std::move(status)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() { return *value_; }
  const T& value() const { return *value_; }
  T& operator*() { return *value_; }
  T* operator->() { return &*value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace svp

// Propagates a failed Status to the caller.
#define SVP_RETURN_IF_ERROR(expr)           \
  do {                                      \
    ::svp::Status svp_status_ = (expr);     \
    if (!svp_status_.ok()) return svp_status_; \
  } while (0)
