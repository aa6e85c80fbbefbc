// Pooling fast path: oneDNN pooling_v2_forward (dilations) on NHWC activations.
#include "kernels/common.h"
#include "kernels/onednn/fast_op.h"
#include "kernels/onednn/runtime.h"
#include "kernels/reference/spatial.h"

namespace svp::kernels::onednn {

using model::DType;
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

std::unique_ptr<FastOp> make_pool(const std::string& op, const model::Attrs& attrs, const TensorView& x,
                                  const TensorView& y, int threads, std::string* why) {
  using namespace detail;
  if (x.dims.size() != 4 || y.dims.size() != 4) return *why = "not 2-D", nullptr;
  const bool max = op == "MaxPool";
  if (x.dtype != y.dtype) return *why = "types differ", nullptr;
  if (x.dtype != DType::kFloat32) {
    // MaxPool on integers is exact (a max of the stored values) when the encodings
    // agree; the reference averages int8 in float via dequantization, which oneDNN's
    // integer averaging does not reproduce bit for bit.
    if (!max || !(x.dtype == DType::kInt8 || x.dtype == DType::kUint8)) return *why = "integer average", nullptr;
    if (x.quant == nullptr || y.quant == nullptr || !same_encoding(x, y)) return *why = "encodings differ", nullptr;
  }
  const AttrReader a(op.c_str(), attrs);
  Window win;
  if (!spatial_input(op.c_str(), x.dims, win).ok()) return *why = "geometry", nullptr;
  dnnl::algorithm alg = dnnl::algorithm::pooling_max;
  if (op == "GlobalAveragePool") {
    win.k[1] = x.dims[2];
    win.k[2] = x.dims[3];
    win.out[1] = win.out[2] = 1;
    alg = dnnl::algorithm::pooling_avg_exclude_padding;
  } else {
    auto ks = a.ints("kernel_shape", {});
    auto ap = read_auto_pad(a);
    auto ceil_mode = a.flag("ceil_mode", false);
    if (!ks.ok() || ks.value().size() != 2 || !ap.ok() || !ceil_mode.ok()) return *why = "attributes", nullptr;
    win.k[1] = ks.value()[0];
    win.k[2] = ks.value()[1];
    if (!read_window_attrs(a, win, ap.value()).ok() ||
        !forward_window(op.c_str(), win, ap.value(), ceil_mode.value(), true).ok())
      return *why = "attributes", nullptr;
    if (!max) {
      auto inc = a.flag("count_include_pad", false);
      if (!inc.ok()) return *why = "attributes", nullptr;
      alg = inc.value() ? dnnl::algorithm::pooling_avg_include_padding : dnnl::algorithm::pooling_avg_exclude_padding;
    }
  }
  if (y.dims != std::vector<std::int64_t>{x.dims[0], x.dims[1], win.out[1], win.out[2]})
    return *why = "output shape", nullptr;
  dnnl::memory::dims pr{0, 0};
  for (int i = 0; i < 2; ++i) {
    // ceil_mode can make the last window overhang the end padding; oneDNN needs that
    // overhang as padding. Max ignores padding either way; an average that counts
    // padding would count the overhang, which the reference never does.
    const std::int64_t need =
        (win.out[1 + i] - 1) * win.s[1 + i] + (win.k[1 + i] - 1) * win.d[1 + i] + 1 - win.in[1 + i] - win.pb[1 + i];
    pr[static_cast<std::size_t>(i)] = std::max(need, win.pe[1 + i]);
    if (need > win.pe[1 + i] && alg == dnnl::algorithm::pooling_avg_include_padding)
      return *why = "ceil-mode overhang counted as padding", nullptr;
  }
  try {
    const dnnl::engine& eng = cpu_engine();
    ThreadScope threads_scope(threads);
    const dt t = x.dtype == DType::kFloat32 ? dt::f32 : (x.dtype == DType::kInt8 ? dt::s8 : dt::u8);
    dnnl::memory::desc src_md({x.dims[0], x.dims[1], x.dims[2], x.dims[3]}, t, tag::nhwc);
    dnnl::memory::desc dst_md({y.dims[0], y.dims[1], y.dims[2], y.dims[3]}, t, tag::nhwc);
    dnnl::pooling_v2_forward::desc d(dnnl::prop_kind::forward_inference, alg, src_md, dst_md, {win.s[1], win.s[2]},
                                     {win.k[1], win.k[2]}, {win.d[1] - 1, win.d[2] - 1}, {win.pb[1], win.pb[2]}, pr);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::pooling_v2_forward::primitive_desc pd(d, attr, eng);
    std::string impl = pd.impl_info_str();
    if (impl.rfind("ref", 0) == 0) return *why = "oneDNN offers only " + impl, nullptr;
    auto fop = std::make_unique<FastOp>(dnnl::pooling_v2_forward(pd), src_md, dst_md, pd.scratchpad_desc());
    fop->set_impl(impl);
    return fop;
  } catch (const dnnl::error& e) {
    *why = std::string("oneDNN: ") + e.what();
    return nullptr;
  }
}

}  // namespace svp::kernels::onednn
