// svp::acl memory: NPU-visible allocations (svp_acl_rt_malloc / _cached / free) and data
// buffer descriptors (svp_acl_create_data_buffer / svp_acl_destroy_data_buffer).
//
// Ownership. device_memory and cached_memory own their allocation and hold the runtime.
// A data_buffer describes memory it does not own (vendor rule) but holds a reference to
// the allocation it was made from, so the memory cannot be freed while a descriptor of
// it exists. Errors: svp/acl/error.hpp. Threading: one thread at a time per object.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>

#include "acl/svp_acl_base.h"
#include "acl/svp_acl_rt.h"
#include "svp/acl/error.hpp"
#include "svp/acl/runtime.hpp"

namespace svp::acl {

namespace detail {
struct memory_state {
  runtime_token runtime;
  void* data = nullptr;
  std::size_t size = 0;
  bool cached = false;
  ~memory_state() { (void)svp_acl_rt_free(data); }
};

inline status allocate(const runtime& rt, std::size_t size, bool cached, svp_acl_rt_mem_malloc_policy policy,
                       std::shared_ptr<memory_state>& out) {
  if (!rt) return moved_from(cached ? "svp::acl::cached_memory" : "svp::acl::device_memory");
  void* p = nullptr;
  status st = cached ? call(svp_acl_rt_malloc_cached(&p, size, policy), "svp_acl_rt_malloc_cached")
                     : call(svp_acl_rt_malloc(&p, size, policy), "svp_acl_rt_malloc");
  if (st.failed()) return st;
  out = std::make_shared<memory_state>();
  out->runtime = rt.token();
  out->data = p;
  out->size = size;
  out->cached = cached;
  return {};
}
}  // namespace detail

// Uncached NPU-visible memory: the CPU and the NPU see the same bytes, no maintenance.
class device_memory {
 public:
  device_memory() = default;
  device_memory(const runtime& rt, std::size_t size,
                svp_acl_rt_mem_malloc_policy policy = SVP_ACL_MEM_MALLOC_NORMAL_ONLY) {
    detail::raise_if(detail::allocate(rt, size, false, policy, state_));
  }
  device_memory(const runtime& rt, std::size_t size, svp_acl_rt_mem_malloc_policy policy, std::error_code& ec) {
    detail::assign(detail::allocate(rt, size, false, policy, state_), ec);
  }
  device_memory(device_memory&&) noexcept = default;
  device_memory& operator=(device_memory&&) noexcept = default;

  explicit operator bool() const noexcept { return state_ != nullptr; }
  void* data() const noexcept { return state_ ? state_->data : nullptr; }
  std::size_t size() const noexcept { return state_ ? state_->size : 0; }
  const std::shared_ptr<detail::memory_state>& state() const noexcept { return state_; }

 protected:
  std::shared_ptr<detail::memory_state> state_;
};

// CPU-cached NPU-visible memory: flush() after CPU writes the NPU reads, invalidate()
// before the CPU reads what the NPU wrote (spec §2.5).
class cached_memory {
 public:
  cached_memory() = default;
  cached_memory(const runtime& rt, std::size_t size,
                svp_acl_rt_mem_malloc_policy policy = SVP_ACL_MEM_MALLOC_NORMAL_ONLY) {
    detail::raise_if(detail::allocate(rt, size, true, policy, state_));
  }
  cached_memory(const runtime& rt, std::size_t size, svp_acl_rt_mem_malloc_policy policy, std::error_code& ec) {
    detail::assign(detail::allocate(rt, size, true, policy, state_), ec);
  }
  cached_memory(cached_memory&&) noexcept = default;
  cached_memory& operator=(cached_memory&&) noexcept = default;

  explicit operator bool() const noexcept { return state_ != nullptr; }
  void* data() const noexcept { return state_ ? state_->data : nullptr; }
  std::size_t size() const noexcept { return state_ ? state_->size : 0; }
  const std::shared_ptr<detail::memory_state>& state() const noexcept { return state_; }

