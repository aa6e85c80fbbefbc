// The "softnpu" backend: N emulated devices sharing one emulated DDR.
#include <memory>
#include <system_error>
#include <vector>

#include "hal/hal.h"
#include "hal/softnpu/device.h"
#include "hal/softnpu/memory.h"

namespace svp::hal::softnpu {
namespace {

class SoftNpuBackend final : public Backend {
 public:
  explicit SoftNpuBackend(const BackendConfig& config)
      : memory_(config.cache_mode, config.memory_limit, config.memory_limit_origin) {
    for (std::uint32_t i = 0; i < config.devices; ++i) {
      devices_.push_back(std::make_unique<SoftNpuDevice>(i, config, &memory_));
    }
  }
  ~SoftNpuBackend() override {
    devices_.clear();  // stop cores before the memory they may touch goes away
  }

  std::uint32_t device_count() const override { return static_cast<std::uint32_t>(devices_.size()); }
  Device& device(std::uint32_t index) override { return *devices_.at(index); }
  Memory& memory() override { return memory_; }

 private:
  SoftMemory memory_;
  std::vector<std::unique_ptr<SoftNpuDevice>> devices_;
};

}  // namespace

Result<std::unique_ptr<Backend>> create_softnpu_backend(const BackendConfig& config) {
  if (config.devices == 0 || config.devices > 64) {
    return Error(err::kFileAttrInvalid, "softnpu: devices must be 1..64, got {}", config.devices);
  }
  if (config.cores == 0 || config.cores > 64) {
    return Error(err::kFileAttrInvalid, "softnpu: cores must be 1..64, got {}", config.cores);
  }
  if (config.wait_tick == 0 || config.wait_cap_ticks == 0) {
    return Error(err::kFileAttrInvalid, "softnpu: wait tick and wait cap must be positive");
  }
  try {
    return std::unique_ptr<Backend>(std::make_unique<SoftNpuBackend>(config));
  } catch (const std::system_error& e) {
    return Error(err::kRtFailure,
                 "softnpu: cannot start the threads of the emulated NPU cores ({}): the host is out of threads or "
                 "memory; lower softnpu.devices or softnpu.cores in acl.json, or the host's load",
                 e.what());
  }
}

}  // namespace svp::hal::softnpu
