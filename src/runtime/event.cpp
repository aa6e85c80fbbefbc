// Events: markers in streams that host threads and other streams can wait for.
#include "runtime/runtime.h"

namespace svp::runtime {

Result<std::shared_ptr<Event>> Runtime::resolve_event(void* handle) const { return events_.get(handle); }

Result<void*> Runtime::create_event(bool timeline) {
  auto ctx = current_context();
  if (!ctx.ok()) return ctx.status();
  hal::Device& dev = backend_->device((*ctx)->device);
  auto id = dev.create_event(timeline);
  if (!id.ok()) return id.status();
  auto ev = std::make_shared<Event>();
  ev->device = (*ctx)->device;
  ev->id = *id;
  auto handle = events_.insert(ev);
  if (!handle.ok()) {
    (void)dev.destroy_event(*id);
    return handle.status();
  }
  ev->handle = *handle;
  return *handle;
}

Status Runtime::destroy_event(void* handle) {
  auto ev = events_.take(handle);
  if (!ev.ok()) return ev.status();
  return backend_->device((*ev)->device).destroy_event((*ev)->id);
}

namespace {

// An event and a stream used together must live on the same device.
Status same_device(const Event& ev, const Stream& s) {
  if (ev.device != s.device) {
    return Error(err::kResourceNotMatch, "event of device {} used with a stream of device {}", ev.device, s.device);
  }
  return Status::Ok();
}

}  // namespace

Status Runtime::record_event(void* event, void* stream) {
  auto ev = resolve_event(event);
  if (!ev.ok()) return ev.status();
  auto s = resolve_stream(stream);
  if (!s.ok()) return s.status();
  SVP_RETURN_IF_ERROR(same_device(**ev, **s));
  return backend_->device((*s)->device).submit((*s)->sq, hal::Entry::Record((*ev)->id));
}

Status Runtime::reset_event(void* event, void* stream) {
  auto ev = resolve_event(event);
  if (!ev.ok()) return ev.status();
  auto s = resolve_stream(stream);
  if (!s.ok()) return s.status();
  SVP_RETURN_IF_ERROR(same_device(**ev, **s));
  return backend_->device((*s)->device).submit((*s)->sq, hal::Entry::Reset((*ev)->id));
}

Status Runtime::stream_wait_event(void* stream, void* event) {
  auto ev = resolve_event(event);
  if (!ev.ok()) return ev.status();
  auto s = resolve_stream(stream);
  if (!s.ok()) return s.status();
  SVP_RETURN_IF_ERROR(same_device(**ev, **s));
  return backend_->device((*s)->device).submit((*s)->sq, hal::Entry::Wait((*ev)->id));
}

Result<hal::EventInfo> Runtime::query_event(void* event) const {
  auto ev = resolve_event(event);
  if (!ev.ok()) return ev.status();
  return backend_->device((*ev)->device).query_event((*ev)->id);
}

Status Runtime::synchronize_event(void* event) {
  auto ev = resolve_event(event);
  if (!ev.ok()) return ev.status();
  return backend_->device((*ev)->device).synchronize_event((*ev)->id, wait_timeout());
}

Result<float> Runtime::event_elapsed_ms(void* start, void* end) const {
  auto a = resolve_event(start);
  if (!a.ok()) return a.status();
  auto b = resolve_event(end);
  if (!b.ok()) return b.status();
  if ((*a)->device != (*b)->device) return Error(err::kResourceNotMatch, "the two events live on different devices");
  return backend_->device((*a)->device).elapsed_ms((*a)->id, (*b)->id);
}

Result<std::uint64_t> Runtime::begin_host_record(void* event) {
  auto ev = resolve_event(event);
  if (!ev.ok()) return ev.status();
  return backend_->device((*ev)->device).begin_host_record((*ev)->id);
}

Status Runtime::complete_host_record(void* event, std::uint64_t record, Status error) {
  auto ev = resolve_event(event);
  if (!ev.ok()) return ev.status();
  return backend_->device((*ev)->device).complete_host_record((*ev)->id, record, std::move(error));
}

}  // namespace svp::runtime
