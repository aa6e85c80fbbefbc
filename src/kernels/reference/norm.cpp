// BatchNormalization (inference), the Softmax family (opset 13: one axis), and the
// normalisations LayerNormalization, InstanceNormalization, LRN.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/reference/ops.h"
#include "kernels/reference/typed.h"

namespace svp::kernels::detail {
namespace {

Result<std::vector<Shape>> infer_batch_norm(const InferCtx& c) {
  const Shape& x = c.in[0];
  if (x.size() < 2) return Invalid(c.op, "input X must have rank >= 2 (N, C, ...), got {}", shape_str(x));
  KN_ASSIGN(bool training, c.attr().flag("training_mode", false));
  KN_ASSIGN(double eps, c.attr().f("epsilon", 1e-5));
  KN_ASSIGN(double momentum, c.attr().f("momentum", 0.9));
  (void)momentum;
  if (!(eps >= 0.0)) return Invalid(c.op, "attribute \"epsilon\" must not be negative, got {}", eps);
  static const char* const kNames[] = {"", "scale", "B", "mean", "var"};
  for (std::size_t i = 1; i < 5; ++i) {
    if (c.in[i] != Shape{x[1]}) {
      return Invalid(c.op, "input {} ({}) must have shape [{}], got {}", i, kNames[i], x[1], shape_str(c.in[i]));
    }
  }
  if (!training) {
    if (c.num_outputs > 1) return Invalid(c.op, "has 1 output in inference mode, got {}", c.num_outputs);
    return std::vector<Shape>{x};
  }
  // Training mode: Y, running_mean, running_var.
  const std::size_t n = c.num_outputs == 0 ? 3 : c.num_outputs;
  if (n > 3) return Invalid(c.op, "has at most 3 outputs in training mode, got {}", n);
  std::vector<Shape> out{x};
  for (std::size_t i = 1; i < n; ++i) out.push_back(Shape{x[1]});
  return out;
}

// y = (x - mean) / sqrt(var + epsilon) * scale + B, as y = x * a + b per channel with
// a = scale / sqrt(var + epsilon) and b = B - mean * a (computed in double). In training
// mode mean and var are the batch's (population variance over all dims but C), and the
// running statistics are input * momentum + batch * (1 - momentum).
Status batch_norm_float(const RunCtx& c) {
  SVP_RETURN_IF_ERROR(require_f32(c, {0, 1, 2, 3, 4}));
  KN_ASSIGN(double eps, c.attr().f("epsilon", 1e-5));
  KN_ASSIGN(bool training, c.attr().flag("training_mode", false));
  KN_ASSIGN(double momentum, c.attr().f("momentum", 0.9));
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
    double m = mean[ch], v = var[ch];
    if (training) {
      double sum = 0, sq = 0;
      const double count = static_cast<double>(N * inner);
      for (std::int64_t n = 0; n < N; ++n) {
        for (std::int64_t i = 0; i < inner; ++i) sum += xp[(n * C + ch) * inner + i];
      }
      m = count > 0 ? sum / count : 0.0;
      for (std::int64_t n = 0; n < N; ++n) {
        for (std::int64_t i = 0; i < inner; ++i) {
          const double d = xp[(n * C + ch) * inner + i] - m;
          sq += d * d;
        }
      }
      v = count > 0 ? sq / count : 0.0;
      if (c.out.size() > 1) c.out[1].as<float>()[ch] = static_cast<float>(mean[ch] * momentum + m * (1 - momentum));
      if (c.out.size() > 2) c.out[2].as<float>()[ch] = static_cast<float>(var[ch] * momentum + v * (1 - momentum));
    }
    const double a = static_cast<double>(scale[ch]) / std::sqrt(v + eps);
    const double b = static_cast<double>(bias[ch]) - m * a;
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

enum class SoftmaxKind { kSoftmax, kLogSoftmax, kHardmax };

// Along the axis: Softmax y = exp(x - max) / sum(exp(x - max)) (exp in float, sum in
// double); LogSoftmax y = x - max - log(sum(exp(x - max))); Hardmax 1 at the first maximum,
// 0 elsewhere.
template <SoftmaxKind kKind>
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
      std::int64_t arg = 0;
      for (std::int64_t i = 0; i < len; ++i) {
        if (xp[base + i * inner] > m) {
          m = xp[base + i * inner];
          arg = i;
        }
      }
      if constexpr (kKind == SoftmaxKind::kHardmax) {
        for (std::int64_t i = 0; i < len; ++i) yp[base + i * inner] = i == arg ? 1.0f : 0.0f;
        continue;
      }
      double sum = 0;
      for (std::int64_t i = 0; i < len; ++i) {
        e[static_cast<std::size_t>(i)] = std::exp(xp[base + i * inner] - m);
        sum += e[static_cast<std::size_t>(i)];
      }
      const double log_sum = std::log(sum);
      for (std::int64_t i = 0; i < len; ++i) {
        yp[base + i * inner] = kKind == SoftmaxKind::kSoftmax
                                   ? static_cast<float>(e[static_cast<std::size_t>(i)] / sum)
                                   : static_cast<float>(static_cast<double>(xp[base + i * inner] - m) - log_sum);
      }
    }
  }
  return Status::Ok();
}

