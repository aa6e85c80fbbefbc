// What svp_acl_mdl_set_config_opt stores: how to load a model and how to schedule it
// (spec §2.6). Used by load_with_config (everything) and set_model_config (only the
// scheduling attributes that were set).
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/status.h"

namespace svp::model {

// Vendor attribute numbers (svp_acl_mdl_config_attr).
enum ConfigAttr : int {
  kAttrPriority = 0,
  kAttrLoadType = 1,
  kAttrPath = 2,
  kAttrMemAddr = 3,
  kAttrMemSize = 4,
  kAttrWeightAddr = 5,
  kAttrWeightSize = 6,
  kAttrWorkspaceAddr = 7,
  kAttrWorkspaceSize = 8,
  kAttrInputQNum = 9,
  kAttrInputQAddr = 10,
  kAttrOutputQNum = 11,
  kAttrOutputQAddr = 12,
  kAttrPreemptEnable = 13,
  kAttrStepTimeout = 14,
  kAttrTopTimeout = 15,
};

inline constexpr std::size_t kLoadFromMem = 3;  // SVP_ACL_MDL_LOAD_FROM_MEM

// Scheduling attributes of a model; defaults are those of svp_acl_mdl_load_from_mem.
struct Scheduling {
  std::int32_t priority = 3;
  bool preempt_enable = true;
  std::uint32_t step_timeout_ms = 0;
  std::uint32_t top_timeout_ms = 0;
};

struct LoadConfig {
  std::size_t load_type = 0;
  const void* mem = nullptr;
  std::size_t mem_size = 0;
  Scheduling scheduling;
  std::uint32_t set_mask = 0;  // bit (1 << attr) for every attribute set

  bool is_set(ConfigAttr a) const { return (set_mask >> a) & 1u; }

  // Stores one attribute from the caller's `value` of `size` bytes, with the range and
  // consistency checks of the vendor (priority 0..7, PREEMP_EN as 1 or 4 bytes holding
  // 0/1, timeouts 0 or [15, 600000) ms and never both, load type a known LOAD_FROM_*).
  Status set(int attr, const void* value, std::size_t size);
  // Copies one attribute out; unset scheduling attributes read as their defaults.
  Status get(int attr, void* value, std::size_t size) const;
  // Everything load_with_config needs: LOAD_FROM_MEM with an address and a size.
  Status check_loadable() const;
  // Applies the scheduling attributes that were set to `s`.
  void apply_scheduling(Scheduling* s) const;
};

}  // namespace svp::model
