// Helpers the folding passes share: float32 constants read and written as vectors.
#pragma once

#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "compiler/graph.h"

namespace svp::compiler::passes {

inline bool float_const(const Graph& g, ValueId v) {
  return v != kNoValue && g.value(v).is_constant() && g.value(v).dtype == model::DType::kFloat32 &&
         g.value(v).quant.empty();
}

inline std::vector<float> floats(const Graph& g, ValueId v) {
  const auto& bytes = *g.value(v).data;
  std::vector<float> f(bytes.size() / sizeof(float));
  std::memcpy(f.data(), bytes.data(), f.size() * sizeof(float));
  return f;
}

inline std::shared_ptr<const std::vector<std::uint8_t>> blob(const std::vector<float>& f) {
  auto b = std::make_shared<std::vector<std::uint8_t>>(f.size() * sizeof(float));
  std::memcpy(b->data(), f.data(), b->size());
  return b;
}

// A Conv or ConvTranspose with a constant float32 weight, seen as a weight tensor whose
// every element belongs to one output channel: Conv weights are [M, C/g, k...] (channel
// = first index), ConvTranspose weights [C, M/g, k...] (channel = group · M/g + second
// index). The folds scale or shift per output channel through it, the same for both.
struct ChannelWeights {
  std::int64_t channels = 0;       // M
  std::vector<std::int64_t> shape;  // the weight's
  bool transposed = false;
  std::int64_t group = 1;
  std::size_t inner = 1;  // elements per (shape[0], shape[1]) pair: the kernel's taps

  // Output channel of weight element `i` (row-major in `shape`).
  std::size_t channel_of(std::size_t i) const {
    if (!transposed) return i / (inner * static_cast<std::size_t>(shape[1]));
    const auto per_group_out = static_cast<std::size_t>(shape[1]);
    const std::size_t ci = i / (inner * per_group_out), j = (i / inner) % per_group_out;
    const std::size_t per_group_in = static_cast<std::size_t>(shape[0] / group);
    return (ci / per_group_in) * per_group_out + j;
  }
};

// The layout of `n`'s weight when `n` is a Conv or ConvTranspose whose weight is a float
// constant of rank >= 3 with consistent channel counts; nullopt otherwise.
inline std::optional<ChannelWeights> channel_weights(const Graph& g, const Node& n) {
  if ((n.op != "Conv" && n.op != "ConvTranspose") || n.inputs.size() < 2 || !float_const(g, n.inputs[1])) {
    return std::nullopt;
  }
  ChannelWeights cw;
  cw.shape = g.value(n.inputs[1]).shape;
  cw.transposed = n.op == "ConvTranspose";
  auto group = n.attrs.get_int("group", 1);
  if (!group.ok() || *group < 1 || cw.shape.size() < 3) return std::nullopt;
  cw.group = *group;
  for (std::int64_t d : cw.shape) {
    if (d <= 0) return std::nullopt;
  }
  for (std::size_t d = 2; d < cw.shape.size(); ++d) cw.inner *= static_cast<std::size_t>(cw.shape[d]);
  if (cw.transposed) {
    if (cw.shape[0] % cw.group != 0) return std::nullopt;
    cw.channels = cw.shape[1] * cw.group;
  } else {
    cw.channels = cw.shape[0];
  }
  return cw;
}

// Clip's bounds: its constant inputs 1 and 2 (opset 11+) or its min/max attributes (opset
// 6); an absent bound is unbounded. False when a bound is not a float scalar constant.
inline bool clip_range(const Graph& g, const Node& n, float* lo, float* hi) {
  *lo = std::numeric_limits<float>::lowest();
  *hi = std::numeric_limits<float>::max();
  for (std::size_t k = 1; k < n.inputs.size() && k < 3; ++k) {
    const ValueId v = n.inputs[k];
    if (v == kNoValue) continue;
    if (!float_const(g, v) || g.value(v).data->size() != sizeof(float)) return false;
    (k == 1 ? *lo : *hi) = floats(g, v)[0];
  }
  for (const char* name : {"min", "max"}) {
    if (!n.attrs.has(name)) continue;
    auto v = n.attrs.get_float(name, 0);
    if (!v.ok()) return false;
    (name[1] == 'i' ? *lo : *hi) = static_cast<float>(v.value());
  }
  return true;
}

// The node reading `v` when it is its only reader and `v` is not a graph output: the
// condition for rewriting the producer of `v` into the reader.
inline NodeId sole_reader(const Graph& g, ValueId v) {
  if (g.is_graph_output(v)) return -1;
  const std::vector<NodeId> readers = g.consumers(v);
  return readers.size() == 1 ? readers[0] : -1;
}

// Neither node was placed on the AI-CPU by --force_to_cpu: the user asked for those as
// they are.
inline bool both_free(const Graph& g, NodeId a, NodeId b) {
  return g.node(a).target != model::Target::kAiCpu && g.node(b).target != model::Target::kAiCpu;
}

// A constant no live node reads any more (the one a fold replaced) gives its bytes back
// now rather than at the next compact(): the old and the folded weights of a whole model
// side by side would be the compiler's peak memory.
inline void release_if_unread(Graph& g, ValueId v) {
  if (v == kNoValue || !g.value(v).is_constant() || g.is_graph_output(v) || !g.consumers(v).empty()) return;
  g.value(v).data.reset();
  g.value(v).dead = true;
}

// Finishes folding node `folded` (which reads `conv`'s only output) into Conv `conv`: the
// Conv takes `new_w` / `new_b` as weight and bias and writes the folded node's output, the
// folded node and the value between them go, and the replaced weight and bias are released.
// The folded node's own constant inputs are the caller's to release.
inline void absorb_into_conv(Graph& g, NodeId conv, NodeId folded, ValueId new_w, ValueId new_b) {
  const ValueId between = g.node(conv).outputs[0];
  const ValueId out = g.node(folded).outputs[0];
  Node& c = g.node(conv);
  const ValueId old_w = c.inputs[1], old_b = c.inputs.size() > 2 ? c.inputs[2] : kNoValue;
  g.remove_node(folded);
  Node& kept = g.node(conv);
  kept.inputs.resize(3);
  kept.inputs[1] = new_w;
  kept.inputs[2] = new_b;
  kept.outputs[0] = out;
  g.value(out).producer = conv;
  g.value(between).dead = true;
  release_if_unread(g, old_w);
  release_if_unread(g, old_b);
}

}  // namespace svp::compiler::passes
