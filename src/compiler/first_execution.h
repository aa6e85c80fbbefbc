// The model's first execution, at compile time. The runtime's load (kernels::
// CompiledProgram::compile) checks shapes, but some checks only a layer's kernel makes when
// it runs: operand types (an int64 Conv weight), attributes read at run time. A model
// failing them compiled and was then refused by the runtime at its first execution (the
// bad-input probe: 16 such models). svp_atc runs the emitted model once, on zero inputs,
// through the same CompiledProgram the runtime executes, and refuses the model with the
// layer's own complaint instead of writing it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "kernels/compiled_program.h"
#include "model/program.h"

namespace svp::compiler {

// Where each tensor of `p` lives for one execution: model inputs and outputs in the given
// dense buffers (by io_index), work_buf tensors at `work_buf` + offset, weights at
// `weights` + offset. The runtime's executor does the same for the application's buffers.
std::vector<void*> tensor_addresses(const model::Program& p, const std::vector<void*>& inputs,
                                    const std::vector<void*>& outputs, std::uint8_t* work_buf,
                                    const std::uint8_t* weights);

// Runs every layer of `compiled` (prepared from `p` and `weights`) once on zero inputs.
// err::kParseModel naming the layer, its op and the kernel's complaint if one refuses an
// operand type (kUnsupportedDataType) or an attribute (kParseModel): those do not depend
// on the inputs. A complaint about values (kInvalidParam: a zero quantization scale that
// is a model input, say) may be the zero inputs' doing, so it only adds a line to `notes`
// and the run goes on; the runtime checks the real inputs at every execution.
Status first_execution(const model::Program& p, const std::uint8_t* weights, const kernels::CompiledProgram& compiled,
                       std::vector<std::string>* notes);

}  // namespace svp::compiler
