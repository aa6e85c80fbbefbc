// svp_acl_mdl.h AIPP: the svp_acl_mdl_aipp parameter object and its setters, writing
// dynamic-AIPP parameters into a dataset (set_input_aipp / set_aipp_by_input_index /
// set_output_aipp), and the AIPP queries (aipp types, static AIPP info).
//
// The parameter object is host-only; set_input_aipp has the runtime validate it against the
// model input and serialize it into the application's buffer of the parameter input
// (runtime/aipp.h), where execution reads it back. docs/aipp.md is the user guide.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <memory>

#include "acl/svp_acl_mdl.h"
#include "capi/guard.h"
#include "capi/live_set.h"
#include "capi/objects.h"
#include "capi/shim.h"
#include "runtime/aipp.h"

using svp::capi::enum_bits;
using svp::capi::require;
using svp::capi::with_runtime;
using svp::runtime::AippBatchParams;
using svp::runtime::AippModel;
using svp::runtime::AippPadding;
using svp::runtime::AippParams;
using svp::runtime::AippResize;
using svp::runtime::AippRole;
using svp::runtime::IoDesc;
using svp::runtime::Runtime;

struct svp_acl_mdl_aipp {
  AippParams params;
};

namespace {

// Large enough for any batch the model format allows (model::kMaxBatchSize).
constexpr std::uint64_t kMaxAippBatch = 5000;

svp::capi::LiveSet<svp_acl_mdl_aipp>& aipps() {
  static svp::capi::LiveSet<svp_acl_mdl_aipp> set("AIPP parameter object");
  return set;
}

Status check_switch(int v, int max, const char* what) {
  if (v < 0 || v > max) return Error(err::kInvalidParam, "{} {} out of range (0..{})", what, v, max);
  return Status::Ok();
}

// Runs `body(BatchParams&)` on entry `batch_index` of a live object.
template <typename F>
svp_acl_error batch_setter(const char* fn, svp_acl_mdl_aipp* a, uint64_t batch_index, F&& body) {
  return guard(fn, [&]() -> Status {
    SVP_RETURN_IF_ERROR(aipps().check(a));
    if (batch_index >= a->params.batches.size()) {
      return Error(err::kInvalidParam, "batch_index {} out of range (the object was created for {} batch images)",
                   batch_index, a->params.batches.size());
    }
    return body(a->params.batches[batch_index]);
  });
}

Status finite4(float a, float b, float c, float d, const char* what) {
  if (!std::isfinite(a) || !std::isfinite(b) || !std::isfinite(c) || !std::isfinite(d)) {
    return Error(err::kInvalidParam, "{} values must be finite", what);
  }
  return Status::Ok();
}

// A per-channel float field (`what` in messages) of batch entry `batch_index`: four finite
// values.
template <typename Field>
svp_acl_error set_channels(const char* fn, svp_acl_mdl_aipp* a, uint64_t batch_index, Field field,
                           std::array<float, 4> v, const char* what) {
  return batch_setter(fn, a, batch_index, [&](AippBatchParams& e) -> Status {
    SVP_RETURN_IF_ERROR(finite4(v[0], v[1], v[2], v[3], what));
    e.*field = v;
    return Status::Ok();
  });
}

// The model with its settings (the descriptions' gear and dynamic-AIPP sources).
Result<AippModel> aipp_model(uint32_t model_id) {
  return with_runtime([&](Runtime& rt) { return AippModel::lookup(rt, model_id); });
}

// Has the runtime check `a` for the data input of parameter input `param_index` and write it
// into the dataset buffer at `param_index`; then the data input's description follows the
// new source.
Status write_params(uint32_t model_id, svp_acl_mdl_dataset* dataset, size_t param_index, const svp_acl_mdl_aipp* a) {
  SVP_RETURN_IF_ERROR(aipps().check(a));
  auto m = aipp_model(model_id);
  if (!m.ok()) return m.status();
  auto data_index = m->check_params(param_index, a->params);
  if (!data_index.ok()) return data_index.status();

  SVP_RETURN_IF_ERROR(svp::capi::datasets().check(dataset));
  const size_t n = dataset->buffers.size();
  if (param_index >= n) {
    return Error(err::kInvalidParam,
                 "dataset holds {} buffers, none at the parameter input's index {} (add one buffer per input, "
                 "sized with svp_acl_mdl_get_input_size_by_index)",
                 n, param_index);
  }
  const svp_acl_data_buffer* buf = dataset->buffers[param_index];
  SVP_RETURN_IF_ERROR(svp::capi::data_buffers().check(buf));
  auto* bytes = static_cast<std::uint8_t*>(buf->data);
  if (bytes == nullptr) return Error(err::kInvalidParam, "dataset buffer {} has no memory", param_index);
  return m->write_params(param_index, *data_index, a->params, bytes, buf->size);
}

void put_dims(svp_acl_mdl_io_dims* d, const std::string& name, const std::vector<std::int64_t>& dims) {
  std::memcpy(d->name, name.data(), std::min(name.size(), sizeof d->name - 1));
  d->dim_count = dims.size();
  for (size_t i = 0; i < dims.size() && i < SVP_ACL_MAX_DIM_CNT; ++i) d->dims[i] = dims[i];
}

// The fields of svp_acl_aipp_info that describe the input itself (src_format, src_data_type,
// src_dim_num, shape_count, out_dims). They are the only valid fields for dynamic-AIPP inputs
// and the whole answer for inputs without AIPP (vendor API reference of
// aclmdlGetFirstAippInfo, the ACL API svp_acl mirrors: "only srcFormat, srcDatatype,
// srcDimNum, shapeCount, outDims are valid for dynamic AIPP"; the vendor sample
// sample_common_svp_npu_model.c calls it for every data input and aborts on failure).
void fill_io(const AippModel& model, size_t index, svp_acl_aipp_info* info) {
  const IoDesc src = model.input_now(index);
  info->src_format = static_cast<svp_acl_format>(src.layout);
  info->src_data_type = static_cast<svp_acl_data_type>(src.dtype);
  info->src_dim_num = src.dims.size();
  info->shape_count = 1;
  put_dims(&info->out_dims[0].src_dims, src.name, src.dims);
  info->out_dims[0].src_size = static_cast<size_t>(src.size);
  if (const auto* t = model.tensor_of(src)) {
    info->src_format = static_cast<svp_acl_format>(t->layout);
    put_dims(&info->out_dims[0].aipp_out_dims, t->name, t->dims);
    info->out_dims[0].aipp_out_size = static_cast<size_t>(t->size);
  } else {
    put_dims(&info->out_dims[0].aipp_out_dims, src.name, src.dims);
    info->out_dims[0].aipp_out_size = static_cast<size_t>(src.size);
  }
  info->aipp_extend = nullptr;
}

// svp_acl_aipp_info (level >= 2) from a static configuration.
void fill_info(const AippModel& model, size_t index, const AippParams& p, svp_acl_aipp_info* info) {
  std::memset(info, 0, sizeof *info);
  const AippBatchParams& e = p.batches[0];
  info->aipp_format = static_cast<svp_acl_aipp_format>(p.format);
  info->src_image_width = p.src_w;
  info->src_image_height = p.src_h;
  info->crop_switch = e.crop ? 1 : 0;
  info->crop_start_width = e.crop_x;
  info->crop_start_height = e.crop_y;
  info->crop_width = e.crop_w;
  info->crop_height = e.crop_h;
  info->resize_switch = static_cast<int8_t>(e.resize);
  info->resize_output_width = e.resize_out_w;
  info->resize_output_height = e.resize_out_h;
  info->padding_switch = static_cast<int8_t>(e.padding);
  info->left_padding_size = e.pad_left;
  info->right_padding_size = e.pad_right;
  info->top_padding_size = e.pad_top;
  info->bottom_padding_size = e.pad_bottom;
  info->csc_switch = p.csc ? 1 : 0;
  info->rbuv_swap_switch = p.rbuv_swap ? 1 : 0;
  info->ax_swap_switch = p.ax_swap ? 1 : 0;
  int32_t* m[9] = {&info->matrix_r0c0, &info->matrix_r0c1, &info->matrix_r0c2, &info->matrix_r1c0, &info->matrix_r1c1,
                   &info->matrix_r1c2, &info->matrix_r2c0, &info->matrix_r2c1, &info->matrix_r2c2};
  for (size_t i = 0; i < 9; ++i) *m[i] = p.matrix[i];
  info->output_bias0 = p.out_bias[0];
  info->output_bias1 = p.out_bias[1];
  info->output_bias2 = p.out_bias[2];
  info->input_bias0 = p.in_bias[0];
  info->input_bias1 = p.in_bias[1];
  info->input_bias2 = p.in_bias[2];
  float* dtc[12] = {&info->mean_chn0, &info->mean_chn1, &info->mean_chn2, &info->mean_chn3,
                    &info->min_chn0,  &info->min_chn1,  &info->min_chn2,  &info->min_chn3,
                    &info->var_reci_chn0, &info->var_reci_chn1, &info->var_reci_chn2, &info->var_reci_chn3};
  for (size_t c = 0; c < 4; ++c) {
    *dtc[c] = e.mean[c];
    *dtc[4 + c] = e.min[c];
    *dtc[8 + c] = e.var_reci[c];
  }
  fill_io(model, index, info);
  info->src_data_type = SVP_ACL_UINT8;  // the AIPP source is always an 8-bit image
}

// What both info queries write for a data input: the static configuration, or the input's own
// description with every AIPP switch off and aipp_format 0 (no format). A dynamic-AIPP
// input also reports what its model configuration knows: the source format and the maximum
// source size (docs/aipp.md §1: the vendor sample sizes its source from them).
void fill_any(const AippModel& model, size_t index, const AippParams* p, svp_acl_aipp_info* info) {
  if (p != nullptr) {
    fill_info(model, index, *p, info);
    return;
  }
  std::memset(info, 0, sizeof *info);
  fill_io(model, index, info);
  if (const auto* dyn = model.dynamic_config(index)) {
    info->aipp_format = static_cast<svp_acl_aipp_format>(dyn->initial_format);
    info->src_image_width = dyn->max_src_w;
    info->src_image_height = dyn->max_src_h;
  }
}

Status check_resize(int8_t sw, int32_t in_w, int32_t in_h, int32_t out_w, int32_t out_h) {
  SVP_RETURN_IF_ERROR(check_switch(sw, 2, "scf_switch (svp_acl_aipp_resize_switch)"));
  if (sw != 0 && (in_w <= 0 || in_h <= 0 || out_w <= 0 || out_h <= 0)) {
    return Error(err::kInvalidParam, "resize sizes {}x{} -> {}x{} must be positive", in_w, in_h, out_w, out_h);
  }
  return Status::Ok();
}

Status check_crop(int8_t sw, int32_t x, int32_t y, int32_t w, int32_t h) {
  SVP_RETURN_IF_ERROR(check_switch(sw, 1, "crop_switch"));
  if (sw != 0 && (x < 0 || y < 0 || w <= 0 || h <= 0)) {
    return Error(err::kInvalidParam, "crop window at ({}, {}) of {}x{}: start must be >= 0 and size > 0", x, y, w,
                 h);
  }
  return Status::Ok();
}

Status check_padding(int8_t sw, int32_t top, int32_t bottom, int32_t left, int32_t right) {
  SVP_RETURN_IF_ERROR(check_switch(sw, 4, "padding_switch (svp_acl_aipp_padding_switch)"));
  if (sw != 0 && (top < 0 || bottom < 0 || left < 0 || right < 0)) {
    return Error(err::kInvalidParam, "padding sizes (top {}, bottom {}, left {}, right {}) must be >= 0", top,
                 bottom, left, right);
  }
  return Status::Ok();
}

// svp_acl_mdl_set_aipp_csc_params after its handle is checked.
Status set_csc(AippParams& p, int8_t csc_switch, const std::array<int16_t, 9>& matrix,
               const std::array<uint8_t, 3>& out_bias, const std::array<uint8_t, 3>& in_bias) {
  SVP_RETURN_IF_ERROR(check_switch(csc_switch, 1, "csc_switch"));
  p.csc = csc_switch == 1;
  p.matrix = matrix;
  p.out_bias = out_bias;
  p.in_bias = in_bias;
  return Status::Ok();
}

// Output-side AIPP only crops (seed §8.3.4).
Status check_crop_only(const AippParams& p) {
  if (p.csc || p.rbuv_swap || p.ax_swap) {
    return Error(err::kInvalidParam, "output AIPP supports crop only: CSC or a channel swap is set");
  }
  for (size_t b = 0; b < p.batches.size(); ++b) {
    const AippBatchParams& e = p.batches[b];
    if (e.resize != AippResize::kOff || e.padding != AippPadding::kOff) {
      return Error(err::kInvalidParam, "output AIPP supports crop only: batch {} sets resize or padding", b);
    }
  }
  return Status::Ok();
}

// Same answer as get_first_aipp_info for an input without AIPP: success, switches off,
// the output's own description (svp-acl models have no output-side AIPP).
void fill_output(const IoDesc& d, svp_acl_aipp_info* aipp_info) {
  std::memset(aipp_info, 0, sizeof *aipp_info);
  aipp_info->src_format = static_cast<svp_acl_format>(d.layout);
  aipp_info->src_data_type = static_cast<svp_acl_data_type>(d.dtype);
  aipp_info->src_dim_num = d.dims.size();
  aipp_info->shape_count = 1;
  put_dims(&aipp_info->out_dims[0].src_dims, d.name, d.dims);
  aipp_info->out_dims[0].aipp_out_dims = aipp_info->out_dims[0].src_dims;
  aipp_info->out_dims[0].src_size = static_cast<size_t>(d.size);
  aipp_info->out_dims[0].aipp_out_size = static_cast<size_t>(d.size);
}

}  // namespace

