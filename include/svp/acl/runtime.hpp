// svp::acl runtime objects: runtime (init/finalize), device (set/reset), context, stream,
// event. Header-only over the C API of include/acl.
//
// Ownership. Every object is a move-only handle. It holds a shared reference ("token") to
// what it depends on: a device and a model hold the runtime, a context holds its device,
// a stream and an event hold their context. The C resource behind a token is released
// when its last holder goes, so a stream can never outlive its context, nor anything
// outlive svp_acl_finalize: destroying the runtime handle first merely defers finalize.
// runtime::finalize() makes the end explicit and fails (SVP_ACL_ERROR_INVALID_PARAM, a
// message counting the holders) while other objects still hold the runtime.
// A moved-from or default-constructed handle is empty: its members report
// SVP_ACL_ERROR_INVALID_PARAM ("the object is empty") instead of crashing.
//
// Threading. The vendor binds streams to the calling thread's *current* context. Every
// member that needs one first makes the object's context current on the calling thread
// (svp_acl_rt_set_current_context) and does not restore the previous one; C code sharing
// the thread must set its own context again. Handles may be used from any thread, one
// thread at a time per handle (like the C handles); the asynchronous operations of
// svp/acl/asio.hpp are safe to start concurrently on one stream.
//
// Errors: see svp/acl/error.hpp (throwing members; `std::error_code&` overloads).
#pragma once

#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "acl/svp_acl.h"
#include "acl/svp_acl_rt.h"
#include "svp/acl/error.hpp"

namespace svp::acl {

namespace detail {

struct runtime_state {
  ~runtime_state() { (void)svp_acl_finalize(); }
};
using runtime_token = std::shared_ptr<runtime_state>;

struct device_state {
  runtime_token runtime;
  std::int32_t id = 0;
  ~device_state() { (void)svp_acl_rt_reset_device(id); }
};

inline status make_current(svp_acl_rt_context ctx) {
  return call(svp_acl_rt_set_current_context(ctx), "svp_acl_rt_set_current_context");
}

class reporter;
struct context_state;
struct stream_state;

// Operations waiting for a host callback of the C runtime (svp/acl/asio.hpp).
struct op_list;
struct pending_op {
  pending_op* prev = nullptr;
  pending_op* next = nullptr;
  op_list* list = nullptr;             // the list that tracks it until it completes
  stream_state* stream = nullptr;      // owner of `marker`
  svp_acl_rt_event marker = nullptr;   // pooled event recorded before the callback
  svp_acl_rt_event watched = nullptr;  // event::async_wait: the user's event
  // Runs the completion with `rc` (SVP_ACL_SUCCESS or the error of the work) or as
  // aborted, and deletes the operation.
  void (*complete)(pending_op* self, svp_acl_error rc, bool aborted) = nullptr;
};

// The unfinished operations of a stream (or of a context's event waits), so that work the
// runtime drops unrun (a stream torn down after a failed synchronize, finalize) still
// completes, as aborted, once nothing else can reach it.
struct op_list {
  std::mutex mu;
  pending_op* head = nullptr;

  void link(pending_op* op) {
    std::lock_guard<std::mutex> lock(mu);
    op->list = this;
    op->prev = nullptr;
    op->next = head;
    if (head != nullptr) head->prev = op;
    head = op;
  }
  void unlink(pending_op* op) {
    std::lock_guard<std::mutex> lock(mu);
    if (op->prev != nullptr) op->prev->next = op->next;
    if (op->next != nullptr) op->next->prev = op->prev;
    if (head == op) head = op->next;
    op->prev = op->next = nullptr;
  }
  pending_op* pop() {
    std::lock_guard<std::mutex> lock(mu);
    pending_op* op = head;
    if (op != nullptr) {
      head = op->next;
      if (head != nullptr) head->prev = nullptr;
      op->next = nullptr;
    }
    return op;
  }
};

// The C callback of every asynchronous operation; runs on the context's report thread.
void run_pending_op(void* p);

// One report thread per context: the thread that svp_acl_rt_subscribe_report names for
// every stream of the context used asynchronously. It blocks in
// svp_acl_rt_process_report(-1) (no polling); completions are posted from there.
// A private "control" stream carries the stop request and the barrier used at stream
// teardown; a second private stream carries event waits (lazily created).
class reporter {
 public:
  static std::unique_ptr<reporter> start(svp_acl_rt_context ctx, status& st) {
    std::unique_ptr<reporter> r(new reporter(ctx));
    st = r->run();
    if (st.failed()) r.reset();
    return r;
  }
  ~reporter() { stop(); }
  reporter(const reporter&) = delete;
  reporter& operator=(const reporter&) = delete;

