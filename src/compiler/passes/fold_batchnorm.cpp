#include "compiler/passes/fold_batchnorm.h"

#include <cmath>
#include <cstring>
#include <memory>

#include "compiler/passes/const_util.h"

namespace svp::compiler {
using passes::blob;
using passes::float_const;
using passes::floats;

Status FoldBatchNormPass::run(Graph& g, PassContext&) {
  for (NodeId bn_id : g.live_nodes()) {
    const Node& bn = g.node(bn_id);
    if (bn.op != "BatchNormalization" || bn.inputs.size() != 5 || bn.outputs.size() != 1) continue;
    // Training mode normalises with the batch's statistics, not the folded constants.
    if (auto t = bn.attrs.get_int("training_mode", 0); !t.ok() || *t != 0) continue;
    const ValueId x = bn.inputs[0];
    const NodeId conv_id = g.value(x).producer;
    if (conv_id < 0 || g.is_graph_output(x) || g.consumers(x).size() != 1) continue;
    // --force_to_cpu placed one of them: the user asked for that node as it is.
    if (bn.target == model::Target::kAiCpu || g.node(conv_id).target == model::Target::kAiCpu) continue;
    const Node& conv = g.node(conv_id);
    const auto cw = passes::channel_weights(g, conv);
    if (!cw) continue;
    const bool has_bias = conv.inputs.size() > 2 && conv.inputs[2] != kNoValue;
    if (has_bias && !float_const(g, conv.inputs[2])) continue;
    bool params_const = true;
    for (int i = 1; i < 5; ++i) params_const = params_const && float_const(g, bn.inputs[static_cast<std::size_t>(i)]);
    if (!params_const) continue;

    const auto& wshape = cw->shape;
    const auto cout = static_cast<std::size_t>(cw->channels);
    const std::vector<float> gamma = floats(g, bn.inputs[1]), beta = floats(g, bn.inputs[2]),
                             mean = floats(g, bn.inputs[3]), var = floats(g, bn.inputs[4]);
    if (gamma.size() != cout || beta.size() != cout || mean.size() != cout || var.size() != cout) continue;
    Result<double> eps = bn.attrs.get_float("epsilon", 1e-5);
    if (!eps.ok()) return eps.status();

    std::vector<float> w = floats(g, conv.inputs[1]);
    std::vector<float> b = has_bias ? floats(g, conv.inputs[2]) : std::vector<float>(cout, 0.0f);
    if (b.size() != cout) continue;
    std::vector<double> s(cout);
    for (std::size_t c = 0; c < cout; ++c) {
      s[c] = gamma[c] / std::sqrt(static_cast<double>(var[c]) + *eps);
      b[c] = static_cast<float>((b[c] - mean[c]) * s[c] + beta[c]);
    }
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(w[i] * s[cw->channel_of(i)]);
    const ValueId nw = g.add_constant(g.unique_name(conv.name + "_w_bn"), model::DType::kFloat32, wshape, blob(w));
    const ValueId nb = g.add_constant(g.unique_name(conv.name + "_b_bn"), model::DType::kFloat32,
                                      {static_cast<std::int64_t>(cout)}, blob(b));
    const std::vector<ValueId> bn_params(bn.inputs.begin() + 1, bn.inputs.end());
    passes::absorb_into_conv(g, conv_id, bn_id, nw, nb);
    for (ValueId p : bn_params) passes::release_if_unread(g, p);
  }
  return Status::Ok();
}

}  // namespace svp::compiler
