// Resolution gears (--dynamic_image_size) for models whose folded constants depend on the
// image size.
//
// The importer resolves the gear dimensions at the first (largest) gear and folds every
// Shape chain into constants at that size; the runtime derives each smaller gear's program
// by shape inference over the stored one (exec/gears.cpp). A Reshape whose target shape
// came from a Shape chain (PaddleOCR's recognisers: [0, W/8, 3, 8, 15]) then names the
// largest gear's size and fails at every other gear. This step imports the model again at
// other gears, compares the folded constants node by node, and writes -1 into the one
// image-dependent entry of each Reshape target, which is what the Shape chain computed at
// every gear. Any other constant (or attribute) that differs between gears is refused with
// the node named: one stored program cannot express it.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "compiler/graph.h"
#include "compiler/options.h"

namespace svp::compiler {

// `g` was imported at options.dynamic_image_size.front(); `import_at(h, w)` imports the same
// model at another gear. Appends what it changed to `log`. No-op with fewer than 2 gears.
template <class ImportAt>
Status generalize_gear_constants(Graph& g, const CompileOptions& options, ImportAt&& import_at,
                                 std::vector<std::string>* log);

// The comparison of `g` with `other` (the same model imported at another gear); changes `g`.
// Returns the number of Reshape targets it generalised.
Result<int> generalize_against(Graph& g, const Graph& other, std::pair<std::int64_t, std::int64_t> gear,
                               std::pair<std::int64_t, std::int64_t> other_gear);

// The gears to import besides the first: one differing in both height and width when
// there is one, otherwise one differing in height and one differing in width (if any).
std::vector<std::pair<std::int64_t, std::int64_t>> comparison_gears(
    const std::vector<std::pair<std::int64_t, std::int64_t>>& gears);

template <class ImportAt>
Status generalize_gear_constants(Graph& g, const CompileOptions& options, ImportAt&& import_at,
                                 std::vector<std::string>* log) {
  if (options.dynamic_image_size.size() < 2) return Status::Ok();
  for (const auto& gear : comparison_gears(options.dynamic_image_size)) {
    Result<Graph> other = import_at(gear.first, gear.second);
    if (!other.ok()) return other.status();
    Result<int> n = generalize_against(g, *other, options.dynamic_image_size.front(), gear);
    if (!n.ok()) return n.status();
    if (*n > 0 && log != nullptr) {
      log->push_back("gears: " + std::to_string(*n) + " Reshape target(s) depend on the image size (compared with gear " +
                     std::to_string(gear.first) + "x" + std::to_string(gear.second) + "): written as -1");
    }
  }
  return Status::Ok();
}

}  // namespace svp::compiler
