// Device memory of the software NPU: the allocation registry and cache emulation.
//
// Every allocation is registered, so frees and cache operations on unknown, interior or
// already-freed addresses are rejected with a message instead of corrupting the heap.
//
// Cached allocations (kCached, unless the mode is kCoherent) keep three images of the
// same bytes: the CPU view (the address the application holds), the device view (what
// "DDR" holds and the NPU reads/writes), and the CPU view as of its last cache
// maintenance. A 64-byte line whose CPU view differs from that snapshot is dirty: the
// CPU wrote it and the write has not reached DDR. flush and invalidate both behave as
// the SoC's clean+invalidate (guide §8.4): dirty lines are written back, clean lines are
// refetched from the device view. Nothing is ever written back or refetched implicitly,
// so a missing flush or invalidate reproduces, deterministically, the stale data a board
// would show only sometimes.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <map>
#include <memory>
#include <mutex>

#include "hal/hal.h"

namespace svp::hal::softnpu {

class SoftMemory final : public Memory {
 public:
  // `limit`: bytes the live allocations may hold at once (0 = none); `limit_origin` is
  // quoted in the refusal (where the figure comes from, how to raise it).
  explicit SoftMemory(CacheMode mode, std::uint64_t limit = 0, std::string limit_origin = {})
      : mode_(mode), limit_(limit), limit_origin_(std::move(limit_origin)) {}
  ~SoftMemory() override;

  Result<void*> allocate(std::size_t size, MemKind kind, std::size_t class_id) override;
  Status release(const void* ptr, std::initializer_list<MemKind> expected) override;
  Status flush(const void* ptr, std::size_t size) override;
  Status invalidate(const void* ptr, std::size_t size) override;
  Result<std::uint8_t*> device_read(const void* ptr, std::size_t size) override;
  Result<std::uint8_t*> device_write(const void* ptr, std::size_t size) override;
  std::shared_ptr<void> pin(const void* ptr) override;
  bool contains(const void* ptr, std::size_t size) const override;
  CacheMode cache_mode() const override { return mode_; }
  std::size_t live_allocations() const override;
  Usage usage() const override { return {in_use_.load(), limit_}; }

  static constexpr std::size_t kAlignment = 64;
  static constexpr std::size_t kLine = 64;

 private:
  struct Alloc;
  // The allocation containing [ptr, ptr+size), or an error naming what is wrong.
  Result<std::shared_ptr<Alloc>> find(const void* ptr, std::size_t size, const char* what) const;
  Status sync(const void* ptr, std::size_t size, const char* what);
  Result<std::uint8_t*> device_access(const void* ptr, std::size_t size, bool write);
  // Counts `size` bytes against the limit, or refuses them (kBadAlloc) leaving the count.
  Status charge(std::size_t size, MemKind kind);

  const CacheMode mode_;
  const std::uint64_t limit_;
  const std::string limit_origin_;
  // Lock-free so concurrent allocations never pass the limit together (compare-exchange).
  std::atomic<std::uint64_t> in_use_{0};  mutable std::mutex mu_;
  std::map<std::uintptr_t, std::shared_ptr<Alloc>> allocs_;  // by CPU base address
  std::uint64_t next_id_ = 1;
};

}  // namespace svp::hal::softnpu