  op_list event_waits;         // event waits in flight
  std::mutex event_submit_mu;  // keeps a wait and its callback adjacent on the wait stream

  std::uint64_t thread_id() const { return thread_id_; }
  bool on_report_thread() const { return std::this_thread::get_id() == thread_.get_id(); }

  // Needs the context current on the calling thread.
  status subscribe(svp_acl_rt_stream s) {
    return call(svp_acl_rt_subscribe_report(thread_id_, s), "svp_acl_rt_subscribe_report");
  }

  // Returns once every callback the C runtime had handed to the report thread before the
  // call has returned. Needs the context current on the calling thread.
  void barrier() {
    if (on_report_thread()) return;  // nothing of ours can be running concurrently
    barrier_op b;
    b.owner = this;
    if (svp_acl_rt_launch_callback(&reporter::on_barrier, &b, SVP_ACL_CALLBACK_NO_BLOCK, control_) !=
        SVP_ACL_SUCCESS) {
      return;  // the thread is gone (finalize); nothing runs on it any more
    }
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return b.done || exited_; });
  }

  // The stream that carries event waits (svp_acl_rt_stream_wait_event + callback).
  status event_stream(svp_acl_rt_stream& out) {
    std::lock_guard<std::mutex> lock(mu_);
    if (events_ == nullptr) {
      svp_acl_rt_stream s = nullptr;
      status st = call(svp_acl_rt_create_stream(&s), "svp_acl_rt_create_stream");
      if (st.failed()) return st;
      st = subscribe(s);
      if (st.failed()) {
        (void)svp_acl_rt_destroy_stream(s);
        return st;
      }
      events_ = s;
    }
    out = events_;
    return {};
  }

 private:
  struct barrier_op {
    reporter* owner = nullptr;
    bool done = false;
  };

  explicit reporter(svp_acl_rt_context ctx) : ctx_(ctx) {}

  status run() {
    status st = make_current(ctx_);
    if (st.failed()) return st;
    st = call(svp_acl_rt_create_stream(&control_), "svp_acl_rt_create_stream");
    if (st.failed()) return st;
    std::promise<bool> go;
    std::future<bool> started = go.get_future();
    thread_ = std::thread([this, f = std::move(started)]() mutable { loop(f.get()); });
    thread_id_ = static_cast<std::uint64_t>(thread_.native_handle());
    st = subscribe(control_);
    go.set_value(!st.failed());
    if (st.failed()) {
      thread_.join();
      (void)svp_acl_rt_destroy_stream(control_);
      control_ = nullptr;
    }
    return st;
  }

  void loop(bool subscribed) {
    while (subscribed && !quit_.load(std::memory_order_acquire)) {
      const svp_acl_error rc = svp_acl_rt_process_report(-1);
      // A timeout cannot happen with -1; anything else but success means the runtime is
      // going away (finalize) and nothing will be delivered any more.
      if (rc != SVP_ACL_SUCCESS && rc != SVP_ACL_ERROR_RT_REPORT_TIMEOUT) break;
    }
    std::lock_guard<std::mutex> lock(mu_);
    exited_ = true;
    cv_.notify_all();
  }

  static void on_barrier(void* p) {
    auto* b = static_cast<barrier_op*>(p);
    std::lock_guard<std::mutex> lock(b->owner->mu_);
    b->done = true;
    b->owner->cv_.notify_all();
  }
  static void on_quit(void* p) { static_cast<reporter*>(p)->quit_.store(true, std::memory_order_release); }

  void stop() {
    if (!thread_.joinable()) return;
    (void)make_current(ctx_);
    if (svp_acl_rt_launch_callback(&reporter::on_quit, this, SVP_ACL_CALLBACK_NO_BLOCK, control_) !=
        SVP_ACL_SUCCESS) {
      // The runtime no longer delivers callbacks; the loop has ended or ends at once.
      quit_.store(true, std::memory_order_release);
    }
    thread_.join();
    if (events_ != nullptr) (void)svp_acl_rt_destroy_stream(events_);
    (void)svp_acl_rt_destroy_stream(control_);
    // The report thread is gone: event waits the runtime did not deliver end here.
    while (pending_op* op = event_waits.pop()) op->complete(op, SVP_ACL_ERROR_FAILURE, true);
  }

