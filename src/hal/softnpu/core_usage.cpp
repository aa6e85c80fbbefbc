#include "hal/softnpu/core_usage.h"

#include <algorithm>

namespace svp::hal::softnpu {

CoreUsage::Bucket& CoreUsage::bucket(std::uint64_t index) {
  Bucket& b = ring_[index % kBuckets];
  if (b.index != index) b = Bucket{index, 0, 0};
  return b;
}

void CoreUsage::end(Nanos now, std::uint64_t macs) {
  if (!running_) return;
  running_ = false;
  const Nanos start = std::min(running_since_, now);
  const Nanos length = now - start;
  // Spread the segment over the buckets it overlaps; only the last second is kept.
  const Nanos from = std::max(start, now > kMaxWindow ? now - kMaxWindow : 0);
  for (Nanos t = from; t < now;) {
    const std::uint64_t index = t / kBucket;
    const Nanos stop = std::min(now, (index + 1) * kBucket);
    Bucket& b = bucket(index);
    b.busy += stop - t;
    if (length > 0) b.macs += static_cast<double>(macs) * static_cast<double>(stop - t) / static_cast<double>(length);
    t = stop;
  }
  if (length == 0) bucket(now / kBucket).macs += static_cast<double>(macs);
}

CoreUsage::Sample CoreUsage::sample(Nanos now, Nanos window) const {
  window = std::min(window, kMaxWindow);
  const Nanos since = std::max(created_, now > window ? now - window : 0);
  Sample s;
  s.window = now - std::min(since, now);
  double macs = 0;
  for (const Bucket& b : ring_) {
    if (b.index == ~std::uint64_t{0}) continue;
    const Nanos b_start = b.index * kBucket;
    const Nanos b_end = b_start + kBucket;
    if (b_end <= since || b_start >= now) continue;
    // A bucket cut by the window's start counts in proportion (busy time is spread evenly
    // enough inside 10 ms for a utilisation figure).
    const Nanos overlap = std::min(b_end, now) - std::max(b_start, since);
    const double part = static_cast<double>(overlap) / static_cast<double>(kBucket);
    const bool whole = b_start >= since;
    s.busy += whole ? b.busy : static_cast<Nanos>(static_cast<double>(b.busy) * part);
    macs += whole ? b.macs : b.macs * part;
  }
  if (running_) s.busy += now - std::max(since, std::min(running_since_, now));
  s.busy = std::min(s.busy, s.window);
  s.macs = static_cast<std::uint64_t>(macs);
  return s;
}

}  // namespace svp::hal::softnpu
