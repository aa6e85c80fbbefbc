// One model's subscription pipe (svp_acl_prof_model_subscribe).
//
// Owned and driven by the profiler's writer thread (not thread-safe). The application
// gives us the write end of its pipe; we never write to *its* descriptor: for a FIFO we
// open our own non-blocking write description of the same pipe (/proc/self/fd/N), so a
// slow reader can never block the writer thread, and the application closing or reusing
// its descriptor number cannot redirect our writes. Other file types (a regular file, a
// socket) get a dup() and are written only when poll() says they are writable. Either
// way our descriptor is closed when the subscription ends, which is when the reader sees
// end-of-file once the application has closed its own write end too (the vendor's order:
// unsubscribe, close(write end), join the reader).
//
// Records wait in a bounded queue when the pipe is full; beyond it they are dropped and
// counted. A reader that closed its end (EPIPE) ends the subscription's writes for good.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/status.h"
#include "profiling/records.h"

namespace svp::profiling {

class PipeSubscription {
 public:
  static Result<std::unique_ptr<PipeSubscription>> open(int fd, std::uint32_t model, std::size_t max_pending_records);
  ~PipeSubscription();
  PipeSubscription(const PipeSubscription&) = delete;
  PipeSubscription& operator=(const PipeSubscription&) = delete;

  void enqueue(const OpRecord& r);
  // Writes what the pipe accepts without blocking; returns the bytes written.
  std::size_t pump();
  bool idle() const { return broken_ || head_ == bytes_.size(); }

  std::uint32_t model() const { return model_; }
  std::uint64_t written() const { return written_; }
  // Records dropped: queue full, the reader gone, or still queued when it ended.
  std::uint64_t dropped() const { return dropped_ + (broken_ ? 0 : pending_records()); }
  bool broken() const { return broken_; }

 private:
  PipeSubscription(int own_fd, bool nonblocking, std::uint32_t model, std::size_t max_pending);
  std::uint64_t pending_records() const;

  int fd_;
  bool nonblocking_;
  std::uint32_t model_;
  std::size_t max_pending_bytes_;
  std::string bytes_;     // encoded records not yet written, from head_
  std::size_t head_ = 0;
  std::uint64_t written_ = 0;
  std::uint64_t dropped_ = 0;
  bool broken_ = false;
};

}  // namespace svp::profiling
