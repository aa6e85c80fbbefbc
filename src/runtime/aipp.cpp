// A loaded model's AIPP inputs as the C API reads and writes them (runtime/aipp.h).
#include "runtime/aipp.h"

#include <utility>

#include "aipp/param_block.h"
#include "model/aipp/model_config.h"

namespace svp::runtime {

namespace {

const char* role_name(AippRole r) {
  switch (r) {
    case AippRole::kStatic: return "a data input with static AIPP";
    case AippRole::kDynamic: return "a data input with dynamic AIPP";
    case AippRole::kParamNode: return "a dynamic-AIPP parameter input";
    default: return "an input without AIPP";
  }
}

}  // namespace

bool aipp_format_supported(std::int32_t format) { return aipp::format_info(format) != nullptr; }

std::string aipp_format_name(std::int32_t format) { return aipp::format_name(format); }

Result<AippModel> AippModel::lookup(Runtime& rt, std::uint32_t model_id) {
  auto loaded = rt.models().lookup(model_id);
  if (!loaded.ok()) return loaded.status();
  return AippModel(std::move(*loaded));
}

Result<const IoDesc*> AippModel::input(std::size_t index) const {
  const model::Model& model = *loaded_.model;
  if (index >= model.inputs.size()) {
    return Error(err::kInvalidParam, "input index {} out of range (the model has {} inputs)", index,
                 model.inputs.size());
  }
  return &model.inputs[index];
}

Result<const IoDesc*> AippModel::output(std::size_t index) const {
  const model::Model& model = *loaded_.model;
  if (index >= model.outputs.size()) {
    return Error(err::kInvalidParam, "output index {} out of range (the model has {} outputs)", index,
                 model.outputs.size());
  }
  return &model.outputs[index];
}

Result<std::size_t> AippModel::param_input_of(std::size_t index) const {
  auto d = input(index);
  if (!d.ok()) return d.status();
  if ((*d)->aipp != AippRole::kDynamic) {
    return Error(err::kInvalidParam, "input {} (\"{}\") is {}, not a data input with dynamic AIPP", index,
                 (*d)->name, role_name((*d)->aipp));
  }
  return static_cast<std::size_t>((*d)->aipp_link);
}

Result<std::size_t> AippModel::check_params(std::size_t param_index, const AippParams& p) const {
  const model::Model& model = *loaded_.model;
  auto node = input(param_index);
  if (!node.ok()) return node.status();
  if ((*node)->kind != model::IoKind::kAippParams) {
    return Error(err::kInvalidParam,
                 "input {} (\"{}\") is {}, not a dynamic-AIPP parameter input (use the attached_index from "
                 "svp_acl_mdl_get_input_aipp_type)",
                 param_index, (*node)->name, role_name((*node)->aipp));
  }
  const auto data_index = static_cast<std::size_t>((*node)->aipp_link);
  const IoDesc& data = model.inputs[data_index];
  const model::Tensor& t = model.program.tensors[static_cast<std::size_t>(data.tensor)];
  const aipp::Target target = aipp::target_for(t, model.program.flags, model.input_aipp[data_index]);
  SVP_RETURN_IF_ERROR(aipp::validate_for(p, target));
  return data_index;
}

Status AippModel::write_params(std::size_t param_index, std::size_t data_index, const AippParams& p,
                               std::uint8_t* bytes, std::size_t size) const {
  const model::Model& model = *loaded_.model;
  if (size < aipp::block_size(p)) {
    return Error(err::kInvalidParam, "dataset buffer {} holds {} bytes; the AIPP parameters need {} (allocate {})",
                 param_index, size, aipp::block_size(p), model.inputs[param_index].size);
  }
  SVP_RETURN_IF_ERROR(aipp::serialize(p, bytes, size));
  auto src = model.aipp_source_desc(data_index, p.format, p.src_w, p.src_h);
  if (!src.ok()) return src.status();
  loaded_.settings->set_aipp_source(data_index, std::move(*src));
  return Status::Ok();
}

Result<const AippParams*> AippModel::static_params(std::size_t index) const {
  const model::Model& model = *loaded_.model;
  if (index >= model.inputs.size()) {
    return Error(err::kInvalidParam, "input index {} out of range (the model has {} inputs)", index,
                 model.inputs.size());
  }
  const IoDesc& d = model.inputs[index];
  if (d.kind == model::IoKind::kTaskBuf || d.kind == model::IoKind::kWorkBuf) {
    return Error(err::kInvalidParam, "input {} is {}: AIPP information is not defined for it", index, d.name);
  }
  if (d.aipp != AippRole::kStatic) return static_cast<const AippParams*>(nullptr);
  return &model.input_aipp[index].params;
}

const aipp::ModelAipp* AippModel::dynamic_config(std::size_t index) const {
  const model::Model& model = *loaded_.model;
  if (model.inputs[index].aipp != AippRole::kDynamic) return nullptr;
  return &model.input_aipp[index];
}

IoDesc AippModel::input_now(std::size_t index) const { return loaded_.model->input_desc(index, *loaded_.settings); }

const model::Tensor* AippModel::tensor_of(const IoDesc& d) const {
  if (d.tensor < 0) return nullptr;
  return &loaded_.model->program.tensors[static_cast<std::size_t>(d.tensor)];
}

}  // namespace svp::runtime