  svp_acl_rt_context ctx_;
  svp_acl_rt_stream control_ = nullptr;
  svp_acl_rt_stream events_ = nullptr;
  std::thread thread_;
  std::uint64_t thread_id_ = 0;
  std::atomic<bool> quit_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  bool exited_ = false;
};

struct context_state {
  runtime_token runtime;
  std::shared_ptr<device_state> device;
  svp_acl_rt_context handle = nullptr;
  std::mutex mu;
  std::unique_ptr<reporter> report;  // created by the first asynchronous operation

  // The context's report thread, started on first use. Needs the context current.
  status get_reporter(reporter*& out) {
    std::lock_guard<std::mutex> lock(mu);
    if (!report) {
      status st;
      report = reporter::start(handle, st);
      if (st.failed()) return st;
    }
    out = report.get();
    return {};
  }

  ~context_state() {
    report.reset();  // joins the report thread; every stream of ours is gone already
    (void)svp_acl_rt_destroy_context(handle);
  }
};

struct stream_state {
  std::shared_ptr<context_state> context;
  svp_acl_rt_stream handle = nullptr;
  std::mutex mu;
  bool subscribed = false;
  std::vector<svp_acl_rt_event> spare_markers;
  op_list ops;            // asynchronous operations in flight
  std::mutex submit_mu;   // keeps an operation's work, marker and callback adjacent

  // Makes the stream usable with svp_acl_rt_launch_callback. Needs the context current.
  status ensure_subscribed(reporter*& rep) {
    status st = context->get_reporter(rep);
    if (st.failed()) return st;
    std::lock_guard<std::mutex> lock(mu);
    if (subscribed) return {};
    st = rep->subscribe(handle);
    if (!st.failed()) subscribed = true;
    return st;
  }

  // A completion marker: an event recorded right after the work, so the callback can ask
  // for the work's error without waiting. Needs the context current.
  status take_marker(svp_acl_rt_event& ev) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!spare_markers.empty()) {
        ev = spare_markers.back();
        spare_markers.pop_back();
        return {};
      }
    }
    return call(svp_acl_rt_create_event_with_flag(&ev, 0), "svp_acl_rt_create_event_with_flag");
  }
  void give_back_marker(svp_acl_rt_event ev) {
    std::lock_guard<std::mutex> lock(mu);
    spare_markers.push_back(ev);
  }

  ~stream_state() {
    (void)make_current(context->handle);
    // Vendor rule: synchronize before destroying. This also runs every callback already
    // launched, so asynchronous operations complete normally.
    (void)svp_acl_rt_synchronize_stream(handle);
    (void)svp_acl_rt_destroy_stream(handle);
    if (subscribed && context->report) context->report->barrier();
    // Whatever the runtime dropped unrun (synchronize timed out, finalize) completes as
    // aborted: nobody else can reach these operations any more.
    while (pending_op* op = ops.pop()) {
      if (op->marker != nullptr) spare_markers.push_back(op->marker);
      op->marker = nullptr;
      op->complete(op, SVP_ACL_ERROR_FAILURE, true);
    }
    for (svp_acl_rt_event ev : spare_markers) (void)svp_acl_rt_destroy_event(ev);
  }
};

struct event_state {
  std::shared_ptr<context_state> context;
  svp_acl_rt_event handle = nullptr;
  ~event_state() { (void)svp_acl_rt_destroy_event(handle); }
};

inline void run_pending_op(void* p) {
  auto* op = static_cast<pending_op*>(p);
  op->list->unlink(op);
  svp_acl_error rc = SVP_ACL_SUCCESS;
  if (op->marker != nullptr) {
    // Recorded right before this callback, so complete: returns the work's error at once.
    rc = svp_acl_rt_synchronize_event(op->marker);
    op->stream->give_back_marker(op->marker);
    op->marker = nullptr;
  } else if (op->watched != nullptr) {
    svp_acl_rt_event_status s = SVP_ACL_EVENT_STATUS_NOT_READY;
    rc = svp_acl_rt_query_event(op->watched, &s);
    // NOT_READY: re-recorded since the wait was issued; the awaited record is done and
    // its error is no longer known, so it is reported as success.
    if (rc == SVP_ACL_SUCCESS && s == SVP_ACL_EVENT_STATUS_COMPLETE) rc = svp_acl_rt_synchronize_event(op->watched);
  }
  op->complete(op, rc, false);
}

}  // namespace detail

