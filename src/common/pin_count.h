// How many model executions (queued or running) still use an object the application owns:
// a device allocation (hal::Memory::pin) or a C descriptor (capi::LiveSet::pin). While
// the count is raised the releasing call (svp_acl_rt_free, svp_acl_mdl_destroy_dataset,
// svp_acl_destroy_data_buffer) is refused: the vendor leaves releasing in-flight objects
// undefined, and on the software NPU it was a use-after-free (found by the bad-input probe).
//
// Tokens lower the count touching only the count itself (which they keep alive), never the
// registry that handed them out, so a token may outlive that registry.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>

#include <fmt/format.h>

namespace svp {

class PinCount {
 public:
  std::size_t count() const { return n_.load(); }

  // Raises `counted`'s count; the returned token lowers it when its last copy goes. The
  // caller raises it while the object is known live (under its registry's lock).
  static std::shared_ptr<void> pin(std::shared_ptr<PinCount> counted) {
    counted->n_.fetch_add(1);
    PinCount* raw = counted.get();
    return std::shared_ptr<void>(raw, [keep = std::move(counted)](void*) { keep->n_.fetch_sub(1); });
  }

  // The refusal's wording, shared by every releasing call: "<what> is still used by ...".
  std::string in_use(const std::string& what, const char* release) const {
    return fmt::format("{} is still used by {} model execution(s) queued or running on the device; synchronize the "
                       "stream first, then {} it",
                       what, count(), release);
  }

 private:
  std::atomic<std::size_t> n_{0};
};

}  // namespace svp
