#include "kernels/onednn/fast_op.h"

#include <unordered_map>

#include "kernels/onednn/runtime.h"

namespace svp::kernels::onednn {

FastOp::FastOp(dnnl::primitive prim, dnnl::memory::desc src, dnnl::memory::desc dst, dnnl::memory::desc scratchpad)
    : prim_(std::move(prim)),
      src_md_(std::move(src)),
      dst_md_(std::move(dst)),
      scratch_md_(std::move(scratchpad)),
      scratch_bytes_(scratch_md_.get_size()) {}

FastOp::~FastOp() = default;

void FastOp::run(const void* src, void* dst, void* scratch) const {
  const dnnl::engine& eng = cpu_engine();
  // Memory objects only wrap the caller's pointers; creating them per call keeps the
  // FastOp free of per-execution state (a few hundred ns each).
  std::unordered_map<int, dnnl::memory> args;
  args.emplace(DNNL_ARG_SRC, dnnl::memory(src_md_, eng, const_cast<void*>(src)));
  args.emplace(DNNL_ARG_DST, dnnl::memory(dst_md_, eng, dst));
  if (weights_) args.emplace(DNNL_ARG_WEIGHTS, weights_);
  if (bias_) args.emplace(DNNL_ARG_BIAS, bias_);
  if (scratch_bytes_ > 0) args.emplace(DNNL_ARG_SCRATCHPAD, dnnl::memory(scratch_md_, eng, scratch));
  dnnl::stream& s = thread_stream();
  prim_.execute(s, args);
  s.wait();
}

}  // namespace svp::kernels::onednn
