// librknnrt's zero-copy memory objects (rknn_create_mem* / rknn_destroy_mem / rknn_mem_sync):
// what an rknn_tensor_mem is behind the struct the application sees.
//
// Kinds:
// - device memory (rknn_create_mem, rknn_create_mem2): the runtime core's device memory,
//   cacheable (svp_acl_rt_malloc_cached's emulation: a CPU view and a device view made to
//   agree only by cache maintenance) or non-cacheable (one view);
// - fd memory (rknn_create_mem_from_fd): the application's shared memory (memfd, dma-buf,
//   any mappable fd) used in place, coherent (the host has one view of it).
// Physical addresses and MB blocks do not exist on a host: rknn_create_mem_from_phys and
// _from_mb_blk return NULL with a message.
//
// Objects live in a process-wide table keyed by the descriptor's address; a pointer not in
// it (never created, or destroyed) is refused without being read. Destroyed descriptors are
// kept (poisoned) for a while so that a double rknn_destroy_mem is recognised rather than
// mistaken for a newer object at the same address. An object is owned by the context that
// created it (or by none: RKNN_MEM_FLAG_ALLOC_NO_CONTEXT); it outlives that context's
// rknn_destroy and is freed only by rknn_destroy_mem.
//
// Locking: the table has one mutex, held only for lookups and insertions (no logging under
// it); each object has its own mutex, held while its bytes are read or written by a run and
// while rknn_destroy_mem frees them, so a run never reads freed memory.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "rknn/rknn_api.h"
#include "runtime/rknn_context.h"

namespace svp::runtime {
class Runtime;
}

namespace svp::runtime::rknn {

struct MemObj {
  enum class Kind { kDevice, kFd };
  rknn_tensor_mem* desc = nullptr;  // what the application holds
  Handle owner = 0;                 // 0: no context (any context may bind it)
  Kind kind = Kind::kDevice;
  bool cacheable = false;
  std::uint8_t* data = nullptr;     // the CPU address of the tensor bytes
  std::uint64_t size = 0;           // bytes from data
  std::shared_ptr<Runtime> rt;      // device memory: its allocator
  void* mapping = nullptr;          // fd memory mapped here (virt_addr was NULL)
  std::size_t mapping_len = 0;

  std::mutex mu;                    // bytes in use by a run / being freed
  bool destroyed = false;           // under mu

  std::string describe() const;     // "rknn_tensor_mem 0x... (4096 bytes, cacheable)"
};
using MemRef = std::shared_ptr<MemObj>;

// rknn_create_mem2 (rknn_create_mem: flags 0, cacheable). NULL on failure (logged).
rknn_tensor_mem* create_mem(const char* fn, Handle ctx, std::uint64_t size, std::uint64_t flags);
rknn_tensor_mem* create_mem_from_fd(const char* fn, Handle ctx, std::int32_t fd, void* virt_addr, std::uint32_t size,
                                    std::int32_t offset);
rknn_tensor_mem* create_mem_from_phys(const char* fn, Handle ctx, std::uint64_t phys_addr, void* virt_addr,
                                      std::uint32_t size);
rknn_tensor_mem* create_mem_from_mb_blk(const char* fn, Handle ctx, void* mb_blk, std::int32_t offset);
int destroy_mem(const char* fn, Handle ctx, rknn_tensor_mem* mem);
int mem_sync(const char* fn, Handle ctx, rknn_tensor_mem* mem, int mode);

// The live object behind `mem` (nullptr: not a live rknn_tensor_mem).
MemRef find_mem(const rknn_tensor_mem* mem);
// The live memory object whose bytes hold [p, p + size) (null: none).
MemRef find_mem_holding(const void* p, std::uint64_t size);
// Live objects created on `ctx` (rknn_destroy warns about them).
std::size_t live_mems_of(Handle ctx);
// For tests: live objects in the process.
std::size_t live_mems();

// The NPU side of a run. Copies the device view of [data, data + bytes) of `m` out / in;
// fails (with the message in *why) when `m` was destroyed. Cacheable memory: `sync`
// performs the cache maintenance rknn_run does on its own (flush before reading inputs,
// invalidate after writing outputs); without it, a read of lines the CPU wrote and did not
// sync sees the stale device view, as on a board, and *stale is set.
bool device_read(MemObj& m, std::uint64_t bytes, bool sync, std::vector<std::uint8_t>* out, bool* stale,
                 std::string* why);
bool device_write(MemObj& m, const std::vector<std::uint8_t>& bytes, bool sync, std::string* why);

}  // namespace svp::runtime::rknn
