#include "exec/gears.h"

#include "kernels/kernels.h"

namespace svp::model {

Result<Program> program_at_gear(const Program& program, const std::uint8_t* weights, std::uint64_t weights_size,
                                std::uint64_t h, std::uint64_t w) {
  Program p = program;
  auto gear_error = [&](const std::string& msg) {
    return Error(err::kParseModel, "resolution gear {}x{}: {}", h, w, msg);
  };
  for (std::int32_t ti : p.input_tensors()) {
    Tensor& t = p.tensors[static_cast<std::size_t>(ti)];
    if (t.dims.size() != 4) continue;
    const std::size_t hd = t.layout == Layout::kNHWC ? 1 : 2;
    t.dims[hd] = static_cast<std::int64_t>(h);
    t.dims[hd + 1] = static_cast<std::int64_t>(w);
  }
  auto resize = [&](Tensor& t) -> Status {
    const auto n = t.elements();
    if (!n) return gear_error(fmt::format("tensor \"{}\" is too large", t.name));
    const std::uint64_t bytes = *n * dtype_size(t.dtype);
    if (t.placement == Placement::kWorkBuf && bytes > t.size) {
      return gear_error(fmt::format("tensor \"{}\" needs {} bytes but the work_buf plan reserved {} (the stored "
                                    "program must be the largest gear)",
                                    t.name, bytes, t.size));
    }
    t.size = bytes;
    return Status::Ok();
  };
  for (std::int32_t ti : p.input_tensors()) SVP_RETURN_IF_ERROR(resize(p.tensors[static_cast<std::size_t>(ti)]));
  for (const Layer& l : p.layers) {
    std::vector<std::vector<std::int64_t>> shapes;
    std::vector<TensorView> views(l.inputs.size());
    std::vector<const TensorView*> consts(l.inputs.size(), nullptr);
    for (std::size_t k = 0; k < l.inputs.size(); ++k) {
      if (l.inputs[k] < 0) {
        shapes.emplace_back();
        continue;
      }
      const Tensor& t = p.tensors[static_cast<std::size_t>(l.inputs[k])];
      shapes.push_back(t.dims);
      if (t.placement == Placement::kWeights) {
        views[k].dtype = t.dtype;
        views[k].dims = t.dims;
        views[k].data = const_cast<std::uint8_t*>(weights) + t.offset;
        views[k].quant = t.quant.empty() ? nullptr : &t.quant;
        consts[k] = &views[k];
      }
    }
    auto inferred = kernels::infer_shapes(l.op, l.attrs, shapes, consts);
    if (!inferred.ok()) return gear_error(fmt::format("layer \"{}\": {}", l.name, inferred.status().message()));
    if (inferred->size() != l.outputs.size()) {
      return gear_error(fmt::format("layer \"{}\" has {} outputs, its op infers {}", l.name, l.outputs.size(),
                                    inferred->size()));
    }
    for (std::size_t k = 0; k < l.outputs.size(); ++k) {
      Tensor& t = p.tensors[static_cast<std::size_t>(l.outputs[k])];
      t.dims = (*inferred)[k];
      SVP_RETURN_IF_ERROR(resize(t));
    }
  }
  Status s = p.validate(weights_size);
  if (!s.ok()) return gear_error(s.message());
  return p;
}

}  // namespace svp::model
