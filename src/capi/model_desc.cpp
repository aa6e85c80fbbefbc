// svp_acl_mdl.h model descriptions: svp_acl_mdl_desc and its queries.
//
// A description holds a view of the loaded model (runtime/model_view.h), so it stays
// readable after the model is unloaded or the library finalized; queries do not need an
// initialised runtime. Inputs are the data inputs, then task_buf (M-2) and work_buf (M-1);
// SVP_ACL_DYNAMIC_TENSOR_NAME resolves to index M, which needs no dataset entry.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "acl/svp_acl_mdl.h"
#include "capi/guard.h"
#include "capi/live_set.h"
#include "capi/shim.h"
#include "runtime/model_view.h"

using svp::capi::require;
using svp::capi::with_runtime;
using svp::runtime::IoDesc;
using svp::runtime::ModelView;
using svp::runtime::Runtime;

struct svp_acl_mdl_desc {
  ModelView model;
};

namespace {

svp::capi::LiveSet<svp_acl_mdl_desc>& descs() {
  static svp::capi::LiveSet<svp_acl_mdl_desc> set("model description");
  return set;
}

Result<const ModelView*> model_of(const svp_acl_mdl_desc* desc) {
  SVP_RETURN_IF_ERROR(descs().check(desc));
  if (desc->model.empty()) {
    return Error(err::kInvalidParam, "model description is empty (fill it with svp_acl_mdl_get_desc first)");
  }
  return &desc->model;
}

enum class Side { kInput, kOutput };

Result<const IoDesc*> io_of(const svp_acl_mdl_desc* desc, Side side, size_t index) {
  auto m = model_of(desc);
  if (!m.ok()) return m.status();
  const std::vector<IoDesc>& v = side == Side::kInput ? (*m)->inputs() : (*m)->outputs();
  if (index >= v.size()) {
    return Error(err::kInvalidParam, "{} index {} out of range (the model has {})",
                 side == Side::kInput ? "input" : "output", index, v.size());
  }
  return &v[index];
}

// Input/output `index` as reported now, by value: a dynamic-AIPP input's source image
// follows svp_acl_mdl_set_input_aipp (spec §2.4), so its size/stride/dims can change.
Result<IoDesc> current_io(const svp_acl_mdl_desc* desc, Side side, size_t index) {
  auto io = io_of(desc, side, index);
  if (!io.ok()) return io.status();
  if (side == Side::kInput) return desc->model.input(index);
  return **io;
}

// One field of input/output `index`, or `fallback` with the recent error recorded.
template <typename T, typename Project>
T field_of(const svp_acl_mdl_desc* desc, Side side, size_t index, const char* fn, T fallback, Project project) {
  return guard_value<T>(fn, fallback, [&]() -> Result<T> {
    auto io = io_of(desc, side, index);
    if (!io.ok()) return io.status();
    return project(**io);
  });
}

size_t size_of(const svp_acl_mdl_desc* desc, Side side, size_t index, const char* fn) {
  return guard_value<size_t>(fn, 0, [&]() -> Result<size_t> {
    auto io = current_io(desc, side, index);
    if (!io.ok()) return io.status();
    return static_cast<size_t>(io->size);
  });
}

size_t stride_of(const svp_acl_mdl_desc* desc, Side side, size_t index, const char* fn) {
  return guard_value<size_t>(fn, 0, [&]() -> Result<size_t> {
    auto io = current_io(desc, side, index);
    if (!io.ok()) return io.status();
    return static_cast<size_t>(io->stride);
  });
}

svp_acl_error dims_of(const svp_acl_mdl_desc* desc, Side side, size_t index, svp_acl_mdl_io_dims* dims,
                      const char* fn) {
  return guard(fn, [&]() -> Status {
    auto io = current_io(desc, side, index);
    if (!io.ok()) return io.status();
    SVP_RETURN_IF_ERROR(require(dims != nullptr, "dims is NULL"));
    const IoDesc& d = *io;
    if (d.dims.size() > SVP_ACL_MAX_DIM_CNT) {
      return Error(err::kInternalError, "tensor \"{}\" has {} dims (more than {})", d.name, d.dims.size(),
                   SVP_ACL_MAX_DIM_CNT);
    }
    std::memset(dims->name, 0, sizeof dims->name);
    std::memcpy(dims->name, d.name.data(), std::min(d.name.size(), sizeof dims->name - 1));
    dims->dim_count = d.dims.size();
    for (size_t i = 0; i < d.dims.size(); ++i) dims->dims[i] = d.dims[i];
    return Status::Ok();
  });
}

const char* name_of(const svp_acl_mdl_desc* desc, Side side, size_t index, const char* fn) {
  return field_of<const char*>(desc, side, index, fn, nullptr, [](const IoDesc& d) { return d.name.c_str(); });
}

svp_acl_format format_of(const svp_acl_mdl_desc* desc, Side side, size_t index, const char* fn) {
  // Layout uses the svp_acl_format numbers.
  return field_of<svp_acl_format>(desc, side, index, fn, SVP_ACL_FORMAT_UNDEFINED,
                                  [](const IoDesc& d) { return static_cast<svp_acl_format>(d.layout); });
}

svp_acl_data_type dtype_of(const svp_acl_mdl_desc* desc, Side side, size_t index, const char* fn) {
  // DType uses the svp_acl_data_type numbers.
  return field_of<svp_acl_data_type>(desc, side, index, fn, SVP_ACL_DT_UNDEFINED,
                                     [](const IoDesc& d) { return static_cast<svp_acl_data_type>(d.dtype); });
}

svp_acl_error index_of(const svp_acl_mdl_desc* desc, Side side, const char* name, size_t* index, const char* fn) {
  return guard(fn, [&]() -> Status {
    auto m = model_of(desc);
    if (!m.ok()) return m.status();
    SVP_RETURN_IF_ERROR(require(name != nullptr, "name is NULL"));
    SVP_RETURN_IF_ERROR(require(index != nullptr, "index is NULL"));
    const std::vector<IoDesc>& v = side == Side::kInput ? (*m)->inputs() : (*m)->outputs();
    for (size_t i = 0; i < v.size(); ++i) {
      if (v[i].name == name) {
        *index = i;
        return Status::Ok();
      }
    }
    if (side == Side::kInput && std::strcmp(name, SVP_ACL_DYNAMIC_TENSOR_NAME) == 0) {
      *index = v.size();  // M: past the dataset, needs no buffer
      return Status::Ok();
    }
    return Error(err::kInvalidParam, "the model has no {} named \"{}\"", side == Side::kInput ? "input" : "output",
                 name);
  });
}

svp_acl_error class_id_of(const svp_acl_mdl_desc* desc, Side side, size_t index, size_t* class_id, const char* fn) {
  return guard(fn, [&]() -> Status {
    auto io = io_of(desc, side, index);
    if (!io.ok()) return io.status();
    SVP_RETURN_IF_ERROR(require(class_id != nullptr, "class_id is NULL"));
    *class_id = 0;  // ordinary memory: the IR has no secure tensors
    return Status::Ok();
  });
}

svp_acl_inout_reuse_type reuse_of(const svp_acl_mdl_desc* desc, Side side, size_t index, const char* fn) {
  return guard_value<svp_acl_inout_reuse_type>(fn, SVP_ACL_INOUT_REUSE_UNDEFINED,
                                               [&]() -> Result<svp_acl_inout_reuse_type> {
                                                 auto io = io_of(desc, side, index);
                                                 if (!io.ok()) return io.status();
                                                 return static_cast<svp_acl_inout_reuse_type>((*io)->reuse);
                                               });
}

template <typename Gears>
Status fill_gears(const Gears& gears, svp_acl_mdl_hw* hw) {
  if (gears.size() > SVP_ACL_MAX_HW_NUM) {
    return Error(err::kInternalError, "model has {} resolution gears (more than {})", gears.size(),
                 SVP_ACL_MAX_HW_NUM);
  }
  hw->hw_count = gears.size();
  for (size_t i = 0; i < gears.size(); ++i) {
    hw->hw[i][0] = gears[i].first;
    hw->hw[i][1] = gears[i].second;
  }
  return Status::Ok();
}

template <typename Batches>
Status fill_batches(const Batches& batches, svp_acl_mdl_batch* batch) {
  if (batches.size() > SVP_ACL_MAX_BATCH_NUM) {
    return Error(err::kInternalError, "model has {} batch entries (more than {})", batches.size(),
                 SVP_ACL_MAX_BATCH_NUM);
  }
  std::memset(batch, 0, sizeof *batch);
  batch->batch_count = batches.size();
  for (size_t i = 0; i < batches.size(); ++i) batch->batch[i] = batches[i];
  return Status::Ok();
}

}  // namespace

