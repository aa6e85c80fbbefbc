// Host callbacks: who runs them, and when.
//
// svp_acl_rt_launch_callback puts a report entry into the stream's queue. When it reaches
// the head, the device hands it to this Reporter (a hal::ReportSink), which routes it to
// the thread subscribed to that stream. The function runs only inside that thread's
// svp_acl_rt_process_report; afterwards the Reporter tells the device, which lets a
// BLOCK stream continue.
//
// Locking: mu_ (routes and threads) is taken before a thread queue's mutex, never the
// other way round; user functions run with no lock held.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "common/status.h"
#include "common/waiter.h"
#include "hal/hal.h"

namespace svp::runtime {

using HostFn = void (*)(void*);

class Reporter final : public hal::ReportSink {
 public:
  static constexpr std::size_t kMaxThreads = 128;

  Reporter(hal::Backend* backend, const WaitPolicy& wait) : backend_(backend), wait_(wait) {}
  ~Reporter() override;

  Status subscribe(std::uint64_t thread_id, std::uint32_t device, std::uint64_t stream);
  Status unsubscribe(std::uint64_t thread_id, std::uint64_t stream);
  bool subscribed(std::uint64_t stream) const;

  // A report id owning the callback until it runs or is discarded.
  hal::ReportId make_report(HostFn fn, void* data, bool block, std::uint32_t device, std::uint64_t stream,
                            hal::SqId sq);
  // Frees a report that was never submitted.
  void drop_report(hal::ReportId id);

  // Runs one due callback of a stream subscribed to `self`, waiting up to `timeout` ms.
  Status process(std::uint64_t self, hal::TimeoutMs timeout);

  // The stream (serial) and device whose callback the calling thread is running, if any:
  // synchronizing that stream (or its device) there waits for the callback itself.
  struct Running {
    bool active = false;
    std::uint64_t stream = 0;
    std::uint32_t device = 0;
  };
  static Running running_callback();

  // The stream is being destroyed: forget its subscription and unrun callbacks.
  void forget_stream(std::uint64_t stream);
  // Wakes every waiting thread and refuses further work (svp_acl_finalize).
  void shutdown();

  bool deliver(hal::SqId sq, hal::ReportId id) override;
  void discard(hal::SqId sq, hal::ReportId id) override;

 private:
  struct Record;
  struct ThreadQueue;
  // Removes `stream`'s route and its queued records; requires mu_.
  std::deque<Record*> unroute(std::uint64_t stream);
  void complete_unrun(std::deque<Record*>& records);

  hal::Backend* backend_;
  const WaitPolicy wait_;
  mutable std::mutex mu_;
  bool shut_down_ = false;
  std::unordered_map<std::uint64_t, std::shared_ptr<ThreadQueue>> threads_;  // by thread id
  std::unordered_map<std::uint64_t, std::shared_ptr<ThreadQueue>> routes_;   // by stream serial
};

}  // namespace svp::runtime
