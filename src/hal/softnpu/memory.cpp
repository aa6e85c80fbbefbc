#include "hal/softnpu/memory.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include "common/log.h"
#include "common/pin_count.h"

namespace svp::hal::softnpu {

// Outside the anonymous namespace: SoftMemory::Alloc (declared in the header) holds these.
struct FreeDeleter {
  void operator()(std::uint8_t* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<std::uint8_t, FreeDeleter>;

namespace {

// The svp_acl function that makes each kind: what the free-mismatch message names (only the
// SVP API mixes kinds; the RKNN API frees what it created).
const char* kind_name(MemKind k) {
  switch (k) {
    case MemKind::kUncached: return "svp_acl_rt_malloc";
    case MemKind::kCached: return "svp_acl_rt_malloc_cached";
    case MemKind::kHost: return "svp_acl_rt_malloc_host";
    case MemKind::kSecure: return "svp_acl_rt_malloc_sec";
  }
  return "?";
}

Buffer aligned_buffer(std::size_t size) {
  if (size > SIZE_MAX - SoftMemory::kAlignment) return Buffer(nullptr);  // rounding would wrap
  const std::size_t rounded = (size + SoftMemory::kAlignment - 1) / SoftMemory::kAlignment * SoftMemory::kAlignment;
  auto* p = static_cast<std::uint8_t*>(std::aligned_alloc(SoftMemory::kAlignment, rounded));
  if (p != nullptr) std::memset(p, 0, rounded);
  return Buffer(p);
}

}  // namespace

struct SoftMemory::Alloc {
  std::uint64_t id = 0;
  MemKind kind = MemKind::kUncached;
  std::size_t size = 0;
  std::size_t class_id = 0;
  Buffer cpu;       // what the application addresses
  Buffer dev;       // device view (emulated cached memory only)
  Buffer snapshot;  // CPU view at its last maintenance (emulated cached memory only)
  std::mutex mu;    // serialises maintenance and device access checks of this allocation
  bool warned = false;  // one dirty-read warning per maintenance epoch
  // Executions that use it (SoftMemory::pin): raised under SoftMemory::mu_ while the
  // allocation is registered, lowered when the token goes (it holds the Alloc only).
  PinCount pins;

  bool emulated() const { return dev != nullptr; }
  std::uintptr_t base() const { return reinterpret_cast<std::uintptr_t>(cpu.get()); }
};

SoftMemory::~SoftMemory() {
  if (!allocs_.empty()) {
    SVP_LOG_WARN("{} device allocations were never freed; releasing them at finalize", allocs_.size());
  }
}

Status SoftMemory::charge(std::size_t size, MemKind kind) {
  std::uint64_t used = in_use_.load();
  do {
    if (limit_ != 0 && (size > limit_ || used > limit_ - size)) {
      return Error(err::kBadAlloc,
                   "an allocation of {} bytes{} is refused: the device memory limit is {} bytes ({:.1f} MiB, {}) and {} "
                   "bytes are in use by {} allocation(s); free what is no longer needed, or raise the limit",
                   size, kind == MemKind::kHost ? " (host)" : "", limit_, static_cast<double>(limit_) / (1024.0 * 1024.0), limit_origin_,
                   used, live_allocations());
    }
  } while (!in_use_.compare_exchange_weak(used, used + size));
  return Status::Ok();
}

Result<void*> SoftMemory::allocate(std::size_t size, MemKind kind, std::size_t class_id) {
  if (size == 0) return Error(err::kInvalidParam, "allocation size must be greater than 0");
  SVP_RETURN_IF_ERROR(charge(size, kind));
  // Returns the charge when the allocation does not happen.
  auto uncharged = [&](Status st) -> Status {
    in_use_.fetch_sub(size);
    return st;
  };
  auto a = std::make_shared<Alloc>();
  a->kind = kind;
  a->size = size;
  a->class_id = class_id;
  a->cpu = aligned_buffer(size);
  if (!a->cpu) return uncharged(Error(err::kBadAlloc, "out of memory allocating {} bytes", size));
  if (kind == MemKind::kCached && mode_ != CacheMode::kCoherent) {
    a->dev = aligned_buffer(size);
    a->snapshot = aligned_buffer(size);
    if (!a->dev || !a->snapshot) {
      return uncharged(Error(err::kBadAlloc, "out of memory allocating {} bytes (cached views)", size));
    }
  }
  void* p = a->cpu.get();
  std::lock_guard<std::mutex> lock(mu_);
  a->id = next_id_++;
  allocs_.emplace(a->base(), std::move(a));
  return p;
}

Result<std::shared_ptr<SoftMemory::Alloc>> SoftMemory::find(const void* ptr, std::size_t size, const char* what) const {
  if (ptr == nullptr) return Error(err::kInvalidParam, "{}: address is NULL", what);
  const auto addr = reinterpret_cast<std::uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = allocs_.upper_bound(addr);
  if (it == allocs_.begin()) {
    return Error(err::kInvalidParam, "{}: {} is not memory allocated by svp_acl_rt_malloc* (or it was already freed)",
                 what, ptr);
  }
  --it;
  const Alloc& a = *it->second;
  if (addr >= a.base() + a.size) {
    return Error(err::kInvalidParam, "{}: {} is not memory allocated by svp_acl_rt_malloc* (or it was already freed)",
                 what, ptr);
  }
  const std::size_t offset = addr - a.base();
  if (size > a.size - offset) {
    return Error(err::kInvalidParam, "{}: range [{}, +{}) runs past the end of allocation #{} ({} bytes, offset {})",
                 what, ptr, size, a.id, a.size, offset);
  }
  return it->second;
}

std::shared_ptr<void> SoftMemory::pin(const void* ptr) {
  auto found = find(ptr, 1, "pin");
  if (!found.ok()) return nullptr;
  std::shared_ptr<Alloc> a = std::move(*found);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = allocs_.find(a->base());
    if (it == allocs_.end() || it->second != a) return nullptr;  // freed meanwhile
    return PinCount::pin(std::shared_ptr<PinCount>(a, &a->pins));
  }
}

Status SoftMemory::release(const void* ptr, std::initializer_list<MemKind> expected) {
  if (ptr == nullptr) return Error(err::kInvalidParam, "free: address is NULL");
  std::shared_ptr<Alloc> doomed;
  {
    const auto addr = reinterpret_cast<std::uintptr_t>(ptr);
    std::lock_guard<std::mutex> lock(mu_);
    auto it = allocs_.upper_bound(addr);
    if (it != allocs_.begin()) {
      --it;
      const Alloc& a = *it->second;
      if (addr != a.base() && addr < a.base() + a.size) {
        return Error(err::kInvalidParam, "free: {} points {} bytes into allocation #{} at {}; pass the start address",
                     ptr, addr - a.base(), a.id, static_cast<const void*>(a.cpu.get()));
      }
      if (addr == a.base()) {
        if (std::find(expected.begin(), expected.end(), a.kind) == expected.end()) {
          return Error(err::kInvalidParam, "free: allocation #{} at {} came from {} and must be freed by its matching "
                       "free function", a.id, ptr, kind_name(a.kind));
        }
        if (a.pins.count() > 0) {
          // The NPU would write freed memory: refused, the allocation stays valid.
          return Status(err::kInvalidParam, a.pins.in_use(fmt::format("free: allocation #{} at {}", a.id, ptr), "free"));
        }
        doomed = std::move(it->second);
        allocs_.erase(it);
      }
    }
  }
  if (!doomed) {
    return Error(err::kInvalidParam, "free: {} is not a live allocation (never allocated, or already freed)", ptr);
  }
  in_use_.fetch_sub(doomed->size);
  return Status::Ok();
}

Status SoftMemory::sync(const void* ptr, std::size_t size, const char* what) {
  if (size == 0) return Error(err::kInvalidParam, "{}: size must be greater than 0", what);
  auto found = find(ptr, size, what);
  if (!found.ok()) return found.status();
  Alloc& a = **found;
  if (!a.emulated()) return Status::Ok();  // uncached or coherent: one view, nothing to do
  std::lock_guard<std::mutex> lock(a.mu);
  const std::size_t offset = reinterpret_cast<std::uintptr_t>(ptr) - a.base();
  // Cache maintenance works on whole lines.
  const std::size_t first = offset / kLine * kLine;
  const std::size_t last = std::min(a.size, (offset + size + kLine - 1) / kLine * kLine);
  std::uint8_t* cpu = a.cpu.get();
  std::uint8_t* dev = a.dev.get();
  std::uint8_t* snap = a.snapshot.get();
  for (std::size_t o = first; o < last; o += kLine) {
    const std::size_t n = std::min(kLine, last - o);
    if (std::memcmp(cpu + o, snap + o, n) != 0) {
      std::memcpy(dev + o, cpu + o, n);  // dirty: write back
    } else {
      std::memcpy(cpu + o, dev + o, n);  // clean: refetch
    }
    std::memcpy(snap + o, cpu + o, n);
  }
  a.warned = false;
  return Status::Ok();
}

Status SoftMemory::flush(const void* ptr, std::size_t size) { return sync(ptr, size, "mem_flush"); }

Status SoftMemory::invalidate(const void* ptr, std::size_t size) { return sync(ptr, size, "mem_invalidate"); }

Result<std::uint8_t*> SoftMemory::device_access(const void* ptr, std::size_t size, bool write) {
  const char* what = write ? "device write" : "device read";
  auto found = find(ptr, size, what);
  if (!found.ok()) return found.status();
  Alloc& a = **found;
  const std::size_t offset = reinterpret_cast<std::uintptr_t>(ptr) - a.base();
  if (!a.emulated()) return a.cpu.get() + offset;
  std::string warning;  // logged after the allocation's lock is released
  {
    std::lock_guard<std::mutex> lock(a.mu);
    const std::size_t first = offset / kLine * kLine;
    const std::size_t last = std::min(a.size, (offset + size + kLine - 1) / kLine * kLine);
    for (std::size_t o = first; o < last; o += kLine) {
      const std::size_t n = std::min(kLine, last - o);
      if (std::memcmp(a.cpu.get() + o, a.snapshot.get() + o, n) == 0) continue;
      // The CPU wrote this line and never flushed it: a read sees stale DDR; a write will
      // later be clobbered when the dirty line is written back.
      std::string msg = fmt::format(
          "{} of cached allocation #{} (base {}, {} bytes) at offset {}: the CPU wrote this line without "
          "svp_acl_rt_mem_flush, so the NPU {}",
          what, a.id, static_cast<const void*>(a.cpu.get()), a.size, o,
          write ? "result will be overwritten when the CPU line is written back" : "reads stale data");
      if (mode_ == CacheMode::kStrict) return Status(err::kInvalidParam, std::move(msg));
      if (!a.warned) {
        a.warned = true;
        warning = std::move(msg);
      }
      break;
    }
  }
  if (!warning.empty()) SVP_LOG_WARN("{}", warning);
  return a.dev.get() + offset;
}

Result<std::uint8_t*> SoftMemory::device_read(const void* ptr, std::size_t size) {
  return device_access(ptr, size, false);
}

Result<std::uint8_t*> SoftMemory::device_write(const void* ptr, std::size_t size) {
  return device_access(ptr, size, true);
}

bool SoftMemory::contains(const void* ptr, std::size_t size) const { return find(ptr, size, "contains").ok(); }

std::size_t SoftMemory::live_allocations() const {
  std::lock_guard<std::mutex> lock(mu_);
  return allocs_.size();
}

}  // namespace svp::hal::softnpu
