#include "kernels/onednn/q8_table.h"

#include <string>
#include <vector>

#include "kernels/kernels.h"
#include "kernels/onednn/byte_lookup_vbmi.h"
#include "kernels/onednn/quant_params.h"

namespace svp::kernels::onednn {

namespace {

// A 256-element view of `t`'s encoding over `bytes`.
model::TensorView codes_view(const model::Tensor& t, std::uint8_t* bytes) {
  model::TensorView v;
  v.dtype = t.dtype;
  v.dims = {256};
  v.quant = &t.quant;
  v.data = bytes;
  return v;
}

}  // namespace

bool q8_table_for(const model::Layer& l, const model::Tensor& x, const model::Tensor& y, Q8Table* table) {
  static const char* const kOps[] = {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish", "Erf"};
  bool known = false;
  for (const char* op : kOps) known = known || l.op == op;
  if (!known || l.inputs.size() != 1 || l.outputs.size() != 1) return false;
  if (!per_tensor_q8(x) || !per_tensor_q8(y) || x.dims != y.dims) return false;
  // Every input byte, stored at its own index, through the reference kernel.
  Q8Table codes{};
  for (int k = 0; k < 256; ++k) codes[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(k);
  return run_reference(l.op, l.attrs, {codes_view(x, codes.data())}, {codes_view(y, table->data())}).ok();
}

bool q8_gated_table(const model::Layer& mul, std::size_t gate_input, const model::Tensor& x, const Q8Table& gate_lut,
                    const model::Tensor& gate, const model::Tensor& y, Q8Table* table) {
  if (gate_input > 1 || !per_tensor_q8(x) || !per_tensor_q8(gate) || !per_tensor_q8(y)) return false;
  Q8Table codes{}, gated = gate_lut;
  for (int k = 0; k < 256; ++k) codes[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(k);
  std::vector<model::TensorView> in(2);
  in[1 - gate_input] = codes_view(x, codes.data());
  in[gate_input] = codes_view(gate, gated.data());
  return run_reference(mul.op, mul.attrs, in, {codes_view(y, table->data())}).ok();
}

bool q8_scalar_table(const model::Layer& l, std::size_t var_input, const model::Tensor& x,
                     const model::TensorView& scalar, const model::Tensor& y, Q8Table* table) {
  static const char* const kOps[] = {"Add", "Sub", "Mul", "Div", "Pow"};
  bool known = false;
  for (const char* op : kOps) known = known || l.op == op;
  if (!known || l.inputs.size() != 2 || var_input > 1 || l.outputs.size() != 1) return false;
  if (!per_tensor_q8(x) || !per_tensor_q8(y) || x.dims != y.dims || scalar.elements() != 1) return false;
  Q8Table codes{};
  for (int k = 0; k < 256; ++k) codes[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(k);
  model::TensorView c = scalar;
  c.dims = {1};  // broadcasts to the 256 codes whatever its rank
  std::vector<model::TensorView> in(2);
  in[var_input] = codes_view(x, codes.data());
  in[1 - var_input] = c;
  return run_reference(l.op, l.attrs, in, {codes_view(y, table->data())}).ok();
}

namespace {

// 64 lookups per step (byte_lookup_vbmi.h). A byte loop costs about a cycle per element, which made a table layer cost as much as
// the convolution before it on small maps (PP-OCR cls's HardSwish).
#define SVP_VBMI __attribute__((target("avx512f,avx512bw,avx512vbmi")))

SVP_VBMI void apply_vbmi(const std::uint8_t* table, const std::uint8_t* in, std::uint8_t* o, std::int64_t n) {
  __m512i t[4];
  for (int k = 0; k < 4; ++k) t[k] = _mm512_loadu_si512(table + 64 * k);
  std::int64_t i = 0;
  for (; i + 64 <= n; i += 64) _mm512_storeu_si512(o + i, lookup64(t, _mm512_loadu_si512(in + i)));
  if (i < n) {
    const __mmask64 m = (1ull << (n - i)) - 1;  // n - i < 64
    _mm512_mask_storeu_epi8(o + i, m, lookup64(t, _mm512_maskz_loadu_epi8(m, in + i)));
  }
}

#undef SVP_VBMI

}  // namespace

void q8_table_apply(const Q8Table& table, const void* x, void* y, std::int64_t n) {
  const auto* in = static_cast<const std::uint8_t*>(x);
  auto* o = static_cast<std::uint8_t*>(y);
  static const bool vbmi = __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw");
  if (vbmi) return apply_vbmi(table.data(), in, o, n);
  for (std::int64_t i = 0; i < n; ++i) o[i] = table[in[i]];
}

}  // namespace svp::kernels::onednn
