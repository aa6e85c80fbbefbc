// svp_acl_rt.h: devices, contexts, streams, events, callbacks, memory.
#include "acl/svp_acl_rt.h"

#include "capi/guard.h"
#include "capi/shim.h"

using svp::capi::enum_bits;
using svp::capi::require;
using svp::capi::with_runtime;
using svp::runtime::MemoryApi;
using svp::runtime::Runtime;

namespace {

Status check_policy(const svp_acl_rt_mem_malloc_policy& policy) {
  const int v = enum_bits(policy);
  if (v != SVP_ACL_MEM_MALLOC_HUGE_FIRST && v != SVP_ACL_MEM_MALLOC_HUGE_ONLY && v != SVP_ACL_MEM_MALLOC_NORMAL_ONLY) {
    return Error(err::kInvalidParam, "unknown memory policy {}", v);
  }
  return Status::Ok();
}

// Allocation shims differ only in the core call; HUGE_* policies behave as NORMAL_ONLY.
svp_acl_error do_malloc(const char* fn, void** ptr, std::size_t size, MemoryApi api, std::size_t class_id) {
  return guard(fn, [&]() -> Status {
    SVP_RETURN_IF_ERROR(require(ptr != nullptr, "output pointer is NULL"));
    return with_runtime([&](Runtime& rt) -> Status {
      auto p = rt.malloc(size, api, class_id);
      if (!p.ok()) return p.status();
      *ptr = *p;
      return Status::Ok();
    });
  });
}

svp_acl_error do_free(const char* fn, const void* ptr, MemoryApi api) {
  return guard(fn, [&] { return with_runtime([&](Runtime& rt) { return rt.free(ptr, api); }); });
}

// Stores a handle produced by `make` into `*out`.
template <typename H, typename F>
svp_acl_error make_handle(const char* fn, H* out, F&& make) {
  return guard(fn, [&]() -> Status {
    SVP_RETURN_IF_ERROR(require(out != nullptr, "output handle pointer is NULL"));
    return with_runtime([&](Runtime& rt) -> Status {
      Result<void*> h = make(rt);
      if (!h.ok()) return h.status();
      *out = *h;
      return Status::Ok();
    });
  });
}

}  // namespace

// ---- callbacks ----

svp_acl_error svp_acl_rt_subscribe_report(uint64_t thread_id, svp_acl_rt_stream stream) {
  return guard(__func__, [&] { return with_runtime([&](Runtime& rt) { return rt.subscribe_report(thread_id, stream); }); });
}

svp_acl_error svp_acl_rt_launch_callback(svp_acl_rt_callback fn, void* user_data,
                                         svp_acl_rt_callback_block_type block_type, svp_acl_rt_stream stream) {
  return guard(__func__, [&]() -> Status {
    const int block = enum_bits(block_type);
    if (block != SVP_ACL_CALLBACK_BLOCK && block != SVP_ACL_CALLBACK_NO_BLOCK) {
      return Error(err::kInvalidParam, "unknown callback block type {}", block);
    }
    return with_runtime([&](Runtime& rt) {
      return rt.launch_callback(fn, user_data, block == SVP_ACL_CALLBACK_BLOCK, stream);
    });
  });
}

svp_acl_error svp_acl_rt_process_report(int32_t timeout) {
  return guard(__func__, [&] { return with_runtime([&](Runtime& rt) { return rt.process_report(timeout); }); });
}

svp_acl_error svp_acl_rt_unsubscribe_report(uint64_t thread_id, svp_acl_rt_stream stream) {
  return guard(__func__,
               [&] { return with_runtime([&](Runtime& rt) { return rt.unsubscribe_report(thread_id, stream); }); });
}

// ---- contexts ----

svp_acl_error svp_acl_rt_create_context(svp_acl_rt_context* context, int32_t device_id) {
  return make_handle(__func__, context, [&](Runtime& rt) { return rt.create_context(device_id); });
}

svp_acl_error svp_acl_rt_destroy_context(svp_acl_rt_context context) {
  return guard(__func__, [&] { return with_runtime([&](Runtime& rt) { return rt.destroy_context(context); }); });
}

svp_acl_error svp_acl_rt_set_current_context(svp_acl_rt_context context) {
  return guard(__func__, [&] { return with_runtime([&](Runtime& rt) { return rt.set_current_context(context); }); });
}

