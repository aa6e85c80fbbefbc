#include "kernels/cost.h"

#include <string>

#include "ops/op_def.h"

namespace svp::kernels {
namespace {

using Shape = std::vector<std::int64_t>;

std::uint64_t product(const Shape& s, std::size_t from = 0, std::size_t to = ~std::size_t{0}) {
  std::uint64_t p = 1;
  for (std::size_t i = from; i < s.size() && i < to; ++i) p *= static_cast<std::uint64_t>(s[i] > 0 ? s[i] : 0);
  return p;
}

std::int64_t int_attr(const model::Layer& l, const char* name, std::int64_t def) {
  auto v = l.attrs.get_int(name, def);
  return v.ok() ? *v : def;
}

}  // namespace

std::uint64_t layer_macs(const model::Layer& layer, const std::vector<Shape>& in, const std::vector<Shape>& out) {
  const ops::OpDef& def = ops::op_def(layer.op);
  auto has = [&](std::size_t i) { return i < in.size() && !in[i].empty(); };
  if (out.empty() || out[0].empty()) return 0;
  switch (def.macs) {
    case ops::MacRule::kConv: {
      // Every output element accumulates (C / group) × kernel elements; W is [M, C/g, k...].
      const std::size_t w = def.mac_weight_input;
      if (!has(w) || in[w].size() < 2) return 0;
      return product(out[0]) * product(in[w], 1);
    }
    case ops::MacRule::kConvTranspose:
      // Every input element scatters into (M / group) × kernel elements; W is [C, M/g, k...].
      if (!has(0) || !has(1) || in[1].size() < 2) return 0;
      return product(in[0]) * product(in[1], 1);
    case ops::MacRule::kGemm: {
      if (!has(0) || in[0].size() != 2) return 0;
      const std::uint64_t k = static_cast<std::uint64_t>(int_attr(layer, "transA", 0) ? in[0][0] : in[0][1]);
      return product(out[0]) * k;
    }
    case ops::MacRule::kMatMul: {
      if (!has(0)) return 0;
      const std::uint64_t k = static_cast<std::uint64_t>(in[0].back() > 0 ? in[0].back() : 0);
      return product(out[0]) * k;
    }
    case ops::MacRule::kRecurrent: {
      // Per step and batch entry: gates × hidden × (input + hidden), for each direction.
      if (!has(0) || !has(1) || in[0].size() != 3 || in[1].size() != 3) return 0;
      const std::uint64_t gates_hidden = static_cast<std::uint64_t>(in[1][1]);  // W: [dirs, gates*H, I]
      const std::uint64_t dirs = static_cast<std::uint64_t>(in[1][0]);
      const std::uint64_t input = static_cast<std::uint64_t>(in[0][2]);
      const std::uint64_t hidden = static_cast<std::uint64_t>(int_attr(layer, "hidden_size", 0));
      return product(in[0], 0, 2) * dirs * gates_hidden * (input + hidden);
    }
    case ops::MacRule::kNone: break;
  }
  return 0;
}

std::uint64_t layer_macs(const model::Program& p, std::size_t index) {
  const model::Layer& l = p.layers.at(index);
  std::vector<Shape> in, out;
  in.reserve(l.inputs.size());
  for (std::int32_t t : l.inputs) in.push_back(t < 0 ? Shape{} : p.tensors[static_cast<std::size_t>(t)].dims);
  for (std::int32_t t : l.outputs) out.push_back(p.tensors[static_cast<std::size_t>(t)].dims);
  return layer_macs(l, in, out);
}

std::vector<std::uint64_t> segment_macs(const model::Program& p) {
  std::vector<std::uint64_t> out;
  out.reserve(p.segments.size());
  for (const model::Segment& s : p.segments) {
    std::uint64_t sum = 0;
    for (std::int32_t l = s.begin; l < s.end; ++l) sum += layer_macs(p, static_cast<std::size_t>(l));
    out.push_back(sum);
  }
  return out;
}

}  // namespace svp::kernels
