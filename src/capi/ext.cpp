// svp_acl_ext.h: the AI-CPU service loop, the NPU status query and the synthetic
// segmented-task extension.
#include "acl/svp_acl_ext.h"

#include <algorithm>
#include <cmath>

#include "capi/guard.h"

using svp::Error;
using svp::Status;
using svp::capi::guard;
using svp::capi::with_runtime;
using svp::runtime::Runtime;
namespace err = svp::err;
namespace hal = svp::hal;

namespace {

class CallbackTask final : public hal::SegmentedTask {
 public:
  CallbackTask(svp_acl_ext_segment_fn fn, void* data, uint32_t n, uint64_t aicpu_mask)
      : fn_(fn), data_(data), n_(n), aicpu_mask_(aicpu_mask) {}
  std::size_t segment_count() const override { return n_; }
  bool on_aicpu(std::size_t index) const override { return index < 64 && ((aicpu_mask_ >> index) & 1u) != 0; }
  Status run_segment(std::size_t index, hal::SegmentContext&) override {
    const svp_acl_error rc = fn_(data_, static_cast<uint32_t>(index));
    if (rc != SVP_ACL_SUCCESS) return Error(rc, "segment {} of a synthetic task returned {}", index, rc);
    return Status::Ok();
  }

 private:
  svp_acl_ext_segment_fn fn_;
  void* data_;
  uint32_t n_;
  uint64_t aicpu_mask_;
};

Status check_timeout(uint32_t ms, const char* name) {
  if (ms != 0 && (ms < 15 || ms >= 600000)) {
    return Error(err::kInvalidParam, "{} = {} ms is outside 0 (off) or [15, 600000)", name, ms);
  }
  return Status::Ok();
}

}  // namespace

svp_acl_error svp_acl_ext_launch_segmented_task(svp_acl_ext_segment_fn fn, void* user_data, uint32_t segment_count,
                                                const svp_acl_ext_task_attr* attr, svp_acl_rt_stream stream) {
  return guard(__func__, [&]() -> Status {
    if (fn == nullptr) return Error(err::kInvalidParam, "segment function is NULL");
    if (segment_count == 0) return Error(err::kInvalidParam, "a task needs at least one segment");
    hal::TaskSettings s;
    uint64_t aicpu_mask = 0;
    if (attr != nullptr) {
      if (attr->priority < 0 || attr->priority > 7) {
        return Error(err::kInvalidParam, "priority {} is outside 0..7", attr->priority);
      }
      SVP_RETURN_IF_ERROR(check_timeout(attr->step_timeout_ms, "step_timeout_ms"));
      SVP_RETURN_IF_ERROR(check_timeout(attr->top_timeout_ms, "top_timeout_ms"));
      if (attr->step_timeout_ms != 0 && attr->top_timeout_ms != 0) {
        return Error(err::kInvalidParam, "STEP and TOP promotion cannot both be enabled");
      }
      s.priority = attr->priority;
      s.preempt_enable = attr->preempt_enable != 0;
      s.preemptible = attr->preemptible != 0;
      s.step_timeout_ms = attr->step_timeout_ms;
      s.top_timeout_ms = attr->top_timeout_ms;
      s.aicpu_busy_wait = attr->aicpu_busy_wait != 0;
      aicpu_mask = attr->aicpu_segment_mask;
      if (segment_count < 64 && (aicpu_mask >> segment_count) != 0) {
        return Error(err::kInvalidParam, "aicpu_segment_mask {:#x} names segments beyond the task's {}", aicpu_mask,
                     segment_count);
      }
    }
    return with_runtime([&](Runtime& rt) {
      return rt.submit_task(stream, std::make_shared<CallbackTask>(fn, user_data, segment_count, aicpu_mask), s);
    });
  });
}

svp_acl_error svp_acl_ext_process_aicpu_task(int32_t timeout) {
  return guard(__func__, [&] { return with_runtime([&](Runtime& rt) { return rt.process_aicpu_task(timeout); }); });
}

// Utilisation and throughput over the last second of the current context's device: busy
// time (segments running, or a core busy-waiting for an AI-CPU operator) over wall time,
// and the cube MACs completed (2 FLOPs each) per second, in the vendor's TFLOPS x 100.
svp_acl_error svp_acl_query_status(svp_acl_status* status) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(svp::capi::require(status != nullptr, "status is NULL"));
    return with_runtime([&](Runtime& rt) -> Status {
      constexpr svp::hal::Nanos kWindow = 1'000'000'000;
      auto usage = rt.core_usage(kWindow);
      if (!usage.ok()) return usage.status();
      *status = svp_acl_status{};
      const std::size_t n = std::min<std::size_t>(usage->size(), SVP_ACL_MAX_IP_NUM);
      status->ip_num = static_cast<uint32_t>(n);
      for (std::size_t i = 0; i < n; ++i) {
        const auto& s = (*usage)[i];
        if (s.window == 0) continue;
        const double seconds = static_cast<double>(s.window) * 1e-9;
        status->hw_utilization[i] =
            static_cast<uint32_t>(std::lround(100.0 * static_cast<double>(s.busy) / static_cast<double>(s.window)));
        status->tflops_100x[i] = static_cast<uint32_t>(std::lround(2.0 * static_cast<double>(s.macs) / seconds / 1e10));
      }
      return Status::Ok();
    });
  });
}