svp_acl_mdl_aipp* svp_acl_mdl_create_aipp(uint64_t batch_size) {
  return guard_value<svp_acl_mdl_aipp*>(__func__, nullptr, [&]() -> Result<svp_acl_mdl_aipp*> {
    if (batch_size == 0 || batch_size > kMaxAippBatch) {
      return Error(err::kInvalidParam, "batch_size {} out of range (1..{})", batch_size, kMaxAippBatch);
    }
    auto a = std::make_unique<svp_acl_mdl_aipp>();
    a->params.batches.assign(static_cast<size_t>(batch_size), AippBatchParams{});
    aipps().add(a.get());
    return a.release();
  });
}

svp_acl_error svp_acl_mdl_destroy_aipp(svp_acl_mdl_aipp* aipp_set) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(aipps().remove(aipp_set));
    delete aipp_set;
    return Status::Ok();
  });
}

svp_acl_error svp_acl_mdl_set_aipp_input_format(svp_acl_mdl_aipp* aipp_set, svp_acl_aipp_input_format input_format) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(aipps().check(aipp_set));
    const int f = enum_bits(input_format);
    if (!svp::runtime::aipp_format_supported(f)) {
      return Error(err::kInvalidParam, "AIPP input format {} is not supported by svp-acl (docs/aipp.md lists them)",
                   svp::runtime::aipp_format_name(f));
    }
    aipp_set->params.format = f;
    aipp_set->params.format_set = true;
    return Status::Ok();
  });
}

