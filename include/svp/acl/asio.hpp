// svp::acl + Boost.Asio: NPU work that completes into an application's executors.
//
//   svp::acl::async_execute(model, in, out, stream, token);   // void(error_code)
//   svp::acl::async_wait(stream, token);                      // everything enqueued so far
//   svp::acl::async_wait(event, token);                       // the event's latest record
//
// `token` is any Asio completion token: a callback, asio::use_future,
// asio::use_awaitable (C++20 coroutines), asio::bind_executor(strand, f), ...
//
// Availability. This header is active when <boost/asio.hpp> can be included (Debian
// libboost-dev; header-only, nothing to link). SVP_ACL_WITH_ASIO says whether it is
// (1/0); define it to 0 beforehand to leave Asio out even when Boost is installed.
// Nothing of the library depends on Boost: libsvp_acl.so keeps its C ABI.
//
// How completions travel. Each context has one report thread (svp/acl/runtime.hpp),
// subscribed (svp_acl_rt_subscribe_report) to every stream used asynchronously and
// blocked in svp_acl_rt_process_report(-1). An operation enqueues its work, a private
// completion marker (an event record) and a NO_BLOCK host callback
// (svp_acl_rt_launch_callback). When the stream reaches the callback, the report thread
// reads the work's error from the marker and posts the handler to the handler's
// associated executor (asio::system_executor when it has none): handlers never run inside
// an initiating function, nor on the report thread unless their executor runs work inline
// (use_future's promise is fulfilled there). No thread per operation, no polling.
//
// Errors. The handler gets a boost::system::error_code: empty on success; in
// svp::acl::asio_category() with the vendor code when the NPU work (or starting it)
// failed; asio::error::operation_aborted when the work was dropped unrun (see
// cancellation). As with svp_acl_rt_synchronize_stream, an NPU failure is the stream's
// "first error since the last synchronize": later operations of the same stream report
// it too until stream::synchronize() clears it.
//
// Cancellation. Work handed to the NPU cannot be recalled (the vendor API has no
// cancel), and Boost 1.74 Asio has no per-operation cancellation slots, so operations are
// not cancellable one by one. Destroying the stream synchronizes it (its operations
// complete normally); an operation completes with operation_aborted only when the runtime
// drops its callback unrun: the stream's synchronize failed (timeout) before it was
// destroyed, or its context was torn down while an event wait was pending.
//
// Work tracking and io_context stop. An operation counts as outstanding work of its
// handler's executor from initiation until its handler has been posted, so
// io_context::run() does not return while NPU work is in flight. If the io_context is
// stopped meanwhile, the NPU work still finishes and its completion is queued; it runs
// after restart() + run(). If the io_context is destroyed (or shut down) first, pending
// completions are destroyed without being invoked, as Asio does with its own operations;
// the NPU work, the model and the datasets it uses stay alive until it has finished.
//
// Lifetimes. An operation holds the model and the datasets it uses (their C handles stay
// valid until it completes), and the stream/context/runtime may be destroyed at any time:
// destruction waits for the operations, see svp/acl/runtime.hpp.
#pragma once

#ifndef SVP_ACL_WITH_ASIO
#if __has_include(<boost/asio.hpp>)
#define SVP_ACL_WITH_ASIO 1
#else
#define SVP_ACL_WITH_ASIO 0
#endif
#endif

#if SVP_ACL_WITH_ASIO

// Standard headers first: Boost 1.74's awaitable.hpp uses std::exchange without
// including <utility>, which GCC 12 no longer provides indirectly.
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/execution.hpp>
#include <boost/asio/execution_context.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/system_executor.hpp>
#include <boost/system/error_code.hpp>

#include "svp/acl/model.hpp"
#include "svp/acl/runtime.hpp"

