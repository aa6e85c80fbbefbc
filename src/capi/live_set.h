// Registry of live C-side descriptors (data buffers, datasets) so that a NULL, freed or
// garbage pointer is reported as an error instead of being dereferenced, and a descriptor
// an execution still uses (pin) is not destroyed under it.
#pragma once

#include <memory>
#include <mutex>
#include <unordered_map>

#include "common/pin_count.h"
#include "common/status.h"

namespace svp::capi {

template <typename T>
class LiveSet {
 public:
  explicit LiveSet(const char* kind) : kind_(kind) {}

  void add(const T* p) {
    std::lock_guard<std::mutex> lock(mu_);
    live_[p] = std::make_shared<PinCount>();
  }

  Status check(const T* p) const {
    if (p == nullptr) return Error(err::kInvalidParam, "{} is NULL", kind_);
    std::lock_guard<std::mutex> lock(mu_);
    if (live_.count(p) == 0) return not_live(p, "destroyed, or never created");
    return Status::Ok();
  }

  // Checks `p` and keeps it from being destroyed while the returned token lives (a model
  // execution queued or running reads it). Checking and pinning under one lock: a destroy
  // on another thread either happens before (not live) or is refused.
  Result<std::shared_ptr<void>> pin(const T* p) {
    if (p == nullptr) return Error(err::kInvalidParam, "{} is NULL", kind_);
    std::lock_guard<std::mutex> lock(mu_);
    auto it = live_.find(p);
    if (it == live_.end()) return not_live(p, "destroyed, or never created");
    return PinCount::pin(it->second);
  }

  Status remove(const T* p) {
    if (p == nullptr) return Error(err::kInvalidParam, "{} is NULL", kind_);
    std::lock_guard<std::mutex> lock(mu_);
    auto it = live_.find(p);
    if (it == live_.end()) return not_live(p, "destroyed twice, or never created");
    if (it->second->count() > 0) {
      return Status(err::kInvalidParam,
                    it->second->in_use(fmt::format("{} {}", kind_, static_cast<const void*>(p)), "destroy"));
    }
    live_.erase(it);
    return Status::Ok();
  }

 private:
  Status not_live(const T* p, const char* why) const {
    return Error(err::kInvalidParam, "{} {} is not live ({})", kind_, static_cast<const void*>(p), why);
  }

  const char* kind_;
  mutable std::mutex mu_;
  std::unordered_map<const T*, std::shared_ptr<PinCount>> live_;
};

}  // namespace svp::capi