svp_acl_error svp_acl_mdl_set_aipp_csc_params(svp_acl_mdl_aipp* aipp_set, int8_t csc_switch, int16_t matrix_r0c0,
                                              int16_t matrix_r0c1, int16_t matrix_r0c2, int16_t matrix_r1c0,
                                              int16_t matrix_r1c1, int16_t matrix_r1c2, int16_t matrix_r2c0,
                                              int16_t matrix_r2c1, int16_t matrix_r2c2, uint8_t output_bias_r0,
                                              uint8_t output_bias_r1, uint8_t output_bias_r2, uint8_t input_bias_r0,
                                              uint8_t input_bias_r1, uint8_t input_bias_r2) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(aipps().check(aipp_set));
    return set_csc(aipp_set->params, csc_switch,
                   {matrix_r0c0, matrix_r0c1, matrix_r0c2, matrix_r1c0, matrix_r1c1, matrix_r1c2, matrix_r2c0,
                    matrix_r2c1, matrix_r2c2},
                   {output_bias_r0, output_bias_r1, output_bias_r2}, {input_bias_r0, input_bias_r1, input_bias_r2});
  });
}

svp_acl_error svp_acl_mdl_set_aipp_rbuv_swap_switch(svp_acl_mdl_aipp* aipp_set, int8_t rbuv_swap_switch) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(aipps().check(aipp_set));
    SVP_RETURN_IF_ERROR(check_switch(rbuv_swap_switch, 1, "rbuv_swap_switch"));
    aipp_set->params.rbuv_swap = rbuv_swap_switch == 1;
    return Status::Ok();
  });
}

