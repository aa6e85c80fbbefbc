#include "compiler/passes/fold_channel_affine.h"

#include <optional>

#include "compiler/passes/const_util.h"

namespace svp::compiler {
namespace {

using passes::blob;
using passes::float_const;
using passes::floats;

// The constant `k` as one value per channel of a [N, C, ...] output of rank `rank`, or
// nullopt when it varies along another dim or would broadcast the output to a larger shape.
std::optional<std::vector<float>> per_channel(const Graph& g, ValueId k, std::size_t rank, std::int64_t channels) {
  const auto& s = g.value(k).shape;
  const std::vector<float> v = floats(g, k);
  if (s.size() > rank) return std::nullopt;
  std::int64_t total = 1;
  for (std::int64_t d : s) total *= d;
  if (total == 0 || v.empty()) return std::nullopt;
  if (total == 1) return std::vector<float>(static_cast<std::size_t>(channels), v.at(0));
  // Aligned to the output's trailing dims: the channel dim is s[s.size() - (rank - 1)].
  if (s.size() < rank - 1) return std::nullopt;
  const std::size_t channel_at = s.size() - (rank - 1);
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i != channel_at && s[i] != 1) return std::nullopt;
  }
  if (s[channel_at] != channels) return std::nullopt;
  return v;
}

}  // namespace

Status FoldChannelAffinePass::run(Graph& g, PassContext&) {
  for (NodeId op_id : g.live_nodes()) {
    const Node& op = g.node(op_id);
    if ((op.op != "Mul" && op.op != "Add" && op.op != "Sub") || op.inputs.size() != 2 || op.outputs.size() != 1 ||
        op.inputs[0] == kNoValue || op.inputs[1] == kNoValue) {
      continue;
    }
    // Which operand is the Conv's output; Sub only as conv − k.
    int ci = -1;
    for (int i = 0; i < 2; ++i) {
      const ValueId v = op.inputs[static_cast<std::size_t>(i)];
      const NodeId p = g.value(v).producer;
      if (p >= 0 && (g.node(p).op == "Conv" || g.node(p).op == "ConvTranspose") && float_const(g, op.inputs[static_cast<std::size_t>(1 - i)])) ci = i;
    }
    if (ci < 0 || (op.op == "Sub" && ci != 0)) continue;
    const ValueId y = op.inputs[static_cast<std::size_t>(ci)], k = op.inputs[static_cast<std::size_t>(1 - ci)];
    const NodeId conv_id = g.value(y).producer;
    if (passes::sole_reader(g, y) != op_id || !passes::both_free(g, op_id, conv_id)) continue;
    const Node& conv = g.node(conv_id);
    const auto& yshape = g.value(y).shape;
    if (yshape.size() < 3 || g.value(op.outputs[0]).shape != yshape) continue;
    if (g.value(y).dtype != model::DType::kFloat32 || !g.value(y).quant.empty()) continue;
    const auto cw = passes::channel_weights(g, conv);
    if (!cw) continue;
    const bool has_bias = conv.inputs.size() > 2 && conv.inputs[2] != kNoValue;
    if (has_bias && !float_const(g, conv.inputs[2])) continue;
    const std::int64_t channels = yshape[1];
    if (channels != cw->channels) continue;
    const auto kc = per_channel(g, k, yshape.size(), channels);
    if (!kc) continue;
    const auto cout = static_cast<std::size_t>(channels);
    std::vector<float> b = has_bias ? floats(g, conv.inputs[2]) : std::vector<float>(cout, 0.0f);
    if (b.size() != cout) continue;
    ValueId nw = conv.inputs[1];
    if (op.op == "Mul") {
      std::vector<float> w = floats(g, conv.inputs[1]);
      for (std::size_t i = 0; i < w.size(); ++i) w[i] *= (*kc)[cw->channel_of(i)];
      for (std::size_t c = 0; c < cout; ++c) b[c] *= (*kc)[c];
      nw = g.add_constant(g.unique_name(conv.name + "_w_mul"), model::DType::kFloat32, g.value(conv.inputs[1]).shape,
                          blob(w));
    } else {
      for (std::size_t c = 0; c < cout; ++c) b[c] = op.op == "Add" ? b[c] + (*kc)[c] : b[c] - (*kc)[c];
    }
    const ValueId nb = g.add_constant(g.unique_name(conv.name + "_b_" + (op.op == "Mul" ? "mul" : "add")),
                                      model::DType::kFloat32, {channels}, blob(b));
    passes::absorb_into_conv(g, conv_id, op_id, nw, nb);
    passes::release_if_unread(g, k);
  }
  return Status::Ok();
}

}  // namespace svp::compiler
