// Dynamic resolution ("dynamic HW"): a model compiled with resolution gears runs at any of
// them. The program stored in the model file is the largest gear; this derives the program
// of another gear by giving the 4-D data inputs that gear's height and width and
// re-inferring every layer's output shape. The work_buf plan of the stored program is kept:
// each intermediate must fit in the bytes the plan reserved for it (true for networks whose
// tensors shrink with the image), otherwise the model is rejected at load.
#pragma once

#include <cstdint>

#include "common/status.h"
#include "model/program.h"

namespace svp::model {

// `program` at gear (h, w). Errors: err::kParseModel naming the gear and the layer or
// tensor that does not fit.
Result<Program> program_at_gear(const Program& program, const std::uint8_t* weights, std::uint64_t weights_size,
                                std::uint64_t h, std::uint64_t w);

}  // namespace svp::model
