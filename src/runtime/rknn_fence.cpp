// RKNN_FLAG_FENCE_IN_OUTSIDE / RKNN_FLAG_FENCE_OUT_OUTSIDE: a run that starts when the
// application's fence (rknn_run_extend.fence_fd, e.g. a GPU or RGA job's) is signalled, and
// a fence the run signals when it ends, for the next device in the application's pipeline.
// On the board these are dma-fence sync_file descriptors, waited for with poll(POLLIN). The
// software NPU waits for any poll-able descriptor (an eventfd, a pipe, a real sync_file) and
// hands out an eventfd, which becomes readable (POLLIN) when the run has ended. The input
// fence is watched by the process's FencePoller thread while the context's stream waits on an
// event that thread completes: like the board's driver, which keeps the job off the NPU until
// its fence signals, no emulated core is held meanwhile. The output fence is a task on the
// stream after the execution.
#include <fcntl.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <utility>

#include <fmt/format.h>

#include "common/log.h"
#include "runtime/fence_poller.h"
#include "runtime/rknn_ctx.h"

namespace svp::runtime::rknn {
namespace {

// How long the NPU waits for an input fence before failing the run: the board's driver
// gives up on a job after a few seconds too (its job timeout). Tests shorten it.
std::atomic<int> g_fence_limit_ms{10'000};

// Owns a duplicated descriptor until the stream task that uses it has run.
struct FenceFd {
  int fd = -1;
  ~FenceFd() {
    if (fd >= 0) ::close(fd);
  }
};

Status queue(Ctx& c, SegmentFn fn) {
  CurrentContextScope keep(*c.rt);
  Status s = c.rt->set_current_context(c.rt_context);
  if (s.ok()) s = c.rt->launch_segmented_task(std::move(fn), 1, nullptr, nullptr);
  return s;
}

// What the stream inherits when the wait for frame `frame`'s fence `fence_fd` ends.
Status fence_outcome(FencePoller::Outcome o, const std::string& detail, std::uint64_t frame, int fence_fd, int limit_ms) {
  switch (o) {
    case FencePoller::Outcome::kSignalled:
      return Status::Ok();
    case FencePoller::Outcome::kTimedOut: {
      Status st = Error(err::kRtFailure, "the input fence (fence_fd {}) of frame {} was not signalled within {} ms",
                        fence_fd, frame, limit_ms);
      SVP_LOG_ERROR("rknn_run: {}; the run fails", st.message());
      return st;
    }
    case FencePoller::Outcome::kFailed: {
      Status st = Error(err::kRtFailure, "waiting for the input fence (fence_fd {}) of frame {} failed: {}", fence_fd,
                        frame, detail);
      SVP_LOG_ERROR("rknn_run: {}; the run fails", st.message());
      return st;
    }
    case FencePoller::Outcome::kCancelled:
      break;
  }
  return Error(err::kRtFailure, "the context was destroyed while frame {} waited for its input fence (fence_fd {})",
               frame, fence_fd);
}

// The context's fence event and its hold on the watcher, made by its first fenced run.
Status prepare(Ctx& c) {
  if (!c.fence_poller) {
    auto p = FencePoller::acquire();
    if (!p.ok()) return p.status();
    c.fence_poller = std::move(*p);
  }
  if (c.fence_event == nullptr) {
    CurrentContextScope keep(*c.rt);
    SVP_RETURN_IF_ERROR(c.rt->set_current_context(c.rt_context));
    auto ev = c.rt->create_event(false);
    if (!ev.ok()) return ev.status();
    c.fence_event = *ev;
  }
  return Status::Ok();
}

// Queues the stream's wait for a host record of the context's fence event, which the
// watcher completes when `fd` (taken over) is signalled or the limit passes.
Status queue_wait(Ctx& c, int fd, int fence_fd) {
  auto record = c.rt->begin_host_record(c.fence_event);
  if (!record.ok()) {
    ::close(fd);
    return record.status();
  }
  CurrentContextScope keep(*c.rt);
  Status s = c.rt->set_current_context(c.rt_context);
  if (s.ok()) s = c.rt->stream_wait_event(nullptr, c.fence_event);
  if (!s.ok()) {
    ::close(fd);
    (void)c.rt->complete_host_record(c.fence_event, *record, s);
    return s;
  }
  const std::uint64_t frame = c.frame_id + 1;
  const int limit_ms = g_fence_limit_ms.load();
  // Runs on the watcher's thread (or rknn_destroy's, cancelled): completes the record, which
  // lets the stream go on. The context outlives it (rknn_destroy cancels first).
  FencePoller::Done done = [rt = c.rt, event = c.fence_event, rec = *record, frame, fence_fd, limit_ms](
                               FencePoller::Outcome o, const std::string& detail) {
    Status st = rt->complete_host_record(event, rec, fence_outcome(o, detail, frame, fence_fd, limit_ms));
    if (!st.ok()) SVP_LOG_ERROR("rknn_run: frame {}: could not end the wait for its input fence: {}", frame, st.message());
  };
  c.fence_wait = c.fence_poller->watch(fd, std::chrono::milliseconds(limit_ms), std::move(done));
  return Status::Ok();
}

}  // namespace

int set_input_fence_limit_ms(int ms) { return g_fence_limit_ms.exchange(ms); }

int queue_input_fence(const char* fn, Ctx& c, int fence_fd) {
  if (fence_fd < 0) return RKNN_SUCC;  // -1: no fence, the run starts when the NPU is free
  // The application may close its descriptor once rknn_run returns, as with a sync_file.
  const int fd = ::fcntl(fence_fd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("rknn_run_extend.fence_fd {} is not an open file descriptor ({}): give the input fence "
                            "of the job that produces the inputs, or -1 for none",
                            fence_fd, std::strerror(errno)));
  }
  if (Status s = prepare(c); !s.ok()) {
    ::close(fd);
    return fail(fn, RKNN_ERR_FAIL, "could not set up the wait for the input fence: " + s.message());
  }
  if (Status s = queue_wait(c, fd, fence_fd); !s.ok()) {
    return fail(fn, RKNN_ERR_FAIL, "could not queue the input fence's wait: " + s.message());
  }
  return RKNN_SUCC;
}

void cancel_input_fence(Ctx& c) {
  if (c.fence_poller && c.fence_wait != 0) c.fence_poller->cancel(c.fence_wait);
  c.fence_wait = 0;
}

void release_input_fence(Ctx& c) {
  cancel_input_fence(c);
  if (c.fence_event != nullptr) {
    if (Status s = c.rt->destroy_event(c.fence_event); !s.ok()) {
      SVP_LOG_WARN("rknn_destroy: the context's input fence event: {}", s.message());
    }
    c.fence_event = nullptr;
  }
  c.fence_poller.reset();
}

int queue_output_fence(const char* fn, Ctx& c, int* fence_fd) {
  const int fd = ::eventfd(0, EFD_CLOEXEC);
  if (fd < 0) return fail(fn, RKNN_ERR_FAIL, fmt::format("no output fence: eventfd failed ({})", std::strerror(errno)));
  auto signal = std::make_shared<FenceFd>();
  signal->fd = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (signal->fd < 0) {
    ::close(fd);
    return fail(fn, RKNN_ERR_FAIL, fmt::format("no output fence: dup failed ({})", std::strerror(errno)));
  }
  // Signalled when the stream gets here: after the execution, whether it succeeded or not
  // (as a dma-fence is signalled with an error), so that no application waits forever.
  Status s = queue(c, [signal](std::uint32_t) -> std::int32_t {
    const std::uint64_t one = 1;
    return ::write(signal->fd, &one, sizeof one) == static_cast<ssize_t>(sizeof one) ? 0 : 1;
  });
  if (!s.ok()) {
    ::close(fd);
    return fail(fn, RKNN_ERR_FAIL, "could not queue the output fence: " + s.message());
  }
  *fence_fd = fd;
  return RKNN_SUCC;
}

}  // namespace svp::runtime::rknn
