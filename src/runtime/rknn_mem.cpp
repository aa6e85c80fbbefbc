// librknnrt's zero-copy memory objects (rknn_mem.h).
#include "runtime/rknn_mem.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <map>

#include <fmt/format.h>

#include "runtime/runtime.h"

namespace svp::runtime::rknn {
namespace {

constexpr std::uint64_t kAllocFlags = RKNN_FLAG_MEMORY_CACHEABLE | RKNN_FLAG_MEMORY_NON_CACHEABLE |
                                      RKNN_FLAG_MEMORY_TRY_ALLOC_SRAM | RKNN_MEM_FLAG_ALLOC_NO_CONTEXT;
// Destroyed descriptors kept (poisoned) before they are freed: a double rknn_destroy_mem
// within this many later destroys is recognised for what it is.
constexpr std::size_t kQuarantine = 1024;

// Destroyed descriptors, oldest first; freed at exit with the rest of the process state.
struct Quarantine {
  std::deque<rknn_tensor_mem*> q;
  Quarantine() = default;
  Quarantine(const Quarantine&) = delete;
  Quarantine& operator=(const Quarantine&) = delete;
  ~Quarantine() {
    for (rknn_tensor_mem* p : q) delete p;
  }
};

std::mutex g_mu;  // the table and the quarantine
std::map<const rknn_tensor_mem*, MemRef> g_mems;
Quarantine g_quarantine;

void release_bytes(MemObj& m) {
  if (m.kind == MemObj::Kind::kDevice && m.data != nullptr && m.rt) {
    (void)m.rt->free(m.data, m.cacheable ? MemoryApi::kMallocCached : MemoryApi::kMalloc);
  }
  if (m.mapping != nullptr) ::munmap(m.mapping, m.mapping_len);
  m.mapping = nullptr;
  m.data = nullptr;
}

rknn_tensor_mem* publish(MemRef m) {
  rknn_tensor_mem* desc = m->desc;
  std::lock_guard<std::mutex> lock(g_mu);
  g_mems.emplace(desc, std::move(m));
  return desc;
}

rknn_tensor_mem* failed(const char* fn, int code, const std::string& message) {
  (void)fail(fn, code, message);
  return nullptr;
}

}  // namespace

std::string MemObj::describe() const {
  return fmt::format("rknn_tensor_mem {} (virt_addr {}, {} bytes, {})", static_cast<const void*>(desc),
                     static_cast<const void*>(data), size,
                     kind == Kind::kFd ? "from fd" : cacheable ? "cacheable" : "non-cacheable");
}

rknn_tensor_mem* create_mem(const char* fn, Handle ctx, std::uint64_t size, std::uint64_t flags) {
  clear_last_error();
  if ((flags & ~kAllocFlags) != 0) {
    return failed(fn, RKNN_ERR_PARAM_INVALID, fmt::format("alloc_flags 0x{:x} has bits no RKNN_FLAG_MEMORY_* / "
                                                          "RKNN_MEM_FLAG_* defines (0x{:x})", flags, flags & ~kAllocFlags));
  }
  if ((flags & RKNN_FLAG_MEMORY_CACHEABLE) != 0 && (flags & RKNN_FLAG_MEMORY_NON_CACHEABLE) != 0) {
    return failed(fn, RKNN_ERR_PARAM_INVALID, "alloc_flags: CACHEABLE and NON_CACHEABLE together");
  }
  const bool no_context = (flags & RKNN_MEM_FLAG_ALLOC_NO_CONTEXT) != 0;
  if (!no_context && check_context(fn, ctx) != RKNN_SUCC) return nullptr;
  if (size == 0 || size > UINT32_MAX) {
    return failed(fn, RKNN_ERR_PARAM_INVALID,
                  fmt::format("size {} is not in 1..{} (rknn_tensor_mem.size is 32-bit)", size, UINT32_MAX));
  }
  std::string why;
  auto rt = core_runtime(&why);
  if (!rt) return failed(fn, RKNN_ERR_DEVICE_UNAVAILABLE, "the software NPU did not start: " + why);
  auto m = std::make_shared<MemObj>();
  m->owner = no_context ? 0 : ctx;
  // RKNN_FLAG_MEMORY_FLAGS_DEFAULT (0) is cacheable; TRY_ALLOC_SRAM falls back to DRAM for
  // what SRAM cannot hold, and the software NPU has no SRAM: all of it.
  m->cacheable = (flags & RKNN_FLAG_MEMORY_NON_CACHEABLE) == 0;
  auto p = rt->malloc(static_cast<std::size_t>(size), m->cacheable ? MemoryApi::kMallocCached : MemoryApi::kMalloc, 0);
  if (!p.ok()) return failed(fn, RKNN_ERR_MALLOC_FAIL, fmt::format("{} bytes of device memory: {}", size, p.status().message()));
  m->rt = std::move(rt);
  m->data = static_cast<std::uint8_t*>(*p);
  m->size = size;
  m->desc = new rknn_tensor_mem{};
  m->desc->virt_addr = m->data;
  // The host has no physical addresses: the address the software NPU resolves stands in
  // for the board's DMA address; there is no dma-buf fd (docs/rknn.md).
  m->desc->phys_addr = reinterpret_cast<std::uintptr_t>(m->data);
  m->desc->fd = -1;
  m->desc->offset = 0;
  m->desc->size = static_cast<std::uint32_t>(size);
  m->desc->flags = RKNN_TENSOR_MEMORY_FLAGS_ALLOC_INSIDE;
  return publish(std::move(m));
}

rknn_tensor_mem* create_mem_from_fd(const char* fn, Handle ctx, std::int32_t fd, void* virt_addr, std::uint32_t size,
                                    std::int32_t offset) {
  clear_last_error();
  if (check_context(fn, ctx) != RKNN_SUCC) return nullptr;
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0) {
    return failed(fn, RKNN_ERR_PARAM_INVALID, fmt::format("fd {} is not an open file descriptor", fd));
  }
  if (size == 0 || offset < 0) {
    return failed(fn, RKNN_ERR_PARAM_INVALID, fmt::format("size {} must be > 0 and offset {} >= 0", size, offset));
  }
  const std::uint64_t end = static_cast<std::uint64_t>(offset) + size;
  if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) < end) {
    return failed(fn, RKNN_ERR_PARAM_INVALID,
                  fmt::format("fd {} holds {} bytes; offset {} + size {} runs past its end", fd, st.st_size, offset, size));
  }
  auto m = std::make_shared<MemObj>();
  m->owner = ctx;
  m->kind = MemObj::Kind::kFd;
  if (virt_addr == nullptr) {  // the runtime maps it, as the board's runtime does
    void* p = ::mmap(nullptr, static_cast<std::size_t>(end), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
      return failed(fn, RKNN_ERR_PARAM_INVALID,
                    fmt::format("fd {} cannot be mapped ({} bytes): {}", fd, end, std::strerror(errno)));
    }
    m->mapping = p;
    m->mapping_len = static_cast<std::size_t>(end);
    virt_addr = p;
  }
  m->data = static_cast<std::uint8_t*>(virt_addr) + offset;
  m->size = size;
  m->desc = new rknn_tensor_mem{};
  m->desc->virt_addr = virt_addr;
  m->desc->phys_addr = reinterpret_cast<std::uintptr_t>(m->data);
  m->desc->fd = fd;
  m->desc->offset = offset;
  m->desc->size = size;
  m->desc->flags = RKNN_TENSOR_MEMORY_FLAGS_FROM_FD;
  return publish(std::move(m));
}

