#include "profiling/pipe_subscription.h"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "common/log.h"
#include "profiling/op_desc.h"

namespace svp::profiling {
namespace {

// Whole records per write(2), within PIPE_BUF so a pipe write is atomic: the reader
// never sees part of a record however it sizes its reads.
constexpr std::size_t kRecordsPerWrite = PIPE_BUF / sizeof(OpDesc);
static_assert(kRecordsPerWrite >= 1, "an operator record must fit in PIPE_BUF");

// EPIPE raised SIGPIPE for this (writer) thread, where it is blocked: take it back so it
// is never delivered later.
void consume_sigpipe() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  timespec zero{0, 0};
  while (sigtimedwait(&set, nullptr, &zero) > 0) {
  }
}

}  // namespace

Result<std::unique_ptr<PipeSubscription>> PipeSubscription::open(int fd, std::uint32_t model,
                                                                 std::size_t max_pending_records) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0) return Error(err::kInvalidParam, "fd {} is not an open file descriptor", fd);
  if ((flags & O_ACCMODE) == O_RDONLY) {
    return Error(err::kInvalidParam, "fd {} is not open for writing (pass the write end of the pipe, fd[1])", fd);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Error(err::kInvalidParam, "fd {}: fstat failed: {}", fd, std::strerror(errno));
  int own = -1;
  bool nonblocking = false;
  if (S_ISFIFO(st.st_mode)) {
    own = ::open(fmt::format("/proc/self/fd/{}", fd).c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    nonblocking = own >= 0;
  }
  if (own < 0) own = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (own < 0) return Error(err::kProfilingFailure, "cannot duplicate fd {}: {}", fd, std::strerror(errno));
  return std::unique_ptr<PipeSubscription>(new PipeSubscription(own, nonblocking, model, max_pending_records));
}

PipeSubscription::PipeSubscription(int own_fd, bool nonblocking, std::uint32_t model, std::size_t max_pending)
    : fd_(own_fd), nonblocking_(nonblocking), model_(model), max_pending_bytes_(max_pending * sizeof(OpDesc)) {}

PipeSubscription::~PipeSubscription() { ::close(fd_); }

std::uint64_t PipeSubscription::pending_records() const { return (bytes_.size() - head_) / sizeof(OpDesc); }

void PipeSubscription::enqueue(const OpRecord& r) {
  // A full queue first gives the pipe a chance to take what it can.
  if (bytes_.size() - head_ + sizeof(OpDesc) > max_pending_bytes_) pump();
  if (broken_ || bytes_.size() - head_ + sizeof(OpDesc) > max_pending_bytes_) {
    ++dropped_;
    return;
  }
  if (head_ >= (std::size_t{1} << 20)) {  // keep the queue from creeping through memory
    const std::size_t whole = head_ - head_ % sizeof(OpDesc);
    bytes_.erase(0, whole);
    head_ -= whole;
  }
  OpDesc d;
  encode(r, &d);
  bytes_.append(reinterpret_cast<const char*>(&d), sizeof d);
}

std::size_t PipeSubscription::pump() {
  std::size_t total = 0;
  while (!broken_ && head_ < bytes_.size()) {
    if (!nonblocking_) {
      pollfd p{fd_, POLLOUT, 0};
      if (::poll(&p, 1, 0) <= 0 || (p.revents & POLLOUT) == 0) {
        if (p.revents & (POLLERR | POLLHUP)) {
          broken_ = true;
          dropped_ += pending_records();
        }
        break;
      }
    }
    // Continue a partially written record first, then whole records up to PIPE_BUF.
    const std::size_t partial = head_ % sizeof(OpDesc);
    std::size_t len = partial != 0 ? sizeof(OpDesc) - partial : kRecordsPerWrite * sizeof(OpDesc);
    len = std::min(len, bytes_.size() - head_);
    const ssize_t n = ::write(fd_, bytes_.data() + head_, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      if (errno == EPIPE) consume_sigpipe();
      SVP_LOG_WARN("profiling: the subscription pipe of model {} failed ({}); {} queued records dropped, no more are "
                   "written",
                   model_, std::strerror(errno), pending_records());
      dropped_ += pending_records();
      broken_ = true;
      break;
    }
    const std::size_t before = head_ / sizeof(OpDesc);
    head_ += static_cast<std::size_t>(n);
    written_ += head_ / sizeof(OpDesc) - before;
    total += static_cast<std::size_t>(n);
  }
  if (head_ == bytes_.size()) {
    bytes_.clear();
    head_ = 0;
  }
  return total;
}

}  // namespace svp::profiling
