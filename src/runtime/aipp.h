// AIPP as the C API reaches it (svp_acl_mdl.h AIPP functions, src/capi/aipp.cpp): the
// host-only parameter object's contents (svp_acl_mdl_aipp) and a loaded model's AIPP
// inputs. Setting dynamic-AIPP parameters checks them against the data input and writes
// them into the application's buffer of the parameter input (src/aipp/param_block.h), where
// execution reads them back; the data input's description then follows the new source.
// docs/aipp.md is the user guide.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "model/aipp/model_config.h"
#include "model/aipp/params.h"
#include "runtime/runtime.h"

namespace svp::runtime {

// The parameter object's contents and its per-batch-image entries.
using AippParams = aipp::AippParams;
using AippBatchParams = aipp::BatchParams;
using AippResize = aipp::Resize;
using AippPadding = aipp::Padding;
using AippRole = model::AippRole;
using IoDesc = model::IoDesc;

// True when svp-acl converts from AIPP input format `format` (docs/aipp.md lists them).
bool aipp_format_supported(std::int32_t format);
// The format's name, or its number, for messages.
std::string aipp_format_name(std::int32_t format);

// A loaded model as the AIPP functions read it: the immutable model and its settings.
class AippModel {
 public:
  explicit AippModel(LoadedModel loaded) : loaded_(std::move(loaded)) {}
  // Model `model_id` of `rt`. Errors: kInvalidModelId.
  static Result<AippModel> lookup(Runtime& rt, std::uint32_t model_id);

  // Input / output `index` as loaded. Errors: kInvalidParam (out of range).
  Result<const IoDesc*> input(std::size_t index) const;
  Result<const IoDesc*> output(std::size_t index) const;
  // The parameter input of data input `index`, which must have dynamic AIPP. Errors:
  // kInvalidParam.
  Result<std::size_t> param_input_of(std::size_t index) const;
  // Checks that `param_index` is a dynamic-AIPP parameter input and `p` valid for its data
  // input; returns the data input's index. Errors: kInvalidParam.
  Result<std::size_t> check_params(std::size_t param_index, const AippParams& p) const;
  // Writes `p` (checked by check_params for `param_index` / `data_index`) into the
  // application's buffer of the parameter input (`bytes`, `size` bytes); the data input's
  // description then follows the new source. Errors: kInvalidParam (too small a buffer).
  Status write_params(std::size_t param_index, std::size_t data_index, const AippParams& p, std::uint8_t* bytes,
                      std::size_t size) const;
  // The static AIPP parameters of data input `index`; nullptr for an input without AIPP, a
  // dynamic-AIPP input or a dynamic-AIPP parameter input. Errors: kInvalidParam (out of
  // range, task_buf or work_buf).
  Result<const AippParams*> static_params(std::size_t index) const;
  // The model's configuration of dynamic-AIPP data input `index` (its source format and
  // maximum source size), or nullptr for any other input (index < number of inputs).
  const aipp::ModelAipp* dynamic_config(std::size_t index) const;
  // Input `index` as the description queries report it now (index < number of inputs).
  IoDesc input_now(std::size_t index) const;
  // The program tensor `d` describes (for an AIPP input: what AIPP produces), or nullptr.
  const model::Tensor* tensor_of(const IoDesc& d) const;

 private:
  LoadedModel loaded_;
};

}  // namespace svp::runtime
