// What the RKNN front-end's source files share (not a public header): a context's state,
// the handle lookup, and the type conversions of rknn_inputs_set / rknn_outputs_get.
// rknn_context.cpp owns contexts (init, dup, destroy, loading), rknn_query.cpp the
// queries, rknn_io.cpp inputs, outputs and bound memory, rknn_run.cpp runs and waits.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "exec/execution.h"
#include "model/format.h"
#include "runtime/rknn_context.h"
#include "runtime/rknn_layout.h"
#include "runtime/rknn_mem.h"
#include "runtime/runtime.h"
#include "target/device_profile.h"

namespace svp::runtime {
class FencePoller;  // fence_poller.h
}  // namespace svp::runtime

namespace svp::runtime::rknn {

class CustomOpTable;  // rknn_custom_ops.h

// One model input or output as the context sees it.
struct Io {
  model::IoDesc desc;            // the model's (dims in model order, row stride, dtype)
  model::Quant quant;            // the program tensor's quantization (empty: none)
  void* buf = nullptr;           // device buffer (desc.size bytes, rows at desc.stride)
  rknn_tensor_attr attr{};       // at the shapes selected now (RKNN_QUERY_CURRENT_*_ATTR)
  // What RKNN_QUERY_INPUT_ATTR / OUTPUT_ATTR report: the largest shape set of a dynamic-shape
  // model (the one to size buffers by, as on a board), and its dims in model order.
  rknn_tensor_attr max_attr{};
  std::vector<std::int64_t> max_dims;
  std::uint64_t capacity = 0;    // bytes of `buf`: the largest shape set's
  std::uint64_t elems = 0;
  bool image = false;            // 4-D: reported NHWC (inputs), NCHW (outputs)
  // A quantized model's float input/output, reported as Rockchip's runtime reports it: INT8
  // with the affine encoding of the int8 tensor behind it (the QuantizeLinear after the
  // input, the DequantizeLinear before the output; a uint8 encoding is shifted to int8 by
  // -128 on the values and the zero point, the same 256 levels). pass_through input and
  // want_float == 0 output are then int8 in that encoding; the conversion to and from the
  // float buffer is exact (the model's QuantizeLinear/DequantizeLinear undo it).
  bool int8_view = false;
  float view_scale = 1.0f;
  std::int32_t view_zp = 0;
};

// Memory bound to an input or output by rknn_set_io_mem.
struct Binding {
  MemRef mem;              // null: not bound
  Layout layout;           // of the buffer
  int type = 0;            // the buffer's element type
  std::size_t es = 0;      // its size
  bool pass_through = false;
};

// The model image loaded into the runtime's registry, shared by a context and its
// rknn_dup_context copies (one copy of the weights); unloaded when the last one goes.
// RKNN_FLAG_MODEL_BUFFER_ZERO_COPY: the application's memory the model was given in
// (rknn_model_buffer.cpp), which must stay as it was while the model is loaded.
struct ModelBuffer {
  MemRef mem;
  std::uint64_t end = 0;   // bytes of mem up to the model's end (offset + model size)
  std::uint64_t hash = 0;  // of those bytes at rknn_init (the device view)
};

struct LoadedImage {
  std::shared_ptr<Runtime> rt;
  std::vector<std::uint8_t> image;  // owned: the registry does not copy
  std::uint32_t model_id = 0;
  bool loaded = false;
  ModelBuffer buffer;               // set only with RKNN_FLAG_MODEL_BUFFER_ZERO_COPY
  LoadedImage() = default;
  LoadedImage(const LoadedImage&) = delete;
  LoadedImage& operator=(const LoadedImage&) = delete;
  ~LoadedImage() {
    if (loaded) (void)rt->unload_model(model_id);
  }
};

// One shape set of a dynamic-shape model (rknn_set_input_shapes): the resolution gear it runs
// (-1: the stored program) and its batch. Every input's and output's shape follows from them.
struct ShapeSet {
  std::int32_t gear = -1;
  std::uint64_t batch = 1;
};

// Where a model's weights live for the NPU (rknn_weights.cpp), shared by every context
// that shares them: rknn_dup_context copies and contexts created with
// RKNN_FLAG_SHARE_WEIGHT_MEM. The software NPU computes with the weights the registry
// prepared from the image; memory given by rknn_set_weight_mem receives those bytes and is
// checked before each run (still live, still holding them), as the board's NPU would read it.
struct Weights {
  std::mutex mu;
  std::shared_ptr<LoadedImage> image;  // keeps `bytes` alive
  const std::uint8_t* bytes = nullptr; // the model's weights section (nullptr: none)
  std::uint64_t size = 0;
  Handle owner = 0;                    // the context that loaded them (weight sharing names it)
  bool outside = false;                // RKNN_FLAG_MEM_ALLOC_OUTSIDE: runs need `mem`
  MemRef mem;                          // rknn_set_weight_mem's (under mu)
};

struct Ctx {
  std::mutex mu;  // held by every call on the context (CallScope)
  Handle handle = 0;
  // The call holding `mu` (its function name), and whether a second thread's call was
  // already reported (once per context).
  std::atomic<const char*> busy_fn{nullptr};
  std::atomic<bool> shared_reported{false};
  std::uint32_t flags = 0;                            // rknn_init's
  bool simulator = false;                             // mark_simulator: the Python toolkit's context
  int core_mask = RKNN_NPU_CORE_AUTO;                 // rknn_set_core_mask (rknn_cores.cpp: core_use)
  int batch_core_num = 1;                             // rknn_set_batch_core_num
  const target::DeviceProfile* platform = nullptr;    // whose native layouts are reported
  std::vector<Binding> in_bind, out_bind;
  // rknn_set_internal_mem: task_buf at offset 0, work_buf right after it (instead of the
  // context's own, which RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE does not allocate).
  MemRef internal;
  std::shared_ptr<Runtime> rt;
  std::shared_ptr<LoadedImage> model = std::make_shared<LoadedImage>();  // null once destroyed
  void* rt_context = nullptr;
  std::vector<Io> inputs, outputs;
  // Dynamic shapes: the model's shape sets (one entry for a static model) and the selected one.
  std::vector<ShapeSet> shape_sets{ShapeSet{}};
  std::size_t shape = 0;
  void* task_buf = nullptr;
  void* work_buf = nullptr;
  model::IoDesc task_desc, work_desc;
  std::vector<bool> input_set;
  std::uint64_t frame_id = 0;     // the last frame submitted (rknn_run)
  std::uint64_t done_frame = 0;   // the last frame finished (0: none yet): its outputs are in the buffers
  // A run submitted and not waited for yet (rknn_run_extend.non_block, RKNN_FLAG_ASYNC_MASK):
  // the next call that touches the context's buffers ends it first (settle()).
  bool pending = false;
  // Per-layer times of the pending run and of the last finished one (RKNN_QUERY_PERF_*).
  std::shared_ptr<std::vector<std::uint64_t>> layer_ns, last_layer_ns;
  // On the board clock (softnpu.clock "board"), the same runs' predicted board time: what
  // RKNN_QUERY_PERF_* report there (null on the host clock).
  std::shared_ptr<exec::BoardRunTime> board_time, last_board_time;
  std::string perf_text;  // RKNN_QUERY_PERF_DETAIL's text, owned here until the next query
  // RKNN_FLAG_ASYNC_MASK: frame done_frame's outputs (each output's device bytes), which
  // rknn_outputs_get returns while the next frame runs.
  std::vector<std::vector<std::uint8_t>> async_outputs;
  std::set<void*> handed_out;  // output buffers rknn_outputs_get allocated, until released
  std::uint64_t device_bytes = 0;
  std::uint64_t weights_bytes = 0;
  std::shared_ptr<Weights> weights = std::make_shared<Weights>();
  // The weights are another context's (rknn_dup_context, RKNN_FLAG_SHARE_WEIGHT_MEM): not
  // counted in this context's RKNN_QUERY_MEM_SIZE total_dma_allocated_size.
  bool shares_weights = false;
  // rknn_register_custom_ops's op types and instances (null: none registered).
  std::shared_ptr<CustomOpTable> custom_ops;
  // RKNN_FLAG_FENCE_IN_OUTSIDE (rknn_fence.cpp): the runtime event the stream waits on while
  // the process's fence watcher waits for the application's fence, and the watcher's wait of
  // the run in flight (0: none). Created by the first run with an input fence.
  void* fence_event = nullptr;
  std::shared_ptr<FencePoller> fence_poller;
  std::uint64_t fence_wait = 0;
};

struct Lookup {
  std::shared_ptr<Ctx> ctx;
  int code = RKNN_SUCC;
};

// A call's hold on its context. Rockchip's runtime does not serialise calls on one context:
// two threads calling at once race on a board. Here the second call waits for the first
// (the software NPU stays consistent) and the first such overlap on a context is reported
// as a warning naming both calls, so the application's bug is seen before a board hits it.
class CallScope {
 public:
  CallScope(const char* fn, Ctx& c);
  ~CallScope() { c_.busy_fn.store(nullptr); }
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