svp_acl_error svp_acl_mdl_set_aipp_ax_swap_switch(svp_acl_mdl_aipp* aipp_set, int8_t ax_swap_switch) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(aipps().check(aipp_set));
    SVP_RETURN_IF_ERROR(check_switch(ax_swap_switch, 1, "ax_swap_switch"));
    aipp_set->params.ax_swap = ax_swap_switch == 1;
    return Status::Ok();
  });
}

svp_acl_error svp_acl_mdl_set_aipp_src_image_size(svp_acl_mdl_aipp* aipp_set, int32_t image_width,
                                                  int32_t image_height) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(aipps().check(aipp_set));
    if (image_width <= 0 || image_height <= 0) {
      return Error(err::kInvalidParam, "source image size {}x{} must be positive", image_width, image_height);
    }
    aipp_set->params.src_w = image_width;
    aipp_set->params.src_h = image_height;
    aipp_set->params.src_size_set = true;
    return Status::Ok();
  });
}

svp_acl_error svp_acl_mdl_set_aipp_scf_params(svp_acl_mdl_aipp* aipp_set, int8_t scf_switch, int32_t input_width,
                                              int32_t input_height, int32_t output_width, int32_t output_height,
                                              uint64_t batch_index) {
  return batch_setter(__func__, aipp_set, batch_index, [&](AippBatchParams& e) -> Status {
    SVP_RETURN_IF_ERROR(check_resize(scf_switch, input_width, input_height, output_width, output_height));
    e.resize = static_cast<AippResize>(scf_switch);
    e.resize_in_w = input_width;
    e.resize_in_h = input_height;
    e.resize_out_w = output_width;
    e.resize_out_h = output_height;
    return Status::Ok();
  });
}

