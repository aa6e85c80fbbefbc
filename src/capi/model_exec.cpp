// svp_acl_mdl.h execution: svp_acl_mdl_execute, svp_acl_mdl_execute_async and the dynamic
// shape setters that configure an execution's dataset.
//
// Both execute calls build one exec::ModelExecution (which checks the datasets against the
// model) and submit it to a stream as an NPU task with the model's scheduling attributes.
// The synchronous call uses the calling thread's default stream, runs AI-CPU layers inline
// and waits; the asynchronous one returns once the task is queued.
#include <vector>

#include "acl/svp_acl_mdl.h"
#include "capi/guard.h"
#include "capi/objects.h"
#include "common/log.h"
#include "exec/execution.h"
#include "profiling/profiler.h"
#include "runtime/runtime.h"

using svp::Error;
using svp::Result;
using svp::Status;
using svp::capi::guard;
using svp::capi::with_runtime;
using svp::runtime::Runtime;
namespace err = svp::err;
namespace exec = svp::exec;

namespace {

Result<std::vector<exec::IoBuffer>> buffers_of(const svp_acl_mdl_dataset* d, const char* side) {
  if (d == nullptr) return Error(err::kInvalidParam, "the {} dataset is NULL", side);
  SVP_RETURN_IF_ERROR(svp::capi::datasets().check(d));
  std::vector<exec::IoBuffer> out;
  out.reserve(d->buffers.size());
  for (std::size_t i = 0; i < d->buffers.size(); ++i) {
    const svp_acl_data_buffer* b = d->buffers[i];
    if (!svp::capi::data_buffers().check(b).ok()) {
      return Error(err::kInvalidParam, "{} dataset entry {} is a destroyed data buffer", side, i);
    }
    out.push_back({b->data, b->size, b->stride});
  }
  return out;
}

struct Prepared {
  std::shared_ptr<exec::ModelExecution> task;
  svp::hal::TaskSettings settings;
};

Result<Prepared> prepare(Runtime& rt, uint32_t model_id, const svp_acl_mdl_dataset* input,
                         const svp_acl_mdl_dataset* output) {
  auto loaded = rt.models().lookup(model_id);
  if (!loaded.ok()) return loaded.status();
  exec::Request r;
  r.model = loaded->model;
  r.model_id = model_id;
  auto in = buffers_of(input, "input");
  if (!in.ok()) return in.status();
  auto out = buffers_of(output, "output");
  if (!out.ok()) return out.status();
  r.inputs = std::move(*in);
  r.outputs = std::move(*out);
  r.batch = input->batch;
  r.total_t = input->total_t;
  r.gear = loaded->model->selected_gear.load();
  r.trace = svp::profiling::Profiler::begin_execution(model_id);
  auto task = exec::ModelExecution::create(std::move(r));
  if (!task.ok()) return task.status();
  Prepared p;
  p.task = std::move(*task);
  const svp::model::Scheduling& s = loaded->scheduling;
  p.settings.priority = s.priority;
  p.settings.preempt_enable = s.preempt_enable;
  p.settings.step_timeout_ms = s.step_timeout_ms;
  p.settings.top_timeout_ms = s.top_timeout_ms;
  p.settings.preemptible = loaded->model->program.flags.preemptible;
  p.settings.aicpu_busy_wait = loaded->model->program.flags.aicpu_busy_wait;
  p.settings.traced = p.task->trace().tasks;
  p.settings.trace_tag = p.task->trace().tag();
  return p;
}

// Records the execution's work_buf against the stream it runs on; a cross-stream use that
// can interleave is a warning, or an error in strict mode (WorkBufTracker).
Status check_work_buf(Runtime& rt, void* stream, uint32_t model_id, const Prepared& p) {
  auto s = rt.resolve_stream(stream);
  if (!s.ok()) return s.status();
  const svp::model::Model& m = p.task->model();
  svp::exec::WorkBufTracker::Use use;
  use.stream = (*s)->serial;
  use.model_id = model_id;
  use.exposed = m.program.flags.preemptible || (m.aicpu_layers > 0 && !m.program.flags.aicpu_busy_wait) ||
                rt.config().backend.cores > 1;
  const std::string conflict = rt.work_bufs().record(p.task->work_buf().data, use);
  if (conflict.empty()) return Status::Ok();
  if (rt.config().strict) return Status(err::kInvalidParam, conflict + " (strict mode)");
  SVP_LOG_WARN("{}", conflict);
  return Status::Ok();
}

}  // namespace