class device;
class context;
class stream;
class event;

// svp_acl_init / svp_acl_finalize. One per process at a time (a second one fails with
// SVP_ACL_ERROR_REPEAT_INITIALIZE). Finalize runs when the handle and every object made
// from it are gone, or at finalize().
class runtime {
 public:
  runtime() = default;  // empty; use runtime::init
  static runtime init(const char* config_path = nullptr) {
    runtime r;
    detail::raise_if(r.open(config_path));
    return r;
  }
  static runtime init(const char* config_path, std::error_code& ec) {
    runtime r;
    detail::assign(r.open(config_path), ec);
    return r;
  }

  runtime(runtime&&) noexcept = default;
  runtime& operator=(runtime&&) noexcept = default;
  runtime(const runtime&) = delete;
  runtime& operator=(const runtime&) = delete;

  explicit operator bool() const noexcept { return token_ != nullptr; }

  // Finalizes now. Fails while other objects still hold the runtime (they would be left
  // with dangling C handles); the handle stays valid then.
  void finalize() { detail::raise_if(do_finalize()); }
  void finalize(std::error_code& ec) { detail::assign(do_finalize(), ec); }

  const detail::runtime_token& token() const noexcept { return token_; }

 private:
  detail::status open(const char* config_path) {
    detail::status st = detail::call(svp_acl_init(config_path), "svp_acl_init");
    if (!st.failed()) token_ = std::make_shared<detail::runtime_state>();
    return st;
  }
  detail::status do_finalize() {
    if (!token_) return detail::moved_from("svp::acl::runtime::finalize");
    const long holders = token_.use_count() - 1;
    if (holders > 0) {
      return detail::fail(SVP_ACL_ERROR_INVALID_PARAM, "svp::acl::runtime::finalize",
                          std::to_string(holders) +
                              " object(s) (devices, models, memory, ...) still hold the runtime; destroy them first");
    }
    token_.reset();  // ~runtime_state calls svp_acl_finalize
    return {};
  }

  detail::runtime_token token_;
};

// svp_acl_rt_set_device / svp_acl_rt_reset_device (reference counted by the C runtime).
// Setting the device also makes its default context current on the calling thread.
class device {
 public:
  device() = default;
  device(const runtime& rt, std::int32_t id) { detail::raise_if(open(rt, id)); }
  device(const runtime& rt, std::int32_t id, std::error_code& ec) { detail::assign(open(rt, id), ec); }

  device(device&&) noexcept = default;
  device& operator=(device&&) noexcept = default;

  explicit operator bool() const noexcept { return state_ != nullptr; }
  std::int32_t id() const noexcept { return state_ ? state_->id : -1; }

  // Blocks until all work of the device has finished (svp_acl_rt_synchronize_device on
  // the device's default context).
  void synchronize() { detail::raise_if(sync()); }
  void synchronize(std::error_code& ec) { detail::assign(sync(), ec); }

  const std::shared_ptr<detail::device_state>& state() const noexcept { return state_; }

 private:
  detail::status open(const runtime& rt, std::int32_t id) {
    if (!rt) return detail::moved_from("svp::acl::device");
    detail::status st = detail::call(svp_acl_rt_set_device(id), "svp_acl_rt_set_device");
    if (st.failed()) return st;
    state_ = std::make_shared<detail::device_state>();
    state_->runtime = rt.token();
    state_->id = id;
    return {};
  }
  detail::status sync() {
    if (!state_) return detail::moved_from("svp::acl::device::synchronize");
    // The default context of the device is what set_device made current.
    detail::status st = detail::call(svp_acl_rt_set_device(state_->id), "svp_acl_rt_set_device");
    if (st.failed()) return st;
    st = detail::call(svp_acl_rt_synchronize_device(), "svp_acl_rt_synchronize_device");
    (void)svp_acl_rt_reset_device(state_->id);
    return st;
  }

