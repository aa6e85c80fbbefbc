// A compiled program's layers as the board timing model's work (board_time.h): precision
// from each NPU layer's activation type, work class from the op table's timing class, feature
// maps split into those chained between consecutive layers (candidates for the on-chip
// buffer) and those through DDR, and the activations a board compiler folds into the
// convolution before them.
//
// The MACs come from the caller (kernels::layer_macs: the cube's count has one definition,
// in kernels, which sits beside target): compile and load time compute them once.
#pragma once

#include <cstdint>
#include <vector>

#include "model/program.h"
#include "target/board_time.h"

namespace svp::target {

// `macs[l]` for every layer l of `program`.
std::vector<LayerWork> program_work(const model::Program& program, const std::vector<std::uint64_t>& macs);

// The segment ends of a program (Segment::end), as predict_program takes them.
std::vector<std::int32_t> segment_ends(const model::Program& program);

}  // namespace svp::target
