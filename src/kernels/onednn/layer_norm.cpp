// LayerNormalization fast path (float32): oneDNN's layer normalisation over the
// trailing `inner` values of each of `outer` rows — any ONNX axis, since the normalised
// dims are the trailing ones and dense. The reference accumulates mean and variance in
// double, oneDNN in float: rounding differences only (bounded in kernels_fast_path_test).
#include <algorithm>

#include "kernels/onednn/fast_op.h"
#include "kernels/onednn/runtime.h"

namespace svp::kernels::onednn {

std::unique_ptr<FastOp> make_layer_norm(std::int64_t outer, std::int64_t inner, float epsilon, const float* scale,
                                        const float* bias, int threads, std::string* why) {
  if (outer <= 0 || inner <= 0) return *why = "empty", nullptr;
  try {
    const dnnl::engine& eng = cpu_engine();
    ThreadScope threads_scope(threads);
    dnnl::memory::desc md({outer, inner}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::ab);
    dnnl::layer_normalization_forward::desc d(dnnl::prop_kind::forward_inference, md, epsilon,
                                              dnnl::normalization_flags::use_scale_shift);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::layer_normalization_forward::primitive_desc pd(d, attr, eng);
    std::string impl = pd.impl_info_str();
    if (impl.rfind("ref", 0) == 0) return *why = "oneDNN offers only " + impl, nullptr;
    // Scale in row 0, shift in row 1 (oneDNN's scale_shift layout); absent ones are 1 and 0.
    dnnl::memory ss(pd.weights_desc(), eng);
    auto* w = static_cast<float*>(ss.get_data_handle());
    for (std::int64_t i = 0; i < inner; ++i) {
      w[i] = scale != nullptr ? scale[i] : 1.0f;
      w[inner + i] = bias != nullptr ? bias[i] : 0.0f;
    }
    auto op = std::make_unique<FastOp>(dnnl::layer_normalization_forward(pd), md, md, pd.scratchpad_desc());
    op->set_weights(std::move(ss));  // DNNL_ARG_SCALE_SHIFT is DNNL_ARG_WEIGHTS
    op->set_impl(std::move(impl));
    return op;
  } catch (const dnnl::error& err) {
    *why = std::string("oneDNN: ") + err.what();
    return nullptr;
  }
}

}  // namespace svp::kernels::onednn