svp_acl_error svp_acl_mdl_set_aipp_crop_params(svp_acl_mdl_aipp* aipp_set, int8_t crop_switch,
                                               int32_t width_start_pos, int32_t height_start_pos, int32_t width,
                                               int32_t height, uint64_t batch_index) {
  return batch_setter(__func__, aipp_set, batch_index, [&](AippBatchParams& e) -> Status {
    SVP_RETURN_IF_ERROR(check_crop(crop_switch, width_start_pos, height_start_pos, width, height));
    e.crop = crop_switch == 1;
    e.crop_x = width_start_pos;
    e.crop_y = height_start_pos;
    e.crop_w = width;
    e.crop_h = height;
    return Status::Ok();
  });
}

svp_acl_error svp_acl_mdl_set_aipp_padding_params(svp_acl_mdl_aipp* aipp_set, int8_t padding_switch, int32_t top,
                                                  int32_t bottom, int32_t left, int32_t right, uint64_t batch_index) {
  return batch_setter(__func__, aipp_set, batch_index, [&](AippBatchParams& e) -> Status {
    SVP_RETURN_IF_ERROR(check_padding(padding_switch, top, bottom, left, right));
    e.padding = static_cast<AippPadding>(padding_switch);
    e.pad_top = top;
    e.pad_bottom = bottom;
    e.pad_left = left;
    e.pad_right = right;
    return Status::Ok();
  });
}

