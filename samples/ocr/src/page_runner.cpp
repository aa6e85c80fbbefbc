#include "page_runner.h"

#include <algorithm>
#include <condition_variable>
#include <functional>
#include <mutex>

namespace ocr {

std::vector<PageResult> run_pages(Pipeline& pipeline, const std::vector<const Page*>& pages, std::size_t concurrent) {
  std::vector<PageResult> results(pages.size());
  std::mutex mu;
  std::condition_variable cv;
  std::size_t started = 0, finished = 0;
  std::function<void(std::size_t)> start = [&](std::size_t i) {
    pipeline.run(*pages[i], [&, i](PageResult r) {
      std::unique_lock<std::mutex> lock(mu);
      results[i] = std::move(r);
      ++finished;
      const bool more = started < pages.size();
      const std::size_t next = started;
      if (more) ++started;
      // Notified under the lock: once the last page is in, the waiting thread returns and
      // destroys mu, cv and results; after unlocking, this handler touches only locals.
      cv.notify_all();
      lock.unlock();
      if (more) start(next);
    });
  };
  {
    std::lock_guard<std::mutex> lock(mu);
    started = std::min(concurrent, pages.size());
  }
  for (std::size_t i = 0; i < std::min(concurrent, pages.size()); ++i) start(i);
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return finished == pages.size(); });
  return results;
}

}  // namespace ocr