svp_acl_mdl_desc* svp_acl_mdl_create_desc(void) {
  return guard_value<svp_acl_mdl_desc*>(__func__, nullptr, [&]() -> Result<svp_acl_mdl_desc*> {
    auto* d = new svp_acl_mdl_desc();
    descs().add(d);
    return d;
  });
}

svp_acl_error svp_acl_mdl_destroy_desc(svp_acl_mdl_desc* model_desc) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(descs().remove(model_desc));
    delete model_desc;
    return Status::Ok();
  });
}

svp_acl_error svp_acl_mdl_get_desc(svp_acl_mdl_desc* model_desc, uint32_t model_id) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(descs().check(model_desc));
    return with_runtime([&](Runtime& rt) -> Status {
      auto m = rt.models().lookup(model_id);
      if (!m.ok()) return m.status();
      model_desc->model = ModelView(*m);
      return Status::Ok();
    });
  });
}

size_t svp_acl_mdl_get_num_inputs(const svp_acl_mdl_desc* model_desc) {
  return guard_value<size_t>(__func__, 0, [&]() -> Result<size_t> {
    auto m = model_of(model_desc);
    if (!m.ok()) return m.status();
    return (*m)->num_inputs();
  });
}

size_t svp_acl_mdl_get_num_outputs(const svp_acl_mdl_desc* model_desc) {
  return guard_value<size_t>(__func__, 0, [&]() -> Result<size_t> {
    auto m = model_of(model_desc);
    if (!m.ok()) return m.status();
    return (*m)->num_outputs();
  });
}

