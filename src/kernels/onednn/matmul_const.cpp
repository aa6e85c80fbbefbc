// oneDNN matmul with constant, pre-reordered weights, a fused bias and post-ops.
#include "kernels/onednn/matmul_const.h"

#include <cstdlib>

#include "kernels/onednn/runtime.h"

namespace svp::kernels::onednn {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

std::unique_ptr<FastOp> make_matmul_const(std::int64_t M, std::int64_t K, std::int64_t N, const float* b,
                                          const float* bias, const std::vector<PostEltwise>& post, int threads,
                                          std::string* why) {
  if (M <= 0 || K <= 0 || N <= 0) return *why = "empty", nullptr;
  try {
    const dnnl::engine& eng = cpu_engine();
    ThreadScope threads_scope(threads);
    dnnl::memory::desc src_md({M, K}, dt::f32, tag::ab);
    dnnl::memory::desc wei_md({K, N}, dt::f32, tag::any);
    dnnl::memory::desc dst_md({M, N}, dt::f32, tag::ab);
    dnnl::memory::desc bias_md = bias != nullptr ? dnnl::memory::desc({1, N}, dt::f32, tag::ab) : dnnl::memory::desc();
    dnnl::matmul::desc d(src_md, wei_md, bias_md, dst_md);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (!post.empty()) {
      dnnl::post_ops po;
      for (const PostEltwise& e : post) po.append_eltwise(1.f, e.alg, e.alpha, e.beta);
      attr.set_post_ops(po);
    }
    dnnl::matmul::primitive_desc pd(d, attr, eng);
    std::string impl = pd.impl_info_str();
    if (impl.rfind("ref", 0) == 0) return *why = "oneDNN offers only " + impl, nullptr;
    dnnl::memory user_w({{K, N}, dt::f32, tag::ab}, eng, const_cast<float*>(b));
    dnnl::memory wmem = reordered_weights(user_w, pd.weights_desc());
    auto op = std::make_unique<FastOp>(dnnl::matmul(pd), src_md, dst_md, pd.scratchpad_desc());
    op->set_weights(wmem);
    if (bias != nullptr) op->set_bias(copied_memory(bias_md, bias, static_cast<std::size_t>(N) * sizeof(float)));
    op->set_impl(impl);
    op->set_one_thread_twin(threads, [d, attr, eng] { return dnnl::matmul::primitive_desc(d, attr, eng); });
    return op;
  } catch (const dnnl::error& e) {
    *why = std::string("oneDNN: ") + e.what();
    return nullptr;
  }
}

}  // namespace svp::kernels::onednn
