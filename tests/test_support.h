// Shared helpers for tests: an initialised runtime per test, temp acl.json files,
// synthetic NPU tasks and a virtual clock.
#pragma once

#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "acl/svp_acl.h"
#include "acl/svp_acl_ext.h"
#include "acl/svp_acl_mdl.h"
#include "acl/svp_acl_rt.h"
#include "hal/hal.h"
#include "runtime/runtime.h"

namespace svp::test {

// Threads of this process now (/proc/self/task).
inline int process_thread_count() {
  int n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d)) n += e->d_name[0] != '.';
    closedir(d);
  }
  return n;
}

// Writes `json` to a fresh file and removes it when destroyed.
class TempConfig {
 public:
  explicit TempConfig(const std::string& json) {
    char tmpl[] = "/tmp/svp_acl_test_XXXXXX.json";
    int fd = mkstemps(tmpl, 5);
    if (fd >= 0) close(fd);
    path_ = tmpl;
    std::ofstream(path_) << json;
  }
  ~TempConfig() { std::remove(path_.c_str()); }
  const char* path() const { return path_.c_str(); }

 private:
  std::string path_;
};

// Initialises the library (optionally with an acl.json text) and finalises it after the
// test, so every test starts from a clean process state.
class RuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override { init(config_json()); }
  void TearDown() override {
    if (initialised_) {
      EXPECT_EQ(svp_acl_finalize(), SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
    }
  }
  // Override to configure the emulated hardware; "" = svp_acl_init(NULL).
  virtual std::string config_json() const { return ""; }

  void init(const std::string& json) {
    if (json.empty()) {
      ASSERT_EQ(svp_acl_init(nullptr), SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
    } else {
      TempConfig cfg(json);
      ASSERT_EQ(svp_acl_init(cfg.path()), SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
    }
    initialised_ = true;
  }
  void finalize_now() {
    ASSERT_EQ(svp_acl_finalize(), SVP_ACL_SUCCESS);
    initialised_ = false;
  }
  svp::runtime::Runtime& runtime() { return **svp::runtime::Runtime::get(); }

 private:
  bool initialised_ = false;
};

// A one-shot gate: tasks block in a segment until the test opens it.
class Gate {
 public:
  void open() {
    {
      std::lock_guard<std::mutex> l(mu_);
      open_ = true;
    }
    cv_.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [&] { return open_; });
  }
  // Blocks until some thread is inside wait() (or the gate opened).
  void entered_wait() {
    while (!entered_.load()) std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  void mark_entered() { entered_.store(true); }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
  std::atomic<bool> entered_{false};
};

// A synthetic NPU task whose segments run an arbitrary function.
class LambdaTask final : public hal::SegmentedTask {
 public:
  using Fn = std::function<Status(std::size_t, hal::SegmentContext&)>;
  LambdaTask(std::size_t segments, Fn fn) : n_(segments), fn_(std::move(fn)) {}
  std::size_t segment_count() const override { return n_; }
  Status run_segment(std::size_t i, hal::SegmentContext& ctx) override { return fn_(i, ctx); }

 private:
  std::size_t n_;
  Fn fn_;
};

// Test clock: time moves only when the test (or a segment) advances it.
class VirtualClock final : public hal::Clock {
 public:
  hal::Nanos now() const override { return now_.load(); }
  void advance_ms(double ms) { now_.fetch_add(static_cast<hal::Nanos>(ms * 1e6)); }
  void set_ms(double ms) { now_.store(static_cast<hal::Nanos>(ms * 1e6)); }

 private:
  std::atomic<hal::Nanos> now_{1'000'000'000};  // 1 s: away from the tick grid origin
};

// Runs `body` on a thread that serves host callbacks of `stream` until stopped.
class ReportThread {
 public:
  explicit ReportThread(svp_acl_rt_context ctx = nullptr) {
    thread_ = std::thread([this, ctx] {
      if (ctx != nullptr) svp_acl_rt_set_current_context(ctx);
      while (!stop_.load()) svp_acl_rt_process_report(10);
    });
  }
  ~ReportThread() { stop(); }
  void stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
  }
  uint64_t id() { return static_cast<uint64_t>(thread_.native_handle()); }

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};


// Polls `pred` for up to `limit`; true once it holds.
template <typename Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit = std::chrono::milliseconds(5000)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return true;
}

// Keeps the closures of synthetic NPU tasks alive until the runtime is finalized.
class TaskOwner {
 public:
  using Fn = std::function<svp_acl_error(uint32_t)>;
  svp_acl_error launch(svp_acl_rt_stream stream, Fn fn, uint32_t segments = 1) {
    Fn* f = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      fns_.push_back(std::make_unique<Fn>(std::move(fn)));
      f = fns_.back().get();
    }
    return svp_acl_ext_launch_segmented_task(&TaskOwner::run, f, segments, nullptr, stream);
  }

 private:
  static svp_acl_error run(void* d, uint32_t i) { return (*static_cast<Fn*>(d))(i); }
  std::mutex mu_;
  std::deque<std::unique_ptr<Fn>> fns_;
};

// Synthetic tasks and gates for runtime tests. Gates are opened on teardown so no task is
// left blocked into svp_acl_finalize.
class TaskHelpers {
 protected:
  Gate& new_gate() { return gates_.emplace_back(); }
  void open_gates() {
    for (auto& g : gates_) g.open();
  }
  // A task that blocks in its first segment until `g` opens.
  svp_acl_error launch_gated(svp_acl_rt_stream s, Gate& g) {
    return tasks_.launch(s, [&g](uint32_t) {
      g.mark_entered();
      g.wait();
      return SVP_ACL_SUCCESS;
    });
  }
  svp_acl_error launch_counter(svp_acl_rt_stream s, std::atomic<int>& counter) {
    return tasks_.launch(s, [&counter](uint32_t) {
      counter.fetch_add(1);
      return SVP_ACL_SUCCESS;
    });
  }

  TaskOwner tasks_;
  std::deque<Gate> gates_;
};

}  // namespace svp::test

// Assertions on C API calls that also check the recent-error message names the call and
// its code.
#define EXPECT_ACL_ERROR(want, call)                                                               \
  do {                                                                                             \
    const svp_acl_error rc_ = (call);                                                              \
    const std::string msg_ = svp_acl_get_recent_err_msg();                                         \
    EXPECT_EQ(rc_, (want)) << #call << " -> " << msg_;                                             \
    std::string fn_ = #call;                                                                       \
    fn_ = fn_.substr(0, fn_.find('('));                                                            \
    EXPECT_NE(msg_.find(fn_), std::string::npos) << "recent error does not name " << fn_ << ": " << msg_; \
    EXPECT_NE(msg_.find(std::to_string(want)), std::string::npos) << msg_;                         \
  } while (0)

#define EXPECT_ACL_OK(call) EXPECT_EQ((call), SVP_ACL_SUCCESS) << #call << ": " << svp_acl_get_recent_err_msg()
#define ASSERT_ACL_OK(call) ASSERT_EQ((call), SVP_ACL_SUCCESS) << #call << ": " << svp_acl_get_recent_err_msg()
