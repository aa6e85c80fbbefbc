// svp::acl profiling (svp_acl_prof.h): the file-mode session (prof_init / prof_finalize),
// collection configurations (create_config / destroy_config) and a running collection
// (prof_start / prof_stop); subscribe mode: subscription configurations
// (create_subscribe_config / destroy_subscribe_config) and model subscriptions
// (model_subscribe / model_unsubscribe).
//
// Ownership: each object holds what must outlive it (a collection its session and
// configuration, a subscription its model and configuration), so the C calls always come
// in a valid order. The pipe of a subscription stays the application's: the library
// writes to it and never closes it. File mode is process-wide: drive it from one thread.
// Errors: svp/acl/error.hpp.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "acl/svp_acl_prof.h"
#include "svp/acl/error.hpp"
#include "svp/acl/model.hpp"
#include "svp/acl/runtime.hpp"

namespace svp::acl {

namespace detail {
struct prof_session_state {
  runtime_token runtime;
  ~prof_session_state() { (void)svp_acl_prof_finalize(); }
};
struct prof_config_state {
  runtime_token runtime;
  svp_acl_prof_config* handle = nullptr;
  ~prof_config_state() { (void)svp_acl_prof_destroy_config(handle); }
};
struct prof_run_state {
  std::shared_ptr<prof_session_state> session;
  std::shared_ptr<prof_config_state> config;
  ~prof_run_state() { (void)svp_acl_prof_stop(config->handle); }
};
struct prof_subscribe_config_state {
  runtime_token runtime;
  svp_acl_prof_subscribe_config* handle = nullptr;
  ~prof_subscribe_config_state() { (void)svp_acl_prof_destroy_subscribe_config(handle); }
};
struct prof_subscription_state {
  std::shared_ptr<model_state> model;
  std::shared_ptr<prof_subscribe_config_state> config;
  ~prof_subscription_state() { (void)svp_acl_prof_model_unsubscribe(model->id); }
};
}  // namespace detail

// File mode: results go below `result_dir` (an existing writable directory).
class prof_session {
 public:
  prof_session() = default;
  prof_session(const runtime& rt, const std::string& result_dir) { detail::raise_if(open(rt, result_dir)); }
  prof_session(const runtime& rt, const std::string& result_dir, std::error_code& ec) {
    detail::assign(open(rt, result_dir), ec);
  }
  prof_session(prof_session&&) noexcept = default;
  prof_session& operator=(prof_session&&) noexcept = default;
  explicit operator bool() const noexcept { return state_ != nullptr; }
  const std::shared_ptr<detail::prof_session_state>& state() const noexcept { return state_; }

 private:
  detail::status open(const runtime& rt, const std::string& dir) {
    if (!rt) return detail::moved_from("svp::acl::prof_session");
    detail::status st = detail::call(svp_acl_prof_init(dir.c_str(), dir.size()), "svp_acl_prof_init");
    if (st.failed()) return st;
    state_ = std::make_shared<detail::prof_session_state>();
    state_->runtime = rt.token();
    return {};
  }
  std::shared_ptr<detail::prof_session_state> state_;
};

// What to collect: devices and an OR of SVP_ACL_PROF_* items.
class prof_config {
 public:
  prof_config() = default;
  prof_config(const runtime& rt, const std::vector<std::uint32_t>& devices, std::uint64_t items,
              svp_acl_prof_aicore_metrics metrics = SVP_ACL_AICORE_NONE) {
    detail::raise_if(open(rt, devices, items, metrics));
  }
  prof_config(const runtime& rt, const std::vector<std::uint32_t>& devices, std::uint64_t items,
              svp_acl_prof_aicore_metrics metrics, std::error_code& ec) {
    detail::assign(open(rt, devices, items, metrics), ec);
  }
  prof_config(prof_config&&) noexcept = default;
  prof_config& operator=(prof_config&&) noexcept = default;
  explicit operator bool() const noexcept { return state_ != nullptr; }
  const std::shared_ptr<detail::prof_config_state>& state() const noexcept { return state_; }