size_t svp_acl_mdl_get_input_size_by_index(const svp_acl_mdl_desc* model_desc, size_t index) {
  return size_of(model_desc, Side::kInput, index, __func__);
}

size_t svp_acl_mdl_get_output_size_by_index(const svp_acl_mdl_desc* model_desc, size_t index) {
  return size_of(model_desc, Side::kOutput, index, __func__);
}

svp_acl_buffer_reuse_type svp_acl_mdl_get_reuse_buffer_type(const svp_acl_mdl_desc* model_desc) {
  return guard_value<svp_acl_buffer_reuse_type>(__func__, SVP_ACL_BUFFER_REUSE_UNDEFINED,
                                                [&]() -> Result<svp_acl_buffer_reuse_type> {
                                                  auto m = model_of(model_desc);
                                                  if (!m.ok()) return m.status();
                                                  return static_cast<svp_acl_buffer_reuse_type>(
                                                      (*m)->flags().buffer_reuse);
                                                });
}

svp_acl_inout_reuse_type svp_acl_mdl_get_input_reuse_type(const svp_acl_mdl_desc* model_desc, size_t index) {
  return reuse_of(model_desc, Side::kInput, index, __func__);
}

svp_acl_inout_reuse_type svp_acl_mdl_get_output_reuse_type(const svp_acl_mdl_desc* model_desc, size_t index) {
  return reuse_of(model_desc, Side::kOutput, index, __func__);
}

