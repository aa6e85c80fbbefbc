// Softmax fast path (float32): oneDNN's softmax over one axis of a dense row-major
// tensor, seen as [outer, len, inner] so any axis maps onto oneDNN's axis 1. The reference
// sums the exponentials in double; oneDNN in float with its own exp, which differ by
// rounding only (bounded in kernels_fast_path_test).
#include "kernels/onednn/fast_op.h"
#include "kernels/onednn/runtime.h"

namespace svp::kernels::onednn {

std::unique_ptr<FastOp> make_softmax(const std::vector<std::int64_t>& dims, std::int64_t axis, int threads,
                                     std::string* why) {
  const auto rank = static_cast<std::int64_t>(dims.size());
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return *why = "axis out of range", nullptr;
  std::int64_t outer = 1, inner = 1;
  for (std::int64_t i = 0; i < rank; ++i) {
    if (i < axis) outer *= dims[static_cast<std::size_t>(i)];
    if (i > axis) inner *= dims[static_cast<std::size_t>(i)];
  }
  const std::int64_t len = dims[static_cast<std::size_t>(axis)];
  if (outer * len * inner == 0) return *why = "empty", nullptr;
  try {
    const dnnl::engine& eng = cpu_engine();
    ThreadScope threads_scope(threads);
    dnnl::memory::desc md({outer, len, inner}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::abc);
    dnnl::softmax_forward::desc d(dnnl::prop_kind::forward_inference, md, 1);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::softmax_forward::primitive_desc pd(d, attr, eng);
    std::string impl = pd.impl_info_str();
    // oneDNN's reference softmax is no faster than ours.
    if (impl.rfind("ref", 0) == 0) return *why = "oneDNN offers only " + impl, nullptr;
    auto op = std::make_unique<FastOp>(dnnl::softmax_forward(pd), md, md, pd.scratchpad_desc());
    op->set_impl(std::move(impl));
    return op;
  } catch (const dnnl::error& err) {
    *why = std::string("oneDNN: ") + err.what();
    return nullptr;
  }
}

}  // namespace svp::kernels::onednn