rknn_tensor_mem* create_mem_from_phys(const char* fn, Handle ctx, std::uint64_t phys_addr, void* virt_addr,
                                      std::uint32_t size) {
  clear_last_error();
  if (check_context(fn, ctx) != RKNN_SUCC) return nullptr;
  return failed(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("physical address 0x{:x} ({} bytes, virt_addr {}): the software NPU runs on a host, "
                            "where user space has no physical addresses; share the memory by fd "
                            "(rknn_create_mem_from_fd) or let the runtime allocate it (rknn_create_mem)",
                            phys_addr, size, virt_addr));
}

rknn_tensor_mem* create_mem_from_mb_blk(const char* fn, Handle ctx, void* mb_blk, std::int32_t offset) {
  clear_last_error();
  if (check_context(fn, ctx) != RKNN_SUCC) return nullptr;
  return failed(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("MB block {} (offset {}): MB blocks are the RV1106/RV1103 media framework's buffers, "
                            "which a host does not have; use rknn_create_mem_from_fd with the block's fd",
                            mb_blk, offset));
}

int destroy_mem(const char* fn, Handle ctx, rknn_tensor_mem* mem) {
  clear_last_error();
  MemRef m;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    auto it = g_mems.find(mem);
    if (it != g_mems.end() && (it->second->owner == 0 || it->second->owner == ctx)) {
      m = std::move(it->second);
      g_mems.erase(it);
    } else if (it != g_mems.end()) {
      m = it->second;  // only for the message below
    }
  }
  if (!m) {
    // A live memory is freed even after its context's rknn_destroy (either order works);
    // for anything else a bad context is reported first.
    if (const int r = check_context(fn, ctx); r != RKNN_SUCC) return r;
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("mem {} is not a live rknn_tensor_mem (never created by rknn_create_mem*, or already "
                            "destroyed)",
                            static_cast<const void*>(mem)));
  }
  if (m->owner != 0 && m->owner != ctx) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("{} was created on context 0x{:x}, not 0x{:x}; destroy it with that context",
                            m->describe(), m->owner, ctx));
  }
  {
    std::lock_guard<std::mutex> lock(m->mu);  // waits for a run using the bytes
    m->destroyed = true;
    release_bytes(*m);
  }
  // Poisoned and kept for a while (rknn_mem.h): a stale copy reads NULL, not freed memory.
  *mem = rknn_tensor_mem{};
  mem->fd = -1;
  rknn_tensor_mem* evicted = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_quarantine.q.push_back(mem);
    if (g_quarantine.q.size() > kQuarantine) {
      evicted = g_quarantine.q.front();
      g_quarantine.q.pop_front();
    }
  }
  delete evicted;
  return RKNN_SUCC;
}

