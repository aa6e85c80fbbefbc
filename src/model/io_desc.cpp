#include "model/io_desc.h"

#include <utility>

namespace svp::model {

void ModelSettings::set_aipp_source(std::size_t input, IoDesc d) {
  std::lock_guard<std::mutex> lock(mu_);
  aipp_sources_[input] = std::move(d);
}

bool ModelSettings::aipp_source(std::size_t input, IoDesc* out) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = aipp_sources_.find(input);
  if (it == aipp_sources_.end()) return false;
  *out = it->second;
  return true;
}

}  // namespace svp::model
