// Running one layer of an execution through its reference kernel with what the execution
// asks of it beyond the tensors (RunArgs): today the time steps of recurrent nets.
//
// svp_acl_mdl_set_total_t limits how many of the compiled time steps an execution
// processes. A recurrent layer (LSTM / GRU / RNN) then runs as though its sequence_lens
// input were min(sequence_lens, total_t) for every batch entry: outputs past that step are
// zero and the final states are those after it (ONNX sequence_lens semantics), so the
// kernels need no second definition of "fewer steps".
#pragma once

#include <vector>

#include "common/status.h"
#include "kernels/compiled_program.h"
#include "model/program.h"
#include "model/tensor.h"

namespace svp::kernels {

// Runs `layer` with run_reference on `in` / `out` (views in the layer's input/output order;
// absent optional inputs are empty views), applying `args`. Thread-safe.
Status run_reference_with_steps(const model::Layer& layer, std::vector<model::TensorView> in,
                                const std::vector<model::TensorView>& out, const RunArgs& args);

}  // namespace svp::kernels
