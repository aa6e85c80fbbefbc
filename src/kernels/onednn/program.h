// The fast-path CompiledProgram: every layer oneDNN covers runs as a primitive created at
// load, the rest through the reference kernels (docs/kernels.md, "Fast paths").
#pragma once

#include <memory>

#include "kernels/compiled_program.h"

namespace svp::kernels::onednn {

Result<std::unique_ptr<CompiledProgram>> compile_fast(const model::Program& program, const std::uint8_t* weights,
                                                      std::size_t weights_size, const CompileOptions& options);

}  // namespace svp::kernels::onednn
