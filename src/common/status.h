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

// Vendor codes used by the core. Values are the contract's (spec §1.1); the public
// header has the same macros, but the core does not include public headers so that it
// can be tested and reused without the C API.
namespace err {
inline constexpr int kNone = 0;
inline constexpr int kInvalidParam = 100000;
inline constexpr int kUninitialize = 100001;
inline constexpr int kRepeatInitialize = 100002;
inline constexpr int kInvalidFile = 100003;
inline constexpr int kWriteFile = 100004;
inline constexpr int kInvalidFileSize = 100005;
inline constexpr int kParseFile = 100006;
inline constexpr int kFileMissingAttr = 100007;
inline constexpr int kFileAttrInvalid = 100008;
inline constexpr int kInvalidDumpConfig = 100009;
inline constexpr int kInvalidProfilingConfig = 100010;
inline constexpr int kInvalidModelId = 100011;
inline constexpr int kDeserializeModel = 100012;
inline constexpr int kParseModel = 100013;
inline constexpr int kReadModelFailure = 100014;
inline constexpr int kModelSizeInvalid = 100015;
inline constexpr int kModelMissingAttr = 100016;
inline constexpr int kModelInputNotMatch = 100017;
inline constexpr int kModelOutputNotMatch = 100018;
inline constexpr int kModelNotDynamic = 100019;
inline constexpr int kUnsupportedDataType = 100026;
inline constexpr int kFormatNotMatch = 100027;
inline constexpr int kRepeatSubscribe = 100033;
inline constexpr int kStreamNotSubscribe = 100034;
inline constexpr int kThreadNotSubscribe = 100035;
inline constexpr int kWaitCallbackTimeout = 100036;
inline constexpr int kRepeatFinalize = 100037;
inline constexpr int kNotStaticAipp = 100038;
inline constexpr int kProfAlreadyRun = 100042;
inline constexpr int kProfNotRun = 100043;
inline constexpr int kDumpAlreadyRun = 100044;
inline constexpr int kDumpNotRun = 100045;
inline constexpr int kProfRepeatSubscribe = 148046;
inline constexpr int kProfApiConflict = 148047;
inline constexpr int kBadAlloc = 200000;
inline constexpr int kApiNotSupport = 200001;
inline constexpr int kInvalidDevice = 200002;
inline constexpr int kMemoryAddressUnaligned = 200003;
inline constexpr int kResourceNotMatch = 200004;
inline constexpr int kInvalidResourceHandle = 200005;
inline constexpr int kFeatureUnsupported = 200006;
inline constexpr int kStorageOverLimit = 300000;
inline constexpr int kInternalError = 500000;
inline constexpr int kGeFailure = 500002;
inline constexpr int kFailure = 500001;
inline constexpr int kRtFailure = 500003;
inline constexpr int kDrvFailure = 500004;
inline constexpr int kProfilingFailure = 500005;
inline constexpr int kRtReportTimeout = 507012;
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
