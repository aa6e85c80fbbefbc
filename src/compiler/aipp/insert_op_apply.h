// The compiler's --insert_op_conf step: read the file, check it against the imported
// graph's inputs and attach each input's AIPP configuration (Graph::input_aipp), which emit
// writes into the model file. The graph's input tensors stay the first-layer tensors; the
// runtime describes an AIPP input as its raw source image (uint8 YUV420SP, RGB, ...), as
// the vendor's compiled models do (docs/aipp.md §1).
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "compiler/graph.h"
#include "compiler/options.h"

namespace svp::compiler::aipp_conf {

// No-op when options.insert_op_conf is empty. Appends what it did to `log`.
Status apply_insert_op_conf(const CompileOptions& options, Graph& graph, std::vector<std::string>* log);

}  // namespace svp::compiler::aipp_conf
