// The layer fusions the runtime applies when it loads a model (Conv + Add + activation,
// Conv + activation, int8 Add + Relu: src/kernels/onednn/program.cpp): the compiler does
// not rewrite the model for them — the .om keeps one layer per op, so that every tensor
// stays observable (dump, calibration) — but reports them in the compile log and om.json.
// They are read off the runtime's own load-time plan (kernels::CompiledProgram with its
// default options), so the report cannot drift from what the runtime does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "kernels/compiled_program.h"
#include "model/program.h"

namespace svp::compiler {

struct FusionGroup {
  std::size_t head = 0;              // the layer that does the work
  std::vector<std::size_t> fused;    // the layers folded into it (program order)
  std::string impl;                  // the head's implementation ("onednn", "native")
};

// `weights`: the model's WEIGHTS section.
Result<std::vector<FusionGroup>> runtime_fusions(const model::Program& program, const std::uint8_t* weights,
                                                 std::size_t weights_size);
// The same, read off a plan already prepared with the default options.
std::vector<FusionGroup> runtime_fusions(const kernels::CompiledProgram& plan);

// "conv1+relu1, conv2+add1+relu2" (layer names), or "none".
std::string fusion_text(const model::Program& program, const std::vector<FusionGroup>& groups);

}  // namespace svp::compiler
