// BatchNormalization (inference) and Softmax (opset 13: one axis).
#include <cmath>
#include <limits>

#include "kernels/reference/ops.h"

namespace svp::kernels::detail {
namespace {

Result<std::vector<Shape>> infer_batch_norm(const InferCtx& c) {
  const Shape& x = c.in[0];
  if (x.size() < 2) return Invalid(c.op, "input X must have rank >= 2 (N, C, ...), got {}", shape_str(x));
  KN_ASSIGN(std::int64_t training, c.attr().i("training_mode", 0));
  KN_ASSIGN(double eps, c.attr().f("epsilon", 1e-5));
  if (!(eps >= 0.0)) return Invalid(c.op, "attribute \"epsilon\" must not be negative, got {}", eps);
  if (training != 0) return Invalid(c.op, "training_mode is not supported (inference only)");
  static const char* const kNames[] = {"", "scale", "B", "mean", "var"};
  for (std::size_t i = 1; i < 5; ++i) {
    if (c.in[i] != Shape{x[1]}) {
      return Invalid(c.op, "input {} ({}) must have shape [{}], got {}", i, kNames[i], x[1], shape_str(c.in[i]));
    }
  }
  return std::vector<Shape>{x};
}

// y = (x - mean) / sqrt(var + epsilon) * scale + B, as y = x * a + b per channel with
// a = scale / sqrt(var + epsilon) and b = B - mean * a (computed in double).
Status batch_norm_float(const RunCtx& c) {
  SVP_RETURN_IF_ERROR(require_f32(c, {0, 1, 2, 3, 4}));
  KN_ASSIGN(double eps, c.attr().f("epsilon", 1e-5));
  const Shape& x = c.in[0].dims;
  const std::int64_t N = x[0], C = x[1];
  std::int64_t inner = 1;
  for (std::size_t i = 2; i < x.size(); ++i) inner *= x[i];
  const float* scale = c.in[1].as<const float>();
  const float* bias = c.in[2].as<const float>();
  const float* mean = c.in[3].as<const float>();
  const float* var = c.in[4].as<const float>();
  const float* xp = c.in[0].as<const float>();
  float* yp = c.out[0].as<float>();
  for (std::int64_t ch = 0; ch < C; ++ch) {
    const double a = static_cast<double>(scale[ch]) / std::sqrt(static_cast<double>(var[ch]) + eps);
    const double b = static_cast<double>(bias[ch]) - static_cast<double>(mean[ch]) * a;
    for (std::int64_t n = 0; n < N; ++n) {
      const std::int64_t base = (n * C + ch) * inner;
      for (std::int64_t i = 0; i < inner; ++i) yp[base + i] = static_cast<float>(xp[base + i] * a + b);
    }
  }
  return Status::Ok();
}

Status run_batch_norm(const RunCtx& c) { return run_via_float(c, batch_norm_float); }

Result<std::int64_t> softmax_axis(const InferCtx& c) {
  KN_ASSIGN(std::int64_t axis, c.attr().i("axis", -1));
  return norm_axis(c.op, "attribute \"axis\"", axis, static_cast<std::int64_t>(c.in[0].size()));
}

Result<std::vector<Shape>> infer_softmax(const InferCtx& c) {
  KN_ASSIGN(std::int64_t axis, softmax_axis(c));
  (void)axis;
  return std::vector<Shape>{c.in[0]};
}

// y = exp(x - max) / sum(exp(x - max)) along the axis; exp in float, sum in double.
Status softmax_float(const RunCtx& c) {
  SVP_RETURN_IF_ERROR(require_f32(c, {0}));
  KN_ASSIGN(std::int64_t axis, with_infer_ctx(c, softmax_axis));
  const Shape& x = c.in[0].dims;
  std::int64_t outer = 1, inner = 1;
  for (std::int64_t i = 0; i < axis; ++i) outer *= x[static_cast<std::size_t>(i)];
  for (std::size_t i = static_cast<std::size_t>(axis) + 1; i < x.size(); ++i) inner *= x[i];
  const std::int64_t len = x[static_cast<std::size_t>(axis)];
  const float* xp = c.in[0].as<const float>();
  float* yp = c.out[0].as<float>();
  std::vector<float> e(static_cast<std::size_t>(len));
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t in = 0; in < inner; ++in) {
      const std::int64_t base = o * len * inner + in;
      float m = -std::numeric_limits<float>::infinity();
      for (std::int64_t i = 0; i < len; ++i) m = std::max(m, xp[base + i * inner]);
      double sum = 0;
      for (std::int64_t i = 0; i < len; ++i) {
        e[static_cast<std::size_t>(i)] = std::exp(xp[base + i * inner] - m);
        sum += e[static_cast<std::size_t>(i)];
      }
      for (std::int64_t i = 0; i < len; ++i) {
        yp[base + i * inner] = static_cast<float>(e[static_cast<std::size_t>(i)] / sum);
      }
    }
  }
  return Status::Ok();
}

Status run_softmax(const RunCtx& c) { return run_via_float(c, softmax_float); }

}  // namespace

void add_norm_ops(std::vector<OpDef>& ops) {
  ops.push_back({"BatchNormalization", 5, 5, infer_batch_norm, run_batch_norm});
  ops.push_back({"Softmax", 1, 1, infer_softmax, run_softmax});
}

}  // namespace svp::kernels::detail