svp_acl_error svp_acl_mdl_execute(uint32_t model_id, const svp_acl_mdl_dataset* input,
                                  const svp_acl_mdl_dataset* output) {
  return guard(__func__, [&] {
    return with_runtime([&](Runtime& rt) -> Status {
      auto p = prepare(rt, model_id, input, output);
      if (!p.ok()) return p.status();
      p->settings.aicpu_inline = true;  // "AI-CPU operators are handled internally"
      SVP_RETURN_IF_ERROR(check_work_buf(rt, nullptr, model_id, *p));
      SVP_RETURN_IF_ERROR(rt.submit_task(nullptr, p->task, p->settings));
      return rt.synchronize_stream(nullptr);
    });
  });
}

svp_acl_error svp_acl_mdl_execute_async(uint32_t model_id, const svp_acl_mdl_dataset* input,
                                        const svp_acl_mdl_dataset* output, svp_acl_rt_stream stream) {
  return guard(__func__, [&] {
    return with_runtime([&](Runtime& rt) -> Status {
      auto p = prepare(rt, model_id, input, output);
      if (!p.ok()) return p.status();
      SVP_RETURN_IF_ERROR(check_work_buf(rt, stream, model_id, *p));
      return rt.submit_task(stream, p->task, p->settings);
    });
  });
}

svp_acl_error svp_acl_mdl_set_dynamic_batch_size(uint32_t model_id, svp_acl_mdl_dataset* dataset, size_t index,
                                                 uint64_t batch_size) {
  return guard(__func__, [&] {
    return with_runtime([&](Runtime& rt) -> Status {
      auto m = rt.models().get(model_id);
      if (!m.ok()) return m.status();
      SVP_RETURN_IF_ERROR(svp::capi::datasets().check(dataset));
      const svp::model::Model& model = **m;
      if (index != model.inputs.size()) {
        return Error(err::kInvalidParam,
                     "index {} is not the dynamic tensor's index {} (svp_acl_mdl_get_input_index_by_name with "
                     "SVP_ACL_DYNAMIC_TENSOR_NAME)",
                     index, model.inputs.size());
      }
      const auto& compiled = model.program.flags.dynamic_batch;
      const uint64_t limit = compiled.empty() ? svp::model::kMaxBatchSize : compiled.back();
      if (batch_size == 0 || batch_size > limit) {
        return Error(err::kInvalidParam, "batch size {} is outside 1..{}{}", batch_size, limit,
                     compiled.empty() ? "" : " (the model's compiled maximum)");
      }
      dataset->batch = batch_size;
      return Status::Ok();
    });
  });
}

svp_acl_error svp_acl_mdl_set_total_t(uint32_t model_id, svp_acl_mdl_dataset* dataset, uint64_t total_t) {
  return guard(__func__, [&] {
    return with_runtime([&](Runtime& rt) -> Status {
      auto m = rt.models().get(model_id);
      if (!m.ok()) return m.status();
      SVP_RETURN_IF_ERROR(svp::capi::datasets().check(dataset));
      const std::uint64_t max_t = (**m).program.flags.max_total_t;
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
      dataset->total_t = total_t;
      return Status::Ok();
    });
  });
}

svp_acl_error svp_acl_mdl_set_dynamic_hw_size(uint32_t model_id, svp_acl_mdl_dataset* dataset, size_t index,
                                              uint64_t height, uint64_t width) {
  return guard(__func__, [&] {
    return with_runtime([&](Runtime& rt) -> Status {
      auto m = rt.models().get(model_id);
      if (!m.ok()) return m.status();
      SVP_RETURN_IF_ERROR(svp::capi::datasets().check(dataset));
      const svp::model::Model& model = **m;
      if (index != model.inputs.size()) {
        return Error(err::kInvalidParam, "index {} is not the dynamic tensor's index {}", index, model.inputs.size());
      }
      if (model.program.flags.dynamic_hw.empty()) {
        return Error(err::kInvalidParam, "model {} has no resolution gears (it was not compiled with dynamic HW)",
                     model_id);
      }
      for (std::size_t g = 0; g < model.gears.size(); ++g) {
        if (model.gears[g]->h == height && model.gears[g]->w == width) {
          model.selected_gear.store(static_cast<std::int32_t>(g));
          return Status::Ok();
        }
      }
      std::string gears;
      for (const auto& g : model.gears) gears += fmt::format("{}{}x{}", gears.empty() ? "" : ", ", g->h, g->w);
      return Error(err::kInvalidParam, "{}x{} is not one of model {}'s resolution gears ({})", height, width, model_id,
                   gears);
    });
  });
}