  std::shared_ptr<detail::device_state> state_;
};

// svp_acl_rt_create_context / svp_acl_rt_destroy_context. Holds its device. Also owns the
// context's report thread once an asynchronous operation needs it (svp/acl/asio.hpp).
class context {
 public:
  context() = default;
  explicit context(const device& dev) { detail::raise_if(open(dev)); }
  context(const device& dev, std::error_code& ec) { detail::assign(open(dev), ec); }

  context(context&&) noexcept = default;
  context& operator=(context&&) noexcept = default;

  explicit operator bool() const noexcept { return state_ != nullptr; }
  svp_acl_rt_context native_handle() const noexcept { return state_ ? state_->handle : nullptr; }

  // Makes the context current on the calling thread.
  void make_current() const { detail::raise_if(current()); }
  void make_current(std::error_code& ec) const { detail::assign(current(), ec); }

  const std::shared_ptr<detail::context_state>& state() const noexcept { return state_; }

 private:
  detail::status open(const device& dev) {
    if (!dev) return detail::moved_from("svp::acl::context");
    svp_acl_rt_context h = nullptr;
    detail::status st = detail::call(svp_acl_rt_create_context(&h, dev.id()), "svp_acl_rt_create_context");
    if (st.failed()) return st;
    state_ = std::make_shared<detail::context_state>();
    state_->runtime = dev.state()->runtime;
    state_->device = dev.state();
    state_->handle = h;
    return {};
  }
  detail::status current() const {
    if (!state_) return detail::moved_from("svp::acl::context::make_current");
    return detail::make_current(state_->handle);
  }

  std::shared_ptr<detail::context_state> state_;
};

// An explicit stream of a context. Destroying it synchronizes it first (the vendor's
// rule): the destructor blocks until the stream's work, and the completions of its
// asynchronous operations, are done (bounded by svp_acl_rt_set_op_wait_timeout).
class stream {
 public:
  stream() = default;
  explicit stream(const context& ctx) { detail::raise_if(open(ctx)); }
  stream(const context& ctx, std::error_code& ec) { detail::assign(open(ctx), ec); }

  stream(stream&&) noexcept = default;
  stream& operator=(stream&&) noexcept = default;

  explicit operator bool() const noexcept { return state_ != nullptr; }
  svp_acl_rt_stream native_handle() const noexcept { return state_ ? state_->handle : nullptr; }

  // Blocks until the stream's work is done; returns (and clears) the first error of that
  // work, as svp_acl_rt_synchronize_stream does.
  void synchronize() { detail::raise_if(sync()); }
  void synchronize(std::error_code& ec) { detail::assign(sync(), ec); }

  // Asynchronous wait for everything enqueued so far (svp/acl/asio.hpp, which defines it).
  template <class CompletionToken>
  auto async_wait(CompletionToken&& token) const;

  // Makes later work of this stream wait for `ev` (svp_acl_rt_stream_wait_event).
  void wait(const event& ev);
  void wait(const event& ev, std::error_code& ec);

  const std::shared_ptr<detail::stream_state>& state() const noexcept { return state_; }

 private:
  detail::status open(const context& ctx) {
    if (!ctx) return detail::moved_from("svp::acl::stream");
    detail::status st = detail::make_current(ctx.native_handle());
    if (st.failed()) return st;
    svp_acl_rt_stream h = nullptr;
    st = detail::call(svp_acl_rt_create_stream(&h), "svp_acl_rt_create_stream");
    if (st.failed()) return st;
    state_ = std::make_shared<detail::stream_state>();
    state_->context = ctx.state();
    state_->handle = h;
    return {};
  }
  detail::status sync() {
    if (!state_) return detail::moved_from("svp::acl::stream::synchronize");
    detail::status st = detail::make_current(state_->context->handle);
    if (st.failed()) return st;
    return detail::call(svp_acl_rt_synchronize_stream(state_->handle), "svp_acl_rt_synchronize_stream");
  }
  detail::status wait_for(const event& ev);

  std::shared_ptr<detail::stream_state> state_;
};

// An event of a context (svp_acl_rt_create_event[_with_flag] / svp_acl_rt_destroy_event).
class event {
 public:
  event() = default;
  explicit event(const context& ctx, std::uint32_t flags = SVP_ACL_EVENT_TIME_LINE) {
    detail::raise_if(open(ctx, flags));
  }
  event(const context& ctx, std::uint32_t flags, std::error_code& ec) { detail::assign(open(ctx, flags), ec); }

