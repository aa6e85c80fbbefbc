// acl.json: the process configuration read by svp_acl_init.
//
// Vendor sections: "profiler" (docs/profiling.md) and "dump" (model dump, docs/runtime.md).
// Project section
// "softnpu" configures the emulated hardware:
//   { "softnpu": { "devices": 1, "cores": 1, "wait_tick_us": 10600, "wait_cap_ticks": 32,
//                  "max_streams": 128, "cache_mode": "emulated" | "coherent",
//                  "strict": false, "backend": "softnpu" | "fault" | <registered>,
//                  "backend_options": { "fail_every_nth_task": "3" },
//                  "kernel_threads": 1, "kernel_spin": "auto" | "spin" | "throttle",
//                  "wait_policy": "auto" | "spin" | "yield" | "block", "spin_us": 30,
//                  "soc_version": "SS928V100", "device_memory_mb": 4096,
//                  "clock": "host" | "board" } }
// "clock": "board" runs the device on the predicted board time of soc_version
// (docs/scheduling.md "Board clock").
// The device memory limit is device_memory_mb, else the board memory of soc_version's
// profile (src/target; default: svp_atc's default target).
// Unknown top-level sections are ignored (the vendor library does the same).
#pragma once

#include <optional>
#include <string>

#include "common/status.h"
#include "exec/dump_config.h"
#include "hal/hal.h"
#include "kernels/compiled_program.h"
#include "profiling/profiler.h"

namespace svp::runtime {

struct RuntimeConfig {
  hal::BackendConfig backend;
  bool strict = false;  // usage errors that a board would corrupt silently become errors
  // Threads one layer's fast-path kernel may use (kernels::CompileOptions::threads),
  // fixed when a model is loaded.
  std::uint32_t kernel_threads = 1;
  // How those threads wait between layers (kernels::KernelSpin; docs/performance.md "Two
  // kernel threads on a busy machine").
  kernels::KernelSpin kernel_spin = kernels::KernelSpin::kAuto;
  profiling::JsonSettings profiler;  // acl.json "profiler"
  std::optional<exec::DumpConfig> dump;  // acl.json "dump" (exec/dump_config.h)
  // softnpu.soc_version was given (backend.board_target is otherwise the default target's;
  // librknnrt then takes the first model's platform: docs/rknn.md "Performance queries").
  bool soc_version_given = false;
};

// Parses the file at `path`; NULL or "" yields the defaults.
Result<RuntimeConfig> load_config(const char* path);
// Parses JSON text (exposed for tests); `origin` names it in messages.
Result<RuntimeConfig> parse_config(const std::string& text, const std::string& origin);

}  // namespace svp::runtime