svp_acl_error svp_acl_rt_get_current_context(svp_acl_rt_context* context) {
  return make_handle(__func__, context, [&](Runtime& rt) { return rt.get_current_context(); });
}

// ---- devices ----

svp_acl_error svp_acl_rt_set_device(int32_t device_id) {
  return guard(__func__, [&] { return with_runtime([&](Runtime& rt) { return rt.set_device(device_id); }); });
}

svp_acl_error svp_acl_rt_reset_device(int32_t device_id) {
  return guard(__func__, [&] { return with_runtime([&](Runtime& rt) { return rt.reset_device(device_id); }); });
}

svp_acl_error svp_acl_rt_get_device(int32_t* device_id) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(require(device_id != nullptr, "device_id is NULL"));
    return with_runtime([&](Runtime& rt) -> Status {
      auto d = rt.get_device();
      if (!d.ok()) return d.status();
      *device_id = *d;
      return Status::Ok();
    });
  });
}

svp_acl_error svp_acl_rt_get_run_mode(svp_acl_rt_run_mode* run_mode) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(require(run_mode != nullptr, "run_mode is NULL"));
    return with_runtime([&](Runtime&) -> Status {
      // The runtime runs "on the device" as on the SoC; vendor samples require this.
      *run_mode = SVP_ACL_DEVICE;
      return Status::Ok();
    });
  });
}

svp_acl_error svp_acl_rt_synchronize_device(void) {
  return guard(__func__, [&] { return with_runtime([&](Runtime& rt) { return rt.synchronize_device(); }); });
}

svp_acl_error svp_acl_rt_get_device_count(uint32_t* count) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(require(count != nullptr, "count is NULL"));
    return with_runtime([&](Runtime& rt) -> Status {
      *count = rt.device_count();
      return Status::Ok();
    });
  });
}

// ---- events ----

svp_acl_error svp_acl_rt_create_event(svp_acl_rt_event* event) {
  return make_handle(__func__, event, [&](Runtime& rt) { return rt.create_event(true); });
}

svp_acl_error svp_acl_rt_create_event_with_flag(svp_acl_rt_event* event, uint32_t flag) {
  if ((flag & ~SVP_ACL_EVENT_TIME_LINE) != 0) {
    return guard(__func__, [&] {
      return Error(err::kInvalidParam, "unknown event flag bits {:#x} (only SVP_ACL_EVENT_TIME_LINE exists)",
                   flag & ~SVP_ACL_EVENT_TIME_LINE);
    });
  }
  const bool timeline = (flag & SVP_ACL_EVENT_TIME_LINE) != 0;
  return make_handle(__func__, event, [&](Runtime& rt) { return rt.create_event(timeline); });
}

svp_acl_error svp_acl_rt_destroy_event(svp_acl_rt_event event) {
  return guard(__func__, [&] { return with_runtime([&](Runtime& rt) { return rt.destroy_event(event); }); });
}

svp_acl_error svp_acl_rt_record_event(svp_acl_rt_event event, svp_acl_rt_stream stream) {
  return guard(__func__, [&] { return with_runtime([&](Runtime& rt) { return rt.record_event(event, stream); }); });
}

svp_acl_error svp_acl_rt_stream_wait_event(svp_acl_rt_stream stream, svp_acl_rt_event event) {
  return guard(__func__, [&] { return with_runtime([&](Runtime& rt) { return rt.stream_wait_event(stream, event); }); });
}

svp_acl_error svp_acl_rt_reset_event(svp_acl_rt_event event, svp_acl_rt_stream stream) {
  return guard(__func__, [&] { return with_runtime([&](Runtime& rt) { return rt.reset_event(event, stream); }); });
}

svp_acl_error svp_acl_rt_query_event(svp_acl_rt_event event, svp_acl_rt_event_status* status) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(require(status != nullptr, "status is NULL"));
    return with_runtime([&](Runtime& rt) -> Status {
      auto info = rt.query_event(event);
      if (!info.ok()) return info.status();
      // A never-recorded event is "not ready" (as in Ascend), so polling loops do not
      // mistake it for finished work.
      *status = info->state == svp::hal::EventState::kComplete ? SVP_ACL_EVENT_STATUS_COMPLETE
                                                                : SVP_ACL_EVENT_STATUS_NOT_READY;
      return Status::Ok();
    });
  });
}

