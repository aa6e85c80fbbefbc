// Registry of live C-side descriptors (data buffers, datasets) so that a NULL, freed or
// garbage pointer is reported as an error instead of being dereferenced.
#pragma once

#include <mutex>
#include <unordered_set>

#include "common/status.h"

namespace svp::capi {

template <typename T>
class LiveSet {
 public:
  explicit LiveSet(const char* kind) : kind_(kind) {}

  void add(const T* p) {
    std::lock_guard<std::mutex> lock(mu_);
    live_.insert(p);
  }

  Status check(const T* p) const {
    if (p == nullptr) return Error(err::kInvalidParam, "{} is NULL", kind_);
    std::lock_guard<std::mutex> lock(mu_);
    if (live_.count(p) == 0) return Error(err::kInvalidParam, "{} {} is not live (destroyed, or never created)", kind_, static_cast<const void*>(p));
    return Status::Ok();
  }

  Status remove(const T* p) {
    if (p == nullptr) return Error(err::kInvalidParam, "{} is NULL", kind_);
    std::lock_guard<std::mutex> lock(mu_);
    if (live_.erase(p) == 0) return Error(err::kInvalidParam, "{} {} is not live (destroyed twice, or never created)", kind_, static_cast<const void*>(p));
    return Status::Ok();
  }

 private:
  const char* kind_;
  mutable std::mutex mu_;
  std::unordered_set<const T*> live_;
};

}  // namespace svp::capi
