// svp_acl_ext.h: the AI-CPU service loop, the NPU status query and the synthetic
// segmented-task extension (src/runtime/ext.cpp).
#include "acl/svp_acl_ext.h"

#include <optional>
#include <vector>

#include "capi/guard.h"
#include "capi/shim.h"

using svp::capi::with_runtime;
using svp::runtime::CoreStatus;
using svp::runtime::Runtime;
using svp::runtime::SyntheticTaskAttr;

namespace {

std::optional<SyntheticTaskAttr> attr_of(const svp_acl_ext_task_attr* attr) {
  if (attr == nullptr) return std::nullopt;
  return SyntheticTaskAttr{attr->priority,        attr->preempt_enable != 0, attr->preemptible != 0,
                           attr->step_timeout_ms, attr->top_timeout_ms,      attr->aicpu_busy_wait != 0,
                           attr->aicpu_segment_mask};
}

void fill_status(const std::vector<CoreStatus>& cores, svp_acl_status* status) {
  *status = svp_acl_status{};
  status->ip_num = static_cast<uint32_t>(cores.size());
  for (std::size_t i = 0; i < cores.size(); ++i) {
    status->hw_utilization[i] = cores[i].utilization;
    status->tflops_100x[i] = cores[i].tflops_100x;
  }
}

}  // namespace

svp_acl_error svp_acl_ext_launch_segmented_task(svp_acl_ext_segment_fn fn, void* user_data, uint32_t segment_count,
                                                const svp_acl_ext_task_attr* attr, svp_acl_rt_stream stream) {
  return guard(__func__, [&]() -> Status {
    if (fn == nullptr) return Error(err::kInvalidParam, "segment function is NULL");
    if (segment_count == 0) return Error(err::kInvalidParam, "a task needs at least one segment");
    const std::optional<SyntheticTaskAttr> a = attr_of(attr);
    SVP_RETURN_IF_ERROR(Runtime::check_task_attr(a ? &*a : nullptr, segment_count));
    auto run = [fn, user_data](uint32_t segment) -> int32_t { return fn(user_data, segment); };
    return with_runtime(
        [&](Runtime& rt) { return rt.launch_segmented_task(run, segment_count, a ? &*a : nullptr, stream); });
  });
}

svp_acl_error svp_acl_ext_stream_release_at(svp_acl_rt_stream stream, uint64_t board_time_us) {
  return guard(__func__, [&] { return with_runtime([&](Runtime& rt) { return rt.release_at(stream, board_time_us); }); });
}

svp_acl_error svp_acl_ext_process_aicpu_task(int32_t timeout) {
  return guard(__func__, [&] { return with_runtime([&](Runtime& rt) { return rt.process_aicpu_task(timeout); }); });
}

svp_acl_error svp_acl_query_status(svp_acl_status* status) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(svp::capi::require(status != nullptr, "status is NULL"));
    return with_runtime([&](Runtime& rt) -> Status {
      auto cores = rt.core_status(SVP_ACL_MAX_IP_NUM);
      if (!cores.ok()) return cores.status();
      fill_status(*cores, status);
      return Status::Ok();
    });
  });
}