int mem_sync(const char* fn, Handle ctx, rknn_tensor_mem* mem, int mode) {
  clear_last_error();
  // The guide: `context` may be NULL except on RV1103/RV1106; the memory says all we need.
  MemRef m = find_mem(mem);
  if (!m) {
    if (ctx != 0) {
      if (const int r = check_context(fn, ctx); r != RKNN_SUCC) return r;
    }
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("mem {} is not a live rknn_tensor_mem (never created by rknn_create_mem*, or already "
                            "destroyed)",
                            static_cast<const void*>(mem)));
  }
  if (m->kind != MemObj::Kind::kDevice || !m->cacheable) return RKNN_SUCC;  // one view: nothing to do
  Status s;
  {
    std::lock_guard<std::mutex> lock(m->mu);
    if (m->destroyed) return fail(fn, RKNN_ERR_PARAM_INVALID, m->describe() + " was destroyed");
    // TO_DEVICE writes the CPU's dirty lines back; FROM_DEVICE drops the CPU's clean lines
    // so that the next reads fetch what the NPU wrote. The memory layer's maintenance does
    // both per line, as a flush-and-invalidate does.
    if ((mode & RKNN_MEMORY_SYNC_TO_DEVICE) != 0) s = m->rt->mem_flush(m->data, m->size);
    if (s.ok() && (mode & RKNN_MEMORY_SYNC_FROM_DEVICE) != 0) s = m->rt->mem_invalidate(m->data, m->size);
  }
  if (!s.ok()) return fail(fn, RKNN_ERR_FAIL, m->describe() + ": " + s.message());
  return RKNN_SUCC;
}

MemRef find_mem(const rknn_tensor_mem* mem) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_mems.find(mem);
  return it == g_mems.end() ? nullptr : it->second;
}

MemRef find_mem_holding(const void* p, std::uint64_t size) {
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  std::lock_guard<std::mutex> lock(g_mu);
  for (const auto& kv : g_mems) {
    const auto base = reinterpret_cast<std::uintptr_t>(kv.second->data);
    if (kv.second->data != nullptr && at >= base && at - base <= kv.second->size && size <= kv.second->size - (at - base)) {
      return kv.second;
    }
  }
  return nullptr;
}

std::size_t live_mems_of(Handle ctx) {
  std::lock_guard<std::mutex> lock(g_mu);
  std::size_t n = 0;
  for (const auto& kv : g_mems) n += kv.second->owner == ctx ? 1 : 0;
  return n;
}

std::size_t live_mems() {
  std::lock_guard<std::mutex> lock(g_mu);
  return g_mems.size();
}

bool device_read(MemObj& m, std::uint64_t bytes, bool sync, std::vector<std::uint8_t>* out, bool* stale,
                 std::string* why) {
  std::lock_guard<std::mutex> lock(m.mu);
  if (m.destroyed) {
    *why = m.describe() + " was destroyed (rknn_destroy_mem) while bound";
    return false;
  }
  const std::uint8_t* src = m.data;
  if (m.kind == MemObj::Kind::kDevice) {
    hal::Memory& mem = m.rt->backend().memory();
    if (m.cacheable && sync) {
      if (Status s = m.rt->mem_flush(m.data, bytes); !s.ok()) {
        *why = s.message();
        return false;
      }
    }
    auto view = mem.device_read(m.data, bytes);
    if (!view.ok()) {
      *why = view.status().message();
      return false;
    }
    src = *view;
    // What the NPU reads differs from what the CPU sees: lines written and not flushed.
    *stale = m.cacheable && std::memcmp(src, m.data, bytes) != 0;
  }
  out->assign(src, src + bytes);
  return true;
}

bool device_write(MemObj& m, const std::vector<std::uint8_t>& bytes, bool sync, std::string* why) {
  std::lock_guard<std::mutex> lock(m.mu);
  if (m.destroyed) {
    *why = m.describe() + " was destroyed (rknn_destroy_mem) while bound";
    return false;
  }
  std::uint8_t* dst = m.data;
  if (m.kind == MemObj::Kind::kDevice) {
    auto view = m.rt->backend().memory().device_write(m.data, bytes.size());
    if (!view.ok()) {
      *why = view.status().message();
      return false;
    }
    dst = *view;
  }
  std::memcpy(dst, bytes.data(), bytes.size());
  if (m.kind == MemObj::Kind::kDevice && m.cacheable && sync) {
    if (Status s = m.rt->mem_invalidate(m.data, bytes.size()); !s.ok()) {
      *why = s.message();
      return false;
    }
  }
  return true;
}

}  // namespace svp::runtime::rknn