 private:
  Ctx& c_;
  std::unique_lock<std::mutex> lock_;
};

// The live context `h`, or a null ctx and RKNN_ERR_CTX_INVALID (logged under `fn`).
Lookup find(const char* fn, Handle h);

int rknn_type_of(model::DType t);
// Element size of the types rknn_inputs_set / rknn_outputs_get convert (0 = not converted).
std::size_t host_type_size(int type);
const char* type_name(int t);
bool per_tensor_affine(const model::Quant& q);
// Device memory of the context's runtime, counted in its device_bytes.
int alloc_device(const char* fn, Ctx& c, std::uint64_t size, void** out);

// Restores the calling thread's current runtime context on scope exit (rknn calls switch
// it to the rknn context's own).
class CurrentContextScope {
 public:
  explicit CurrentContextScope(Runtime& rt) : rt_(rt) {
    auto cur = rt.get_current_context();
    previous_ = cur.ok() ? *cur : nullptr;
  }
  ~CurrentContextScope() {
    if (previous_ != nullptr) (void)rt_.set_current_context(previous_);
  }

 private:
  Runtime& rt_;
  void* previous_ = nullptr;
};

// Fills io.attr from io.desc, io.elems and the int8 view (rknn_context.cpp).
void fill_attr(Io& io, std::uint32_t index, bool input);
// Dynamic shapes (rknn_shapes.cpp). Reads the model's shape sets (resolution gears, batch
// gears) into c.shape_sets and selects the largest; a static model gets one set.
int init_shapes(const char* fn, Ctx& c, const model::Model& m);
// Gives every input and output the dims of shape set `s` (buffers are kept: they hold the
// largest set).
void apply_shape(Ctx& c, const model::Model& m, std::size_t s);
// The shape sets as text, "[1,224,224,3]; [1,192,192,3]" (inputs of one set joined by " + ").
std::string shape_sets_text(const Ctx& c, const model::Model& m);

// "RKNN_NPU_CORE_0_1" for a core mask value, else its hex (rknn_cores.cpp).
std::string core_mask_name(int mask);

// The emulated NPU cores a context's runs use (rknn_cores.cpp, docs/rknn.md "Multi-core"):
// `mask` (bit k = core k; 0 = any one idle core) and whether the work is split across all of
// them at once.
struct CoreUse {
  std::uint32_t mask = 0;
  bool split = false;
};
CoreUse core_use(const Ctx& c);
// The same for any core_mask / batch_core_num on a platform of `platform_cores` (a matmul
// context's, rknn_matmul_task.cpp).
CoreUse core_use_of(int core_mask, std::uint32_t platform_cores, int batch_core_num);
// RKNN_QUERY_SVP_NPU_LOAD: each core's load over the last second on the context's device.
int npu_load(const char* fn, Ctx& c, rknn_svp_npu_load* out);

// RKNN_QUERY_INPUT_DYNAMIC_RANGE (rknn_shapes.cpp).
int query_dynamic_range(const char* fn, const Ctx& c, void* info, std::uint32_t size);

// Converts one rknn_input into the model input's device buffer (rknn_convert.cpp).
int set_one(const char* fn, Io& io, const rknn_input& in);
// The bytes of output `io` as the application asked: float32 (dequantized) or the type
// RKNN_QUERY_OUTPUT_ATTR reports (rknn_convert.cpp).
std::vector<std::uint8_t> output_bytes(const Io& io, bool want_float);
// The bytes of output `io` in rknn type `type`: the tensor's own type, FLOAT32 (dequantized),
// or FLOAT16 / BFLOAT16 (rounded to nearest even from the float32 value).
std::vector<std::uint8_t> output_bytes_as(const Io& io, int type);
// Ends the context's pending run, if any (rknn_run_extend.non_block, RKNN_FLAG_ASYNC_MASK):
// waits for it (timeout_ms > 0: at most that long, RKNN_ERR_TIMEOUT and still pending
// after), then does what a blocking run does once its execution ends (bound outputs
// written, layer times kept, the async snapshot taken). Called with c.mu held (rknn_run.cpp).
int settle(const char* fn, Ctx& c, std::int32_t timeout_ms = 0);

// RKNN_FLAG_MODEL_BUFFER_ZERO_COPY at rknn_init (rknn_model_buffer.cpp): the model is the
// `size` bytes at `model` + extend->real_model_offset (extend->real_model_size of them, if
// given) inside memory of rknn_create_mem2 / rknn_create_mem_from_fd whose fd is
// extend->model_buffer_fd; its device view is read into c.model->image and the memory is
// recorded. RKNN_ERR_PARAM_INVALID (logged) when it is not such memory.
int read_model_buffer(const char* fn, Ctx& c, const void* model, std::uint32_t size, const rknn_init_extend* extend);
// Before a run: RKNN_SUCC, or RKNN_ERR_FAIL when the model's buffer was destroyed or no longer
// holds the model (the board's NPU reads it in place). Called with c.mu held.
int check_model_buffer(const char* fn, const Ctx& c);

// RKNN_FLAG_FENCE_IN_OUTSIDE (rknn_fence.cpp): queues on c's stream a wait for the
// application's fence `fence_fd` (-1: none) before the next execution; the descriptor is
// duplicated, so the application may close its own. A host thread (FencePoller) waits for
// the fence; the stream waits on an event it completes, so no NPU core is held meanwhile. A
// fence not signalled within 10 s fails the run. RKNN_ERR_PARAM_INVALID for a descriptor that
// is not open.
int queue_input_fence(const char* fn, Ctx& c, int fence_fd);
// rknn_destroy, before the run in flight is waited for: ends its wait for an input fence, if
// any, so that the run fails at once instead of waiting for the fence.
void cancel_input_fence(Ctx& c);
// rknn_destroy, once no run is in flight: releases the context's fence event and its hold on
// the fence watcher (the last holder joins its thread).
void release_input_fence(Ctx& c);
// RKNN_FLAG_FENCE_OUT_OUTSIDE: queues after the execution the signal of a new fence (an
// eventfd, readable once the run has ended, successfully or not), given to the application
// in *fence_fd; the application closes it.
int queue_output_fence(const char* fn, Ctx& c, int* fence_fd);

// RKNN_SUCC, or RKNN_ERR_CTX_INVALID (logged, "context config invalid" as the vendor's log
// says) on a platform whose runtime has the zero-copy API only (RV1106/RV1103): the normal
// API's rknn_inputs_set / rknn_outputs_get / rknn_outputs_release (rknn_context.cpp).
int refuse_normal_api(const char* fn, const Ctx& c);
// RKNN_SUCC, or RKNN_ERR_FAIL (logged) when `c` was created with
// RKNN_FLAG_COLLECT_MODEL_INFO_ONLY: such a context answers rknn_query only (rknn_context.cpp).
int refuse_info_only(const char* fn, const Ctx& c);
// The model's weights as a run needs them (rknn_weights.cpp): RKNN_SUCC, or RKNN_ERR_FAIL when
// RKNN_FLAG_MEM_ALLOC_OUTSIDE left them without memory, or the rknn_set_weight_mem memory
// was destroyed or no longer holds them. Called with c.mu held.
int check_weights(const char* fn, Ctx& c);
// Whether the context allocates weights of its own (RKNN_QUERY_MEM_SIZE).
bool owns_weight_allocation(const Ctx& c);
// RKNN_FLAG_SHARE_WEIGHT_MEM at rknn_init (rknn_weights.cpp): share_weights, before the
// model loads, finds extend->ctx (*source) and takes its loaded model when the images are
// the same; adopt_weights, after, makes c use the source's weights, which must be the same
// bytes (RKNN_ERR_MODEL_INVALID otherwise).
int share_weights(const char* fn, Ctx& c, const rknn_init_extend* extend, std::shared_ptr<Ctx>* source);
int adopt_weights(const char* fn, Ctx& c, Ctx& source);
// The live memory `mem` as context `h` may use it (created on it, or on no context);
// RKNN_ERR_PARAM_INVALID (logged) otherwise (rknn_io.cpp).
int memory_of(const char* fn, Handle h, const rknn_tensor_mem* mem, MemRef* out);

// rknn_run's reads of a bound input and writes of a bound output (rknn_io.cpp).
int read_bound_input(const char* fn, Ctx& c, std::size_t i);
int write_bound_output(const char* fn, Ctx& c, std::size_t k);

}  // namespace svp::runtime::rknn
