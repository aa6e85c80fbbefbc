// --mode=1: an offline model described as JSON with the vendor om.json's keys
// (COMPILER.md §1.2): model-level sizes and, per op, name, type, device_type (the NPU
// engine or CPU for AI-CPU layers), input_desc / output_desc and the data flow.
#pragma once

#include <nlohmann/json.hpp>

#include "model/program.h"

namespace svp::compiler {

nlohmann::json om_json(const model::Program& program, std::uint64_t weights_size);

}  // namespace svp::compiler
