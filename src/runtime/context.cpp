// Contexts: a device plus a default stream; the thread-current context.
#include "common/log.h"
#include "runtime/runtime.h"

namespace svp::runtime {

extern thread_local void* t_current_context;

Result<std::shared_ptr<Context>> Runtime::make_context(std::uint32_t device, bool is_default) {
  auto ctx = std::make_shared<Context>();
  ctx->serial = next_serial_.fetch_add(1);
  ctx->device = device;
  ctx->is_default = is_default;
  auto stream = make_stream(*ctx, true);
  if (!stream.ok()) return stream.status();
  ctx->default_stream = std::move(*stream);
  auto handle = contexts_.insert(ctx);
  if (!handle.ok()) {
    if (streams_.take(ctx->default_stream->handle).ok()) teardown_stream(*ctx->default_stream);
    return handle.status();
  }
  ctx->handle = *handle;
  return ctx;
}

void Runtime::teardown_context(Context& ctx) {
  std::set<void*> streams;
  {
    std::lock_guard<std::mutex> lock(ctx.mu);
    streams.swap(ctx.streams);
  }
  for (void* h : streams) {
    auto s = streams_.take(h);
    if (s.ok()) teardown_stream(**s);
  }
  if (ctx.default_stream && streams_.take(ctx.default_stream->handle).ok()) teardown_stream(*ctx.default_stream);
}

Result<std::shared_ptr<Context>> Runtime::current_context() const {
  if (t_current_context == nullptr) {
    return Error(err::kInvalidResourceHandle,
                 "the calling thread has no current context: call svp_acl_rt_set_device or svp_acl_rt_create_context first");
  }
  auto ctx = contexts_.get(t_current_context);
  if (!ctx.ok()) {
    return Error(err::kInvalidResourceHandle,
                 "the current context of this thread was destroyed (or its device reset): {}", ctx.status().message());
  }
  return ctx;
}

Result<void*> Runtime::create_context(std::int32_t device) {
  SVP_RETURN_IF_ERROR(check_device(device));
  auto ctx = make_context(static_cast<std::uint32_t>(device), false);
  if (!ctx.ok()) return ctx.status();
  t_current_context = (*ctx)->handle;
  return (*ctx)->handle;
}

Status Runtime::destroy_context(void* handle) {
  auto ctx = contexts_.get(handle);
  if (!ctx.ok()) return ctx.status();
  if ((*ctx)->is_default) {
    return Error(err::kInvalidParam,
                 "the default context of device {} cannot be destroyed; svp_acl_rt_reset_device releases it",
                 (*ctx)->device);
  }
  auto taken = contexts_.take(handle);
  if (!taken.ok()) return taken.status();  // destroyed concurrently
  teardown_context(**taken);
  if (t_current_context == handle) t_current_context = nullptr;
  return Status::Ok();
}

Status Runtime::set_current_context(void* handle) {
  auto ctx = contexts_.get(handle);
  if (!ctx.ok()) return ctx.status();
  t_current_context = handle;
  return Status::Ok();
}

Result<void*> Runtime::get_current_context() const {
  auto ctx = current_context();
  if (!ctx.ok()) return ctx.status();
  return (*ctx)->handle;
}

}  // namespace svp::runtime
