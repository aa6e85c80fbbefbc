// include/rknn/rknn_api.h: the 23 functions of librknnrt. Each shim checks its pointers and
// calls one function of the runtime core (runtime/rknn_context.h). Functions svp-acl does
// not implement yet check the context, then return RKNN_ERR_FAIL with a "not implemented yet
// in svp-acl" message (docs/rknn.md). The create_mem family returns NULL on failure.
#pragma GCC visibility push(default)
#include "rknn/rknn_api.h"
#pragma GCC visibility pop

#include "rknn/guard.h"
#include "runtime/rknn_mem.h"

namespace core = svp::runtime::rknn;
using svp::rknn_capi::guard;
using svp::rknn_capi::mem_guard;
using svp::runtime::rknn::raw_enum;
using svp::rknn_capi::require;

int rknn_init(rknn_context* context, void* model, uint32_t size, uint32_t flag, rknn_init_extend* extend) {
  return guard(__func__, [&](const char* fn) {
    RKNN_RETURN_IF_FAILED(require(fn, context, "context"));
    RKNN_RETURN_IF_FAILED(require(fn, model, size == 0 ? "model (a file path when size is 0)" : "model"));
    core::Handle h = 0;
    const int r = core::init(&h, model, size, flag, extend);
    *context = static_cast<rknn_context>(h);
    return r;
  });
}

int rknn_dup_context(rknn_context* context_in, rknn_context* context_out) {
  return guard(__func__, [&](const char* fn) {
    RKNN_RETURN_IF_FAILED(require(fn, context_in, "context_in"));
    RKNN_RETURN_IF_FAILED(require(fn, context_out, "context_out"));
    core::Handle h = 0;
    const int r = core::dup_context(*context_in, &h);
    *context_out = static_cast<rknn_context>(h);
    return r;
  });
}

int rknn_destroy(rknn_context context) {
  return guard(__func__, [&](const char*) { return core::destroy(context); });
}

int rknn_query(rknn_context context, rknn_query_cmd cmd, void* info, uint32_t size) {
  return guard(__func__, [&](const char* fn) {
    RKNN_RETURN_IF_FAILED(require(fn, info, "info"));
    return core::query(context, raw_enum(cmd), info, size);
  });
}

int rknn_inputs_set(rknn_context context, uint32_t n_inputs, rknn_input inputs[]) {
  return guard(__func__, [&](const char* fn) {
    RKNN_RETURN_IF_FAILED(require(fn, inputs, "inputs"));
    return core::inputs_set(context, n_inputs, inputs);
  });
}

int rknn_set_batch_core_num(rknn_context context, int core_num) {
  return guard(__func__, [&](const char* fn) {
    (void)fn;
    return core::set_batch_core_num(context, core_num);
  });
}

int rknn_set_core_mask(rknn_context context, rknn_core_mask core_mask) {
  return guard(__func__, [&](const char*) { return core::set_core_mask(context, raw_enum(core_mask)); });
}

int rknn_run(rknn_context context, rknn_run_extend* extend) {
  return guard(__func__, [&](const char*) { return core::run(context, extend); });
}

int rknn_wait(rknn_context context, rknn_run_extend* extend) {
  return guard(__func__, [&](const char*) { return core::wait(context, extend); });
}

int rknn_outputs_get(rknn_context context, uint32_t n_outputs, rknn_output outputs[], rknn_output_extend* extend) {
  return guard(__func__, [&](const char* fn) {
    RKNN_RETURN_IF_FAILED(require(fn, outputs, "outputs"));
    return core::outputs_get(context, n_outputs, outputs, extend);
  });
}

int rknn_outputs_release(rknn_context context, uint32_t n_ouputs, rknn_output outputs[]) {
  return guard(__func__, [&](const char* fn) {
    RKNN_RETURN_IF_FAILED(require(fn, outputs, "outputs"));
    return core::outputs_release(context, n_ouputs, outputs);
  });
}

