// rknn_run and rknn_wait: a context's inputs (set or bound) through its model on the
// software NPU, blocking, non-blocking (rknn_run_extend.non_block, then rknn_wait) or
// pipelined (RKNN_FLAG_ASYNC_MASK: rknn_outputs_get returns the previous frame's outputs
// while the next one runs). A context has at most one run in flight: every call that
// touches its buffers ends that run first (settle), which is what keeps the application's
// next rknn_inputs_set from racing the NPU still reading the inputs.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>

#include <fmt/format.h>

#include "runtime/rknn_ctx.h"
#include "runtime/rknn_custom_ops.h"

namespace svp::runtime::rknn {
namespace {

using Clock = std::chrono::steady_clock;

// The execution's arguments: the context's device buffers, and task_buf/work_buf from
// `task`/`work` (its own, or internal memory of the application's).
ExecuteArgs execute_args(const Ctx& c, void* task, void* work) {
  ExecuteArgs args;
  for (const Io& io : c.inputs) args.inputs.push_back({io.buf, io.desc.size, io.desc.stride});
  args.inputs.push_back({task, c.task_desc.size, c.task_desc.stride});
  args.inputs.push_back({work, c.work_desc.size, c.work_desc.stride});
  for (const Io& io : c.outputs) args.outputs.push_back({io.buf, io.desc.size, io.desc.stride});
  args.aicpu_inline = true;
  args.gear = c.shape_sets[c.shape].gear;  // the context's own shape set (rknn_set_input_shapes)
  args.batch = c.shape_sets[c.shape].batch;
  const CoreUse use = core_use(c);
  args.core_mask = use.mask;
  args.core_split = use.split;
  return args;
}

// Every input set or bound; bound ones converted into the device buffers.
int take_inputs(const char* fn, Ctx& c) {
  for (std::size_t i = 0; i < c.input_set.size(); ++i) {
    if (!c.input_set[i] && !c.in_bind[i].mem) {
      return fail(fn, RKNN_ERR_INPUT_INVALID,
                  fmt::format("input {} (\"{}\") was never set (rknn_inputs_set) nor bound (rknn_set_io_mem)", i,
                              c.inputs[i].desc.name));
    }
  }
  for (std::size_t i = 0; i < c.in_bind.size(); ++i) {
    if (!c.in_bind[i].mem) continue;
    if (const int r = read_bound_input(fn, c, i); r != RKNN_SUCC) return r;
  }
  return RKNN_SUCC;
}

// Every custom operator of the model registered (rknn_register_custom_ops).
int check_custom_ops(const char* fn, const Ctx& c) {
  auto loaded = c.rt->models().lookup(c.model->model_id);
  if (!loaded.ok()) return fail(fn, RKNN_ERR_CTX_INVALID, loaded.status().message());
  const std::string missing = unregistered_custom_ops(*loaded->model, c.custom_ops.get());
  if (missing.empty()) return RKNN_SUCC;
  return fail(fn, RKNN_ERR_FAIL,
              fmt::format("the model has custom operators of type {} that nothing computes: register them with "
                          "rknn_register_custom_ops (op_type as in the model, RKNN_TARGET_TYPE_CPU) before rknn_run",
                          missing));
}

// Submits one execution on the context's stream (it does not wait), between the fences of
// RKNN_FLAG_FENCE_IN_OUTSIDE / _OUT_OUTSIDE (rknn_fence.cpp) when the context has them.
int submit(const char* fn, Ctx& c, void* task, void* work, rknn_run_extend* extend) {
  auto loaded = c.rt->models().lookup(c.model->model_id);
  if (!loaded.ok()) return fail(fn, RKNN_ERR_CTX_INVALID, loaded.status().message());
  if ((c.flags & RKNN_FLAG_FENCE_IN_OUTSIDE) != 0 && extend != nullptr) {
    if (const int r = queue_input_fence(fn, c, extend->fence_fd); r != RKNN_SUCC) return r;
  }
  ExecuteArgs args = execute_args(c, task, work);
  c.layer_ns = std::make_shared<std::vector<std::uint64_t>>();
  args.layer_ns = c.layer_ns;
  c.board_time.reset();
  if (c.rt->config().backend.board_clock) {
    c.board_time = std::make_shared<exec::BoardRunTime>();
    args.board_time = c.board_time;
  }
  args.custom_ops = c.custom_ops;
  CurrentContextScope keep(*c.rt);
  Status s = c.rt->set_current_context(c.rt_context);
  if (s.ok()) s = c.rt->execute(*loaded, c.model->model_id, std::move(args), nullptr, false);
  if (!s.ok()) return fail(fn, RKNN_ERR_FAIL, "the run failed: " + s.message());
  c.pending = true;
  ++c.frame_id;
  if ((c.flags & RKNN_FLAG_FENCE_OUT_OUTSIDE) != 0) return queue_output_fence(fn, c, &extend->fence_fd);
  return RKNN_SUCC;
}

}  // namespace

int settle(const char* fn, Ctx& c, std::int32_t timeout_ms) {
  if (!c.pending) return RKNN_SUCC;
  CurrentContextScope keep(*c.rt);
  Status s = c.rt->set_current_context(c.rt_context);
  const Clock::time_point wait_start = Clock::now();
  if (s.ok()) s = timeout_ms > 0 ? c.rt->synchronize_stream(nullptr, timeout_ms) : c.rt->synchronize_stream(nullptr);
  if (!s.ok()) {
    if (timeout_ms > 0 && Clock::now() - wait_start >= std::chrono::milliseconds(timeout_ms)) {
      return fail(fn, RKNN_ERR_TIMEOUT,
                  fmt::format("frame {} did not finish within timeout_ms = {} (it goes on: rknn_wait for it again, or "
                              "any call on the context waits for it)",
                              c.frame_id, timeout_ms));
    }
    c.pending = false;
    return fail(fn, RKNN_ERR_FAIL, fmt::format("frame {} failed: {}", c.frame_id, s.message()));
  }
  c.pending = false;
  c.last_layer_ns = std::move(c.layer_ns);
  c.last_board_time = std::move(c.board_time);
  c.done_frame = c.frame_id;
  for (std::size_t k = 0; k < c.out_bind.size(); ++k) {
    if (!c.out_bind[k].mem) continue;
    if (const int r = write_bound_output(fn, c, k); r != RKNN_SUCC) return r;
  }
  if ((c.flags & RKNN_FLAG_ASYNC_MASK) != 0) {
    c.async_outputs.resize(c.outputs.size());
    for (std::size_t k = 0; k < c.outputs.size(); ++k) {
      const auto* p = static_cast<const std::uint8_t*>(c.outputs[k].buf);
      c.async_outputs[k].assign(p, p + c.outputs[k].desc.size);
    }
  }
  return RKNN_SUCC;
}

int run(Handle h, rknn_run_extend* extend) {
  static constexpr char fn[] = "rknn_run";
  Lookup l = find(fn, h);
  if (!l.ctx) return l.code;
  Ctx& c = *l.ctx;
  CallScope call(fn, c);
  if (const int r = refuse_info_only(fn, c); r != RKNN_SUCC) return r;
  if ((c.flags & RKNN_FLAG_FENCE_OUT_OUTSIDE) != 0 && extend == nullptr) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                "the context was created with RKNN_FLAG_FENCE_OUT_OUTSIDE: give rknn_run an rknn_run_extend, whose "
                "fence_fd receives the output fence");
  }
  // An output fence tells the application when the run ends: rknn_run returns once it is queued.
  const bool blocking = (extend == nullptr || extend->non_block == 0) && (c.flags & RKNN_FLAG_ASYNC_MASK) == 0 &&
                        (c.flags & RKNN_FLAG_FENCE_OUT_OUTSIDE) == 0;
  if (const int r = settle(fn, c); r != RKNN_SUCC) return r;  // the previous frame, if still in flight
  if (const int r = check_custom_ops(fn, c); r != RKNN_SUCC) return r;
  if (const int r = take_inputs(fn, c); r != RKNN_SUCC) return r;
  if (const int r = check_weights(fn, c); r != RKNN_SUCC) return r;
  if (const int r = check_model_buffer(fn, c); r != RKNN_SUCC) return r;
  if (c.internal == nullptr && c.task_buf == nullptr) {
    return fail(fn, RKNN_ERR_FAIL,
                fmt::format("the context was created with RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE or RKNN_FLAG_MEM_ALLOC_OUTSIDE "
                            "and has no internal memory: "
                            "give it RKNN_QUERY_MEM_SIZE's total_internal_size ({} bytes) with rknn_set_internal_mem",
                            c.task_desc.size + c.work_desc.size));
  }
  if (c.internal == nullptr) {
    if (const int r = submit(fn, c, c.task_buf, c.work_buf, extend); r != RKNN_SUCC) return r;
    if (extend != nullptr) extend->frame_id = c.frame_id;
    return blocking ? settle(fn, c, extend != nullptr ? extend->timeout_ms : 0) : RKNN_SUCC;
  }
  // Internal memory of the application's is held for the whole execution (contexts sharing
  // it take turns; rknn_destroy_mem waits), so such runs are blocking only.
  if (!blocking) {
    return not_implemented(fn, "non-blocking and RKNN_FLAG_ASYNC_MASK runs of a context with internal memory from "
                               "rknn_set_internal_mem");
  }
  std::unique_lock<std::mutex> internal_lock(c.internal->mu);
  if (c.internal->destroyed) {
    const std::string what = c.internal->describe();
    internal_lock.unlock();
    return fail(fn, RKNN_ERR_FAIL, fmt::format("the internal memory {} was destroyed (rknn_destroy_mem); give "
                                               "the context another with rknn_set_internal_mem", what));
  }
  std::uint8_t* base = c.internal->data;
  if (const int r = submit(fn, c, base, base + c.task_desc.size, extend); r != RKNN_SUCC) return r;
  if (extend != nullptr) extend->frame_id = c.frame_id;
  // No timeout here: the shared memory cannot be handed on while the run still uses it.
  const int r = settle(fn, c);
  internal_lock.unlock();
  return r;
}

int wait(Handle h, rknn_run_extend* extend) {
  static constexpr char fn[] = "rknn_wait";
  Lookup l = find(fn, h);
  if (!l.ctx) return l.code;
  Ctx& c = *l.ctx;
  CallScope call(fn, c);
  if (extend != nullptr && extend->frame_id > c.frame_id) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("frame_id {} was never submitted (the last rknn_run gave frame {})", extend->frame_id,
                            c.frame_id));
  }
  if (const int r = settle(fn, c, extend != nullptr ? extend->timeout_ms : 0); r != RKNN_SUCC) return r;
  if (extend != nullptr) extend->frame_id = c.done_frame;
  return RKNN_SUCC;
}

}  // namespace svp::runtime::rknn
