// A loaded model as the C API's description queries read it (svp_acl_mdl_desc): the
// immutable model::Model and its ModelSettings, read together, so the descriptions follow
// the selected resolution gear and the dynamic-AIPP sources without knowing about either.
// A view keeps both alive: a description stays readable after its model is unloaded.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "runtime/runtime.h"

namespace svp::runtime {

using IoDesc = model::IoDesc;

class ModelView {
 public:
  ModelView() = default;
  explicit ModelView(const LoadedModel& loaded) : model_(loaded.model), settings_(loaded.settings) {}

  bool empty() const { return model_ == nullptr; }
  // The description tables as loaded (their entry counts do not depend on the gear).
  std::size_t num_inputs() const { return model_->inputs.size(); }
  std::size_t num_outputs() const { return model_->outputs.size(); }
  // Inputs/outputs at the resolution gear selected now.
  const std::vector<IoDesc>& inputs() const { return model_->inputs_at(settings_->gear()); }
  const std::vector<IoDesc>& outputs() const { return model_->outputs_at(settings_->gear()); }
  // Input `index` as reported now (a dynamic-AIPP input follows svp_acl_mdl_set_input_aipp).
  // Precondition: index < inputs().size().
  IoDesc input(std::size_t index) const { return model_->input_desc(index, *settings_); }
  // The compiled flags (dynamic batch / resolution gears, buffer reuse).
  const model::ModelFlags& flags() const { return model_->program.flags; }

 private:
  std::shared_ptr<const model::Model> model_;
  std::shared_ptr<const model::ModelSettings> settings_;
};

}  // namespace svp::runtime
