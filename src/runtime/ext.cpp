// svp_acl_ext.h services of the runtime: the synthetic segmented-task extension and the
// NPU status query.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <utility>

#include "runtime/runtime.h"

namespace svp::runtime {
namespace {

class CallbackTask final : public hal::SegmentedTask {
 public:
  CallbackTask(SegmentFn fn, std::uint32_t n, std::uint64_t aicpu_mask)
      : fn_(std::move(fn)), n_(n), aicpu_mask_(aicpu_mask) {}
  std::size_t segment_count() const override { return n_; }
  bool on_aicpu(std::size_t index) const override { return index < 64 && ((aicpu_mask_ >> index) & 1u) != 0; }
  Status run_segment(std::size_t index, hal::SegmentContext&) override {
    const std::int32_t rc = fn_(static_cast<std::uint32_t>(index));
    if (rc != 0) return Error(rc, "segment {} of a synthetic task returned {}", index, rc);
    return Status::Ok();
  }

 private:
  SegmentFn fn_;
  std::uint32_t n_;
  std::uint64_t aicpu_mask_;
};

Status check_timeout(std::uint32_t ms, const char* name) {
  if (ms != 0 && (ms < 15 || ms >= 600000)) {
    return Error(err::kInvalidParam, "{} = {} ms is outside 0 (off) or [15, 600000)", name, ms);
  }
  return Status::Ok();
}

}  // namespace

Status Runtime::check_task_attr(const SyntheticTaskAttr* attr, std::uint32_t segments) {
  if (attr == nullptr) return Status::Ok();
  if (attr->priority < 0 || attr->priority > 7) {
    return Error(err::kInvalidParam, "priority {} is outside 0..7", attr->priority);
  }
  SVP_RETURN_IF_ERROR(check_timeout(attr->step_timeout_ms, "step_timeout_ms"));
  SVP_RETURN_IF_ERROR(check_timeout(attr->top_timeout_ms, "top_timeout_ms"));
  if (attr->step_timeout_ms != 0 && attr->top_timeout_ms != 0) {
    return Error(err::kInvalidParam, "STEP and TOP promotion cannot both be enabled");
  }
  const std::uint64_t mask = attr->aicpu_segment_mask;
  if (segments < 64 && (mask >> segments) != 0) {
    return Error(err::kInvalidParam, "aicpu_segment_mask {:#x} names segments beyond the task's {}", mask, segments);
  }
  return Status::Ok();
}

Status Runtime::launch_segmented_task(SegmentFn fn, std::uint32_t segments, const SyntheticTaskAttr* attr,
                                      void* stream) {
  hal::TaskSettings s;
  std::uint64_t aicpu_mask = 0;
  if (attr != nullptr) {
    s.priority = attr->priority;
    s.preempt_enable = attr->preempt_enable;
    s.preemptible = attr->preemptible;
    s.step_timeout_ms = attr->step_timeout_ms;
    s.top_timeout_ms = attr->top_timeout_ms;
    s.aicpu_busy_wait = attr->aicpu_busy_wait;
    aicpu_mask = attr->aicpu_segment_mask;
  }
  return submit_task(stream, std::make_shared<CallbackTask>(std::move(fn), segments, aicpu_mask), s);
}

// Utilisation and throughput over the last second of the current context's device: busy
// time (segments running, or a core busy-waiting for an AI-CPU operator) over wall time
// (on the board clock: busy board time over elapsed board time, docs/scheduling.md),
// and the cube MACs completed (2 FLOPs each) per second, in the vendor's TFLOPS x 100.
Result<std::vector<CoreStatus>> Runtime::core_status(std::size_t max_cores) {
  constexpr hal::Nanos kWindow = 1'000'000'000;
  auto usage = core_usage(kWindow);
  if (!usage.ok()) return usage.status();
  std::vector<CoreStatus> out(std::min<std::size_t>(usage->size(), max_cores));
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto& s = (*usage)[i];
    if (s.window == 0) continue;
    const double seconds = static_cast<double>(s.window) * 1e-9;
    out[i].utilization =
        static_cast<std::uint32_t>(std::lround(100.0 * static_cast<double>(s.busy) / static_cast<double>(s.window)));
    out[i].tflops_100x = static_cast<std::uint32_t>(std::lround(2.0 * static_cast<double>(s.macs) / seconds / 1e10));
  }
  return out;
}

Status Runtime::release_at(void* stream, std::uint64_t board_us) {
  if (!config_.backend.board_clock) {
    return Error(err::kFeatureUnsupported,
                 "svp_acl_ext_stream_release_at needs the board clock: set \"softnpu\": {{\"clock\": \"board\"}} in "
                 "acl.json (with the host clock there is no board time to wait for)");
  }
  if (board_us > std::numeric_limits<std::uint64_t>::max() / 1000) {
    return Error(err::kInvalidParam, "board time {} us is too large (it must fit in 64-bit nanoseconds)", board_us);
  }
  auto s = resolve_stream(stream);
  if (!s.ok()) return s.status();
  return backend_->device((*s)->device).submit((*s)->sq, hal::Entry::Release(board_us * 1000));
}

}  // namespace svp::runtime
