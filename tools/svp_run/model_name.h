// What svp_run --dump_layer needs to know of an .om: the name it stores (svp_atc
// --output's basename; the model dump's dump_list selects models by it) and its layer
// names (to warn about a requested layer the model lacks where the user sees it: the
// runtime's own warning is below the default log level). svp_run uses only the public C
// API, which has no call returning either, so this reads the METADATA section the way
// docs/model_format.md §1-2 describes it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace svp::run {

struct ModelNames {
  std::string name;                 // "" when the model has none
  std::vector<std::string> layers;  // in program order
};

// Empty when the image is not a readable svp-acl model (the load reports what is wrong).
ModelNames model_names(const std::vector<std::uint8_t>& image);

}  // namespace svp::run
