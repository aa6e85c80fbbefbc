// A compiled program's predicted board time on a target (the board timing model,
// src/target/board_time.h, with the committed fitted factors): what svp_atc writes into
// atc_perf.csv, om.json and its log. The MACs are kernels::layer_macs, counted once here.
#pragma once

#include "model/program.h"
#include "target/board_time.h"
#include "target/device_profile.h"

namespace svp::compiler {

target::ProgramTime predict_board_time(const model::Program& program, const target::DeviceProfile& device);

}  // namespace svp::compiler