svp_acl_error svp_acl_mdl_set_aipp_dtc_pixel_mean(svp_acl_mdl_aipp* aipp_set, float mean_chn0, float mean_chn1,
                                                  float mean_chn2, float mean_chn3, uint64_t batch_index) {
  return set_channels(__func__, aipp_set, batch_index, &AippBatchParams::mean,
                      {mean_chn0, mean_chn1, mean_chn2, mean_chn3}, "pixel mean");
}

svp_acl_error svp_acl_mdl_set_aipp_dtc_pixel_min(svp_acl_mdl_aipp* aipp_set, float min_chn0, float min_chn1,
                                                 float min_chn2, float min_chn3, uint64_t batch_index) {
  return set_channels(__func__, aipp_set, batch_index, &AippBatchParams::min,
                      {min_chn0, min_chn1, min_chn2, min_chn3}, "pixel min");
}

svp_acl_error svp_acl_mdl_set_aipp_pixel_var_reci(svp_acl_mdl_aipp* aipp_set, float reci_chn0, float reci_chn1,
                                                  float reci_chn2, float reci_chn3, uint64_t batch_index) {
  return set_channels(__func__, aipp_set, batch_index, &AippBatchParams::var_reci,
                      {reci_chn0, reci_chn1, reci_chn2, reci_chn3}, "var_reci");
}

svp_acl_error svp_acl_mdl_set_input_aipp(uint32_t model_id, svp_acl_mdl_dataset* dataset, size_t index,
                                         const svp_acl_mdl_aipp* aipp_set) {
  return guard(__func__, [&]() -> Status { return write_params(model_id, dataset, index, aipp_set); });
}

svp_acl_error svp_acl_mdl_set_aipp_by_input_index(uint32_t model_id, svp_acl_mdl_dataset* dataset, size_t index,
                                                  const svp_acl_mdl_aipp* aipp_set) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(aipps().check(aipp_set));
    auto m = aipp_model(model_id);
    if (!m.ok()) return m.status();
    auto param_index = m->param_input_of(index);
    if (!param_index.ok()) return param_index.status();
    return write_params(model_id, dataset, *param_index, aipp_set);
  });
}

svp_acl_error svp_acl_mdl_set_output_aipp(uint32_t model_id, svp_acl_mdl_dataset* dataset, size_t index,
                                          const svp_acl_mdl_aipp* aipp_set) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(aipps().check(aipp_set));
    SVP_RETURN_IF_ERROR(check_crop_only(aipp_set->params));  // before looking at the model
    auto m = aipp_model(model_id);
    if (!m.ok()) return m.status();
    SVP_RETURN_IF_ERROR(svp::capi::datasets().check(dataset));
    auto d = m->output(index);
    if (!d.ok()) return d.status();
    return Error(err::kInvalidParam,
                 "output {} (\"{}\") has no dynamic AIPP (svp-acl models have no output-side AIPP nodes)", index,
                 (*d)->name);
  });
}

svp_acl_error svp_acl_mdl_get_input_aipp_type(uint32_t model_id, size_t index, svp_acl_mdl_aipp_type* type,
                                              size_t* attached_index) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(require(type != nullptr, "type is NULL"));
    SVP_RETURN_IF_ERROR(require(attached_index != nullptr, "attached_index is NULL"));
    auto m = aipp_model(model_id);
    if (!m.ok()) return m.status();
    auto d = m->input(index);
    if (!d.ok()) return d.status();
    *type = static_cast<svp_acl_mdl_aipp_type>((*d)->aipp);
    *attached_index =
        (*d)->aipp == AippRole::kDynamic ? static_cast<size_t>((*d)->aipp_link) : SVP_ACL_INVALID_NODE_INDEX;
    return Status::Ok();
  });
}

