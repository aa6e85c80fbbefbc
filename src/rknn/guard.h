// What every RKNN C shim (src/rknn) shares: the exception barrier and the NULL check.
// A shim checks its pointers, then calls exactly one function of the runtime core
// (runtime/rknn_context.h), which holds the policy.
#pragma once

#include <exception>
#include <new>

#include "runtime/rknn_context.h"

namespace svp::rknn_capi {

// Runs `body(fn)` (returning an RKNN code; `fn` is the C function's name for messages, as
// __func__ inside the lambda would name the lambda); nothing escapes into C: an allocation failure is
// RKNN_ERR_MALLOC_FAIL, any other exception RKNN_ERR_FAIL, each with a message.
template <typename F>
int guard(const char* fn, F&& body) noexcept {
  try {
    return body(fn);
  } catch (const std::bad_alloc&) {
    return runtime::rknn::fail(fn, RKNN_ERR_MALLOC_FAIL, "out of host memory");
  } catch (const std::exception& e) {
    return runtime::rknn::fail(fn, RKNN_ERR_FAIL, std::string("internal error: ") + e.what());
  } catch (...) {
    return runtime::rknn::fail(fn, RKNN_ERR_FAIL, "internal error");
  }
}

// guard for the functions that return memory (the create_mem family): `body(fn)` returns
// the descriptor or NULL; NULL when anything escapes (with the message guard logs).
template <typename F>
rknn_tensor_mem* mem_guard(const char* fn, F&& body) noexcept {
  rknn_tensor_mem* out = nullptr;
  (void)guard(fn, [&](const char* f) {
    out = body(f);
    return RKNN_SUCC;
  });
  return out;
}

// RKNN_SUCC when `p` is not NULL; otherwise RKNN_ERR_PARAM_INVALID naming it.
inline int require(const char* fn, const void* p, const char* what) {
  return p != nullptr ? RKNN_SUCC : runtime::rknn::fail(fn, RKNN_ERR_PARAM_INVALID, std::string(what) + " is NULL");
}

}  // namespace svp::rknn_capi

// Returns from the shim when a check failed.
#define RKNN_RETURN_IF_FAILED(expr)      \
  do {                                   \
    const int rknn_rc_ = (expr);         \
    if (rknn_rc_ != RKNN_SUCC) return rknn_rc_; \
  } while (0)
