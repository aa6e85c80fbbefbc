#include "kernels/onednn/q8_table.h"

#include <string>
#include <vector>

#include "kernels/kernels.h"

namespace svp::kernels::onednn {

bool q8_table_for(const model::Layer& l, const model::Tensor& x, const model::Tensor& y, Q8Table* table) {
  static const char* const kOps[] = {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish", "Erf"};
  bool known = false;
  for (const char* op : kOps) known = known || l.op == op;
  if (!known || l.inputs.size() != 1 || l.outputs.size() != 1) return false;
  auto q8 = [](const model::Tensor& t) {
    return (t.dtype == model::DType::kInt8 || t.dtype == model::DType::kUint8) && t.quant.scale.size() == 1;
  };
  if (!q8(x) || !q8(y) || x.dims != y.dims) return false;
  // Every input byte, stored at its own index, through the reference kernel.
  std::vector<std::uint8_t> codes(256), out(256);
  for (int k = 0; k < 256; ++k) codes[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(k);
  model::TensorView vx, vy;
  vx.dtype = x.dtype;
  vx.dims = {256};
  vx.quant = &x.quant;
  vx.data = codes.data();
  vy.dtype = y.dtype;
  vy.dims = {256};
  vy.quant = &y.quant;
  vy.data = out.data();
  if (!run_reference(l.op, l.attrs, {vx}, {vy}).ok()) return false;
  for (int k = 0; k < 256; ++k) (*table)[static_cast<std::size_t>(k)] = out[static_cast<std::size_t>(k)];
  return true;
}

void q8_table_apply(const Q8Table& table, const void* x, void* y, std::int64_t n) {
  const auto* in = static_cast<const std::uint8_t*>(x);
  auto* o = static_cast<std::uint8_t*>(y);
  for (std::int64_t i = 0; i < n; ++i) o[i] = table[in[i]];
}

}  // namespace svp::kernels::onednn
