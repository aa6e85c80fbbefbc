// Binary element-wise ops with numpy broadcasting: Add, Sub, Mul, Div, Pow; and PRelu
// (slope broadcast to X).
#include <cmath>

#include "kernels/reference/ops.h"

namespace svp::kernels::detail {
namespace {

Result<std::vector<Shape>> infer_broadcast(const InferCtx& c) {
  KN_ASSIGN(Shape out, broadcast_shapes(c.op, c.in[0], c.in[1]));
  return std::vector<Shape>{out};
}

Result<std::vector<Shape>> infer_prelu(const InferCtx& c) {
  KN_ASSIGN(Shape out, broadcast_shapes(c.op, c.in[0], c.in[1]));
  if (out != c.in[0]) {
    return Invalid(c.op, "slope shape {} does not broadcast to the input shape {}", shape_str(c.in[1]),
                   shape_str(c.in[0]));
  }
  return std::vector<Shape>{out};
}

// y = f(a, b) over the broadcast output shape.
template <typename F>
Status binary_float(const RunCtx& c, F&& f) {
  SVP_RETURN_IF_ERROR(require_f32(c, {0, 1}));
  const Shape& out = c.out[0].dims;
  const std::vector<std::int64_t> so = strides_of(out);
  const std::vector<std::int64_t> sa = broadcast_strides(c.in[0].dims, out);
  const std::vector<std::int64_t> sb = broadcast_strides(c.in[1].dims, out);
  const float* a = c.in[0].as<const float>();
  const float* b = c.in[1].as<const float>();
  float* y = c.out[0].as<float>();
  for_each_row<3>(out, {&so, &sa, &sb}, {0, 0, 0},
                  [&](const std::array<std::int64_t, 3>& off, std::int64_t n, const std::array<std::int64_t, 3>& st) {
                    float* yr = y + off[0];
                    const float* ar = a + off[1];
                    const float* br = b + off[2];
                    for (std::int64_t i = 0; i < n; ++i) yr[i] = f(ar[i * st[1]], br[i * st[2]]);
                  });
  return Status::Ok();
}

Status add_float(const RunCtx& c) {
  return binary_float(c, [](float a, float b) { return a + b; });
}
Status sub_float(const RunCtx& c) {
  return binary_float(c, [](float a, float b) { return a - b; });
}
Status mul_float(const RunCtx& c) {
  return binary_float(c, [](float a, float b) { return a * b; });
}
Status div_float(const RunCtx& c) {
  return binary_float(c, [](float a, float b) { return a / b; });
}
Status pow_float(const RunCtx& c) {
  return binary_float(c, [](float a, float b) { return std::pow(a, b); });
}
Status prelu_float(const RunCtx& c) {
  return binary_float(c, [](float x, float slope) { return x < 0.0f ? slope * x : x; });
}

Status run_add(const RunCtx& c) { return run_via_float(c, add_float); }
Status run_sub(const RunCtx& c) { return run_via_float(c, sub_float); }
Status run_mul(const RunCtx& c) { return run_via_float(c, mul_float); }
Status run_div(const RunCtx& c) { return run_via_float(c, div_float); }
Status run_pow(const RunCtx& c) { return run_via_float(c, pow_float); }
Status run_prelu(const RunCtx& c) { return run_via_float(c, prelu_float); }

}  // namespace

void add_binary_ops(std::vector<OpDef>& ops) {
  ops.push_back({"Add", 2, 2, infer_broadcast, run_add});
  ops.push_back({"Sub", 2, 2, infer_broadcast, run_sub});
  ops.push_back({"Mul", 2, 2, infer_broadcast, run_mul});
  ops.push_back({"Div", 2, 2, infer_broadcast, run_div});
  ops.push_back({"Pow", 2, 2, infer_broadcast, run_pow});
  ops.push_back({"PRelu", 2, 2, infer_prelu, run_prelu});
}

}  // namespace svp::kernels::detail
