#include "compiler/passes/fold_batchnorm_gemm.h"

#include <cmath>

#include "compiler/passes/const_util.h"

namespace svp::compiler {

using passes::blob;
using passes::float_const;
using passes::floats;

Status FoldBatchNormGemmPass::run(Graph& g, PassContext&) {
  for (NodeId bn_id : g.live_nodes()) {
    const Node& bn = g.node(bn_id);
    if (bn.op != "BatchNormalization" || bn.inputs.size() != 5 || bn.outputs.size() != 1) continue;
    // Training mode normalises with the batch's statistics, not the folded constants.
    if (auto t = bn.attrs.get_int("training_mode", 0); !t.ok() || *t != 0) continue;
    const ValueId y = bn.inputs[0];
    const NodeId gemm_id = g.value(y).producer;
    if (gemm_id < 0 || g.node(gemm_id).op != "Gemm" || passes::sole_reader(g, y) != bn_id) continue;
    if (!passes::both_free(g, bn_id, gemm_id)) continue;
    const Node& gemm = g.node(gemm_id);
    const auto& yshape = g.value(y).shape;
    if (yshape.size() != 2 || gemm.inputs.size() < 2 || !float_const(g, gemm.inputs[1])) continue;
    const bool has_c = gemm.inputs.size() > 2 && gemm.inputs[2] != kNoValue;
    if (has_c && !float_const(g, gemm.inputs[2])) continue;
    bool params_const = true;
    for (std::size_t i = 1; i < 5; ++i) params_const = params_const && float_const(g, bn.inputs[i]);
    if (!params_const) continue;
    auto trans_b = gemm.attrs.get_int("transB", 0);
    auto beta_attr = gemm.attrs.get_float("beta", 1.0);
    auto eps = bn.attrs.get_float("epsilon", 1e-5);
    if (!trans_b.ok() || !beta_attr.ok() || !eps.ok()) continue;  // the kernels report malformed attributes

    const auto m = static_cast<std::size_t>(yshape[0]), n = static_cast<std::size_t>(yshape[1]);
    const std::vector<float> gamma = floats(g, bn.inputs[1]), shift = floats(g, bn.inputs[2]),
                             mean = floats(g, bn.inputs[3]), var = floats(g, bn.inputs[4]);
    if (gamma.size() != n || shift.size() != n || mean.size() != n || var.size() != n) continue;
    const auto& bshape = g.value(gemm.inputs[1]).shape;
    std::vector<float> b = floats(g, gemm.inputs[1]);
    if (bshape.size() != 2 || b.size() % n != 0) continue;
    const std::size_t k = b.size() / n;
    std::vector<double> s(n);
    for (std::size_t c = 0; c < n; ++c) s[c] = gamma[c] / std::sqrt(static_cast<double>(var[c]) + *eps);
    // op(B) is [K, N]: B itself, or B [N, K] transposed.
    for (std::size_t r = 0; r < k; ++r) {
      for (std::size_t c = 0; c < n; ++c) {
        float& e = *trans_b ? b[c * k + r] : b[r * n + c];
        e = static_cast<float>(e * s[c]);
      }
    }
    // C broadcast to [M, N] (unidirectionally: [], [1], [N], [1, N], [M, 1], [M, N]).
    std::vector<float> c_full(m * n, 0.0f);
    bool varies_along_m = false;
    if (has_c) {
      const auto& cshape = g.value(gemm.inputs[2]).shape;
      const std::vector<float> c = floats(g, gemm.inputs[2]);
      const std::size_t rows = cshape.size() == 2 ? static_cast<std::size_t>(cshape[0]) : 1;
      const std::size_t cols = cshape.empty() ? 1 : static_cast<std::size_t>(cshape.back());
      if (cshape.size() > 2 || (rows != 1 && rows != m) || (cols != 1 && cols != n) || c.size() != rows * cols) {
        continue;
      }
      varies_along_m = rows == m && m > 1;
      for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t j = 0; j < n; ++j) c_full[i * n + j] = c[(rows == 1 ? 0 : i) * cols + (cols == 1 ? 0 : j)];
      }
    }
    const std::size_t c_rows = varies_along_m ? m : 1;
    std::vector<float> c_new(c_rows * n);
    for (std::size_t i = 0; i < c_rows; ++i) {
      for (std::size_t j = 0; j < n; ++j) {
        c_new[i * n + j] = static_cast<float>((*beta_attr * c_full[i * n + j] - mean[j]) * s[j] + shift[j]);
      }
    }
    const ValueId nb = g.add_constant(g.unique_name(gemm.name + "_b_bn"), model::DType::kFloat32, bshape, blob(b));
    const std::vector<std::int64_t> c_shape = varies_along_m ? std::vector<std::int64_t>{yshape[0], yshape[1]}
                                                             : std::vector<std::int64_t>{yshape[1]};
    const ValueId nc = g.add_constant(g.unique_name(gemm.name + "_c_bn"), model::DType::kFloat32, c_shape, blob(c_new));
    const ValueId out = bn.outputs[0];
    const std::vector<ValueId> old = {gemm.inputs[1], has_c ? gemm.inputs[2] : kNoValue, bn.inputs[1], bn.inputs[2],
                                      bn.inputs[3], bn.inputs[4]};
    g.remove_node(bn_id);
    Node& gm = g.node(gemm_id);
    gm.inputs.resize(3);
    gm.inputs[1] = nb;
    gm.inputs[2] = nc;
    gm.attrs.set("beta", 1.0);
    gm.outputs[0] = out;
    g.value(out).producer = gemm_id;
    g.value(y).dead = true;
    for (ValueId v : old) passes::release_if_unread(g, v);
  }
  return Status::Ok();
}

}  // namespace svp::compiler