svp_acl_error svp_acl_mdl_get_dynamic_hw(const svp_acl_mdl_desc* model_desc, size_t /*index*/, svp_acl_mdl_hw* hw) {
  return guard(__func__, [&]() -> Status {
    auto m = model_of(model_desc);
    if (!m.ok()) return m.status();
    SVP_RETURN_IF_ERROR(require(hw != nullptr, "hw is NULL"));
    return fill_gears((*m)->flags().dynamic_hw, hw);
  });
}

svp_acl_error svp_acl_mdl_get_input_class_id_by_index(const svp_acl_mdl_desc* model_desc, size_t index,
                                                      size_t* class_id) {
  return class_id_of(model_desc, Side::kInput, index, class_id, __func__);
}

svp_acl_error svp_acl_mdl_get_output_class_id_by_index(const svp_acl_mdl_desc* model_desc, size_t index,
                                                       size_t* class_id) {
  return class_id_of(model_desc, Side::kOutput, index, class_id, __func__);
}

svp_acl_error svp_acl_mdl_get_input_dims(const svp_acl_mdl_desc* model_desc, size_t index, svp_acl_mdl_io_dims* dims) {
  return dims_of(model_desc, Side::kInput, index, dims, __func__);
}

svp_acl_error svp_acl_mdl_get_output_dims(const svp_acl_mdl_desc* model_desc, size_t index,
                                          svp_acl_mdl_io_dims* dims) {
  return dims_of(model_desc, Side::kOutput, index, dims, __func__);
}

const char* svp_acl_mdl_get_input_name_by_index(const svp_acl_mdl_desc* model_desc, size_t index) {
  return name_of(model_desc, Side::kInput, index, __func__);
}

const char* svp_acl_mdl_get_output_name_by_index(const svp_acl_mdl_desc* model_desc, size_t index) {
  return name_of(model_desc, Side::kOutput, index, __func__);
}

svp_acl_format svp_acl_mdl_get_input_format(const svp_acl_mdl_desc* model_desc, size_t index) {
  return format_of(model_desc, Side::kInput, index, __func__);
}

svp_acl_format svp_acl_mdl_get_output_format(const svp_acl_mdl_desc* model_desc, size_t index) {
  return format_of(model_desc, Side::kOutput, index, __func__);
}

svp_acl_data_type svp_acl_mdl_get_input_data_type(const svp_acl_mdl_desc* model_desc, size_t index) {
  return dtype_of(model_desc, Side::kInput, index, __func__);
}

svp_acl_data_type svp_acl_mdl_get_output_data_type(const svp_acl_mdl_desc* model_desc, size_t index) {
  return dtype_of(model_desc, Side::kOutput, index, __func__);
}

svp_acl_error svp_acl_mdl_get_input_index_by_name(const svp_acl_mdl_desc* model_desc, const char* name,
                                                  size_t* index) {
  return index_of(model_desc, Side::kInput, name, index, __func__);
}

svp_acl_error svp_acl_mdl_get_output_index_by_name(const svp_acl_mdl_desc* model_desc, const char* name,
                                                   size_t* index) {
  return index_of(model_desc, Side::kOutput, name, index, __func__);
}

size_t svp_acl_mdl_get_input_default_stride(const svp_acl_mdl_desc* model_desc, size_t index) {
  return stride_of(model_desc, Side::kInput, index, __func__);
}

size_t svp_acl_mdl_get_output_default_stride(const svp_acl_mdl_desc* model_desc, size_t index) {
  return stride_of(model_desc, Side::kOutput, index, __func__);
}

svp_acl_error svp_acl_mdl_get_dynamic_batch(const svp_acl_mdl_desc* model_desc, svp_acl_mdl_batch* batch) {
  return guard(__func__, [&]() -> Status {
    auto m = model_of(model_desc);
    if (!m.ok()) return m.status();
    SVP_RETURN_IF_ERROR(require(batch != nullptr, "batch is NULL"));
    return fill_batches((*m)->flags().dynamic_batch, batch);
  });
}