 private:
  detail::status open(const runtime& rt, const std::vector<std::uint32_t>& devices, std::uint64_t items,
                      svp_acl_prof_aicore_metrics metrics) {
    if (!rt) return detail::moved_from("svp::acl::prof_config");
    svp_acl_prof_config* h = svp_acl_prof_create_config(devices.data(), static_cast<std::uint32_t>(devices.size()),
                                                        metrics, nullptr, items);
    if (h == nullptr) {
      return detail::fail(SVP_ACL_ERROR_INVALID_PARAM, "svp_acl_prof_create_config", svp_acl_get_recent_err_msg());
    }
    state_ = std::make_shared<detail::prof_config_state>();
    state_->runtime = rt.token();
    state_->handle = h;
    return {};
  }
  std::shared_ptr<detail::prof_config_state> state_;
};

// A running collection: prof_start now, prof_stop when destroyed (or stop()).
class prof_collection {
 public:
  prof_collection() = default;
  prof_collection(const prof_session& session, const prof_config& config) { detail::raise_if(open(session, config)); }
  prof_collection(const prof_session& session, const prof_config& config, std::error_code& ec) {
    detail::assign(open(session, config), ec);
  }
  prof_collection(prof_collection&&) noexcept = default;
  prof_collection& operator=(prof_collection&&) noexcept = default;
  explicit operator bool() const noexcept { return state_ != nullptr; }
  void stop() noexcept { state_.reset(); }

 private:
  detail::status open(const prof_session& session, const prof_config& config) {
    if (!session || !config) return detail::moved_from("svp::acl::prof_collection");
    detail::status st = detail::call(svp_acl_prof_start(config.state()->handle), "svp_acl_prof_start");
    if (st.failed()) return st;
    state_ = std::make_shared<detail::prof_run_state>();
    state_->session = session.state();
    state_->config = config.state();
    return {};
  }
  std::shared_ptr<detail::prof_run_state> state_;
};

// Subscribe mode: operator records written to the pipe whose write end is `pipe_fd`.
class prof_subscribe_config {
 public:
  prof_subscribe_config() = default;
  prof_subscribe_config(const runtime& rt, int pipe_fd, bool time_info = true) {
    detail::raise_if(open(rt, pipe_fd, time_info));
  }
  prof_subscribe_config(const runtime& rt, int pipe_fd, bool time_info, std::error_code& ec) {
    detail::assign(open(rt, pipe_fd, time_info), ec);
  }
  prof_subscribe_config(prof_subscribe_config&&) noexcept = default;
  prof_subscribe_config& operator=(prof_subscribe_config&&) noexcept = default;
  explicit operator bool() const noexcept { return state_ != nullptr; }
  const std::shared_ptr<detail::prof_subscribe_config_state>& state() const noexcept { return state_; }

 private:
  detail::status open(const runtime& rt, int fd, bool time_info) {
    if (!rt) return detail::moved_from("svp::acl::prof_subscribe_config");
    svp_acl_prof_subscribe_config* h =
        svp_acl_prof_create_subscribe_config(time_info ? 1 : 0, static_cast<svp_acl_prof_aicore_metrics>(0), &fd);
    if (h == nullptr) {
      return detail::fail(SVP_ACL_ERROR_INVALID_PARAM, "svp_acl_prof_create_subscribe_config",
                          svp_acl_get_recent_err_msg());
    }
    state_ = std::make_shared<detail::prof_subscribe_config_state>();
    state_->runtime = rt.token();
    state_->handle = h;
    return {};
  }
  std::shared_ptr<detail::prof_subscribe_config_state> state_;
};

// svp_acl_prof_model_subscribe now, svp_acl_prof_model_unsubscribe when destroyed.
// Synchronize the model's executions before destroying it (vendor rule).
class prof_subscription {
 public:
  prof_subscription() = default;
  prof_subscription(const model& m, const prof_subscribe_config& config) { detail::raise_if(open(m, config)); }
  prof_subscription(const model& m, const prof_subscribe_config& config, std::error_code& ec) {
    detail::assign(open(m, config), ec);
  }
  prof_subscription(prof_subscription&&) noexcept = default;
  prof_subscription& operator=(prof_subscription&&) noexcept = default;
  explicit operator bool() const noexcept { return state_ != nullptr; }
  void unsubscribe() noexcept { state_.reset(); }

 private:
  detail::status open(const model& m, const prof_subscribe_config& config) {
    if (!m || !config) return detail::moved_from("svp::acl::prof_subscription");
    detail::status st = detail::call(svp_acl_prof_model_subscribe(m.id(), config.state()->handle),
                                     "svp_acl_prof_model_subscribe");
    if (st.failed()) return st;
    state_ = std::make_shared<detail::prof_subscription_state>();
    state_->model = m.state();
    state_->config = config.state();
    return {};
  }
  std::shared_ptr<detail::prof_subscription_state> state_;
};

}  // namespace svp::acl
