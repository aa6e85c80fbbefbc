// The inputs each layer of a loaded program must have, by its op's reference kernel.
#pragma once

#include "common/status.h"
#include "model/program.h"

namespace svp::model {

// Every input an op requires (kernels::required_inputs) is a tensor, not -1: the kernels'
// fast paths read them without a check (a Conv whose data input was -1 read tensors[-1]:
// found by the bad-input probe). Program::validate has checked the indices' range.
// No layer has more inputs than its op takes (found by the same probe: a second input on a
// single-input op loaded and was ignored). err::kParseModel naming the layer and the input
// otherwise.
Status check_required_inputs(const Program& p);

}  // namespace svp::model
