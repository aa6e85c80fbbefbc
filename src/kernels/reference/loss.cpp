// The classification losses: NegativeLogLikelihoodLoss (input, target, weight?) and
// SoftmaxCrossEntropyLoss (scores, labels, weights?; outputs loss and optionally the
// log-probabilities), which is NLL of LogSoftmax over axis 1. Inputs (N, C, d1, ..., dk),
// targets (N, d1, ..., dk) of int32/int64; reduction none | sum | mean (mean divides by
// the summed weights of the targets not equal to ignore_index). Float32 (quantized inputs
// through the generic int8 path); sums in double.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "kernels/reference/ops.h"

namespace svp::kernels::detail {
namespace {

struct LossSetup {
  std::string reduction;
  std::optional<std::int64_t> ignore;
  std::int64_t N = 0, C = 0, inner = 1;  // inner = d1 * ... * dk
  Shape loss_shape;
};

Result<LossSetup> loss_setup(const InferCtx& c) {
  LossSetup s;
  const Shape& x = c.in[0];
  const Shape& t = c.in[1];
  KN_ASSIGN(s.reduction, c.attr().s("reduction", "mean"));
  if (s.reduction != "none" && s.reduction != "sum" && s.reduction != "mean") {
    return Malformed(c.op, "attribute \"reduction\" must be \"none\", \"sum\" or \"mean\", got \"{}\"", s.reduction);
  }
  if (c.attrs.has("ignore_index")) {
    KN_ASSIGN(std::int64_t ii, c.attr().i("ignore_index", 0));
    s.ignore = ii;
  }
  if (x.size() < 2) return Invalid(c.op, "input 0 must have rank >= 2 (N, C, ...), got {}", shape_str(x));
  Shape want{x[0]};
  want.insert(want.end(), x.begin() + 2, x.end());
  if (t != want) return Invalid(c.op, "target shape {} does not match the input shape {}", shape_str(t), shape_str(x));
  if (c.has(2) && c.in[2] != Shape{x[1]}) {
    return Invalid(c.op, "input 2 (weight) must have shape [{}], got {}", x[1], shape_str(c.in[2]));
  }
  s.N = x[0];
  s.C = x[1];
  for (std::size_t d = 2; d < x.size(); ++d) s.inner *= x[d];
  if (s.reduction == "none") s.loss_shape = t;
  return s;
}

Result<std::vector<Shape>> infer_nll(const InferCtx& c) {
  KN_ASSIGN(LossSetup s, loss_setup(c));
  return std::vector<Shape>{s.loss_shape};
}

Result<std::vector<Shape>> infer_sce(const InferCtx& c) {
  KN_ASSIGN(LossSetup s, loss_setup(c));
  if (c.num_outputs > 2) return Invalid(c.op, "has at most 2 outputs (loss, log_prob), got {}", c.num_outputs);
  if (c.num_outputs == 1) return std::vector<Shape>{s.loss_shape};
  return std::vector<Shape>{s.loss_shape, c.in[0]};
}

// loss = -logp[n, t, d] * w[t] per target, reduced.
Status nll(const RunCtx& c, const LossSetup& s, const float* logp) {
  const TensorView& target = c.in[1];
  if (target.dtype != DType::kInt64 && target.dtype != DType::kInt32) {
    return BadType(c.op, "target must be int64 or int32, got {}", type_desc(target));
  }
  const float* w = c.has(2) ? c.in[2].as<const float>() : nullptr;
  float* y = c.out[0].as<float>();
  double sum = 0, weight_sum = 0;
  for (std::int64_t n = 0; n < s.N; ++n) {
    for (std::int64_t d = 0; d < s.inner; ++d) {
      const std::int64_t i = n * s.inner + d;
      const std::int64_t t = int_at(target, i);
      double l = 0, wt = 0;
      if (!(s.ignore && t == *s.ignore)) {
        if (t < 0 || t >= s.C) return Invalid(c.op, "target {} at element {} is outside [0, {})", t, i, s.C);
        wt = w != nullptr ? w[t] : 1.0;
        l = -static_cast<double>(logp[(n * s.C + t) * s.inner + d]) * wt;
      }
      if (s.reduction == "none") y[i] = static_cast<float>(l);
      sum += l;
      weight_sum += wt;
    }
  }
  if (s.reduction == "sum") y[0] = static_cast<float>(sum);
  if (s.reduction == "mean") y[0] = static_cast<float>(sum / weight_sum);
  return Status::Ok();
}

Status nll_float(const RunCtx& c) {
  SVP_RETURN_IF_ERROR(require_f32(c, {0, 2}));
  KN_ASSIGN(LossSetup s, with_infer_ctx(c, loss_setup));
  return nll(c, s, c.in[0].as<const float>());
}

Status sce_float(const RunCtx& c) {
  SVP_RETURN_IF_ERROR(require_f32(c, {0, 2}));
  KN_ASSIGN(LossSetup s, with_infer_ctx(c, loss_setup));
  const float* x = c.in[0].as<const float>();
  OwnedTensor own;
  float* logp = nullptr;
  if (c.out.size() > 1) {
    logp = c.out[1].as<float>();
  } else {
    own.reset(DType::kFloat32, c.in[0].dims);
    logp = own.data<float>();
  }
  // log_softmax over C: x - max - log(sum(exp(x - max))).
  for (std::int64_t n = 0; n < s.N; ++n) {
    for (std::int64_t d = 0; d < s.inner; ++d) {
      const std::int64_t base = n * s.C * s.inner + d;
      float m = -std::numeric_limits<float>::infinity();
      for (std::int64_t k = 0; k < s.C; ++k) m = std::max(m, x[base + k * s.inner]);
      double sum = 0;
      for (std::int64_t k = 0; k < s.C; ++k) sum += std::exp(static_cast<double>(x[base + k * s.inner]) - m);
      const double log_sum = std::log(sum);
      for (std::int64_t k = 0; k < s.C; ++k) {
        logp[base + k * s.inner] = static_cast<float>(static_cast<double>(x[base + k * s.inner]) - m - log_sum);
      }
    }
  }
  return nll(c, s, logp);
}

Status run_nll(const RunCtx& c) { return run_via_float(c, nll_float); }
Status run_sce(const RunCtx& c) { return run_via_float(c, sce_float); }

}  // namespace

void add_loss_ops(std::vector<OpDef>& ops) {
  ops.push_back({"NegativeLogLikelihoodLoss", 2, 3, infer_nll, run_nll});
  ops.push_back({"SoftmaxCrossEntropyLoss", 2, 3, infer_sce, run_sce});
}

}  // namespace svp::kernels::detail