namespace svp::acl {

namespace detail {
class asio_category_impl final : public boost::system::error_category {
 public:
  const char* name() const noexcept override { return "svp_acl"; }
  std::string message(int code) const override { return code_name(code); }
};
}  // namespace detail

// The category of svp_acl codes for Boost.System error codes (what Asio handlers get).
inline const boost::system::error_category& asio_category() noexcept {
  static const detail::asio_category_impl instance;
  return instance;
}

namespace detail {

namespace net = boost::asio;

// Keeps an executor's context from running out of work (standard or Networking TS
// executors alike).
template <class Ex, class = void>
struct work_tracker {
  explicit work_tracker(const Ex& ex) : guard(ex) {}
  Ex executor() const { return guard.get_executor(); }
  net::executor_work_guard<Ex> guard;
};
template <class Ex>
struct work_tracker<Ex, std::enable_if_t<net::execution::is_executor<Ex>::value>> {
  explicit work_tracker(const Ex& e) : ex(net::prefer(e, net::execution::outstanding_work.tracked)) {}
  const auto& executor() const { return ex; }
  std::decay_t<decltype(net::prefer(std::declval<const Ex&>(), net::execution::outstanding_work.tracked))> ex;
};

// Completions not yet posted to one execution context. When the context shuts down
// (io_context destroyed), their handlers are destroyed unrun and the operations, still
// referenced by the C runtime, only free themselves when the NPU reports back.
struct completion_registry {
  // What an orphaned operation gives up: its handler and work, destroyed after the lock
  // is released (a handler's destructor may block on the NPU, whose completions need it).
  struct remains {
    virtual ~remains() = default;
  };
  struct node {
    node* prev = nullptr;
    node* next = nullptr;
    virtual std::unique_ptr<remains> orphan() = 0;

   protected:
    ~node() = default;
  };
  std::mutex mu;
  bool shut_down = false;
  node* head = nullptr;

  bool attach(node* n) {
    std::lock_guard<std::mutex> lock(mu);
    if (shut_down) return false;
    n->next = head;
    if (head != nullptr) head->prev = n;
    head = n;
    return true;
  }
  void detach_locked(node* n) {
    if (n->prev != nullptr) n->prev->next = n->next;
    if (n->next != nullptr) n->next->prev = n->prev;
    if (head == n) head = n->next;
    n->prev = n->next = nullptr;
  }
};

class completion_service final : public net::execution_context::service {
 public:
  using key_type = completion_service;
  static inline net::execution_context::id id;

  explicit completion_service(net::execution_context& ctx)
      : net::execution_context::service(ctx), registry_(std::make_shared<completion_registry>()) {}
  const std::shared_ptr<completion_registry>& registry() const { return registry_; }

 private:
  void shutdown() override {
    std::vector<std::unique_ptr<completion_registry::remains>> unrun;
    {
      std::lock_guard<std::mutex> lock(registry_->mu);
      registry_->shut_down = true;
      while (completion_registry::node* n = registry_->head) {
        registry_->detach_locked(n);
        unrun.push_back(n->orphan());
      }
    }
  }
  std::shared_ptr<completion_registry> registry_;
};

template <class Ex, class = void>
struct has_context_member : std::false_type {};
template <class Ex>
struct has_context_member<Ex, std::void_t<decltype(std::declval<const Ex&>().context())>> : std::true_type {};

// The registry of the executor's execution context; executors without one (e.g. the
// promise executor of use_future) share a registry that never shuts down.
template <class Ex>
std::shared_ptr<completion_registry> registry_for(const Ex& ex) {
  if constexpr (net::can_query<const Ex&, net::execution::context_t>::value) {
    net::execution_context& ctx = net::query(ex, net::execution::context);
    return net::use_service<completion_service>(ctx).registry();
  } else if constexpr (has_context_member<Ex>::value) {
    net::execution_context& ctx = ex.context();
    return net::use_service<completion_service>(ctx).registry();
  } else {
    static const auto contextless = std::make_shared<completion_registry>();
    return contextless;
  }
}

inline boost::system::error_code to_asio_error(svp_acl_error rc, bool aborted) {
  if (aborted) return net::error::operation_aborted;
  if (rc == SVP_ACL_SUCCESS) return {};
  return {rc, asio_category()};
}

template <class Handler>
class async_op final : public pending_op, public completion_registry::node {
 public:
  using executor_type = net::associated_executor_t<Handler, net::system_executor>;