template <SoftmaxKind kKind>
Status run_softmax(const RunCtx& c) {
  return run_via_float(c, softmax_float<kKind>);
}

// ---------------------------------------------------------------------------
// LayerNormalization (opset 17): normalises over the dims from `axis` on; outputs Y and
// optionally Mean and InvStdDev (shape X's up to axis, 1 after). Scale and B broadcast to
// the normalised dims.

struct LayerNormSetup {
  std::int64_t axis = 0, outer = 1, inner = 1;
  Shape stat;  // the Mean / InvStdDev shape
};

Result<LayerNormSetup> layer_norm_setup(const InferCtx& c) {
  const Shape& x = c.in[0];
  const auto r = static_cast<std::int64_t>(x.size());
  LayerNormSetup s;
  KN_ASSIGN(std::int64_t axis, c.attr().i("axis", -1));
  KN_ASSIGN(s.axis, norm_axis(c.op, "attribute \"axis\"", axis, r));
  KN_ASSIGN(double eps, c.attr().f("epsilon", 1e-5));
  if (!(eps >= 0.0)) return Invalid(c.op, "attribute \"epsilon\" must not be negative, got {}", eps);
  const Shape norm(x.begin() + s.axis, x.end());
  for (std::size_t i = 1; i < 3 && i < c.in.size(); ++i) {
    if (!c.has(i)) continue;
    KN_ASSIGN(Shape b, broadcast_shapes(c.op, norm, c.in[i]));
    if (b != norm) {
      return Invalid(c.op, "input {} ({}) of shape {} does not broadcast to the normalised shape {}", i,
                     i == 1 ? "Scale" : "B", shape_str(c.in[i]), shape_str(norm));
    }
  }
  for (std::int64_t d = 0; d < r; ++d) {
    (d < s.axis ? s.outer : s.inner) *= x[static_cast<std::size_t>(d)];
    s.stat.push_back(d < s.axis ? x[static_cast<std::size_t>(d)] : 1);
  }
  return s;
}

Result<std::vector<Shape>> infer_layer_norm(const InferCtx& c) {
  KN_ASSIGN(LayerNormSetup s, layer_norm_setup(c));
  const std::size_t n = c.num_outputs == 0 ? 3 : c.num_outputs;
  if (n > 3) return Invalid(c.op, "has at most 3 outputs (Y, Mean, InvStdDev), got {}", n);
  std::vector<Shape> out{c.in[0]};
  for (std::size_t i = 1; i < n; ++i) out.push_back(s.stat);
  return out;
}

// A parameter input broadcast to `shape` as dense floats (`def` everywhere when absent).
std::vector<float> expanded(const RunCtx& c, std::size_t i, const Shape& shape, float def) {
  std::vector<float> v(static_cast<std::size_t>(numel(shape)), def);
  if (c.has(i)) {
    TensorView dst;
    dst.dims = shape;
    dst.data = v.data();
    broadcast_copy(c.in[i], dst);
  }
  return v;
}

Status layer_norm_float(const RunCtx& c) {
  SVP_RETURN_IF_ERROR(require_f32(c, {0, 1, 2}));
  KN_ASSIGN(LayerNormSetup s, with_infer_ctx(c, layer_norm_setup));
  KN_ASSIGN(double eps, c.attr().f("epsilon", 1e-5));
  const Shape norm(c.in[0].dims.begin() + s.axis, c.in[0].dims.end());
  const std::vector<float> scale = expanded(c, 1, norm, 1.0f), bias = expanded(c, 2, norm, 0.0f);
  const float* x = c.in[0].as<const float>();
  float* y = c.out[0].as<float>();
  for (std::int64_t o = 0; o < s.outer; ++o) {
    const float* xr = x + o * s.inner;
    double mean = 0, var = 0;
    for (std::int64_t i = 0; i < s.inner; ++i) mean += xr[i];
    mean /= static_cast<double>(s.inner);
    for (std::int64_t i = 0; i < s.inner; ++i) var += (xr[i] - mean) * (xr[i] - mean);
    var /= static_cast<double>(s.inner);
    const double inv = 1.0 / std::sqrt(var + eps);
    for (std::int64_t i = 0; i < s.inner; ++i) {
      const auto k = static_cast<std::size_t>(i);
      y[o * s.inner + i] = static_cast<float>((xr[i] - mean) * inv * scale[k] + bias[k]);
    }
    if (c.out.size() > 1) c.out[1].as<float>()[o] = static_cast<float>(mean);
    if (c.out.size() > 2) c.out[2].as<float>()[o] = static_cast<float>(inv);
  }
  return Status::Ok();
}

