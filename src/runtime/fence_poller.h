// The process's watcher of external fences (RKNN_FLAG_FENCE_IN_OUTSIDE's input fences):
// one host thread that polls every pending fence's descriptor at once, so that a run
// waiting for its fence holds no emulated NPU core, as on the board, where the driver keeps
// the job off the core until the fence signals. The thread starts with the first holder
// (acquire) and is joined when the last one lets go.
#pragma once

#include <poll.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"

namespace svp::runtime {

class FencePoller {
 public:
  enum class Outcome : std::uint8_t {
    kSignalled,  // the descriptor became readable (POLLIN)
    kTimedOut,   // it did not within the wait's limit
    kFailed,     // poll reported an error or a hang-up without POLLIN (`detail` says which)
    kCancelled,  // cancel(): its owner went away first
  };
  // Called exactly once per wait, with no lock of the poller's held: on the poller thread
  // when the wait ends, or on the thread calling cancel().
  using Done = std::function<void(Outcome outcome, const std::string& detail)>;

  // The process's poller, started if no one holds it. Errors: kRtFailure (no thread or
  // no eventfd could be created).
  static Result<std::shared_ptr<FencePoller>> acquire();

  FencePoller(const FencePoller&) = delete;
  FencePoller& operator=(const FencePoller&) = delete;
  // Stops and joins the thread; waits still pending are dropped unrun (their holders
  // cancel them before letting go).
  ~FencePoller();

  // Watches `fd` (taken over: the poller closes it) until it is readable or `limit` has
  // passed. Returns the wait's id for cancel().
  std::uint64_t watch(int fd, std::chrono::milliseconds limit, Done done);
  // Ends wait `id` with kCancelled on this thread if it is still pending. If its Done, or
  // that of an earlier wait, is running on the poller thread, returns once that has returned.
  // Afterwards the Done of `id` has run and will not run again, and no Done of an earlier
  // wait that ended is still running (an owner whose earlier waits have all ended, as a
  // context's earlier runs have, is done with all of its own). Unknown or finished ids:
  // nothing to cancel.
  void cancel(std::uint64_t id);

 private:
  using Clock = std::chrono::steady_clock;
  struct Wait {
    int fd = -1;
    Clock::time_point deadline;
    Done done;
  };
  struct Ended {
    Wait wait;
    Outcome outcome = Outcome::kSignalled;
    std::string detail;
  };

  FencePoller() = default;
  Status start();
  void loop();
  // Collects the waits whose descriptor or deadline fired (`ids[k]` polled as `fds[k + 1]`);
  // requires mu_.
  void collect(const std::vector<pollfd>& fds, const std::vector<std::uint64_t>& ids, int poll_error,
               std::vector<Ended>* ended);
  void wake();

  std::mutex mu_;
  std::condition_variable idle_;       // firing_ emptied
  std::map<std::uint64_t, Wait> waits_;  // pending, by id
  std::set<std::uint64_t> firing_;       // ended, Done running on the poller thread
  std::vector<int> to_close_;            // descriptors of cancelled waits, closed by the poller thread
  std::uint64_t next_id_ = 0;
  bool stopping_ = false;
  int wake_fd_ = -1;  // eventfd: a new wait, a cancel or stop
  std::thread thread_;
};

}  // namespace svp::runtime
