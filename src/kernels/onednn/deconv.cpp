// ConvTranspose fast path: oneDNN deconvolution_forward on NHWC activations, float32.
// Explicit pads only (auto_pad NOTSET) and no output_shape attribute: the other forms,
// and the integer path, stay on the reference kernel.
#include <cstring>
#include <vector>

#include "kernels/common.h"
#include "kernels/onednn/fast_op.h"
#include "kernels/onednn/runtime.h"

namespace svp::kernels::onednn {

std::unique_ptr<FastOp> make_deconv(const model::Attrs& attrs, const TensorView& x, const TensorView& w,
                                    const TensorView* bias, const TensorView& y, const Fusion& fusion, int threads,
                                    std::string* why) {
  using model::DType;
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  if (x.dims.size() != 4 || w.dims.size() != 4 || y.dims.size() != 4) return *why = "not 2-D", nullptr;
  if (x.dtype != DType::kFloat32 || w.dtype != DType::kFloat32 || y.dtype != DType::kFloat32 ||
      (bias != nullptr && bias->dtype != DType::kFloat32))
    return *why = "not float32", nullptr;
  if (fusion.sum) return *why = "no sum fusion", nullptr;
  // The bias is added after the primitive (below), so after any post-op: wrong order.
  if (bias != nullptr && !fusion.eltwise.empty()) return *why = "eltwise fusion with a bias", nullptr;
  const detail::AttrReader a("ConvTranspose", attrs);
  auto group = a.i("group", 1);
  auto auto_pad = a.s("auto_pad", "NOTSET");
  auto strides = a.ints("strides", {1, 1});
  auto dilations = a.ints("dilations", {1, 1});
  auto pads = a.ints("pads", {0, 0, 0, 0});
  auto out_pad = a.ints("output_padding", {0, 0});
  if (!group.ok() || !auto_pad.ok() || !strides.ok() || !dilations.ok() || !pads.ok() || !out_pad.ok())
    return *why = "attributes", nullptr;
  if (auto_pad.value() != "NOTSET" || attrs.has("output_shape")) return *why = "auto_pad or output_shape", nullptr;
  const auto &s = strides.value(), &d = dilations.value(), &p = pads.value(), &op = out_pad.value();
  if (s.size() != 2 || d.size() != 2 || p.size() != 4 || op.size() != 2) return *why = "attribute sizes", nullptr;
  const std::int64_t g = group.value(), N = x.dims[0], C = x.dims[1], M = w.dims[1] * g;
  if (g < 1 || C % g != 0 || w.dims[0] != C) return *why = "channels", nullptr;
  // ONNX: out = s·(in − 1) + output_padding + (k − 1)·d + 1 − pad_begin − pad_end; oneDNN
  // has no output_padding, so it shrinks the end padding.
  std::int64_t out[2], pr[2];
  for (int k = 0; k < 2; ++k) {
    pr[k] = p[static_cast<std::size_t>(k + 2)] - op[static_cast<std::size_t>(k)];
    if (s[static_cast<std::size_t>(k)] < 1 || d[static_cast<std::size_t>(k)] < 1 || pr[k] < 0 ||
        p[static_cast<std::size_t>(k)] < 0)
      return *why = "padding", nullptr;
    out[k] = s[static_cast<std::size_t>(k)] * (x.dims[static_cast<std::size_t>(k + 2)] - 1) +
             op[static_cast<std::size_t>(k)] + (w.dims[static_cast<std::size_t>(k + 2)] - 1) * d[static_cast<std::size_t>(k)] +
             1 - p[static_cast<std::size_t>(k)] - p[static_cast<std::size_t>(k + 2)];
  }
  if (y.dims != std::vector<std::int64_t>{N, M, out[0], out[1]}) return *why = "output shape", nullptr;

  try {
    const dnnl::engine& eng = cpu_engine();
    ThreadScope threads_scope(threads);
    // ONNX stores the weights as [C, M/g, kH, kW]: oneDNN's iohw (per group giohw).
    const dnnl::memory::dims wdims = g > 1 ? dnnl::memory::dims{g, M / g, C / g, w.dims[2], w.dims[3]}
                                           : dnnl::memory::dims{M, C, w.dims[2], w.dims[3]};
    dnnl::memory::desc src_md({N, C, x.dims[2], x.dims[3]}, dt::f32, tag::nhwc);
    dnnl::memory::desc wei_md(wdims, dt::f32, tag::any);
    dnnl::memory::desc dst_md({N, M, out[0], out[1]}, dt::f32, tag::nhwc);
    // No bias for oneDNN: FastOp adds it (set_channel_bias says why).
    dnnl::deconvolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::deconvolution_direct,
                                           src_md, wei_md, dst_md, {s[0], s[1]}, {d[0] - 1, d[1] - 1},
                                           {p[0], p[1]}, {pr[0], pr[1]});
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::post_ops po;
    for (const PostEltwise& e : fusion.eltwise) po.append_eltwise(1.f, e.alg, e.alpha, e.beta);
    attr.set_post_ops(po);
    dnnl::deconvolution_forward::primitive_desc pd(desc, attr, eng);
    std::string impl = pd.impl_info_str();
    if (impl.rfind("ref", 0) == 0) return *why = "oneDNN offers only " + impl, nullptr;

    dnnl::memory user_w({wdims, dt::f32, g > 1 ? tag::giohw : tag::iohw}, eng, const_cast<void*>(w.data));
    dnnl::memory wmem = reordered_weights(user_w, pd.weights_desc());
    auto fast = std::make_unique<FastOp>(dnnl::deconvolution_forward(pd), src_md, dst_md, pd.scratchpad_desc());
    fast->set_weights(wmem);
    if (bias) {
      std::vector<float> b(static_cast<std::size_t>(M));
      std::memcpy(b.data(), bias->data, b.size() * sizeof(float));
      fast->set_channel_bias(std::move(b));
    }
    fast->set_impl(impl);
    fast->set_one_thread_twin(
        threads, [desc, attr, eng] { return dnnl::deconvolution_forward::primitive_desc(desc, attr, eng); });
    return fast;
  } catch (const dnnl::error& e) {
    *why = std::string("oneDNN: ") + e.what();
    return nullptr;
  }
}

}  // namespace svp::kernels::onednn
