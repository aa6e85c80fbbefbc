// rknn_run: a context's inputs (set or bound) through its model on the software NPU.
#include <mutex>

#include <fmt/format.h>

#include "runtime/rknn_ctx.h"

namespace svp::runtime::rknn {

int run(Handle h, rknn_run_extend* extend) {
  static constexpr char fn[] = "rknn_run";
  Lookup l = find(fn, h);
  if (!l.ctx) return l.code;
  Ctx& c = *l.ctx;
  std::lock_guard<std::mutex> lock(c.mu);
  if (extend != nullptr && extend->non_block != 0) return not_implemented(fn, "non-blocking runs (rknn_run_extend.non_block)");
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
  auto loaded = c.rt->models().lookup(c.model->model_id);
  if (!loaded.ok()) return fail(fn, RKNN_ERR_CTX_INVALID, loaded.status().message());
  void* task = c.task_buf;
  void* work = c.work_buf;
  // Internal memory of the application's is held for the execution (contexts sharing it
  // take turns; rknn_destroy_mem waits) and released before the outputs are written.
  std::unique_lock<std::mutex> internal_lock;
  if (c.internal) {
    internal_lock = std::unique_lock<std::mutex>(c.internal->mu);
    if (c.internal->destroyed) {
      const std::string what = c.internal->describe();
      internal_lock.unlock();
      return fail(fn, RKNN_ERR_FAIL, fmt::format("the internal memory {} was destroyed (rknn_destroy_mem); give "
                                                 "the context another with rknn_set_internal_mem", what));
    }
    task = c.internal->data;
    work = c.internal->data + c.task_desc.size;
  } else if (task == nullptr) {
    return fail(fn, RKNN_ERR_FAIL,
                fmt::format("the context was created with RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE and has no internal memory: "
                            "give it RKNN_QUERY_MEM_SIZE's total_internal_size ({} bytes) with rknn_set_internal_mem",
                            c.task_desc.size + c.work_desc.size));
  }
  ExecuteArgs args;
  for (const Io& io : c.inputs) args.inputs.push_back({io.buf, io.desc.size, io.desc.stride});
  args.inputs.push_back({task, c.task_desc.size, c.task_desc.stride});
  args.inputs.push_back({work, c.work_desc.size, c.work_desc.stride});
  for (const Io& io : c.outputs) args.outputs.push_back({io.buf, io.desc.size, io.desc.stride});
  CurrentContextScope keep(*c.rt);
  Status s = c.rt->set_current_context(c.rt_context);
  if (s.ok()) s = c.rt->execute(*loaded, c.model->model_id, std::move(args), nullptr, true);
  if (internal_lock.owns_lock()) internal_lock.unlock();
  if (!s.ok()) return fail(fn, RKNN_ERR_FAIL, "the run failed: " + s.message());
  c.ran = true;
  for (std::size_t k = 0; k < c.out_bind.size(); ++k) {
    if (!c.out_bind[k].mem) continue;
    if (const int r = write_bound_output(fn, c, k); r != RKNN_SUCC) return r;
  }
  ++c.frame_id;
  if (extend != nullptr) extend->frame_id = c.frame_id;
  return RKNN_SUCC;
}

}  // namespace svp::runtime::rknn
