// Conv fast path: oneDNN convolution_forward on NHWC activations.
#include <algorithm>
#include <cstring>

#include "kernels/common.h"
#include "kernels/onednn/fast_op.h"
#include "kernels/onednn/int8_conv_avx2.h"
#include "kernels/onednn/quant_params.h"
#include "kernels/onednn/runtime.h"
#include "kernels/reference/spatial.h"

namespace svp::kernels::onednn {

using model::DType;
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

namespace {

dt dnnl_type(DType t) {
  switch (t) {
    case DType::kInt8:
      return dt::s8;
    case DType::kUint8:
      return dt::u8;
    case DType::kInt32:
      return dt::s32;
    default:
      return dt::f32;
  }
}

}  // namespace

std::unique_ptr<FastOp> make_conv(const model::Attrs& attrs, const TensorView& x, const TensorView& w,
                                  const TensorView* bias, const TensorView& y, const Fusion& fusion, int threads,
                                  std::string* why) {
  using namespace detail;
  if (x.dims.size() != 4 || w.dims.size() != 4 || y.dims.size() != 4) return *why = "not 2-D", nullptr;
  const AttrReader a("Conv", attrs);
  Window win;
  if (!spatial_input("Conv", x.dims, win).ok()) return *why = "geometry", nullptr;
  win.k[1] = w.dims[2];
  win.k[2] = w.dims[3];
  auto group_r = a.i("group", 1);
  auto ap = read_auto_pad(a);
  if (!group_r.ok() || !ap.ok() || !read_window_attrs(a, win, ap.value()).ok() ||
      !forward_window("Conv", win, ap.value(), false, false).ok())
    return *why = "attributes", nullptr;
  const std::int64_t g = group_r.value();
  const std::int64_t N = x.dims[0], C = x.dims[1], M = w.dims[0];
  if (g < 1 || C % g != 0 || M % g != 0 || w.dims[1] != C / g) return *why = "channels", nullptr;
  if (y.dims != std::vector<std::int64_t>{N, M, win.out[1], win.out[2]}) return *why = "output shape", nullptr;

  const bool fp32 = x.dtype == DType::kFloat32 && w.dtype == DType::kFloat32 && y.dtype == DType::kFloat32 &&
                    (bias == nullptr || bias->dtype == DType::kFloat32);
  IntParams ip;
  const std::int64_t kred = (C / g) * w.dims[2] * w.dims[3];
  if (!fp32) {
    if (!int_params(x, w, 0, M, kred, kred, 1, bias, y, &ip, why)) return nullptr;
    // A fused sum would add the raw integers of dst; the reference requantizes the Add.
    if (fusion.sum) return *why = "sum fusion on the integer path", nullptr;
    if (!exact_int8_isa()) {
      if (!int8_avx2_available()) return *why = "no VNNI nor AVX2: no exact int8 fast path", nullptr;
      const bool relu = fusion.eltwise.size() == 1 && fusion.eltwise[0].alg == dnnl::algorithm::eltwise_relu &&
                        fusion.eltwise[0].alpha == 0.f;
      if (!fusion.eltwise.empty() && !relu) return *why = "avx2_int8 folds a Relu only", nullptr;
      Int8ConvShape s;
      s.n = N;
      s.c = C;
      s.h = x.dims[2];
      s.w = x.dims[3];
      s.m = M;
      s.oh = y.dims[2];
      s.ow = y.dims[3];
      s.kh = w.dims[2];
      s.kw = w.dims[3];
      s.sh = win.s[1];
      s.sw = win.s[2];
      s.dh = win.d[1];
      s.dw = win.d[2];
      s.pt = win.pb[1];
      s.pl = win.pb[2];
      s.groups = g;
      const Int8Weights wv{static_cast<const std::int8_t*>(w.data), kred, w.dims[2] * w.dims[3], w.dims[3], 1};
      return make_int8_conv_avx2(s, wv, ip, x.dtype, y.dtype, relu, threads);
    }
  }

  try {
    const dnnl::engine& eng = cpu_engine();
    ThreadScope threads_scope(threads);
    dnnl::memory::dims wdims = g > 1 ? dnnl::memory::dims{g, M / g, C / g, w.dims[2], w.dims[3]}
                                     : dnnl::memory::dims{M, C, w.dims[2], w.dims[3]};
    const dt xdt = dnnl_type(x.dtype), wdt = dnnl_type(w.dtype), ydt = dnnl_type(y.dtype);
    const dt bdt = fp32 ? dt::f32 : dt::s32;
    dnnl::memory::desc src_md({N, C, x.dims[2], x.dims[3]}, xdt, tag::nhwc);
    dnnl::memory::desc wei_md(wdims, wdt, tag::any);
    dnnl::memory::desc dst_md({N, M, y.dims[2], y.dims[3]}, ydt, tag::nhwc);
    const bool has_bias = bias != nullptr;
    dnnl::memory::desc bias_md = has_bias ? dnnl::memory::desc({M}, bdt, tag::a) : dnnl::memory::desc();
    // ONNX dilation 1 = dense; oneDNN counts the gaps (0 = dense).
    dnnl::memory::dims strides{win.s[1], win.s[2]}, dil{win.d[1] - 1, win.d[2] - 1}, pl{win.pb[1], win.pb[2]},
        pr{win.pe[1], win.pe[2]};
    dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_md,
                                      wei_md, bias_md, dst_md, strides, dil, pl, pr);
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
    dnnl::post_ops po;
    if (fusion.sum) po.append_sum(1.f);
    for (const PostEltwise& e : fusion.eltwise) po.append_eltwise(1.f, e.alg, e.alpha, e.beta);
    attr.set_post_ops(po);
    dnnl::convolution_forward::primitive_desc pd(d, attr, eng);
    std::string impl = pd.impl_info_str();
    // The reference implementations are slower than our own kernels and their int8
    // arithmetic is not the one the integer rule was matched against.
    if (impl.rfind("ref", 0) == 0) return *why = "oneDNN offers only " + impl, nullptr;

    dnnl::memory user_w({wdims, wdt, g > 1 ? tag::goihw : tag::oihw}, eng, const_cast<void*>(w.data));
    dnnl::memory wmem = reordered_weights(user_w, pd.weights_desc());

    auto op = std::make_unique<FastOp>(dnnl::convolution_forward(pd), src_md, dst_md, pd.scratchpad_desc());
    op->set_weights(wmem);
    if (has_bias) {
      const auto n = static_cast<std::size_t>(M);
      op->set_bias(fp32 ? copied_memory(bias_md, bias->data, n * sizeof(float))
                        : copied_memory(bias_md, ip.bias.data(), n * sizeof(std::int32_t)));
    }
    op->set_impl(impl);
    op->set_one_thread_twin(threads,
                            [d, attr, eng] { return dnnl::convolution_forward::primitive_desc(d, attr, eng); });
    return op;
  } catch (const dnnl::error& e) {
    *why = std::string("oneDNN: ") + e.what();
    return nullptr;
  }
}

}  // namespace svp::kernels::onednn
