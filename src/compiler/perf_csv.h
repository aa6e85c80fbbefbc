// atc_perf.csv: the compiled model's estimated cost per layer, the table the vendor's ATC
// writes beside the model. Columns: layer index, name, op type, device (NPU / CPU),
// segment, cube MACs, bytes read (inputs, weights included), bytes written, weight bytes,
// estimated time in µs and what bounds it (compute or memory), then the board timing model's
// predicted time in µs and its bound (compute / DDR / overhead; "fused" for a layer the
// board runs inside the one before it). The total row's predicted time includes the per-task
// and NPU/CPU switch costs (src/target/board_time.h, docs/board_time.md).
//
// The estimate is a roofline lower bound on the --soc_version's nominal figures
// (src/target/device_profile.h): max(MACs / peak MAC rate, bytes moved / DRAM bandwidth), with the NPU
// at its int8 rate for int8 activations and half of it for 16-bit and float ones (the
// hardware computes float models in fp16), and AI-CPU layers at the AI-CPU's rate.
#pragma once

#include <string>

#include "target/device_profile.h"
#include "model/program.h"

namespace svp::compiler {

std::string atc_perf_csv(const model::Program& program, const target::DeviceProfile& device);

}  // namespace svp::compiler
