// atc_perf.csv: the compiled model's estimated cost per layer, the table the vendor's ATC
// writes beside the model. Columns: layer index, name, op type, device (NPU / CPU),
// segment, cube MACs, bytes read (inputs, weights included), bytes written, weight bytes.
// The vendor's estimated time column needs the chip's MAC rate and bandwidth, which we do
// not model per SoC: it is left out (docs/compiler.md "Outputs").
#pragma once

#include <string>

#include "model/program.h"

namespace svp::compiler {

std::string atc_perf_csv(const model::Program& program);

}  // namespace svp::compiler