Status run_layer_norm(const RunCtx& c) { return run_via_float(c, layer_norm_float); }

// ---------------------------------------------------------------------------
// InstanceNormalization: per (n, c) plane y = (x - mean) / sqrt(var + epsilon) * scale[c] + B[c].

Result<std::vector<Shape>> infer_instance_norm(const InferCtx& c) {
  const Shape& x = c.in[0];
  if (x.size() < 3) return Invalid(c.op, "input must have rank >= 3 (N, C, D1, ...), got {}", shape_str(x));
  KN_ASSIGN(double eps, c.attr().f("epsilon", 1e-5));
  if (!(eps >= 0.0)) return Invalid(c.op, "attribute \"epsilon\" must not be negative, got {}", eps);
  for (std::size_t i = 1; i < 3; ++i) {
    if (c.in[i] != Shape{x[1]}) {
      return Invalid(c.op, "input {} ({}) must have shape [{}], got {}", i, i == 1 ? "scale" : "B", x[1],
                     shape_str(c.in[i]));
    }
  }
  return std::vector<Shape>{x};
}

Status instance_norm_float(const RunCtx& c) {
  SVP_RETURN_IF_ERROR(require_f32(c, {0, 1, 2}));
  KN_ASSIGN(double eps, c.attr().f("epsilon", 1e-5));
  const Shape& d = c.in[0].dims;
  const std::int64_t C = d[1], planes = d[0] * d[1], sp = planes > 0 ? numel(d) / planes : 0;
  const float* x = c.in[0].as<const float>();
  const float* scale = c.in[1].as<const float>();
  const float* bias = c.in[2].as<const float>();
  float* y = c.out[0].as<float>();
  for (std::int64_t p = 0; p < planes; ++p) {
    const float* xr = x + p * sp;
    double mean = 0, var = 0;
    for (std::int64_t i = 0; i < sp; ++i) mean += xr[i];
    mean /= static_cast<double>(sp);
    for (std::int64_t i = 0; i < sp; ++i) var += (xr[i] - mean) * (xr[i] - mean);
    var /= static_cast<double>(sp);
    const double a = scale[p % C] / std::sqrt(var + eps);
    for (std::int64_t i = 0; i < sp; ++i) y[p * sp + i] = static_cast<float>((xr[i] - mean) * a + bias[p % C]);
  }
  return Status::Ok();
}

Status run_instance_norm(const RunCtx& c) { return run_via_float(c, instance_norm_float); }

// ---------------------------------------------------------------------------
// LRN: y = x / (bias + alpha / size * sum of x^2 over the channels
// [c - floor((size-1)/2), c + ceil((size-1)/2)]) ^ beta.

Result<std::vector<Shape>> infer_lrn(const InferCtx& c) {
  const Shape& x = c.in[0];
  if (x.size() < 3) return Invalid(c.op, "input must have rank >= 3 (N, C, D1, ...), got {}", shape_str(x));
  if (!c.attrs.has("size")) return Malformed(c.op, "attribute \"size\" is required");
  KN_ASSIGN(std::int64_t size, c.attr().i("size", 1));
  if (size < 1) return Invalid(c.op, "attribute \"size\" must be positive, got {}", size);
  return std::vector<Shape>{x};
}

Status lrn_float(const RunCtx& c) {
  SVP_RETURN_IF_ERROR(require_f32(c, {0}));
  KN_ASSIGN(std::int64_t size, c.attr().i("size", 1));
  KN_ASSIGN(double alpha, c.attr().f("alpha", 1e-4));
  KN_ASSIGN(double beta, c.attr().f("beta", 0.75));
  KN_ASSIGN(double bias, c.attr().f("bias", 1.0));
  const Shape& d = c.in[0].dims;
  const std::int64_t N = d[0], C = d[1], sp = numel(d) / std::max<std::int64_t>(N * C, 1);
  const std::int64_t lo = (size - 1) / 2, hi = size - 1 - lo;
  const float* x = c.in[0].as<const float>();
  float* y = c.out[0].as<float>();
  for (std::int64_t n = 0; n < N; ++n) {
    for (std::int64_t ch = 0; ch < C; ++ch) {
      const std::int64_t c0 = std::max<std::int64_t>(0, ch - lo), c1 = std::min(C - 1, ch + hi);
      for (std::int64_t i = 0; i < sp; ++i) {
        double sq = 0;
        for (std::int64_t k = c0; k <= c1; ++k) {
          const double v = x[(n * C + k) * sp + i];
          sq += v * v;
        }
        const std::int64_t at = (n * C + ch) * sp + i;
        y[at] = static_cast<float>(x[at] / std::pow(bias + alpha / static_cast<double>(size) * sq, beta));
      }
    }
  }
  return Status::Ok();
}

