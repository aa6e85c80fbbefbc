#include "kernels/onednn/q8_table.h"

// GCC 12's AVX-512 intrinsics pass an undefined vector as the merge source of their
// masked builtins, which -Wmaybe-uninitialized reports falsely (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <string>
#include <vector>

#include "kernels/kernels.h"
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

// 64 lookups at a time with AVX-512 VBMI: vpermi2b picks from 128 table bytes by the low
// seven bits of each index, once for each half of the table, and the index's top bit
// chooses between the two. Returns how many bytes it did.
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) std::int64_t apply_vbmi(const Q8Table& t, const std::uint8_t* in,
                                                                               std::uint8_t* o, std::int64_t n) {
  const __m512i t0 = _mm512_loadu_si512(t.data()), t1 = _mm512_loadu_si512(t.data() + 64);
  const __m512i t2 = _mm512_loadu_si512(t.data() + 128), t3 = _mm512_loadu_si512(t.data() + 192);
  std::int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512i x = _mm512_loadu_si512(in + i);
    const __m512i low = _mm512_permutex2var_epi8(t0, x, t1), high = _mm512_permutex2var_epi8(t2, x, t3);
    _mm512_storeu_si512(o + i, _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), low, high));
  }
  return i;
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

void q8_table_apply(const Q8Table& table, const void* x, void* y, std::int64_t n) {
  const auto* in = static_cast<const std::uint8_t*>(x);
  auto* o = static_cast<std::uint8_t*>(y);
  static const bool vbmi = __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw");
  for (std::int64_t i = vbmi ? apply_vbmi(table, in, o, n) : 0; i < n; ++i) o[i] = table[in[i]];
}

}  // namespace svp::kernels::onednn
