// Model execution: what svp_acl_mdl_execute / svp_acl_mdl_execute_async and the dynamic
// shape setters ask of the runtime.
//
// An execution is one exec::ModelExecution (which checks the datasets against the model)
// submitted to a stream as an NPU task with the model's scheduling attributes. The
// synchronous call uses the calling thread's default stream, runs AI-CPU layers inline and
// waits; the asynchronous one returns once the task is queued.
#include <string>
#include <utility>

#include <fmt/format.h>

#include "common/log.h"
#include "exec/execution.h"
#include "profiling/profiler.h"
#include "runtime/runtime.h"

namespace svp::runtime {
namespace {

// The HAL task attributes of an execution of `loaded`: its scheduling attributes (priority,
// preemption, promotion), the model's compiled flags and the execution's trace decision.
hal::TaskSettings task_settings(const LoadedModel& loaded, const exec::ModelExecution& task) {
  hal::TaskSettings settings;
  const model::Scheduling& s = loaded.scheduling;
  settings.priority = s.priority;
  settings.preempt_enable = s.preempt_enable;
  settings.step_timeout_ms = s.step_timeout_ms;
  settings.top_timeout_ms = s.top_timeout_ms;
  settings.preemptible = loaded.model->program.flags.preemptible;
  settings.aicpu_busy_wait = loaded.model->program.flags.aicpu_busy_wait;
  settings.traced = task.trace().tasks;
  settings.trace_tag = task.trace().tag();
  return settings;
}

}  // namespace

Status Runtime::check_work_buf(void* stream, std::uint32_t model_id, const model::Model& m, const IoBuffer& work_buf) {
  auto s = resolve_stream(stream);
  if (!s.ok()) return s.status();
  exec::WorkBufTracker::Use use;
  use.stream = (*s)->serial;
  use.model_id = model_id;
  // The execution can interleave with another one on its work_buf: it can be preempted, it
  // waits for AI-CPU layers without holding the core, or another core runs meanwhile.
  use.exposed = m.program.flags.preemptible || (m.aicpu_layers > 0 && !m.program.flags.aicpu_busy_wait) ||
                config_.backend.cores > 1;
  const std::string conflict = work_bufs_.record(work_buf.data, use);
  if (conflict.empty()) return Status::Ok();
  if (config_.strict) return Status(err::kInvalidParam, conflict + " (strict mode)");
  SVP_LOG_WARN("{}", conflict);
  return Status::Ok();
}

Status Runtime::execute(const LoadedModel& loaded, std::uint32_t model_id, ExecuteArgs args, void* stream,
                        bool sync) {
  const bool aicpu_inline = sync || args.aicpu_inline;
  exec::Request r;
  r.model = loaded.model;
  r.model_id = model_id;
  r.inputs = std::move(args.inputs);
  r.outputs = std::move(args.outputs);
  r.batch = args.batch;
  r.total_t = args.total_t;
  r.gear = args.gear.has_value() ? *args.gear : loaded.settings->gear();
  r.trace = profiling::Profiler::begin_execution(model_id);
  if (args.layer_ns) {
    args.layer_ns->assign(loaded.model->program_at(r.gear).layers.size(), 0);
    r.layer_ns = std::move(args.layer_ns);
  }
  if (args.board_time) {
    *args.board_time = exec::BoardRunTime{};
    args.board_time->layer_ns.assign(loaded.model->program_at(r.gear).layers.size(), 0);
    r.board_time = std::move(args.board_time);
  }
  r.custom_ops = std::move(args.custom_ops);
  auto task = exec::ModelExecution::create(std::move(r));
  if (!task.ok()) return task.status();
  // Freeing a buffer of a queued or running execution is refused until it is done (the NPU
  // thread wrote freed memory: found by the bad-input probe); so is destroying the
  // front-end's descriptors (args.pins).
  std::vector<std::shared_ptr<void>> pins = std::move(args.pins);
  for (const exec::IoBuffer* b : (*task)->buffers()) {
    if (auto pin = backend_->memory().pin(b->data)) pins.push_back(std::move(pin));
  }
  (*task)->hold(std::move(pins));
  hal::TaskSettings settings = task_settings(loaded, **task);
  if (aicpu_inline) settings.aicpu_inline = true;  // "AI-CPU operators are handled internally"
  settings.core_mask = args.core_mask;
  settings.core_split = args.core_split;
  SVP_RETURN_IF_ERROR(check_work_buf(stream, model_id, (*task)->model(), (*task)->work_buf()));
  SVP_RETURN_IF_ERROR(submit_task(stream, *task, settings));
  return sync ? synchronize_stream(stream) : Status::Ok();
}

Status Runtime::check_batch_size(const model::Model& model, std::size_t index, std::uint64_t batch_size) {
  if (index != model.inputs.size()) {
    return Error(err::kInvalidParam,
                 "index {} is not the dynamic tensor's index {} (svp_acl_mdl_get_input_index_by_name with "
                 "SVP_ACL_DYNAMIC_TENSOR_NAME)",
                 index, model.inputs.size());
  }
  const auto& compiled = model.program.flags.dynamic_batch;
  const std::uint64_t limit = compiled.empty() ? model::kMaxBatchSize : compiled.back();
  if (batch_size == 0 || batch_size > limit) {
    return Error(err::kInvalidParam, "batch size {} is outside 1..{}{}", batch_size, limit,
                 compiled.empty() ? "" : " (the model's compiled maximum)");
  }
  return Status::Ok();
}

Status Runtime::check_total_t(const model::Model& model, std::uint32_t model_id, std::uint64_t total_t) {
  const std::uint64_t max_t = model.program.flags.max_total_t;
  if (max_t == 0) {
    return Error(err::kInvalidParam,
                 "model {} is not a recurrent net (it has no LSTM/GRU/RNN layer); total_t applies only to "
                 "recurrent nets",
                 model_id);
  }
  if (total_t == 0 || total_t > max_t) {
    return Error(err::kInvalidParam, "total_t {} is outside 1..{} (the model's compiled time steps)", total_t,
                 max_t);
  }
  return Status::Ok();
}

Status Runtime::select_resolution(const LoadedModel& loaded, std::uint32_t model_id, std::size_t index,
                                  std::uint64_t height, std::uint64_t width) {
  const model::Model& model = *loaded.model;
  if (index != model.inputs.size()) {
    return Error(err::kInvalidParam, "index {} is not the dynamic tensor's index {}", index, model.inputs.size());
  }
  if (model.program.flags.dynamic_hw.empty()) {
    return Error(err::kInvalidParam, "model {} has no resolution gears (it was not compiled with dynamic HW)",
                 model_id);
  }
  const std::int32_t gear = model.find_gear(height, width);
  if (gear >= 0) {
    loaded.settings->select_gear(gear);
    return Status::Ok();
  }
  std::string gears;
  for (const auto& g : model.gears) gears += fmt::format("{}{}x{}", gears.empty() ? "" : ", ", g->h, g->w);
  return Error(err::kInvalidParam, "{}x{} is not one of model {}'s resolution gears ({})", height, width, model_id,
               gears);
}

}  // namespace svp::runtime