  event(event&&) noexcept = default;
  event& operator=(event&&) noexcept = default;

  explicit operator bool() const noexcept { return state_ != nullptr; }
  svp_acl_rt_event native_handle() const noexcept { return state_ ? state_->handle : nullptr; }

  // Marks the current end of `s`; the event completes when everything before it has.
  void record(const stream& s) { detail::raise_if(do_record(s)); }
  void record(const stream& s, std::error_code& ec) { detail::assign(do_record(s), ec); }

  // Blocks until the latest record completes; returns that work's error. Fails
  // (SVP_ACL_ERROR_INVALID_PARAM) for an event never recorded.
  void synchronize() { detail::raise_if(sync()); }
  void synchronize(std::error_code& ec) { detail::assign(sync(), ec); }

  // True once the latest record has completed (false also when never recorded).
  bool query() const {
    bool done = false;
    detail::raise_if(do_query(done));
    return done;
  }
  bool query(std::error_code& ec) const {
    bool done = false;
    detail::assign(do_query(done), ec);
    return done;
  }

  // Asynchronous wait for the latest record (svp/acl/asio.hpp, which defines it).
  template <class CompletionToken>
  auto async_wait(CompletionToken&& token) const;

  // Milliseconds between the completions of `start` and this event (timeline events).
  float elapsed_since(const event& start) const {
    float ms = 0;
    detail::raise_if(elapsed(start, ms));
    return ms;
  }

  const std::shared_ptr<detail::event_state>& state() const noexcept { return state_; }

 private:
  detail::status open(const context& ctx, std::uint32_t flags) {
    if (!ctx) return detail::moved_from("svp::acl::event");
    detail::status st = detail::make_current(ctx.native_handle());
    if (st.failed()) return st;
    svp_acl_rt_event h = nullptr;
    st = detail::call(svp_acl_rt_create_event_with_flag(&h, flags), "svp_acl_rt_create_event_with_flag");
    if (st.failed()) return st;
    state_ = std::make_shared<detail::event_state>();
    state_->context = ctx.state();
    state_->handle = h;
    return {};
  }
  detail::status do_record(const stream& s) {
    if (!state_ || !s) return detail::moved_from("svp::acl::event::record");
    detail::status st = detail::make_current(s.state()->context->handle);
    if (st.failed()) return st;
    return detail::call(svp_acl_rt_record_event(state_->handle, s.native_handle()), "svp_acl_rt_record_event");
  }
  detail::status sync() {
    if (!state_) return detail::moved_from("svp::acl::event::synchronize");
    return detail::call(svp_acl_rt_synchronize_event(state_->handle), "svp_acl_rt_synchronize_event");
  }
  detail::status do_query(bool& done) const {
    if (!state_) return detail::moved_from("svp::acl::event::query");
    svp_acl_rt_event_status s = SVP_ACL_EVENT_STATUS_NOT_READY;
    detail::status st = detail::call(svp_acl_rt_query_event(state_->handle, &s), "svp_acl_rt_query_event");
    done = s == SVP_ACL_EVENT_STATUS_COMPLETE;
    return st;
  }
  detail::status elapsed(const event& start, float& ms) const {
    if (!state_ || !start) return detail::moved_from("svp::acl::event::elapsed_since");
    return detail::call(svp_acl_rt_event_elapsed_time(&ms, start.native_handle(), state_->handle),
                        "svp_acl_rt_event_elapsed_time");
  }

  std::shared_ptr<detail::event_state> state_;
};

inline detail::status stream::wait_for(const event& ev) {
  if (!state_ || !ev) return detail::moved_from("svp::acl::stream::wait");
  detail::status st = detail::make_current(state_->context->handle);
  if (st.failed()) return st;
  return detail::call(svp_acl_rt_stream_wait_event(state_->handle, ev.native_handle()), "svp_acl_rt_stream_wait_event");
}
inline void stream::wait(const event& ev) { detail::raise_if(wait_for(ev)); }
inline void stream::wait(const event& ev, std::error_code& ec) { detail::assign(wait_for(ev), ec); }

}  // namespace svp::acl