  // Whole allocation, or [offset, offset + bytes).
  void flush() { detail::raise_if(maintain(true, 0, size())); }
  void flush(std::error_code& ec) { detail::assign(maintain(true, 0, size()), ec); }
  void flush(std::size_t offset, std::size_t bytes) { detail::raise_if(maintain(true, offset, bytes)); }
  void invalidate() { detail::raise_if(maintain(false, 0, size())); }
  void invalidate(std::error_code& ec) { detail::assign(maintain(false, 0, size()), ec); }
  void invalidate(std::size_t offset, std::size_t bytes) { detail::raise_if(maintain(false, offset, bytes)); }

 private:
  detail::status maintain(bool flush, std::size_t offset, std::size_t bytes) {
    const char* fn = flush ? "svp::acl::cached_memory::flush" : "svp::acl::cached_memory::invalidate";
    if (!state_) return detail::moved_from(fn);
    if (offset > state_->size || bytes > state_->size - offset) {
      return detail::fail(SVP_ACL_ERROR_INVALID_PARAM, fn,
                          "range [" + std::to_string(offset) + ", +" + std::to_string(bytes) +
                              ") is outside the allocation of " + std::to_string(state_->size) + " bytes");
    }
    const void* p = static_cast<const char*>(state_->data) + offset;
    return flush ? detail::call(svp_acl_rt_mem_flush(p, bytes), "svp_acl_rt_mem_flush")
                 : detail::call(svp_acl_rt_mem_invalidate(p, bytes), "svp_acl_rt_mem_invalidate");
  }

  std::shared_ptr<detail::memory_state> state_;
};

namespace detail {
struct buffer_state {
  std::shared_ptr<memory_state> memory;  // null for caller-owned memory
  svp_acl_data_buffer* handle = nullptr;
  ~buffer_state() { (void)svp_acl_destroy_data_buffer(handle); }
};
}  // namespace detail

// A data buffer descriptor (address, size, row stride). Made from an allocation of this
// header it keeps that allocation alive; made from a raw pointer the caller keeps the
// memory valid for as long as the descriptor is used.
class data_buffer {
 public:
  data_buffer() = default;
  data_buffer(const device_memory& m, std::size_t stride) { detail::raise_if(open_memory(m.state(), stride)); }
  data_buffer(const cached_memory& m, std::size_t stride) { detail::raise_if(open_memory(m.state(), stride)); }
  data_buffer(void* data, std::size_t size, std::size_t stride) { detail::raise_if(open(nullptr, data, size, stride)); }
  data_buffer(void* data, std::size_t size, std::size_t stride, std::error_code& ec) {
    detail::assign(open(nullptr, data, size, stride), ec);
  }
  data_buffer(data_buffer&&) noexcept = default;
  data_buffer& operator=(data_buffer&&) noexcept = default;

  explicit operator bool() const noexcept { return state_ != nullptr; }
  svp_acl_data_buffer* native_handle() const noexcept { return state_ ? state_->handle : nullptr; }
  void* data() const noexcept { return svp_acl_get_data_buffer_addr(native_handle()); }
  std::size_t size() const noexcept { return svp_acl_get_data_buffer_size(native_handle()); }
  std::size_t stride() const noexcept { return svp_acl_get_data_buffer_stride(native_handle()); }

  const std::shared_ptr<detail::buffer_state>& state() const noexcept { return state_; }

 private:
  detail::status open_memory(const std::shared_ptr<detail::memory_state>& mem, std::size_t stride) {
    if (!mem) return detail::moved_from("svp::acl::data_buffer");
    return open(mem, mem->data, mem->size, stride);
  }
  detail::status open(std::shared_ptr<detail::memory_state> mem, void* data, std::size_t size, std::size_t stride) {
    svp_acl_data_buffer* h = svp_acl_create_data_buffer(data, size, stride);
    if (h == nullptr) {
      return detail::fail(SVP_ACL_ERROR_BAD_ALLOC, "svp_acl_create_data_buffer", svp_acl_get_recent_err_msg());
    }
    state_ = std::make_shared<detail::buffer_state>();
    state_->memory = std::move(mem);
    state_->handle = h;
    return {};
  }

  std::shared_ptr<detail::buffer_state> state_;
};

}  // namespace svp::acl
