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

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

#include "hal/hal.h"

namespace svp::hal::softnpu {

class SoftMemory final : public Memory {
 public:
  explicit SoftMemory(CacheMode mode) : mode_(mode) {}
  ~SoftMemory() override;

  Result<void*> allocate(std::size_t size, MemKind kind, std::size_t class_id) override;
  Status release(const void* ptr, std::initializer_list<MemKind> expected) override;
  Status flush(const void* ptr, std::size_t size) override;
  Status invalidate(const void* ptr, std::size_t size) override;
  Result<std::uint8_t*> device_read(const void* ptr, std::size_t size) override;
  Result<std::uint8_t*> device_write(const void* ptr, std::size_t size) override;
  bool contains(const void* ptr, std::size_t size) const override;
  CacheMode cache_mode() const override { return mode_; }
  std::size_t live_allocations() const override;

  static constexpr std::size_t kAlignment = 64;
  static constexpr std::size_t kLine = 64;

 private:
  struct Alloc;
  // The allocation containing [ptr, ptr+size), or an error naming what is wrong.
  Result<std::shared_ptr<Alloc>> find(const void* ptr, std::size_t size, const char* what) const;
  Status sync(const void* ptr, std::size_t size, const char* what);
  Result<std::uint8_t*> device_access(const void* ptr, std::size_t size, bool write);

  const CacheMode mode_;
  mutable std::mutex mu_;
  std::map<std::uintptr_t, std::shared_ptr<Alloc>> allocs_;  // by CPU base address
  std::uint64_t next_id_ = 1;
};

}  // namespace svp::hal::softnpu
