// Opaque handles that can be validated.
//
// The C API hands out `void*` handles for contexts, streams and events. They are never
// addresses: each encodes a type tag, a slot index, the slot's generation and the
// runtime epoch, so a stale handle (object destroyed, or from before a finalize), a
// handle of another type, or garbage is recognised and rejected instead of being
// dereferenced.
//
//   bits 0..3   type tag (never 0, so aligned pointers are rejected outright)
//   bits 4..23  slot index + 1
//   bits 24..47 slot generation
//   bits 48..63 runtime epoch
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <vector>

#include "common/status.h"

namespace svp::runtime {

static_assert(sizeof(void*) == 8, "handle encoding assumes 64-bit pointers");

template <typename T>
class HandleTable {
 public:
  HandleTable(std::uint8_t tag, std::uint16_t epoch, const char* kind) : tag_(tag & 0xf), epoch_(epoch), kind_(kind) {}

  // Stores `obj` and returns its handle, or a resource-limit error.
  Result<void*> insert(std::shared_ptr<T> obj) {
    std::unique_lock<std::shared_mutex> lock(mu_);
    std::uint32_t slot;
    if (!free_.empty()) {
      slot = free_.back();
      free_.pop_back();
    } else {
      if (slots_.size() >= kMaxSlots) return Error(err::kStorageOverLimit, "too many live {} handles", kind_);
      slot = static_cast<std::uint32_t>(slots_.size());
      slots_.emplace_back();
    }
    Slot& s = slots_[slot];
    s.gen = (s.gen + 1) & kGenMask;
    if (s.gen == 0) s.gen = 1;
    s.obj = std::move(obj);
    ++live_;
    return encode(slot, s.gen);
  }

  // The object behind `handle`, or an INVALID_RESOURCE_HANDLE error saying why not.
  Result<std::shared_ptr<T>> get(const void* handle) const {
    std::uint32_t slot = 0;
    std::uint32_t gen = 0;
    SVP_RETURN_IF_ERROR(decode(handle, &slot, &gen));
    std::shared_lock<std::shared_mutex> lock(mu_);
    if (slot >= slots_.size() || !slots_[slot].obj || slots_[slot].gen != gen) {
      return Error(err::kInvalidResourceHandle, "{} handle {} was destroyed (stale handle)", kind_, handle);
    }
    return slots_[slot].obj;
  }

  // Removes and returns the object behind `handle`.
  Result<std::shared_ptr<T>> take(const void* handle) {
    std::uint32_t slot = 0;
    std::uint32_t gen = 0;
    SVP_RETURN_IF_ERROR(decode(handle, &slot, &gen));
    std::unique_lock<std::shared_mutex> lock(mu_);
    if (slot >= slots_.size() || !slots_[slot].obj || slots_[slot].gen != gen) {
      return Error(err::kInvalidResourceHandle, "{} handle {} was destroyed (stale handle)", kind_, handle);
    }
    std::shared_ptr<T> obj = std::move(slots_[slot].obj);
    free_.push_back(slot);
    --live_;
    return obj;
  }

  std::size_t live() const {
    std::shared_lock<std::shared_mutex> lock(mu_);
    return live_;
  }

  // Every live object (a snapshot).
  std::vector<std::shared_ptr<T>> all() const {
    std::shared_lock<std::shared_mutex> lock(mu_);
    std::vector<std::shared_ptr<T>> out;
    for (const Slot& s : slots_) {
      if (s.obj) out.push_back(s.obj);
    }
    return out;
  }

 private:
  static constexpr std::uint32_t kMaxSlots = (1u << 20) - 1;
  static constexpr std::uint32_t kGenMask = (1u << 24) - 1;

  struct Slot {
    std::shared_ptr<T> obj;
    std::uint32_t gen = 0;
  };

  void* encode(std::uint32_t slot, std::uint32_t gen) const {
    const std::uint64_t v = std::uint64_t{tag_} | (std::uint64_t{slot + 1} << 4) | (std::uint64_t{gen} << 24) |
                            (std::uint64_t{epoch_} << 48);
    return reinterpret_cast<void*>(static_cast<std::uintptr_t>(v));
  }

  Status decode(const void* handle, std::uint32_t* slot, std::uint32_t* gen) const {
    if (handle == nullptr) return Error(err::kInvalidParam, "{} handle is NULL", kind_);
    const auto v = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(handle));
    if ((v & 0xf) != tag_) return Error(err::kInvalidResourceHandle, "{} is not a {} handle", handle, kind_);
    if ((v >> 48) != epoch_) {
      return Error(err::kInvalidResourceHandle, "{} handle {} belongs to an earlier svp_acl_init session", kind_, handle);
    }
    const std::uint32_t s = static_cast<std::uint32_t>((v >> 4) & 0xfffff);
    if (s == 0) return Error(err::kInvalidResourceHandle, "{} is not a {} handle", handle, kind_);
    *slot = s - 1;
    *gen = static_cast<std::uint32_t>((v >> 24) & kGenMask);
    return Status::Ok();
  }

  const std::uint8_t tag_;
  const std::uint16_t epoch_;
  const char* kind_;
  mutable std::shared_mutex mu_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_;
  std::size_t live_ = 0;
};

}  // namespace svp::runtime
