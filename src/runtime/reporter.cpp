#include "runtime/reporter.h"

#include <exception>

#include "common/log.h"

namespace svp::runtime {

namespace {
thread_local Reporter::Running t_running;  // set while process() runs a callback
}  // namespace

struct Reporter::Record {
  HostFn fn = nullptr;
  void* data = nullptr;
  bool block = false;
  std::uint32_t device = 0;
  std::uint64_t stream = 0;
  hal::SqId sq = 0;
};

struct Reporter::ThreadQueue {
  std::uint64_t thread_id = 0;
  std::uint32_t device = 0;
  std::size_t streams = 0;  // subscriptions
  std::mutex mu;
  Waiter waiter;  // the subscribed thread waits in process(); condition under mu
  std::deque<Record*> q;
  bool closed = false;
};

Reporter::~Reporter() { shutdown(); }

Status Reporter::subscribe(std::uint64_t thread_id, std::uint32_t device, std::uint64_t stream) {
  if (thread_id == 0) return Error(err::kInvalidParam, "subscribe_report: thread id 0 is not a thread");
  std::lock_guard<std::mutex> lock(mu_);
  if (shut_down_) return Error(err::kUninitialize, "svp_acl_finalize has been called");
  if (auto it = routes_.find(stream); it != routes_.end()) {
    return Error(err::kRepeatSubscribe, "the stream is already subscribed by thread {:#x}; a stream has one report thread",
                 it->second->thread_id);
  }
  std::shared_ptr<ThreadQueue>& tq = threads_[thread_id];
  if (!tq) {
    if (threads_.size() > kMaxThreads) {
      threads_.erase(thread_id);
      return Error(err::kStorageOverLimit, "subscribe_report: at most {} threads may be subscribed", kMaxThreads);
    }
    tq = std::make_shared<ThreadQueue>();
    tq->thread_id = thread_id;
    tq->device = device;
  } else if (tq->device != device) {
    return Error(err::kInvalidParam, "thread {:#x} already serves callbacks of device {}; a thread serves one device",
                 thread_id, tq->device);
  }
  ++tq->streams;
  routes_[stream] = tq;
  return Status::Ok();
}

std::deque<Reporter::Record*> Reporter::unroute(std::uint64_t stream) {
  std::deque<Record*> unrun;
  auto it = routes_.find(stream);
  if (it == routes_.end()) return unrun;
  std::shared_ptr<ThreadQueue> tq = it->second;
  routes_.erase(it);
  {
    std::lock_guard<std::mutex> lock(tq->mu);
    for (auto r = tq->q.begin(); r != tq->q.end();) {
      if ((*r)->stream == stream) {
        unrun.push_back(*r);
        r = tq->q.erase(r);
      } else {
        ++r;
      }
    }
    if (--tq->streams == 0) {
      tq->closed = true;
      threads_.erase(tq->thread_id);
    }
  }
  tq->waiter.notify();
  return unrun;
}

void Reporter::complete_unrun(std::deque<Record*>& records) {
  if (!records.empty()) {
    SVP_LOG_WARN("{} host callback(s) were dropped unrun because their stream was unsubscribed or destroyed first",
                 records.size());
  }
  for (Record* r : records) {
    // Lets a BLOCK stream move on; ignored by the device if the queue is gone.
    backend_->device(r->device).complete_report(r->sq, reinterpret_cast<hal::ReportId>(r));
    delete r;
  }
}

Status Reporter::unsubscribe(std::uint64_t thread_id, std::uint64_t stream) {
  std::deque<Record*> unrun;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = routes_.find(stream);
    if (it == routes_.end()) return Error(err::kStreamNotSubscribe, "unsubscribe_report: the stream has no report thread");
    if (it->second->thread_id != thread_id) {
      return Error(err::kThreadNotSubscribe, "unsubscribe_report: the stream is served by thread {:#x}, not {:#x}",
                   it->second->thread_id, thread_id);
    }
    unrun = unroute(stream);
  }
  complete_unrun(unrun);
  return Status::Ok();
}

