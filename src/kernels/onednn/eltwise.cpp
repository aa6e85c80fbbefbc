// Elementwise fast path (float32): ONNX activations that have a oneDNN algorithm with the
// same definition (results differ only by float rounding, see docs/kernels.md).
#include "kernels/common.h"
#include "kernels/onednn/fast_op.h"
#include "kernels/onednn/runtime.h"

namespace svp::kernels::onednn {

bool eltwise_of(const std::string& op, const model::Attrs& attrs, float clip_min, float clip_max, PostEltwise* out) {
  const detail::AttrReader r(op.c_str(), attrs);
  if (op == "Relu") {
    *out = {dnnl::algorithm::eltwise_relu, 0.f, 0.f};
  } else if (op == "LeakyRelu") {
    auto alpha = r.f("alpha", 0.01);
    if (!alpha.ok()) return false;
    *out = {dnnl::algorithm::eltwise_relu, static_cast<float>(alpha.value()), 0.f};
  } else if (op == "Sigmoid") {
    *out = {dnnl::algorithm::eltwise_logistic, 0.f, 0.f};
  } else if (op == "Tanh") {
    *out = {dnnl::algorithm::eltwise_tanh, 0.f, 0.f};
  } else if (op == "HardSwish") {
    *out = {dnnl::algorithm::eltwise_hardswish, 0.f, 0.f};
  } else if (op == "Clip") {
    // ONNX gives max when min > max; oneDNN's clip is only defined for min <= max.
    if (!(clip_min <= clip_max)) return false;
    *out = {dnnl::algorithm::eltwise_clip_v2, clip_min, clip_max};
  } else {
    return false;
  }
  return true;
}

std::unique_ptr<FastOp> make_eltwise(const PostEltwise& e, std::int64_t elements, int threads, std::string* why) {
  try {
    const dnnl::engine& eng = cpu_engine();
    ThreadScope threads_scope(threads);
    dnnl::memory::desc md({elements}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
    dnnl::eltwise_forward::desc d(dnnl::prop_kind::forward_inference, e.alg, md, e.alpha, e.beta);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::eltwise_forward::primitive_desc pd(d, attr, eng);
    auto op = std::make_unique<FastOp>(dnnl::eltwise_forward(pd), md, md, pd.scratchpad_desc());
    op->set_impl(pd.impl_info_str());
    return op;
  } catch (const dnnl::error& err) {
    *why = std::string("oneDNN: ") + err.what();
    return nullptr;
  }
}

std::unique_ptr<FastOp> make_layout_reorder(const std::vector<std::int64_t>& d, model::DType dtype, bool to_nhwc,
                                            int threads, std::string* why) {
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  if (d.size() != 4) return *why = "not 4-D", nullptr;
  dt t;
  switch (dtype) {
    case model::DType::kFloat32:
      t = dt::f32;
      break;
    case model::DType::kInt8:
      t = dt::s8;
      break;
    case model::DType::kUint8:
      t = dt::u8;
      break;
    default:
      return *why = "type", nullptr;
  }
  try {
    const dnnl::engine& eng = cpu_engine();
    ThreadScope threads_scope(threads);
    const dnnl::memory::dims dims(d.begin(), d.end());
    dnnl::memory::desc nchw(dims, t, tag::nchw), nhwc(dims, t, tag::nhwc);
    const dnnl::memory::desc& src = to_nhwc ? nchw : nhwc;
    const dnnl::memory::desc& dst = to_nhwc ? nhwc : nchw;
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::reorder::primitive_desc pd(eng, src, eng, dst, attr);
    auto op = std::make_unique<FastOp>(dnnl::reorder(pd), src, dst, pd.scratchpad_desc());
    op->set_impl(pd.impl_info_str());
    op->set_one_thread_twin(
        threads, [src = src, dst = dst, attr, eng] { return dnnl::reorder::primitive_desc(eng, src, eng, dst, attr); });
    return op;
  } catch (const dnnl::error& err) {
    *why = std::string("oneDNN: ") + err.what();
    return nullptr;
  }
}

}  // namespace svp::kernels::onednn
