#include "aipp/exec_input.h"

#include "aipp/param_block.h"
#include "aipp/pipeline.h"

namespace svp::aipp {

Result<InputPlan> plan_input(const ModelInput& in, std::uint64_t src_stride,
                             std::uint64_t src_size, std::uint64_t batch, const std::uint8_t* param_data,
                             std::uint64_t param_size, std::pair<std::int64_t, std::int64_t> hw) {
  const std::size_t input = in.input;
  const model::IoDesc& d = in.desc;
  const model::Tensor& t = in.program.tensors[static_cast<std::size_t>(d.tensor)];
  InputPlan plan;
  if (d.aipp == model::AippRole::kStatic) {
    plan.params = in.aipp.params;
  } else {
    auto p = parse_block(param_data, param_size);
    if (!p.ok()) {
      return Error(err::kInvalidParam, "input {} (\"{}\"), parameter input {}: {}", input, t.name, d.aipp_link,
                   p.status().message());
    }
    plan.params = std::move(*p);
    // Checked again: the block may have been written for another model's input.
    const Status s = validate_for(plan.params, target_for(t, in.program.flags, in.aipp));
    if (!s.ok()) return Error(err::kInvalidParam, "input {} (\"{}\"): {}", input, t.name, s.message());
  }
  if (hw.first > 0) {  // dynamic HW: the post-AIPP size must be the selected gear (seed §8.3.4)
    for (std::size_t b = 0; b < plan.params.batches.size(); ++b) {
      const Size out = output_size(plan.params, b);
      if (out.h != hw.first || out.w != hw.second) {
        return Error(err::kInvalidParam,
                     "input {} (\"{}\"): AIPP output {}x{} (batch entry {}) differs from the selected resolution "
                     "gear {}x{} (w x h); set AIPP parameters that produce the gear set with "
                     "svp_acl_mdl_set_dynamic_hw_size",
                     input, t.name, out.w, out.h, b, hw.second, hw.first);
      }
    }
  }
  auto g = source_geometry(plan.params.format, plan.params.src_w, plan.params.src_h, 1);
  if (!g.ok()) return g.status();
  if (src_stride == 0 || src_stride % 16 != 0) {
    return Error(err::kMemoryAddressUnaligned, "input {} (\"{}\"): stride {} is not a non-zero multiple of 16", input,
                 t.name, src_stride);
  }
  if (src_stride < g->row_bytes) {
    return Error(err::kInvalidParam, "input {} (\"{}\"): stride {} is smaller than a source row ({} bytes of {})",
                 input, t.name, src_stride, g->row_bytes, format_name(plan.params.format));
  }
  plan.stride = src_stride;
  plan.images = t.dims[0];
  plan.image_bytes = g->rows * src_stride;
  const std::uint64_t need = plan.image_bytes * static_cast<std::uint64_t>(plan.images) * batch;
  if (src_size < need) {
    return Error(err::kInvalidParam,
                 "input {} (\"{}\"): buffer holds {} bytes, the execution needs {} ({}x{} {} source, stride {}, {} "
                 "image(s) x batch {}); re-query the size after svp_acl_mdl_set_input_aipp",
                 input, t.name, src_size, need, plan.params.src_w, plan.params.src_h, format_name(plan.params.format),
                 src_stride, plan.images, batch);
  }
  return plan;
}

Status convert_input(const ModelInput& in, const InputPlan& plan, std::uint64_t item,
                     const std::uint8_t* src_item, void* dst, std::pair<std::int64_t, std::int64_t> hw) {
  const std::size_t input = in.input;
  const model::IoDesc& d = in.desc;
  const model::Tensor& t = in.program.tensors[static_cast<std::size_t>(d.tensor)];
  const bool nchw = t.layout == model::Layout::kNCHW;
  std::vector<std::int64_t> dims = t.dims;
  dims[0] = 1;
  if (hw.first > 0) {
    dims[nchw ? 2 : 1] = hw.first;
    dims[nchw ? 3 : 2] = hw.second;
  }
  model::TensorView v;
  v.dtype = t.dtype;
  v.dims = dims;
  v.quant = t.quant.empty() ? nullptr : &t.quant;
  const std::size_t image_out = v.bytes();
  for (std::int64_t k = 0; k < plan.images; ++k) {
    const std::uint64_t image = item * static_cast<std::uint64_t>(plan.images) + static_cast<std::uint64_t>(k);
    v.data = static_cast<std::uint8_t*>(dst) + static_cast<std::size_t>(k) * image_out;
    const Status s = run(plan.params, static_cast<std::size_t>(k), src_item + static_cast<std::uint64_t>(k) * plan.image_bytes,
                         plan.stride, plan.image_bytes, t.layout, v);
    if (!s.ok()) return Error(s.code(), "input {} (\"{}\"), image {}: {}", input, t.name, image, s.message());
  }
  return Status::Ok();
}

}  // namespace svp::aipp
