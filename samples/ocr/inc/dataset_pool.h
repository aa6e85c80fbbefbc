// A fixed set of model_io (input and output datasets of one model) shared by the
// executions in flight: an execution leases one, writes its input, runs, reads its output
// and drops the lease; requests made while all are leased wait in FIFO order and are
// posted to the executor when one comes back. One model_io per execution in flight is the
// C++ API's rule (docs/cpp_api.md, "Threading").
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/post.hpp>

#include "svp/acl.hpp"

namespace ocr {

class DatasetPool {
 public:
  using Lease = std::shared_ptr<svp::acl::model_io>;  // returned to the pool when dropped

  DatasetPool(const svp::acl::runtime& rt, const svp::acl::model& m, std::size_t count,
              boost::asio::any_io_executor executor)
      : executor_(std::move(executor)) {
    for (std::size_t i = 0; i < count; ++i) {
      all_.push_back(std::make_unique<svp::acl::model_io>(rt, m));
      free_.push_back(all_.back().get());
    }
  }
  DatasetPool(const DatasetPool&) = delete;
  DatasetPool& operator=(const DatasetPool&) = delete;

  // Calls f(lease) now when a model_io is free, else posts it once one is returned.
  void acquire(std::function<void(Lease)> f) {
    std::unique_lock<std::mutex> lock(mu_);
    if (free_.empty()) {
      waiting_.push_back(std::move(f));
      return;
    }
    svp::acl::model_io* io = free_.back();
    free_.pop_back();
    lock.unlock();
    f(lease(io));
  }

  // The first model_io, for queries made before any execution (descriptions, strides).
  const svp::acl::model_io& any() const { return *all_.front(); }

 private:
  Lease lease(svp::acl::model_io* io) {
    return Lease(io, [this](svp::acl::model_io* back) { release(back); });
  }
  void release(svp::acl::model_io* io) {
    std::unique_lock<std::mutex> lock(mu_);
    if (waiting_.empty()) {
      free_.push_back(io);
      return;
    }
    std::function<void(Lease)> next = std::move(waiting_.front());
    waiting_.pop_front();
    lock.unlock();
    boost::asio::post(executor_, [next = std::move(next), l = lease(io)]() mutable { next(std::move(l)); });
  }

  boost::asio::any_io_executor executor_;
  std::mutex mu_;
  std::vector<std::unique_ptr<svp::acl::model_io>> all_;
  std::vector<svp::acl::model_io*> free_;
  std::deque<std::function<void(Lease)>> waiting_;
};

}  // namespace ocr
