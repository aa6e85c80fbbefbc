#include "compiler/passes/input_normalization.h"

#include <fmt/format.h>

#include <cstring>
#include <memory>

namespace svp::compiler {
namespace {

// A float32 constant broadcasting over the channel dim of a rank-`rank` NCHW input:
// [1, C, 1, ...] for C values, a scalar for one.
ValueId channel_constant(Graph& g, const std::string& name, const std::vector<float>& v, std::size_t rank) {
  std::vector<std::int64_t> shape;
  if (v.size() > 1) {
    shape.assign(rank, 1);
    shape[1] = static_cast<std::int64_t>(v.size());
  }
  auto bytes = std::make_shared<std::vector<std::uint8_t>>(v.size() * sizeof(float));
  std::memcpy(bytes->data(), v.data(), bytes->size());
  return g.add_constant(g.unique_name(name), model::DType::kFloat32, std::move(shape), std::move(bytes));
}

Status check(const Value& in, std::size_t index, const InputNormalization& n) {
  const std::int64_t channels = in.shape.size() >= 2 ? in.shape[1] : 0;
  for (const auto* values : {&n.mean, &n.std}) {
    const bool per_channel = static_cast<std::int64_t>(values->size()) == channels;
    if (values->size() != 1 && !per_channel) {
      return Error(err::kInvalidParam, "input {} (\"{}\", shape [{}]): {} normalisation values, expected 1 or {} (its "
                   "channels, dim 1)", index, in.name, fmt::join(in.shape, ","), values->size(), channels);
    }
  }
  for (float s : n.std) {
    if (s == 0.0f) return Error(err::kInvalidParam, "input {} (\"{}\"): a std value of 0", index, in.name);
  }
  if (in.dtype != model::DType::kFloat32) {
    return Error(err::kInvalidParam, "input {} (\"{}\"): normalisation needs a float32 input, the model's is {}", index,
                 in.name, model::dtype_name(in.dtype));
  }
  return Status::Ok();
}

}  // namespace

Status apply_input_normalization(Graph& g, const CompileOptions& options) {
  if (options.input_normalization.size() > g.inputs.size()) {
    return Error(err::kInvalidParam, "{} input normalisations given, the model has {} input(s)",
                 options.input_normalization.size(), g.inputs.size());
  }
  for (std::size_t i = 0; i < options.input_normalization.size(); ++i) {
    const InputNormalization& n = options.input_normalization[i];
    const ValueId in = g.inputs[i];
    SVP_RETURN_IF_ERROR(check(g.value(in), i, n));
    bool identity = true;
    for (float m : n.mean) identity = identity && m == 0.0f;
    for (float s : n.std) identity = identity && s == 1.0f;
    if (identity) continue;  // nothing to compute: the graph stays as it was
    const std::string base = g.value(in).name;
    const std::size_t rank = g.value(in).shape.size();
    const std::vector<std::int64_t> shape = g.value(in).shape;
    const std::vector<NodeId> readers = g.consumers(in);
    const auto new_value = [&](const std::string& suffix) {
      Value v;
      v.name = g.unique_name(base + suffix);
      v.shape = shape;
      return g.add_value(std::move(v));
    };
    const ValueId c = new_value("_minus_mean");
    const ValueId s = new_value("_normalised");
    // Readers first, then the new nodes: replace_uses would rewire the Sub's own input.
    for (NodeId r : readers) {
      for (ValueId& v : g.node(r).inputs) {
        if (v == in) v = s;
      }
    }
    for (ValueId& o : g.outputs) {
      if (o == in) o = s;
    }
    Node sub;
    sub.name = g.unique_name(base + "_sub_mean");
    sub.op = "Sub";
    sub.inputs = {in, channel_constant(g, base + "_mean", n.mean, rank)};
    sub.outputs = {c};
    g.add_node(std::move(sub));
    Node div;
    div.name = g.unique_name(base + "_div_std");
    div.op = "Div";
    div.inputs = {c, channel_constant(g, base + "_std", n.std, rank)};
    div.outputs = {s};
    g.add_node(std::move(div));
  }
  return g.topo_sort();
}

}  // namespace svp::compiler
