// The calibration data of --image_list, read as the vendor's ATC reads it:
//   --image_list="input:list.txt;input2:list2.txt"   (one list per model input; with a
//   single input the "input:" may be left out)
// Every line of a list is one batch item of that input: a .npy file (any numeric dtype,
// converted to the input's), a .bin file (raw, in the input's type — what --input_type
// says, else float32), or the item's numbers themselves separated by spaces or commas.
// Relative paths are looked up beside the list file first, then in the current
// directory. Items are grouped into batches of the input's first dimension; every list
// must give the same number of items, and a partial last batch is an error naming how many
// items are missing. For an input with static AIPP (--insert_op_conf), a line may name a
// JPEG or PNG image instead: it goes through that AIPP as the NPU would take it
// (image_calibration.h). Other image kinds (.bmp, .jp2) and raw .yuv frames are refused
// with err::kFeatureUnsupported.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/status.h"
#include "compiler/graph.h"
#include "kernels/tensor_buffer.h"

namespace svp::compiler::quant {

struct CalibrationSet {
  // batches[b][i]: batch b of graph input i (the input's dtype and shape).
  std::vector<std::vector<kernels::OwnedTensor>> batches;
  std::size_t items = 0;  // lines per list
};

// Reads at most `max_batches` batches (0 = all). Errors (err::kInvalidParam) name the
// list, the line and what is wrong with it: an unknown input, an unreadable file, a size
// that does not match the input's (with both sizes), a malformed number.
Result<CalibrationSet> load_calibration_data(const Graph& g, const std::string& image_list,
                                             std::size_t max_batches = 0);

}  // namespace svp::compiler::quant