  template <class H>
  explicit async_op(H&& h) : handler_(std::in_place, std::forward<H>(h)) {
    const executor_type ex = net::get_associated_executor(*handler_, net::system_executor());
    work_.emplace(ex);
    registry_ = registry_for(ex);
    if (!registry_->attach(this)) {
      // The execution context is already shut down: nothing will ever run the handler.
      auto unrun = orphan();
    }
    complete = &async_op::finish;
  }

  std::shared_ptr<model_state> model;
  std::shared_ptr<dataset_state> input;
  std::shared_ptr<dataset_state> output;

 private:
  struct held final : completion_registry::remains {
    std::optional<Handler> handler;
    std::optional<work_tracker<executor_type>> work;
  };

  static void finish(pending_op* base, svp_acl_error rc, bool aborted) {
    std::unique_ptr<async_op> self(static_cast<async_op*>(base));
    const boost::system::error_code ec = to_asio_error(rc, aborted);
    std::lock_guard<std::mutex> lock(self->registry_->mu);
    if (!self->handler_) return;  // the execution context shut down: nothing to call
    self->registry_->detach_locked(self.get());
    auto ex = self->work_->executor();
    net::post(ex, [h = std::move(*self->handler_), ec]() mutable { h(ec); });
  }
  std::unique_ptr<completion_registry::remains> orphan() override {
    auto r = std::make_unique<held>();
    if (handler_) r->handler.emplace(std::move(*handler_));
    if (work_) r->work.emplace(std::move(*work_));
    handler_.reset();
    work_.reset();
    return r;
  }

