// The training optimizers of ONNX's ai.onnx.preview.training domain (version 1): one
// update step of n tensors at once, with ONNX's reference formulas.
//   Adagrad  (R, T, X1..Xn, G1..Gn, H1..Hn)        → (X1'..Xn', H1'..Hn')
//   Adam     (R, T, X1..Xn, G1..Gn, V1..Vn, H1..Hn) → (X1'..Xn', V1'..Vn', H1'..Hn')
//   Momentum (R, T, X1..Xn, G1..Gn, V1..Vn)        → (X1'..Xn', V1'..Vn')
// R is the float learning rate (a scalar), T the int64 update count (a scalar). Each
// G, V, H has its X's shape; float32 and float64, computed in double.
#include <cmath>

#include "kernels/reference/ops.h"
#include "kernels/reference/typed.h"

namespace svp::kernels::detail {
namespace {

// How many tensor groups (X, G, ...) an op takes: the number of updated tensors n.
struct OptimizerKind {
  std::size_t groups_in;   // per updated tensor: X, G and the states
  std::size_t groups_out;  // X' and the new states
};

Result<std::size_t> updated_count(const char* op, std::size_t inputs, OptimizerKind k) {
  if (inputs < 2 + k.groups_in || (inputs - 2) % k.groups_in != 0) {
    return Invalid(op, "expects R, T and {} tensors per updated tensor, got {} inputs", k.groups_in, inputs);
  }
  return (inputs - 2) / k.groups_in;
}

Result<std::vector<Shape>> infer_optimizer(const InferCtx& c, OptimizerKind k) {
  KN_ASSIGN(std::size_t n, updated_count(c.op, c.in.size(), k));
  if (numel(c.in[0]) != 1 || numel(c.in[1]) != 1) {
    return Invalid(c.op, "R and T must be scalars, got {} and {}", shape_str(c.in[0]), shape_str(c.in[1]));
  }
  std::vector<Shape> out;
  for (std::size_t g = 0; g < k.groups_out; ++g) {
    for (std::size_t i = 0; i < n; ++i) out.push_back(c.in[2 + i]);
  }
  for (std::size_t g = 1; g < k.groups_in; ++g) {
    for (std::size_t i = 0; i < n; ++i) {
      if (c.in[2 + g * n + i] != c.in[2 + i]) {
        return Invalid(c.op, "input {} has shape {} but its X has {}", 2 + g * n + i, shape_str(c.in[2 + g * n + i]),
                       shape_str(c.in[2 + i]));
      }
    }
  }
  return out;
}

Result<std::vector<Shape>> infer_adagrad(const InferCtx& c) { return infer_optimizer(c, {3, 2}); }
Result<std::vector<Shape>> infer_adam(const InferCtx& c) { return infer_optimizer(c, {4, 3}); }
Result<std::vector<Shape>> infer_momentum(const InferCtx& c) { return infer_optimizer(c, {3, 2}); }

// Every input after T and every output float32 or float64 (one type), R float.
Status check_types(const RunCtx& c) {
  if (c.in[1].dtype != DType::kInt64) return BadType(c.op, "T must be int64, got {}", type_desc(c.in[1]));
  const DType t = c.in[2].dtype;
  if (t != DType::kFloat32 && t != DType::kFloat64) return BadType(c.op, "X must be float32 or float64");
  if (c.in[0].dtype != DType::kFloat32 && c.in[0].dtype != DType::kFloat64) {
    return BadType(c.op, "R must be float32 or float64, got {}", type_desc(c.in[0]));
  }
  for (std::size_t i = 2; i < c.in.size(); ++i) {
    if (c.in[i].dtype != t || has_quant(c.in[i])) return BadType(c.op, "input {} is not of X's type", i);
  }
  for (const TensorView& o : c.out) {
    if (o.dtype != t) return BadType(c.op, "an output is {} but X is {}", type_desc(o), type_desc(c.in[2]));
  }
  return Status::Ok();
}

// Calls step(i, element, in, out) for every element of every updated tensor, with the
// inputs and outputs of that element as doubles.
template <std::size_t kIn, std::size_t kOut, typename F>
Status for_each_element(const RunCtx& c, std::size_t n, F&& step) {
  const bool ok = visit_types<kFloatTypes>(c.in[2].dtype, [&](auto tag) {
    using T = decltype(tag);
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t count = c.in[2 + i].elements();
      for (std::int64_t e = 0; e < count; ++e) {
        double in[kIn], out[kOut];
        for (std::size_t g = 0; g < kIn; ++g) in[g] = static_cast<double>(load(c.in[2 + g * n + i].as<const T>()[e]));
        step(in, out);
        for (std::size_t g = 0; g < kOut; ++g) c.out[g * n + i].as<T>()[e] = store<T>(out[g]);
      }
    }
  });
  if (!ok) return bad_type(c.op, "X", c.in[2], kFloatTypes);
  return Status::Ok();
}

struct Scalars {
  double r;
  std::int64_t t;
};

Scalars scalars(const RunCtx& c) {
  const double r = c.in[0].dtype == DType::kFloat64 ? *c.in[0].as<const double>() : *c.in[0].as<const float>();
  return {r, *c.in[1].as<const std::int64_t>()};
}

Status run_adagrad(const RunCtx& c) {
  SVP_RETURN_IF_ERROR(check_types(c));
  KN_ASSIGN(std::size_t n, updated_count(c.op, c.in.size(), {3, 2}));
  KN_ASSIGN(double decay, c.attr().f("decay_factor", 0.0));
  KN_ASSIGN(double epsilon, c.attr().f("epsilon", 0.0));
  KN_ASSIGN(double norm, c.attr().f("norm_coefficient", 0.0));
  const Scalars s = scalars(c);
  // The learning rate decays with the update count.
  const double rate = s.r / (1.0 + static_cast<double>(s.t) * decay);
  return for_each_element<3, 2>(c, n, [&](const double* in, double* out) {
    const double x = in[0], g = norm * x + in[1];  // gradient of the L2 regularisation added
    const double h = in[2] + g * g;
    out[0] = x - rate * g / (std::sqrt(h) + epsilon);
    out[1] = h;
  });
}

Status run_adam(const RunCtx& c) {
  SVP_RETURN_IF_ERROR(check_types(c));
  KN_ASSIGN(std::size_t n, updated_count(c.op, c.in.size(), {4, 3}));
  KN_ASSIGN(double alpha, c.attr().f("alpha", 0.9));
  KN_ASSIGN(double beta, c.attr().f("beta", 0.999));
  KN_ASSIGN(double epsilon, c.attr().f("epsilon", 1e-6));
  KN_ASSIGN(double norm, c.attr().f("norm_coefficient", 0.0));
  KN_ASSIGN(double norm_post, c.attr().f("norm_coefficient_post", 0.0));
  const Scalars s = scalars(c);
  // Bias correction of both momentums once T > 0.
  const double t = static_cast<double>(s.t);
  const double rate = s.t > 0 ? s.r * std::sqrt(1.0 - std::pow(beta, t)) / (1.0 - std::pow(alpha, t)) : s.r;
  return for_each_element<4, 3>(c, n, [&](const double* in, double* out) {
    const double x = in[0], g = norm * x + in[1];
    const double v = alpha * in[2] + (1.0 - alpha) * g;
    const double h = beta * in[3] + (1.0 - beta) * g * g;
    const double x_new = x - rate * v / (std::sqrt(h) + epsilon);
    out[0] = (1.0 - norm_post) * x_new;  // the regularisation applied after the step
    out[1] = v;
    out[2] = h;
  });
}

Status run_momentum(const RunCtx& c) {
  SVP_RETURN_IF_ERROR(check_types(c));
  KN_ASSIGN(std::size_t n, updated_count(c.op, c.in.size(), {3, 2}));
  // All four attributes are required by the schema.
  for (const char* name : {"alpha", "beta", "mode", "norm_coefficient"}) {
    if (!c.attr().has(name)) return Malformed(c.op, "attribute \"{}\" is required", name);
  }
  KN_ASSIGN(double alpha, c.attr().f("alpha", 0.0));
  KN_ASSIGN(double beta, c.attr().f("beta", 0.0));
  KN_ASSIGN(double norm, c.attr().f("norm_coefficient", 0.0));
  KN_ASSIGN(std::string mode, c.attr().s("mode", ""));
  if (mode != "standard" && mode != "nesterov") {
    return Malformed(c.op, "mode must be \"standard\" or \"nesterov\", got \"{}\"", mode);
  }
  const bool nesterov = mode == "nesterov";
  const Scalars s = scalars(c);
  // The gradient's coefficient is 1 at the first update.
  const double b = s.t > 0 ? beta : 1.0;
  return for_each_element<3, 2>(c, n, [&](const double* in, double* out) {
    const double x = in[0], g = norm * x + in[1];
    const double v = alpha * in[2] + b * g;
    out[0] = nesterov ? x - s.r * (g + alpha * v) : x - s.r * v;
    out[1] = v;
  });
}

}  // namespace

void add_optimizer_ops(std::vector<OpDef>& ops) {
  ops.push_back({"Adagrad", 5, kVariadic, infer_adagrad, run_adagrad});
  ops.push_back({"Adam", 6, kVariadic, infer_adam, run_adam});
  ops.push_back({"Momentum", 5, kVariadic, infer_momentum, run_momentum});
}

}  // namespace svp::kernels::detail
