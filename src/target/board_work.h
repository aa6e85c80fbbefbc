// A compiled program's layers as the board timing model's work (board_time.h): precision
// from each NPU layer's activation type, work class from the op table's timing class, feature
// maps split into those passed between layers of one unit at one precision (candidates for
// the on-chip buffer) and those through DDR (model inputs and outputs, changes of unit or
// precision), and the ops a board compiler folds into the convolution before them.
//
// The MACs come from the caller (kernels::layer_macs: the cube's count has one definition,
// in kernels, which sits beside target): compile and load time compute them once.
#pragma once

#include <cstdint>
#include <vector>

#include "model/program.h"
#include "target/board_time.h"

namespace svp::target {

// `macs[l]` for every layer l of `program`. Units and precisions come from the program
// (its placement, its tensors' types) unless given per layer: the fit tool gives a float
// program the placement and the precisions a target and a compile mode would.
std::vector<LayerWork> program_work(const model::Program& program, const std::vector<std::uint64_t>& macs,
                                    const std::vector<Unit>* units = nullptr,
                                    const std::vector<Precision>* precisions = nullptr);

// The segment ends of a program (Segment::end), as predict_program takes them.
std::vector<std::int32_t> segment_ends(const model::Program& program);

}  // namespace svp::target
