// Op name → {infer, run} dispatch, plus the checks every op gets: input counts, tensor
// shapes and sizes, quantization parameters, and outputs allocated with the inferred shapes.
#include <algorithm>
#include <cstdint>
#include <string>

#include "kernels/common.h"
#include "kernels/kernels.h"
#include "kernels/reference/ops.h"

namespace svp::kernels {
namespace {

using detail::OpDef;

const std::vector<OpDef>& table() {
  static const std::vector<OpDef> ops = [] {
    std::vector<OpDef> v;
    detail::add_conv_ops(v);
    detail::add_pool_ops(v);
    detail::add_eltwise_ops(v);
    detail::add_binary_ops(v);
    detail::add_matmul_ops(v);
    detail::add_norm_ops(v);
    detail::add_shape_ops(v);
    detail::add_resize_ops(v);
    detail::add_reduce_ops(v);
    detail::add_quant_ops(v);
    detail::add_math_ops(v);
    detail::add_unary_ops(v);
    detail::add_index_ops(v);
    detail::add_loss_ops(v);
    detail::add_einsum_ops(v);
    detail::add_grid_sample_ops(v);
    detail::add_dft_ops(v);
    detail::add_roi_align_ops(v);
    detail::add_recurrent_ops(v);
    detail::add_tfidf_ops(v);
    detail::add_optimizer_ops(v);
    std::sort(v.begin(), v.end(), [](const OpDef& a, const OpDef& b) { return std::string(a.name) < b.name; });
    return v;
  }();
  return ops;
}

Result<const OpDef*> find(const std::string& op, std::size_t inputs) {
  const auto& ops = table();
  auto it =
      std::lower_bound(ops.begin(), ops.end(), op, [](const OpDef& d, const std::string& n) { return d.name < n; });
  if (it == ops.end() || op != it->name) {
    return Error(err::kInvalidParam, "op \"{}\" is not supported by the reference kernels", op);
  }
  if (inputs < it->min_inputs || inputs > it->max_inputs) {
    if (it->max_inputs == detail::kVariadic) {
      return detail::Invalid(it->name, "expects at least {} inputs, got {}", it->min_inputs, inputs);
    }
    if (it->min_inputs == it->max_inputs) {
      return detail::Invalid(it->name, "expects {} inputs, got {}", it->min_inputs, inputs);
    }
    return detail::Invalid(it->name, "expects {} to {} inputs, got {}", it->min_inputs, it->max_inputs, inputs);
  }
  return &*it;
}

Status check_view(const char* op, const std::string& what, const TensorView& t) {
  if (model::dtype_size(t.dtype) == 0) {
    return detail::BadType(op, "{} has an unknown data type {}", what, static_cast<int>(t.dtype));
  }
  SVP_RETURN_IF_ERROR(detail::check_shape(op, what, t.dims));
  if (t.data == nullptr && t.elements() > 0) return detail::Invalid(op, "{} has no data", what);
  return detail::check_quant(op, what, t);
}

Result<std::vector<Shape>> infer_checked(const OpDef& def, const detail::InferCtx& c) {
  KN_ASSIGN(std::vector<Shape> out, def.infer(c));
  for (std::size_t i = 0; i < out.size(); ++i) {
    SVP_RETURN_IF_ERROR(detail::check_shape(def.name, fmt::format("output {}", i), out[i]));
  }
  return out;
}

}  // namespace

Result<std::vector<Shape>> infer_shapes(const std::string& op, const Attrs& attrs, const std::vector<Shape>& inputs,
                                        const std::vector<const TensorView*>& const_inputs) {
  KN_ASSIGN(const OpDef* def, find(op, inputs.size()));
  if (const_inputs.size() > inputs.size()) {
    return detail::Invalid(def->name, "{} constant inputs given for {} inputs", const_inputs.size(), inputs.size());
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    SVP_RETURN_IF_ERROR(detail::check_shape(def->name, fmt::format("input {}", i), inputs[i]));
    if (i < const_inputs.size() && const_inputs[i] != nullptr) {
      const TensorView& t = *const_inputs[i];
      SVP_RETURN_IF_ERROR(check_view(def->name, fmt::format("constant input {}", i), t));
      if (t.dims != inputs[i]) {
        return detail::Invalid(def->name, "constant input {} has shape {} but the input shape is {}", i,
                               detail::shape_str(t.dims), detail::shape_str(inputs[i]));
      }
    }
  }
  return infer_checked(*def, detail::InferCtx{def->name, attrs, inputs, const_inputs, 0});
}

Status run_reference(const std::string& op, const Attrs& attrs, const std::vector<TensorView>& inputs,
                     const std::vector<TensorView>& outputs) {
  KN_ASSIGN(const OpDef* def, find(op, inputs.size()));
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    // An absent optional input; a variadic op's inputs are all required.
    if (i >= def->min_inputs && def->max_inputs != detail::kVariadic && detail::is_absent_marker(inputs[i])) continue;
    SVP_RETURN_IF_ERROR(check_view(def->name, fmt::format("input {}", i), inputs[i]));
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    SVP_RETURN_IF_ERROR(check_view(def->name, fmt::format("output {}", i), outputs[i]));
  }
  const detail::RunCtx c{def->name, attrs, inputs, outputs};
  KN_ASSIGN(std::vector<Shape> shapes,
            detail::with_infer_ctx(c, [&](const detail::InferCtx& ic) { return infer_checked(*def, ic); }));
  if (shapes.size() != outputs.size()) {
    return detail::Invalid(def->name, "produces {} outputs, got {}", shapes.size(), outputs.size());
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].dims != shapes[i]) {
      return detail::Invalid(def->name, "output {} has shape {} but the op produces {}", i,
                             detail::shape_str(outputs[i].dims), detail::shape_str(shapes[i]));
    }
  }
  return def->run(c);
}

std::size_t required_inputs(const std::string& op) {
  const auto& ops = table();
  auto it =
      std::lower_bound(ops.begin(), ops.end(), op, [](const OpDef& d, const std::string& n) { return d.name < n; });
  if (it == ops.end() || op != it->name) return 0;
  return it->max_inputs == detail::kVariadic ? SIZE_MAX : it->min_inputs;
}

std::size_t max_inputs(const std::string& op) {
  const auto& ops = table();
  auto it =
      std::lower_bound(ops.begin(), ops.end(), op, [](const OpDef& d, const std::string& n) { return d.name < n; });
  if (it == ops.end() || op != it->name || it->max_inputs == detail::kVariadic) return SIZE_MAX;
  return static_cast<std::size_t>(it->max_inputs);
}

const std::vector<std::string>& supported_ops() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const OpDef& d : table()) v.emplace_back(d.name);
    return v;
  }();
  return names;
}

}  // namespace svp::kernels