bool Reporter::subscribed(std::uint64_t stream) const {
  std::lock_guard<std::mutex> lock(mu_);
  return routes_.count(stream) != 0;
}

hal::ReportId Reporter::make_report(HostFn fn, void* data, bool block, std::uint32_t device, std::uint64_t stream,
                                    hal::SqId sq) {
  auto* r = new Record{fn, data, block, device, stream, sq};
  return reinterpret_cast<hal::ReportId>(r);
}

void Reporter::drop_report(hal::ReportId id) { delete reinterpret_cast<Record*>(id); }

bool Reporter::deliver(hal::SqId /*sq*/, hal::ReportId id) {
  auto* r = reinterpret_cast<Record*>(id);
  std::shared_ptr<ThreadQueue> tq;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = routes_.find(r->stream);
    if (shut_down_ || it == routes_.end()) return false;
    tq = it->second;
    std::lock_guard<std::mutex> qlock(tq->mu);
    tq->q.push_back(r);
  }
  tq->waiter.notify();
  return true;
}

void Reporter::discard(hal::SqId /*sq*/, hal::ReportId id) { delete reinterpret_cast<Record*>(id); }

Status Reporter::process(std::uint64_t self, hal::TimeoutMs timeout) {
  std::shared_ptr<ThreadQueue> tq;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shut_down_) return Error(err::kUninitialize, "svp_acl_finalize has been called");
    auto it = threads_.find(self);
    if (it == threads_.end()) {
      return Error(err::kThreadNotSubscribe,
                   "process_report: the calling thread {:#x} is not subscribed to any stream (svp_acl_rt_subscribe_report)",
                   self);
    }
    tq = it->second;
  }
  Record* r = nullptr;
  {
    std::unique_lock<std::mutex> lock(tq->mu);
    auto ready = [&] { return !tq->q.empty() || tq->closed; };
    if (!tq->waiter.wait(lock, timeout, wait_, ready)) {
      return Error(err::kRtReportTimeout, "process_report: no callback became due within {} ms", timeout);
    }
    if (tq->q.empty()) {
      return Error(err::kThreadNotSubscribe, "process_report: the thread was unsubscribed while waiting");
    }
    r = tq->q.front();
    tq->q.pop_front();
  }
  const Running outer = t_running;  // a callback may itself call process_report
  t_running = {true, r->stream, r->device};
  try {
    r->fn(r->data);
  } catch (...) {
    // A C callback cannot throw, but a C++ one linked in can; it must not unwind into C.
    SVP_LOG_ERROR("a host callback threw an exception; it was caught at svp_acl_rt_process_report");
  }
  t_running = outer;
  backend_->device(r->device).complete_report(r->sq, reinterpret_cast<hal::ReportId>(r));
  delete r;
  return Status::Ok();
}

Reporter::Running Reporter::running_callback() { return t_running; }

void Reporter::forget_stream(std::uint64_t stream) {
  std::deque<Record*> unrun;
  {
    std::lock_guard<std::mutex> lock(mu_);
    unrun = unroute(stream);
  }
  complete_unrun(unrun);
}

void Reporter::shutdown() {
  std::deque<Record*> unrun;
  std::vector<std::shared_ptr<ThreadQueue>> queues;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shut_down_) return;
    shut_down_ = true;
    for (auto& [tid, tq] : threads_) queues.push_back(tq);
    threads_.clear();
    routes_.clear();
  }
  for (auto& tq : queues) {
    {
      std::lock_guard<std::mutex> lock(tq->mu);
      tq->closed = true;
      for (Record* r : tq->q) unrun.push_back(r);
      tq->q.clear();
    }
    tq->waiter.notify();
  }
  for (Record* r : unrun) delete r;  // devices are being torn down; nothing to release
}

}  // namespace svp::runtime