Status run_lrn(const RunCtx& c) { return run_via_float(c, lrn_float); }

// ---------------------------------------------------------------------------
// MeanVarianceNormalization (axes, default [0, 2, 3]): y = (x - E[x]) / (sqrt(E[x²] - E[x]²)
// + 1e-9), the statistics over the axes (ONNX's function body, its epsilon included).

Result<std::vector<bool>> mvn_axes(const InferCtx& c) {
  const auto r = static_cast<std::int64_t>(c.in[0].size());
  KN_ASSIGN(std::vector<std::int64_t> raw, c.attr().ints("axes", {0, 2, 3}));
  KN_ASSIGN(std::vector<std::int64_t> axes, norm_axes(c.op, "attribute \"axes\"", raw, r));
  std::vector<bool> reduced(c.in[0].size(), false);
  for (std::int64_t a : axes) reduced[static_cast<std::size_t>(a)] = true;
  return reduced;
}

Result<std::vector<Shape>> infer_mvn(const InferCtx& c) {
  KN_ASSIGN(std::vector<bool> reduced, mvn_axes(c));
  (void)reduced;
  return std::vector<Shape>{c.in[0]};
}

Status mvn_float(const RunCtx& c) {
  SVP_RETURN_IF_ERROR(require_f32(c, {0}));
  KN_ASSIGN(std::vector<bool> reduced, with_infer_ctx(c, mvn_axes));
  const Shape& x = c.in[0].dims;
  Shape kept = x;
  for (std::size_t d = 0; d < x.size(); ++d) kept[d] = reduced[d] ? 1 : x[d];
  const std::vector<std::int64_t> sx = strides_of(x);
  std::vector<std::int64_t> sk = strides_of(kept);
  for (std::size_t d = 0; d < x.size(); ++d) {
    if (reduced[d]) sk[d] = 0;
  }
  const std::int64_t groups = numel(kept);
  const double count = groups > 0 ? static_cast<double>(numel(x) / groups) : 1.0;
  std::vector<double> sum(static_cast<std::size_t>(groups), 0.0), sq(static_cast<std::size_t>(groups), 0.0);
  const float* xp = c.in[0].as<const float>();
  float* yp = c.out[0].as<float>();
  auto visit = [&](auto&& f) {
    for_each_row<2>(x, {&sx, &sk}, {0, 0},
                    [&](const std::array<std::int64_t, 2>& off, std::int64_t n, const std::array<std::int64_t, 2>& st) {
                      for (std::int64_t i = 0; i < n; ++i) f(off[0] + i * st[0], off[1] + i * st[1]);
                    });
  };
  visit([&](std::int64_t i, std::int64_t g) {
    sum[static_cast<std::size_t>(g)] += xp[i];
    sq[static_cast<std::size_t>(g)] += static_cast<double>(xp[i]) * xp[i];
  });
  visit([&](std::int64_t i, std::int64_t g) {
    const double m = sum[static_cast<std::size_t>(g)] / count;
    const double var = std::max(0.0, sq[static_cast<std::size_t>(g)] / count - m * m);
    yp[i] = static_cast<float>((xp[i] - m) / (std::sqrt(var) + 1e-9));
  });
  return Status::Ok();
}

Status run_mvn(const RunCtx& c) { return run_via_float(c, mvn_float); }

}  // namespace

void add_norm_ops(std::vector<OpDef>& ops) {
  ops.push_back({"BatchNormalization", 5, 5, infer_batch_norm, run_batch_norm});
  ops.push_back({"Softmax", 1, 1, infer_softmax, run_softmax<SoftmaxKind::kSoftmax>});
  ops.push_back({"LogSoftmax", 1, 1, infer_softmax, run_softmax<SoftmaxKind::kLogSoftmax>});
  ops.push_back({"Hardmax", 1, 1, infer_softmax, run_softmax<SoftmaxKind::kHardmax>});
  ops.push_back({"LayerNormalization", 2, 3, infer_layer_norm, run_layer_norm});
  ops.push_back({"InstanceNormalization", 3, 3, infer_instance_norm, run_instance_norm});
  ops.push_back({"LRN", 1, 1, infer_lrn, run_lrn});
  ops.push_back({"MeanVarianceNormalization", 1, 1, infer_mvn, run_mvn});
}

}  // namespace svp::kernels::detail
