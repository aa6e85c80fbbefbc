// Gemm / MatMul fast path: oneDNN inner_product_forward (A [M, K] × constant B).
#include <cstring>

#include "kernels/common.h"
#include "kernels/onednn/fast_op.h"
#include "kernels/onednn/int8_conv_avx2.h"
#include "kernels/onednn/quant_params.h"
#include "kernels/onednn/runtime.h"

namespace svp::kernels::onednn {

using model::DType;
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

std::unique_ptr<FastOp> make_inner_product(const std::string& op, const model::Attrs& attrs, const TensorView& a,
                                           const TensorView& b, const TensorView* c, const TensorView& y, int threads,
                                           std::string* why) {
  if (a.dims.size() != 2 || b.dims.size() != 2 || y.dims.size() != 2) return *why = "not 2-D", nullptr;
  bool trans_b = false;
  if (op == "Gemm") {
    const detail::AttrReader r("Gemm", attrs);
    auto ta = r.i("transA", 0), tb = r.i("transB", 0);
    auto alpha = r.f("alpha", 1.0), beta = r.f("beta", 1.0);
    if (!ta.ok() || !tb.ok() || !alpha.ok() || !beta.ok()) return *why = "attributes", nullptr;
    if (ta.value() != 0 || alpha.value() != 1.0) return *why = "transA or alpha", nullptr;
    if (c != nullptr && beta.value() != 1.0) return *why = "beta", nullptr;
    trans_b = tb.value() != 0;
  } else if (c != nullptr) {
    return *why = "MatMul has no bias", nullptr;
  }
  const std::int64_t M = a.dims[0], K = a.dims[1];
  const std::int64_t N = trans_b ? b.dims[0] : b.dims[1];
  if ((trans_b ? b.dims[1] : b.dims[0]) != K || y.dims != std::vector<std::int64_t>{M, N}) return *why = "shapes", nullptr;
  // C must be a per-column vector (a bias); a full [M, N] C is not an inner product.
  if (c != nullptr && !(c->elements() == N && (c->dims.size() == 1 || (c->dims.size() == 2 && c->dims[0] == 1))))
    return *why = "C is not a vector of N", nullptr;

  const bool fp32 = a.dtype == DType::kFloat32 && b.dtype == DType::kFloat32 && y.dtype == DType::kFloat32 &&
                    (c == nullptr || c->dtype == DType::kFloat32);
  IntParams ip;
  if (!fp32) {
    // Weight element (n, k): B[k][n] or, transposed, B[n][k].
    if (!int_params(a, b, trans_b ? 0 : 1, N, K, trans_b ? K : 1, trans_b ? 1 : N, c, y, &ip, why)) return nullptr;
    if (!exact_int8_isa()) {
      if (!int8_avx2_available()) return *why = "no VNNI nor AVX2: no exact int8 fast path", nullptr;
      // One 1×1 "pixel" per row of A.
      Int8ConvShape s;
      s.n = M;
      s.c = K;
      s.m = N;
      const Int8Weights wv{static_cast<const std::int8_t*>(b.data), trans_b ? K : 1, trans_b ? 1 : N, 0, 0};
      return make_int8_conv_avx2(s, wv, ip, a.dtype, y.dtype, false, threads);
    }
  }
  try {
    const dnnl::engine& eng = cpu_engine();
    ThreadScope threads_scope(threads);
    const dt adt = fp32 ? dt::f32 : (a.dtype == DType::kInt8 ? dt::s8 : dt::u8);
    const dt wdt = fp32 ? dt::f32 : dt::s8;
    const dt ydt = y.dtype == DType::kFloat32 ? dt::f32 : (y.dtype == DType::kInt8 ? dt::s8 : dt::u8);
    const dt bdt = fp32 ? dt::f32 : dt::s32;
    dnnl::memory::desc src_md({M, K}, adt, tag::nc);
    dnnl::memory::desc wei_md({N, K}, wdt, tag::any);
    dnnl::memory::desc dst_md({M, N}, ydt, tag::nc);
    dnnl::memory::desc bias_md = c != nullptr ? dnnl::memory::desc({N}, bdt, tag::a) : dnnl::memory::desc();
    dnnl::inner_product_forward::desc d(dnnl::prop_kind::forward_inference, src_md, wei_md, bias_md, dst_md);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (!fp32) {
      const bool uniform = std::all_of(ip.scales.begin(), ip.scales.end(), [&](float s) { return s == ip.scales[0]; });
      if (uniform) {
        attr.set_output_scales(0, {ip.scales[0]});
      } else {
        attr.set_output_scales(1 << 1, ip.scales);
      }
      if (ip.zp_x != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {ip.zp_x});
      if (ip.zp_y != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {ip.zp_y});
    }
    dnnl::inner_product_forward::primitive_desc pd(d, attr, eng);
    std::string impl = pd.impl_info_str();
    if (impl.rfind("ref", 0) == 0) return *why = "oneDNN offers only " + impl, nullptr;
    dnnl::memory user_w({{N, K}, wdt, trans_b ? tag::oi : tag::io}, eng, const_cast<void*>(b.data));
    dnnl::memory wmem = reordered_weights(user_w, pd.weights_desc());
    auto fop = std::make_unique<FastOp>(dnnl::inner_product_forward(pd), src_md, dst_md, pd.scratchpad_desc());
    fop->set_weights(wmem);
    if (c != nullptr) {
      const auto n = static_cast<std::size_t>(N);
      fop->set_bias(fp32 ? copied_memory(bias_md, c->data, n * sizeof(float))
                         : copied_memory(bias_md, ip.bias.data(), n * sizeof(std::int32_t)));
    }
    fop->set_impl(impl);
    fop->set_one_thread_twin(threads,
                             [d, attr, eng] { return dnnl::inner_product_forward::primitive_desc(d, attr, eng); });
    return fop;
  } catch (const dnnl::error& e) {
    *why = std::string("oneDNN: ") + e.what();
    return nullptr;
  }
}

}  // namespace svp::kernels::onednn