rknn_tensor_mem* rknn_create_mem_from_phys(rknn_context ctx, uint64_t phys_addr, void* virt_addr, uint32_t size) {
  return mem_guard(__func__, [&](const char* fn) { return core::create_mem_from_phys(fn, ctx, phys_addr, virt_addr, size); });
}

rknn_tensor_mem* rknn_create_mem_from_fd(rknn_context ctx, int32_t fd, void* virt_addr, uint32_t size, int32_t offset) {
  return mem_guard(__func__, [&](const char* fn) { return core::create_mem_from_fd(fn, ctx, fd, virt_addr, size, offset); });
}

rknn_tensor_mem* rknn_create_mem_from_mb_blk(rknn_context ctx, void* mb_blk, int32_t offset) {
  return mem_guard(__func__, [&](const char* fn) { return core::create_mem_from_mb_blk(fn, ctx, mb_blk, offset); });
}

rknn_tensor_mem* rknn_create_mem(rknn_context ctx, uint32_t size) {
  return mem_guard(__func__, [&](const char* fn) { return core::create_mem(fn, ctx, size, RKNN_FLAG_MEMORY_FLAGS_DEFAULT); });
}

rknn_tensor_mem* rknn_create_mem2(rknn_context ctx, uint64_t size, uint64_t alloc_flags) {
  return mem_guard(__func__, [&](const char* fn) { return core::create_mem(fn, ctx, size, alloc_flags); });
}

int rknn_destroy_mem(rknn_context ctx, rknn_tensor_mem* mem) {
  return guard(__func__, [&](const char* fn) {
    RKNN_RETURN_IF_FAILED(require(fn, mem, "mem"));
    return core::destroy_mem(fn, ctx, mem);
  });
}

int rknn_set_weight_mem(rknn_context ctx, rknn_tensor_mem* mem) {
  return guard(__func__, [&](const char* fn) {
    RKNN_RETURN_IF_FAILED(require(fn, mem, "mem"));
    return core::set_weight_mem(ctx, mem);
  });
}

int rknn_set_internal_mem(rknn_context ctx, rknn_tensor_mem* mem) {
  return guard(__func__, [&](const char* fn) {
    RKNN_RETURN_IF_FAILED(require(fn, mem, "mem"));
    return core::set_internal_mem(ctx, mem);
  });
}

int rknn_set_io_mem(rknn_context ctx, rknn_tensor_mem* mem, rknn_tensor_attr* attr) {
  return guard(__func__, [&](const char* fn) {
    RKNN_RETURN_IF_FAILED(require(fn, mem, "mem"));
    RKNN_RETURN_IF_FAILED(require(fn, attr, "attr"));
    return core::set_io_mem(ctx, mem, attr);
  });
}

int rknn_set_input_shape(rknn_context ctx, rknn_tensor_attr* attr) {
  return guard(__func__, [&](const char* fn) {
    RKNN_RETURN_IF_FAILED(require(fn, attr, "attr"));
    return core::set_input_shapes(ctx, 1, attr, true);
  });
}

int rknn_set_input_shapes(rknn_context ctx, uint32_t n_inputs, rknn_tensor_attr attr[]) {
  return guard(__func__, [&](const char* fn) {
    RKNN_RETURN_IF_FAILED(require(fn, attr, "attr"));
    if (n_inputs == 0) return core::fail(fn, RKNN_ERR_PARAM_INVALID, "n_inputs is 0: give every input's shape");
    return core::set_input_shapes(ctx, n_inputs, attr, false);
  });
}

int rknn_mem_sync(rknn_context context, rknn_tensor_mem* mem, rknn_mem_sync_mode mode) {
  return guard(__func__, [&](const char* fn) {
    RKNN_RETURN_IF_FAILED(require(fn, mem, "mem"));
    if (const int m = raw_enum(mode); m < RKNN_MEMORY_SYNC_TO_DEVICE || m > RKNN_MEMORY_SYNC_BIDIRECTIONAL) {
      return core::fail(fn, RKNN_ERR_PARAM_INVALID, "mode is not an rknn_mem_sync_mode");
    }
    return core::mem_sync(fn, context, mem, raw_enum(mode));
  });
}
