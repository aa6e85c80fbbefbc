// RKNN_FLAG_FENCE_IN_OUTSIDE / RKNN_FLAG_FENCE_OUT_OUTSIDE: a run that starts when the
// application's fence (rknn_run_extend.fence_fd, e.g. a GPU or RGA job's) is signalled, and
// a fence the run signals when it ends, for the next device in the application's pipeline.
// On the board these are dma-fence sync_file descriptors, waited for with poll(POLLIN). The
// software NPU waits for any poll-able descriptor (an eventfd, a pipe, a real sync_file) and
// hands out an eventfd, which becomes readable (POLLIN) when the run has ended. Both are
// tasks on the context's stream around the execution, so the NPU, not the caller, waits.
#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "common/log.h"
#include "runtime/rknn_ctx.h"

namespace svp::runtime::rknn {
namespace {

// How long the NPU waits for an input fence before failing the run: the board's driver
// gives up on a job after a few seconds too (its job timeout).
constexpr int kFenceWaitMs = 10'000;

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

}  // namespace

int queue_input_fence(const char* fn, Ctx& c, int fence_fd) {
  if (fence_fd < 0) return RKNN_SUCC;  // -1: no fence, the run starts when the NPU is free
  // The application may close its descriptor once rknn_run returns, as with a sync_file.
  auto held = std::make_shared<FenceFd>();
  held->fd = ::fcntl(fence_fd, F_DUPFD_CLOEXEC, 0);
  if (held->fd < 0) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("rknn_run_extend.fence_fd {} is not an open file descriptor ({}): give the input fence "
                            "of the job that produces the inputs, or -1 for none",
                            fence_fd, std::strerror(errno)));
  }
  const std::uint64_t frame = c.frame_id + 1;
  Status s = queue(c, [held, frame, fence_fd](std::uint32_t) -> std::int32_t {
    pollfd p{held->fd, POLLIN, 0};
    int r;
    do {
      r = ::poll(&p, 1, kFenceWaitMs);
    } while (r < 0 && errno == EINTR);
    if (r == 1 && (p.revents & POLLIN) != 0) return 0;
    SVP_LOG_ERROR("rknn_run: frame {}: the input fence (fence_fd {}) was not signalled within {} ms{}; the run fails",
                  frame, fence_fd, kFenceWaitMs, r < 0 ? fmt::format(" ({})", std::strerror(errno)) : "");
    return 1;
  });
  if (!s.ok()) return fail(fn, RKNN_ERR_FAIL, "could not queue the input fence's wait: " + s.message());
  return RKNN_SUCC;
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
