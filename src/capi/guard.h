// The single boundary where core Status becomes an svp_acl_error.
//
// Every exported function runs its body through guard(): exceptions never cross into
// C, a failed Status is logged once with the function name and stored as the calling
// thread's recent error (svp_acl_get_recent_err_msg), and its code is returned.
#pragma once

#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

#include "acl/svp_acl_base.h"
#include "common/status.h"
#include "runtime/api_scope.h"
#include "runtime/runtime.h"

namespace svp::capi {

// Records a failure of API function `fn` (log + thread-local recent error).
void record_error(const char* fn, const Status& status);

template <typename F>
svp_acl_error guard(const char* fn, F&& body) noexcept {
  runtime::ApiScope scope(fn);
  Status st;
  try {
    st = body();
  } catch (const std::bad_alloc&) {
    st = Status(err::kBadAlloc, "out of host memory");
  } catch (const std::exception& e) {
    st = Error(err::kInternalError, "internal error: {}", e.what());
  } catch (...) {
    st = Status(err::kInternalError, "internal error: unknown exception");
  }
  if (!st.ok()) record_error(fn, st);
  scope.done(st.code());
  return st.code();
}

// For functions that report failure through a sentinel return value (NULL, 0, an
// UNDEFINED enumerator): `body` returns Result<T>; on failure `fallback` is returned.
template <typename T, typename F>
T guard_value(const char* fn, T fallback, F&& body) noexcept {
  T out = fallback;
  guard(fn, [&]() -> Status {
    Result<T> r = body();
    if (!r.ok()) return r.status();
    out = std::move(*r);
    return Status::Ok();
  });
  return out;
}

// Runs `body(Runtime&)` against the live runtime, or fails with UNINITIALIZE.
template <typename F>
auto with_runtime(F&& body) -> decltype(body(std::declval<runtime::Runtime&>())) {
  auto rt = runtime::Runtime::get();
  if (!rt.ok()) return rt.status();
  return body(**rt);
}

// The integer a C caller passed for an enum parameter. C lets any int through; reading an
// out-of-range value *as the enum* is undefined in C++, so validation reads the bits.
template <typename E>
int enum_bits(const E& e) {
  static_assert(std::is_enum_v<E> && sizeof(E) == sizeof(int), "C enums are int-sized");
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

inline Status require(bool ok, const char* what) {
  return ok ? Status::Ok() : Error(err::kInvalidParam, "{}", what);
}

}  // namespace svp::capi
