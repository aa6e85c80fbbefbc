// --mode=1: an offline model described as JSON with the vendor om.json's keys
// (COMPILER.md §1.2): model-level sizes and, per op, name, type, device_type (the NPU
// engine or CPU for AI-CPU layers), input_desc / output_desc and the data flow.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "compiler/fusion_report.h"
#include "model/program.h"
#include "target/device_profile.h"

namespace svp::compiler {

// With `fusions` (runtime_fusions() of the program): each op folded into another at load
// gets "fused_into" (the layer that computes it), and the model "fusions" (per group, the
// head's name then the folded layers').
// With `device`: each op gets "predicted_us" and "predicted_bound", the model
// "predicted_board_time" (soc, total_us), the board timing model's prediction on it.
nlohmann::json om_json(const model::Program& program, std::uint64_t weights_size,
                       const std::vector<FusionGroup>* fusions = nullptr,
                       const target::DeviceProfile* device = nullptr);

}  // namespace svp::compiler
