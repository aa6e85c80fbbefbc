// Matching torch's erf GELU export (torch.onnx symbolic gelu, approximate="none").
#include "kernels/onednn/gelu_pattern.h"

#include <cmath>
#include <cstring>

namespace svp::kernels::onednn {
namespace {

using model::DType;
using model::Placement;

struct Matcher {
  const model::Program& p;
  const std::uint8_t* weights;
  const std::vector<int>& readers;

  const model::Tensor& tensor(std::int32_t t) const { return p.tensors[static_cast<std::size_t>(t)]; }
  // A float32 scalar constant's value.
  bool scalar(std::int32_t t, float* v) const {
    if (t < 0) return false;
    const model::Tensor& c = tensor(t);
    if (c.placement != Placement::kWeights || c.dtype != DType::kFloat32 || !c.quant.empty() || c.size != sizeof(float))
      return false;
    std::memcpy(v, weights + c.offset, sizeof *v);
    return true;
  }
  // Layer `l` is `op` reading `a` and one other tensor (in either position when
  // `commutes`, else `a` first): that other tensor, or -1.
  static std::int32_t other(const model::Layer& l, const char* op, std::int32_t a, bool commutes) {
    if (l.op != op || l.inputs.size() != 2 || l.outputs.size() != 1) return -1;
    if (l.inputs[0] == a && l.inputs[1] != a) return l.inputs[1];
    if (commutes && l.inputs[1] == a && l.inputs[0] != a) return l.inputs[0];
    return -1;
  }
  // `l` is op(a, constant) with that constant ≈ `value` (relative 1e-6: √2 exported from
  // a double); its output, or -1.
  std::int32_t by_const(const model::Layer& l, const char* op, std::int32_t a, float value, bool commutes) const {
    float v = 0;
    if (!scalar(other(l, op, a, commutes), &v) || !(std::fabs(v - value) <= 1e-6f * std::fabs(value))) return -1;
    return l.outputs[0];
  }
  // A float32 work_buf tensor of x's dims read by `n` layers.
  bool inner(std::int32_t t, std::int32_t x, int n) const {
    const model::Tensor& u = tensor(t);
    return u.placement == Placement::kWorkBuf && u.dtype == DType::kFloat32 && u.quant.empty() &&
           u.dims == tensor(x).dims && readers[static_cast<std::size_t>(t)] == n;
  }
};

}  // namespace

std::size_t match_gelu_erf(const model::Program& p, const std::uint8_t* weights, const std::vector<int>& readers,
                           std::size_t j, std::int32_t x, std::int32_t* y) {
  if (j + 5 > p.layers.size() || x < 0) return 0;
  const Matcher m{p, weights, readers};
  const model::Layer* l = &p.layers[j];
  // x / √2, or x · (1/√2).
  std::int32_t t1 = m.by_const(l[0], "Div", x, std::sqrt(2.f), false);
  if (t1 < 0) t1 = m.by_const(l[0], "Mul", x, std::sqrt(0.5f), true);
  if (t1 < 0 || l[1].op != "Erf" || l[1].inputs.size() != 1 || l[1].inputs[0] != t1 || l[1].outputs.size() != 1)
    return 0;
  const std::int32_t t2 = l[1].outputs[0];
  const std::int32_t t3 = m.by_const(l[2], "Add", t2, 1.f, true);
  if (t3 < 0) return 0;
  // (x · t3) · 0.5, or x · (t3 · 0.5).
  std::int32_t t4 = -1, out = -1;
  if (Matcher::other(l[3], "Mul", t3, true) == x) {
    t4 = l[3].outputs[0];
    out = m.by_const(l[4], "Mul", t4, 0.5f, true);
  } else {
    t4 = m.by_const(l[3], "Mul", t3, 0.5f, true);
    if (t4 >= 0 && Matcher::other(l[4], "Mul", t4, true) == x) out = l[4].outputs[0];
  }
  if (out < 0 || !m.inner(x, x, 2)) return 0;
  for (std::int32_t t : {t1, t2, t3, t4})
    if (!m.inner(t, x, 1)) return 0;
  const model::Tensor& yt = m.tensor(out);
  if (yt.dtype != DType::kFloat32 || !yt.quant.empty() || yt.dims != m.tensor(x).dims) return 0;
  *y = out;
  return 5;
}

}  // namespace svp::kernels::onednn
