// How busy one emulated NPU core has been lately: the basis of svp_acl_query_status.
//
// Busy time and cube MACs are kept in 10 ms buckets covering the last second (a ring), so
// memory is constant however many segments run; a query reads the buckets inside its
// window plus the segment running right now. Not thread-safe: the device guards each core's
// usage with its scheduler lock.
#pragma once

#include <array>
#include <cstdint>

#include "hal/hal.h"

namespace svp::hal::softnpu {

class CoreUsage {
 public:
  static constexpr Nanos kBucket = 10'000'000;  // 10 ms
  static constexpr std::size_t kBuckets = 101;   // 1 s of history + the current bucket
  static constexpr Nanos kMaxWindow = kBucket * (kBuckets - 1);

  explicit CoreUsage(Nanos now = 0) : created_(now) {}

  // A segment starts / ends at `now` (times from the device clock, non-decreasing).
  void begin(Nanos now) { running_since_ = now; running_ = true; }
  void end(Nanos now, std::uint64_t macs);

  struct Sample {
    Nanos window = 0;          // the time the figures cover (≤ the window asked for)
    Nanos busy = 0;            // busy time inside it
    std::uint64_t macs = 0;    // cube MACs completed inside it (prorated by time)
  };
  // Usage over (now - window, now], window ≤ kMaxWindow; shorter if the core is younger.
  Sample sample(Nanos now, Nanos window) const;

 private:
  struct Bucket {
    std::uint64_t index = ~std::uint64_t{0};  // now / kBucket of the bucket held here
    Nanos busy = 0;
    double macs = 0;
  };
  Bucket& bucket(std::uint64_t index);

  Nanos created_;
  bool running_ = false;
  Nanos running_since_ = 0;
  std::array<Bucket, kBuckets> ring_{};
};

}  // namespace svp::hal::softnpu