svp_acl_error svp_acl_rt_query_event_wait_status(svp_acl_rt_event event, svp_acl_rt_event_wait_status* status) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(require(status != nullptr, "status is NULL"));
    return with_runtime([&](Runtime& rt) -> Status {
      auto info = rt.query_event(event);
      if (!info.ok()) return info.status();
      // Complete when the latest record has completed and no stream is still stalled on
      // the event.
      const bool done = info->state == svp::hal::EventState::kComplete && !info->waits_pending;
      *status = done ? SVP_ACL_EVENT_WAIT_STATUS_COMPLETE : SVP_ACL_EVENT_WAIT_STATUS_NOT_READY;
      return Status::Ok();
    });
  });
}

svp_acl_error svp_acl_rt_synchronize_event(svp_acl_rt_event event) {
  return guard(__func__, [&] { return with_runtime([&](Runtime& rt) { return rt.synchronize_event(event); }); });
}

svp_acl_error svp_acl_rt_event_elapsed_time(float* ms, svp_acl_rt_event start_event, svp_acl_rt_event end_event) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(require(ms != nullptr, "ms is NULL"));
    return with_runtime([&](Runtime& rt) -> Status {
      auto v = rt.event_elapsed_ms(start_event, end_event);
      if (!v.ok()) return v.status();
      *ms = *v;
      return Status::Ok();
    });
  });
}

// ---- memory ----

svp_acl_error svp_acl_rt_malloc(void** dev_ptr, size_t size, svp_acl_rt_mem_malloc_policy policy) {
  const Status p = check_policy(policy);
  if (!p.ok()) return guard(__func__, [&] { return p; });
  return do_malloc(__func__, dev_ptr, size, MemoryApi::kMalloc, 0);
}

svp_acl_error svp_acl_rt_malloc_cached(void** dev_ptr, size_t size, svp_acl_rt_mem_malloc_policy policy) {
  const Status p = check_policy(policy);
  if (!p.ok()) return guard(__func__, [&] { return p; });
  return do_malloc(__func__, dev_ptr, size, MemoryApi::kMallocCached, 0);
}

svp_acl_error svp_acl_rt_malloc_sec(void** dev_ptr, size_t size, size_t class_id) {
  return do_malloc(__func__, dev_ptr, size, MemoryApi::kMallocSec, class_id);
}

svp_acl_error svp_acl_rt_malloc_host(void** host_ptr, size_t size) {
  return do_malloc(__func__, host_ptr, size, MemoryApi::kMallocHost, 0);
}

svp_acl_error svp_acl_rt_mem_flush(const void* dev_ptr, size_t size) {
  return guard(__func__, [&] { return with_runtime([&](Runtime& rt) { return rt.mem_flush(dev_ptr, size); }); });
}

svp_acl_error svp_acl_rt_mem_invalidate(const void* dev_ptr, size_t size) {
  return guard(__func__, [&] { return with_runtime([&](Runtime& rt) { return rt.mem_invalidate(dev_ptr, size); }); });
}

svp_acl_error svp_acl_rt_free(const void* dev_ptr) { return do_free(__func__, dev_ptr, MemoryApi::kMalloc); }

svp_acl_error svp_acl_rt_free_sec(const void* dev_ptr) { return do_free(__func__, dev_ptr, MemoryApi::kMallocSec); }

svp_acl_error svp_acl_rt_free_host(const void* host_ptr) {
  return do_free(__func__, host_ptr, MemoryApi::kMallocHost);
}

// ---- streams ----

svp_acl_error svp_acl_rt_create_stream(svp_acl_rt_stream* stream) {
  return make_handle(__func__, stream, [&](Runtime& rt) { return rt.create_stream(); });
}

svp_acl_error svp_acl_rt_destroy_stream(svp_acl_rt_stream stream) {
  return guard(__func__, [&] { return with_runtime([&](Runtime& rt) { return rt.destroy_stream(stream); }); });
}

svp_acl_error svp_acl_rt_synchronize_stream(svp_acl_rt_stream stream) {
  return guard(__func__, [&] { return with_runtime([&](Runtime& rt) { return rt.synchronize_stream(stream); }); });
}

svp_acl_error svp_acl_rt_set_op_wait_timeout(uint32_t timeout) {
  return guard(__func__, [&]() -> Status {
    if (timeout > 4000000u) return Error(err::kInvalidParam, "timeout {} s is above the maximum 4000000 s", timeout);
    return with_runtime([&](Runtime& rt) -> Status {
      rt.set_op_wait_timeout(timeout);
      return Status::Ok();
    });
  });
}