svp_acl_error svp_acl_mdl_get_output_aipp_type(uint32_t model_id, size_t index, svp_acl_mdl_aipp_type* type,
                                               size_t* attached_index) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(require(type != nullptr, "type is NULL"));
    SVP_RETURN_IF_ERROR(require(attached_index != nullptr, "attached_index is NULL"));
    auto m = aipp_model(model_id);
    if (!m.ok()) return m.status();
    SVP_RETURN_IF_ERROR(m->output(index).status());
    *type = SVP_ACL_DATA_WITHOUT_AIPP;  // the model format has no output-side AIPP
    *attached_index = SVP_ACL_INVALID_NODE_INDEX;
    return Status::Ok();
  });
}

svp_acl_error svp_acl_mdl_get_first_aipp_info(uint32_t model_id, size_t index, svp_acl_aipp_info* aipp_info) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(require(aipp_info != nullptr, "aipp_info is NULL"));
    auto m = aipp_model(model_id);
    if (!m.ok()) return m.status();
    auto p = m->static_params(index);
    if (!p.ok()) return p.status();
    fill_any(*m, index, *p, aipp_info);
    return Status::Ok();
  });
}

svp_acl_error svp_acl_mdl_get_last_aipp_info(uint32_t model_id, size_t index, svp_acl_aipp_info* aipp_info) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(require(aipp_info != nullptr, "aipp_info is NULL"));
    auto m = aipp_model(model_id);
    if (!m.ok()) return m.status();
    auto d = m->output(index);
    if (!d.ok()) return d.status();
    fill_output(**d, aipp_info);
    return Status::Ok();
  });
}

// Level-1 (SVP_ACL_API_LEVEL 1, SS928-class) callers pass the old one-member struct; the
// header routes their calls here so the library never writes past it (svp_acl_mdl.h).
namespace {
struct AippInfoV1 {
  svp_acl_aipp_input_format input_format;
};
}  // namespace

extern "C" {
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_get_first_aipp_info_v1(uint32_t model_id, size_t index,
                                                                         AippInfoV1* aipp_info);
SVP_ACL_FUNC_VISIBILITY svp_acl_error svp_acl_mdl_get_last_aipp_info_v1(uint32_t model_id, size_t index,
                                                                        AippInfoV1* aipp_info);
}

svp_acl_error svp_acl_mdl_get_first_aipp_info_v1(uint32_t model_id, size_t index, AippInfoV1* aipp_info) {
  return guard("svp_acl_mdl_get_first_aipp_info", [&]() -> Status {
    SVP_RETURN_IF_ERROR(require(aipp_info != nullptr, "aipp_info is NULL"));
    auto m = aipp_model(model_id);
    if (!m.ok()) return m.status();
    auto p = m->static_params(index);
    if (!p.ok()) return p.status();
    const auto* dyn = m->dynamic_config(index);
    const std::int32_t format = *p != nullptr ? (*p)->format : dyn != nullptr ? dyn->initial_format : 0;
    aipp_info->input_format = static_cast<svp_acl_aipp_input_format>(format);
    return Status::Ok();
  });
}

svp_acl_error svp_acl_mdl_get_last_aipp_info_v1(uint32_t model_id, size_t index, AippInfoV1* aipp_info) {
  return guard("svp_acl_mdl_get_last_aipp_info", [&]() -> Status {
    SVP_RETURN_IF_ERROR(require(aipp_info != nullptr, "aipp_info is NULL"));
    auto m = aipp_model(model_id);
    if (!m.ok()) return m.status();
    SVP_RETURN_IF_ERROR(m->output(index).status());
    aipp_info->input_format = static_cast<svp_acl_aipp_input_format>(0);  // no output AIPP, as above
    return Status::Ok();
  });
}
