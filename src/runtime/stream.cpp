// Streams, and the work that goes into them: NPU tasks and host callbacks.
#include <pthread.h>

#include "common/log.h"
#include "runtime/runtime.h"

namespace svp::runtime {

Result<std::shared_ptr<Stream>> Runtime::make_stream(const Context& ctx, bool is_default) {
  hal::Device& dev = backend_->device(ctx.device);
  auto sq = dev.create_sq();
  if (!sq.ok()) return sq.status();
  auto s = std::make_shared<Stream>();
  s->serial = next_serial_.fetch_add(1);
  s->device = ctx.device;
  s->sq = *sq;
  s->context = ctx.serial;
  s->is_default = is_default;
  auto handle = streams_.insert(s);
  if (!handle.ok()) {
    dev.destroy_sq(*sq);
    return handle.status();
  }
  s->handle = *handle;
  return s;
}

void Runtime::teardown_stream(const Stream& s) {
  const std::size_t cancelled = backend_->device(s.device).destroy_sq(s.sq);
  if (cancelled > 0) {
    SVP_LOG_WARN("stream {} destroyed with {} queued entries not yet run; they were cancelled (synchronize the stream "
                 "before destroying it)",
                 s.handle, cancelled);
  }
  reporter_.forget_stream(s.serial);
}

Result<void*> Runtime::create_stream() {
  auto ctx = current_context();
  if (!ctx.ok()) return ctx.status();
  auto s = make_stream(**ctx, false);
  if (!s.ok()) return s.status();
  {
    // teardown_context empties this set under the same lock after taking the context's
    // handle, so checking the handle here decides who cleans the new stream up.
    std::lock_guard<std::mutex> lock((*ctx)->mu);
    if (contexts_.get((*ctx)->handle).ok()) {
      (*ctx)->streams.insert((*s)->handle);
      return (*s)->handle;
    }
  }
  if (streams_.take((*s)->handle).ok()) teardown_stream(**s);
  return Error(err::kInvalidResourceHandle, "the current context was destroyed while the stream was being created");
}

Status Runtime::destroy_stream(void* handle) {
  if (handle == nullptr) return Error(err::kInvalidParam, "the default stream (NULL) cannot be destroyed");
  auto ctx = current_context();
  if (!ctx.ok()) return ctx.status();
  auto s = streams_.get(handle);
  if (!s.ok()) return s.status();
  if ((*s)->context != (*ctx)->serial) {
    return Error(err::kResourceNotMatch, "stream {} belongs to another context than the thread's current one", handle);
  }
  {
    std::lock_guard<std::mutex> lock((*ctx)->mu);
    if ((*ctx)->streams.erase(handle) == 0) return Error(err::kInvalidResourceHandle, "stream {} was destroyed", handle);
  }
  if (streams_.take(handle).ok()) teardown_stream(**s);
  return Status::Ok();
}

Result<std::shared_ptr<Stream>> Runtime::resolve_stream(void* handle) const {
  auto ctx = current_context();
  if (!ctx.ok()) return ctx.status();
  if (handle == nullptr) return (*ctx)->default_stream;
  auto s = streams_.get(handle);
  if (!s.ok()) return s.status();
  if ((*s)->context != (*ctx)->serial) {
    return Error(err::kResourceNotMatch,
                 "stream {} belongs to another context than the calling thread's current one (set that context first)",
                 handle);
  }
  return s;
}

Status Runtime::synchronize_stream(void* handle) { return synchronize_stream(handle, wait_timeout()); }

Status Runtime::synchronize_stream(void* handle, hal::TimeoutMs timeout) {
  auto s = resolve_stream(handle);
  if (!s.ok()) return s.status();
  if (const Reporter::Running r = Reporter::running_callback(); r.active && r.stream == (*s)->serial) {
    // The wait would end only at the op wait timeout (120 s by default), with this error.
    return Error(err::kRtFailure,
                 "synchronize_stream: called inside a callback of that same stream, which cannot finish before the "
                 "callback returns (a deadlock); synchronize from another thread, or after process_report");
  }
  return backend_->device((*s)->device).synchronize_sq((*s)->sq, timeout);
}

Status Runtime::submit_task(void* stream, std::shared_ptr<hal::SegmentedTask> task, const hal::TaskSettings& settings) {
  auto s = resolve_stream(stream);
  if (!s.ok()) return s.status();
  return backend_->device((*s)->device).submit((*s)->sq, hal::Entry::Task(std::move(task), settings));
}

Status Runtime::subscribe_report(std::uint64_t thread_id, void* stream) {
  auto s = resolve_stream(stream);
  if (!s.ok()) return s.status();
  return reporter_.subscribe(thread_id, (*s)->device, (*s)->serial);
}

Status Runtime::unsubscribe_report(std::uint64_t thread_id, void* stream) {
  auto s = resolve_stream(stream);
  if (!s.ok()) return s.status();
  return reporter_.unsubscribe(thread_id, (*s)->serial);
}

Status Runtime::launch_callback(HostFn fn, void* data, bool block, void* stream) {
  if (fn == nullptr) return Error(err::kInvalidParam, "launch_callback: callback function is NULL");
  auto s = resolve_stream(stream);
  if (!s.ok()) return s.status();
  if (!reporter_.subscribed((*s)->serial)) {
    return Error(err::kStreamNotSubscribe,
                 "launch_callback: no thread is subscribed to this stream (call svp_acl_rt_subscribe_report first)");
  }
  const hal::ReportId id = reporter_.make_report(fn, data, block, (*s)->device, (*s)->serial, (*s)->sq);
  Status st = backend_->device((*s)->device).submit((*s)->sq, hal::Entry::Report(id, block));
  if (!st.ok()) reporter_.drop_report(id);
  return st;
}

Status Runtime::process_report(std::int32_t timeout_ms) {
  if (timeout_ms < -1) return Error(err::kInvalidParam, "process_report: timeout {} ms is invalid (-1 or >= 0)", timeout_ms);
  return reporter_.process(static_cast<std::uint64_t>(pthread_self()), timeout_ms);
}

}  // namespace svp::runtime