  std::optional<Handler> handler_;
  std::optional<work_tracker<executor_type>> work_;
  std::shared_ptr<completion_registry> registry_;
};

// Enqueues [work], a completion marker and the callback on `s`, atomically with respect to
// other operations on the stream. On failure the operation is completed with the error
// (never inline: the handler is posted).
template <class Work>
void launch(pending_op* op, stream_state& s, Work&& work) {
  std::lock_guard<std::mutex> submit(s.submit_mu);
  bool enqueued = false;
  status st = make_current(s.context->handle);
  reporter* rep = nullptr;
  if (!st.failed()) st = s.ensure_subscribed(rep);
  if (!st.failed()) {
    st = work();
    enqueued = !st.failed();
  }
  svp_acl_rt_event marker = nullptr;
  if (!st.failed()) st = s.take_marker(marker);
  if (!st.failed()) {
    st = call(svp_acl_rt_record_event(marker, s.handle), "svp_acl_rt_record_event");
    if (st.failed()) s.give_back_marker(marker);
  }
  if (!st.failed()) {
    op->stream = &s;
    op->marker = marker;
    s.ops.link(op);
    st = call(svp_acl_rt_launch_callback(&run_pending_op, op, SVP_ACL_CALLBACK_NO_BLOCK, s.handle),
              "svp_acl_rt_launch_callback");
    if (!st.failed()) return;
    s.ops.unlink(op);
    s.give_back_marker(marker);
    op->marker = nullptr;
  }
  // The work may already be queued and must not lose its model and datasets while the
  // NPU uses them: wait for it before completing with the error.
  if (enqueued) (void)svp_acl_rt_synchronize_stream(s.handle);
  op->complete(op, st.code, false);
}

struct initiate_execute {
  template <class Handler>
  void operator()(Handler&& handler, std::shared_ptr<model_state> m, std::shared_ptr<dataset_state> in,
                  std::shared_ptr<dataset_state> out, std::shared_ptr<stream_state> s) const {
    auto* op = new async_op<std::decay_t<Handler>>(std::forward<Handler>(handler));
    op->model = std::move(m);
    op->input = std::move(in);
    op->output = std::move(out);
    if (!s || !op->model || !op->input || !op->output) {
      op->complete(op, SVP_ACL_ERROR_INVALID_PARAM, false);
      return;
    }
    launch(op, *s, [&] {
      return call(svp_acl_mdl_execute_async(op->model->id, op->input->handle, op->output->handle, s->handle),
                  "svp_acl_mdl_execute_async");
    });
  }
};

struct initiate_stream_wait {
  template <class Handler>
  void operator()(Handler&& handler, std::shared_ptr<stream_state> s) const {
    auto* op = new async_op<std::decay_t<Handler>>(std::forward<Handler>(handler));
    if (!s) {
      op->complete(op, SVP_ACL_ERROR_INVALID_PARAM, false);
      return;
    }
    launch(op, *s, [] { return status{}; });
  }
};

struct initiate_event_wait {
  template <class Handler>
  void operator()(Handler&& handler, std::shared_ptr<event_state> ev) const {
    auto* op = new async_op<std::decay_t<Handler>>(std::forward<Handler>(handler));
    if (!ev) {
      op->complete(op, SVP_ACL_ERROR_INVALID_PARAM, false);
      return;
    }
    context_state& ctx = *ev->context;
    status st = make_current(ctx.handle);
    reporter* rep = nullptr;
    if (!st.failed()) st = ctx.get_reporter(rep);
    if (st.failed()) {
      op->complete(op, st.code, false);
      return;
    }
    std::lock_guard<std::mutex> submit(rep->event_submit_mu);
    svp_acl_rt_stream waits = nullptr;
    st = rep->event_stream(waits);
    if (!st.failed()) {
      st = call(svp_acl_rt_stream_wait_event(waits, ev->handle), "svp_acl_rt_stream_wait_event");
    }
    if (!st.failed()) {
      op->watched = ev->handle;
      rep->event_waits.link(op);
      // The C callback gets the pending_op subobject, which need not be at offset 0.
      pending_op* base = op;
      st = call(svp_acl_rt_launch_callback(&run_pending_op, base, SVP_ACL_CALLBACK_NO_BLOCK, waits),
                "svp_acl_rt_launch_callback");
      if (!st.failed()) return;
      rep->event_waits.unlink(op);
    }
    op->complete(op, st.code, false);
  }
};

}  // namespace detail

using completion_signature = void(boost::system::error_code);

// Executes `m` on `s` with the datasets `in` and `out` (e.g. model_io::inputs()/outputs())
// and completes when the stream has finished it.
template <class CompletionToken>
auto async_execute(const model& m, const dataset& in, const dataset& out, const stream& s, CompletionToken&& token) {
  return boost::asio::async_initiate<CompletionToken, completion_signature>(
      detail::initiate_execute{}, token, m.state(), in.state(), out.state(), s.state());
}
template <class CompletionToken>
auto async_execute(const model& m, const model_io& io, const stream& s, CompletionToken&& token) {
  return async_execute(m, io.inputs(), io.outputs(), s, std::forward<CompletionToken>(token));
}

// Completes when everything enqueued on `s` before the call has finished.
template <class CompletionToken>
auto async_wait(const stream& s, CompletionToken&& token) {
  return boost::asio::async_initiate<CompletionToken, completion_signature>(detail::initiate_stream_wait{}, token,
                                                                            s.state());
}

// Completes when the latest record of `ev` (at the time of the call) has completed; an
// event never recorded completes at once with SVP_ACL_ERROR_INVALID_PARAM. Event waits of
// one context complete in the order they were started.
template <class CompletionToken>
auto async_wait(const event& ev, CompletionToken&& token) {
  return boost::asio::async_initiate<CompletionToken, completion_signature>(detail::initiate_event_wait{}, token,
                                                                            ev.state());
}

template <class CompletionToken>
auto stream::async_wait(CompletionToken&& token) const {
  return svp::acl::async_wait(*this, std::forward<CompletionToken>(token));
}
template <class CompletionToken>
auto event::async_wait(CompletionToken&& token) const {
  return svp::acl::async_wait(*this, std::forward<CompletionToken>(token));
}

}  // namespace svp::acl

#endif  // SVP_ACL_WITH_ASIO
