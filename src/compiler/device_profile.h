// The target chip as the compiler's cost estimate sees it: nominal peak NPU rate and DRAM
// bandwidth per --soc_version. Only atc_perf.csv's estimated time uses it; placement and
// segments count MACs, not time, so nothing compiled depends on these figures.
//
// The figures are nominal (product briefs, or a stated assumption where none is public),
// so an estimate built on them is a roofline lower bound, not a prediction: a real NPU
// reaches a fraction of its peak that depends on the layer's shape.
#pragma once

#include <string>

#include "compiler/options.h"

namespace svp::compiler {

struct DeviceProfile {
  const char* name;
  double npu_int8_tops;  // tera-operations/s, 1 MAC = 2 operations
  double ddr_gbps;       // DRAM bandwidth shared by NPU and AI-CPU, GB/s (1e9 bytes)
  double aicpu_gmacs;    // the AI-CPU's vector rate, fp32 MAC/s / 1e9
  const char* source;    // where the figures come from (printed in the log)
};

const DeviceProfile& device_profile(SocVersion soc);

}  // namespace svp::compiler
