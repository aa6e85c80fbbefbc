// svp::acl::aicpu_worker: threads that serve the AI-CPU operators of asynchronously
// executed models (svp_acl_ext_process_aicpu_task), for models whose
// svp_acl_ext_get_mdl_aicpu_task_num is > 0. Synchronous execution needs none.
//
// The threads block in svp_acl_ext_process_aicpu_task(-1), never poll. Stopping them
// posts one synthetic NPU task per thread whose single segment is an AI-CPU operator that
// ends the thread running it (svp_acl_ext_launch_segmented_task on a private stream).
// AI-CPU jobs go to any serving thread of the process, so at most one aicpu_worker may
// exist at a time (a second one fails with SVP_ACL_ERROR_INVALID_PARAM); give it as many
// threads as AI-CPU operators should run in parallel.
// Ownership: holds its context (and so the runtime). Errors: svp/acl/error.hpp.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <thread>
#include <vector>

#include "acl/svp_acl_ext.h"
#include "svp/acl/error.hpp"
#include "svp/acl/runtime.hpp"

namespace svp::acl {

namespace detail {
inline std::atomic<bool>& aicpu_worker_exists() {
  static std::atomic<bool> exists{false};
  return exists;
}
inline bool& aicpu_thread_done() {
  thread_local bool done = false;
  return done;
}

struct aicpu_state {
  std::shared_ptr<context_state> context;
  svp_acl_rt_stream control = nullptr;  // carries the stop tasks
  std::vector<std::thread> threads;

  static svp_acl_error stop_segment(void*, std::uint32_t) {
    aicpu_thread_done() = true;
    return SVP_ACL_SUCCESS;
  }
  static void serve() {
    aicpu_thread_done() = false;
    while (!aicpu_thread_done()) {
      const svp_acl_error rc = svp_acl_ext_process_aicpu_task(-1);
      if (rc != SVP_ACL_SUCCESS && rc != SVP_ACL_ERROR_RT_REPORT_TIMEOUT) break;  // runtime going away
    }
  }

  ~aicpu_state() {
    (void)make_current(context->handle);
    svp_acl_ext_task_attr attr{};
    attr.priority = 0;
    attr.aicpu_segment_mask = 1;  // the only segment is an AI-CPU operator
    for (std::size_t i = 0; i < threads.size(); ++i) {
      (void)svp_acl_ext_launch_segmented_task(&aicpu_state::stop_segment, nullptr, 1, &attr, control);
    }
    for (std::thread& t : threads) t.join();
    (void)svp_acl_rt_synchronize_stream(control);
    (void)svp_acl_rt_destroy_stream(control);
    aicpu_worker_exists().store(false);
  }
};
}  // namespace detail

class aicpu_worker {
 public:
  aicpu_worker() = default;
  explicit aicpu_worker(const context& ctx, std::size_t threads = 1) { detail::raise_if(open(ctx, threads)); }
  aicpu_worker(const context& ctx, std::size_t threads, std::error_code& ec) { detail::assign(open(ctx, threads), ec); }
  aicpu_worker(aicpu_worker&&) noexcept = default;
  aicpu_worker& operator=(aicpu_worker&&) noexcept = default;

  explicit operator bool() const noexcept { return state_ != nullptr; }
  std::size_t threads() const noexcept { return state_ ? state_->threads.size() : 0; }

 private:
  detail::status open(const context& ctx, std::size_t threads) {
    if (!ctx) return detail::moved_from("svp::acl::aicpu_worker");
    if (threads == 0) {
      return detail::fail(SVP_ACL_ERROR_INVALID_PARAM, "svp::acl::aicpu_worker", "needs at least one thread");
    }
    if (detail::aicpu_worker_exists().exchange(true)) {
      return detail::fail(SVP_ACL_ERROR_INVALID_PARAM, "svp::acl::aicpu_worker",
                          "an aicpu_worker already exists in this process (AI-CPU jobs go to any serving thread; "
                          "give that one more threads)");
    }
    detail::status st = detail::make_current(ctx.native_handle());
    svp_acl_rt_stream control = nullptr;
    if (!st.failed()) st = detail::call(svp_acl_rt_create_stream(&control), "svp_acl_rt_create_stream");
    if (st.failed()) {
      detail::aicpu_worker_exists().store(false);
      return st;
    }
    state_ = std::make_shared<detail::aicpu_state>();
    state_->context = ctx.state();
    state_->control = control;
    for (std::size_t i = 0; i < threads; ++i) state_->threads.emplace_back(&detail::aicpu_state::serve);
    return {};
  }

  std::shared_ptr<detail::aicpu_state> state_;
};

}  // namespace svp::acl
