// FencePoller: poll() over every pending fence plus an eventfd that wakes the thread when
// the set changes. Descriptors are closed by the poller thread only (a cancelled wait's
// too), so none is closed, and its number reused, while poll() still watches it.
#include "runtime/fence_poller.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "common/log.h"

namespace svp::runtime {
namespace {

std::mutex g_poller_mu;
std::weak_ptr<FencePoller> g_poller;  // under g_poller_mu

}  // namespace

Result<std::shared_ptr<FencePoller>> FencePoller::acquire() {
  std::lock_guard<std::mutex> lock(g_poller_mu);
  if (auto live = g_poller.lock()) return live;
  std::shared_ptr<FencePoller> p(new FencePoller());
  SVP_RETURN_IF_ERROR(p->start());
  g_poller = p;
  return p;
}

Status FencePoller::start() {
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) {
    return Error(err::kRtFailure, "the input fence watcher needs an eventfd: {}", std::strerror(errno));
  }
  try {
    thread_ = std::thread([this] { loop(); });
  } catch (const std::system_error& e) {
    return Error(err::kRtFailure, "the input fence watcher's thread could not start: {}", e.what());
  }
  return Status::Ok();
}

FencePoller::~FencePoller() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) {
    wake();
    thread_.join();
  }
  for (auto& [id, w] : waits_) ::close(w.fd);
  for (int fd : to_close_) ::close(fd);
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void FencePoller::wake() {
  const std::uint64_t one = 1;
  // EAGAIN (the counter is full) still leaves it readable: the thread wakes anyway.
  (void)!::write(wake_fd_, &one, sizeof one);
}

std::uint64_t FencePoller::watch(int fd, std::chrono::milliseconds limit, Done done) {
  std::uint64_t id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    id = ++next_id_;
    waits_.emplace(id, Wait{fd, Clock::now() + limit, std::move(done)});
  }
  wake();
  return id;
}

void FencePoller::cancel(std::uint64_t id) {
  Done done;
  {
    std::unique_lock<std::mutex> lock(mu_);
    // The wait itself or an earlier one (an owner's earlier runs) may have ended and be
    // running its Done: it returns first, so that nothing of the owner's runs afterwards.
    idle_.wait(lock, [&] { return firing_.empty() || *firing_.begin() > id; });
    auto it = waits_.find(id);
    if (it == waits_.end()) return;
    done = std::move(it->second.done);
    to_close_.push_back(it->second.fd);
    waits_.erase(it);
  }
  wake();
  done(Outcome::kCancelled, "");
}

void FencePoller::collect(const std::vector<pollfd>& fds, const std::vector<std::uint64_t>& ids, int poll_error,
                          std::vector<Ended>* ended) {
  const Clock::time_point now = Clock::now();
  for (std::size_t k = 0; k < ids.size(); ++k) {
    auto it = waits_.find(ids[k]);
    if (it == waits_.end()) continue;  // cancelled while poll() ran
    const short rev = fds[k + 1].revents;
    Ended e;
    if ((rev & POLLIN) != 0) {
      e.outcome = Outcome::kSignalled;
    } else if ((rev & (POLLERR | POLLHUP | POLLNVAL)) != 0) {
      e.outcome = Outcome::kFailed;
      e.detail = (rev & POLLNVAL) != 0 ? "the descriptor is not open" : (rev & POLLHUP) != 0 ? "hang-up" : "poll error";
    } else if (poll_error != 0) {
      e.outcome = Outcome::kFailed;
      e.detail = fmt::format("poll failed: {}", std::strerror(poll_error));
    } else if (now >= it->second.deadline) {
      e.outcome = Outcome::kTimedOut;
    } else {
      continue;
    }
    e.wait = std::move(it->second);
    waits_.erase(it);
    firing_.insert(ids[k]);
    ended->push_back(std::move(e));
  }
}

void FencePoller::loop() {
  std::vector<pollfd> fds;
  std::vector<std::uint64_t> ids;
  std::vector<Ended> ended;
  std::vector<int> closing;
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    fds.assign(1, pollfd{wake_fd_, POLLIN, 0});
    ids.clear();
    const Clock::time_point now = Clock::now();
    int timeout_ms = -1;
    for (const auto& [id, w] : waits_) {
      fds.push_back(pollfd{w.fd, POLLIN, 0});
      ids.push_back(id);
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(w.deadline - now).count();
      const int ms = static_cast<int>(std::clamp<std::int64_t>(left, 0, 60'000));
      timeout_ms = timeout_ms < 0 ? ms : std::min(timeout_ms, ms);
    }
    closing.swap(to_close_);
    lock.unlock();
    for (int fd : closing) ::close(fd);  // no longer among the descriptors polled
    closing.clear();
    const int r = ::poll(fds.data(), fds.size(), timeout_ms);
    const int poll_error = r < 0 && errno != EINTR ? errno : 0;
    if ((fds[0].revents & POLLIN) != 0) {
      std::uint64_t n;
      (void)!::read(wake_fd_, &n, sizeof n);
    }
    lock.lock();
    if (poll_error != 0) SVP_LOG_ERROR("input fence watcher: poll failed ({})", std::strerror(poll_error));
    collect(fds, ids, poll_error, &ended);
    if (ended.empty()) continue;
    lock.unlock();
    for (Ended& e : ended) {
      e.wait.done(e.outcome, e.detail);
      ::close(e.wait.fd);
    }
    ended.clear();  // the Done closures are released outside the lock too
    lock.lock();
    firing_.clear();
    idle_.notify_all();
  }
}

}  // namespace svp::runtime
