// The runtime core: process state behind the C API.
//
// One Runtime exists between svp_acl_init and svp_acl_finalize. API calls hold a
// shared_ptr to it for their duration, so finalize can tear it down (waking every
// blocked waiter) while late calls still finish safely against the old instance.
//
// Objects and their relations:
//   Device state   per device: set_device reference count and the default context.
//   Context        a device plus a default stream; explicit or the device default.
//                  Each thread has one current context (thread-local, last set wins).
//   Stream         a HAL submission queue of its context's device.
//   Event          a HAL event of one device.
//   Model          a loaded offline model (model::ModelRegistry, ids from 0); bound to no
//                  device, context or stream; all unloaded by finalize.
// Contexts, streams and events are reached only through validated handles
// (handle_table.h). The runtime never executes work or decides scheduling order: it
// submits entries to the HAL and waits on it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

#include "common/status.h"
#include "exec/io_buffer.h"
#include "exec/model_registry.h"
#include "exec/work_buf_tracker.h"
#include "hal/hal.h"
#include "runtime/aicpu_queue.h"
#include "runtime/config.h"
#include "runtime/handle_table.h"
#include "runtime/reporter.h"

namespace svp::exec {
struct BoardRunTime;  // exec/execution.h
}  // namespace svp::exec

namespace svp::runtime {

struct Context;

struct Stream {
  void* handle = nullptr;
  std::uint64_t serial = 0;     // unique per runtime; keys subscriptions
  std::uint32_t device = 0;
  hal::SqId sq = 0;
  std::uint64_t context = 0;    // serial of the owning context
  bool is_default = false;
};

struct Context {
  void* handle = nullptr;
  std::uint64_t serial = 0;
  std::uint32_t device = 0;
  bool is_default = false;
  std::shared_ptr<Stream> default_stream;
  std::mutex mu;
  std::set<void*> streams;      // explicit streams created in this context
};

struct Event {
  void* handle = nullptr;
  std::uint32_t device = 0;
  hal::EventId id = 0;
};

enum class MemoryApi { kMalloc, kMallocCached, kMallocHost, kMallocSec };

// One application buffer (svp_acl_data_buffer).
using IoBuffer = exec::IoBuffer;
// A loaded model as the C API reaches it: the immutable Model, its ModelSettings and its
// scheduling attributes, read together.
using LoadedModel = model::ModelRegistry::Loaded;
// What a model config handle holds (svp_acl_mdl_set_config_opt): how to load a model and
// its scheduling attributes (load_with_config, set_model_config).
using ModelConfig = model::LoadConfig;

// The synthetic segmented-task extension (svp_acl_ext_launch_segmented_task): the task's
// attributes as the application sets them (svp_acl_ext_task_attr), and its segment
// function (returns 0, or the error code that fails the task).
struct SyntheticTaskAttr {
  std::int32_t priority = 3;
  bool preempt_enable = true;
  bool preemptible = false;
  std::uint32_t step_timeout_ms = 0;
  std::uint32_t top_timeout_ms = 0;
  bool aicpu_busy_wait = false;
  std::uint64_t aicpu_segment_mask = 0;
};
using SegmentFn = std::function<std::int32_t(std::uint32_t segment)>;

// One core of the current device over the last second (svp_acl_query_status): utilisation
// in percent and throughput in TFLOPS x 100.
struct CoreStatus {
  std::uint32_t utilization = 0;
  std::uint32_t tflops_100x = 0;
};

// One model execution as the application asks for it (svp_acl_mdl_execute[_async]): its
// datasets' buffers and the dataset settings (dynamic batch, total_t).
struct ExecuteArgs {
  std::vector<IoBuffer> inputs;   // get_num_inputs entries: data inputs, task_buf, work_buf
  std::vector<IoBuffer> outputs;  // get_num_outputs entries
  std::uint64_t batch = 1;
  std::uint64_t total_t = 0;
  // A front-end's own resolution gear for this execution (librknnrt: each context selects
  // its shape with rknn_set_input_shapes, while the model's settings are shared by every
  // context running the model); unset: the gear the model's settings select.
  std::optional<std::int32_t> gear;
  // Set: every layer's run time is added to it (exec::Request::layer_ns; sized here).
  std::shared_ptr<std::vector<std::uint64_t>> layer_ns;
  // Set: the execution's board time is added to it (exec::Request::board_time; sized here).
  std::shared_ptr<exec::BoardRunTime> board_time;
  // The front-end's custom operators (exec::Request::custom_ops).
  std::shared_ptr<const kernels::CustomOps> custom_ops;
  // AI-CPU layers run on the submitting side's AI-CPU worker as in a synchronous execution,
  // without svp_acl_rt_process_aicpu_task (rknn's non-blocking runs; "handled internally").
  bool aicpu_inline = false;
  // The emulated NPU cores the execution may run on and whether it is split across all of
  // them (hal::TaskSettings::core_mask / core_split; rknn_set_core_mask).
  std::uint32_t core_mask = 0;
  bool core_split = false;
  // Tokens the front-end took on what the execution must outlive (the C API's datasets
  // and data buffer descriptors): held until the execution is done, like the memory pins.
  std::vector<std::shared_ptr<void>> pins;
};

class Runtime {
 public:
  static Status init(const char* config_path);
  // init with a configuration built by the caller (librknnrt, which has no acl.json).
  static Status init_with_config(RuntimeConfig config);
  static Status finalize();
  // The live runtime, or UNINITIALIZE.
  static Result<std::shared_ptr<Runtime>> get();

  explicit Runtime(RuntimeConfig config, std::unique_ptr<hal::Backend> backend, std::uint16_t epoch);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // Devices.
  Status set_device(std::int32_t device);
  Status reset_device(std::int32_t device);
  Result<std::int32_t> get_device() const;
  std::uint32_t device_count() const { return backend_->device_count(); }
  Status synchronize_device();
  // Per-core usage of the current context's device over the last `window` (≤ 1 s).
  Result<std::vector<hal::Device::CoreSample>> core_usage(hal::Nanos window);
  void set_op_wait_timeout(std::uint32_t seconds) { op_wait_timeout_s_.store(seconds); }

  // Contexts.
  Result<void*> create_context(std::int32_t device);
  Status destroy_context(void* handle);
  Status set_current_context(void* handle);
  Result<void*> get_current_context() const;

  // Streams.
  Result<void*> create_stream();
  Status destroy_stream(void* handle);
  Status synchronize_stream(void* handle);
  // As above, giving up after `timeout` (hal::kWaitForever: never) with an error; the
  // stream's work goes on and can be waited for again.
  Status synchronize_stream(void* handle, hal::TimeoutMs timeout);
  // The stream named by `handle` (NULL = default stream of the current context), which
  // must belong to the calling thread's current context.
  Result<std::shared_ptr<Stream>> resolve_stream(void* handle) const;
  // Submits an NPU task to a stream (model execution and the segmented-task extension).
  Status submit_task(void* stream, std::shared_ptr<hal::SegmentedTask> task, const hal::TaskSettings& settings);

  // Events.
  Result<void*> create_event(bool timeline);
  Status destroy_event(void* handle);
  Status record_event(void* event, void* stream);
  Status reset_event(void* event, void* stream);
  Status stream_wait_event(void* stream, void* event);
  Result<hal::EventInfo> query_event(void* event) const;
  Status synchronize_event(void* event);
  Result<float> event_elapsed_ms(void* start, void* end) const;
  // A record of `event` completed by the host (complete_host_record) rather than by a
  // stream: stream waits submitted after it wait for the host (hal::Device::begin_host_record).
  Result<std::uint64_t> begin_host_record(void* event);
  Status complete_host_record(void* event, std::uint64_t record, Status error);

  // Host callbacks.
  Status subscribe_report(std::uint64_t thread_id, void* stream);
  Status unsubscribe_report(std::uint64_t thread_id, void* stream);
  Status launch_callback(HostFn fn, void* data, bool block, void* stream);
  Status process_report(std::int32_t timeout_ms);

  // The synthetic segmented-task extension (src/runtime/ext.cpp): checks `attr` (NULL =
  // defaults) for a task of `segments` segments. Errors: kInvalidParam.
  static Status check_task_attr(const SyntheticTaskAttr* attr, std::uint32_t segments);
  // Submits a task of `segments` segments that runs `fn` per segment. Precondition:
  // check_task_attr(attr, segments) succeeded.
  Status launch_segmented_task(SegmentFn fn, std::uint32_t segments, const SyntheticTaskAttr* attr, void* stream);
  // Board clock: `stream`'s next entry starts no earlier than board time `board_us`
  // (svp_acl_ext_stream_release_at). kFeatureUnsupported on the host clock.
  Status release_at(void* stream, std::uint64_t board_us);
  // Per core of the current context's device (at most `max_cores`): svp_acl_query_status.
  Result<std::vector<CoreStatus>> core_status(std::size_t max_cores);

  // AI-CPU operators of asynchronous executions.
  Status process_aicpu_task(std::int32_t timeout_ms);

  // Memory.
  Result<void*> malloc(std::size_t size, MemoryApi api, std::size_t class_id);
  Status free(const void* ptr, MemoryApi api);
  Status mem_flush(const void* ptr, std::size_t size);
  Status mem_invalidate(const void* ptr, std::size_t size);

  // Loaded models (svp_acl_mdl_load_*); emptied by finalize.
  model::ModelRegistry& models() { return models_; }
  // Loads a model image the way the NPU sees it: an image in svp_acl_rt_malloc* memory is
  // read through the device view (a cached image written without mem_flush is stale, as on
  // a board; the memory layer warns); other host memory is read directly.
  Result<std::uint32_t> load_model(const void* image, std::size_t size, const model::Scheduling& scheduling);
  // The scheduling attributes a model loaded with `config` starts with
  // (svp_acl_mdl_load_with_config). Errors: those of LoadConfig::check_loadable.
  static Result<model::Scheduling> load_scheduling(const ModelConfig& config);
  // Unloads model `id`; its profiling subscription ends first (the id may be reused by the
  // next load). Errors: kInvalidModelId.
  Status unload_model(std::uint32_t id);
  // svp_acl_ext model queries: AI-CPU layers; whether it is a recurrent net (a model with
  // LSTM/GRU/RNN layers carries its compiled time steps in flags.max_total_t).
  Result<std::uint32_t> model_aicpu_layers(std::uint32_t id) const;
  Result<bool> model_is_recurrent(std::uint32_t id) const;
  // Model dump (svp_acl_mdl_init_dump / set_dump / finalize_dump, exec::Dumper).
  static Status init_dump();
  static Status set_dump(const char* dump_cfg_path);
  static Status finalize_dump();
  // Which stream last used each work_buf (model execution's cross-stream check).
  exec::WorkBufTracker& work_bufs() { return work_bufs_; }

  // Model execution (src/runtime/execute.cpp). Executes `loaded` (model `model_id`) on
  // `stream`: builds the execution (which checks the buffers against the model, at the
  // gear the model's settings select now), maps the model's scheduling attributes to the
  // task's, records its work_buf against the stream and submits it. `sync`
  // (svp_acl_mdl_execute; `stream` must be NULL) runs AI-CPU layers inline and waits.
  Status execute(const LoadedModel& loaded, std::uint32_t model_id, ExecuteArgs args, void* stream, bool sync);
  // The dataset settings' checks against a loaded model: svp_acl_mdl_set_dynamic_batch_size
  // (`index` must be the dynamic tensor's, M), svp_acl_mdl_set_total_t. Errors: kInvalidParam.
  static Status check_batch_size(const model::Model& model, std::size_t index, std::uint64_t batch_size);
  static Status check_total_t(const model::Model& model, std::uint32_t model_id, std::uint64_t total_t);
  // svp_acl_mdl_set_dynamic_hw_size: selects the h x w resolution gear of `loaded` for the
  // descriptions and the executions created afterwards. Errors: kInvalidParam.
  static Status select_resolution(const LoadedModel& loaded, std::uint32_t model_id, std::size_t index,
                                  std::uint64_t height, std::uint64_t width);

  hal::Backend& backend() { return *backend_; }
  const RuntimeConfig& config() const { return config_; }
  // Live object counts (leak tests).
  std::size_t live_contexts() const { return contexts_.live(); }
  std::size_t live_streams() const { return streams_.live(); }
  std::size_t live_events() const { return events_.live(); }

 private:
  struct DeviceState {
    std::uint32_t refcount = 0;
    std::shared_ptr<Context> default_context;
  };

  Status check_device(std::int32_t device) const;
  Result<std::shared_ptr<Context>> current_context() const;
  Result<std::shared_ptr<Context>> make_context(std::uint32_t device, bool is_default);
  Result<std::shared_ptr<Stream>> make_stream(const Context& ctx, bool is_default);
  // Cancels the stream's queue and forgets it; the handle must already be removed.
  void teardown_stream(const Stream& s);
  void teardown_context(Context& ctx);
  Result<std::shared_ptr<Event>> resolve_event(void* handle) const;
  hal::TimeoutMs wait_timeout() const;
  // Records an execution's work_buf against `stream`; a cross-stream use that can
  // interleave is a warning, or an error in strict mode (WorkBufTracker).
  Status check_work_buf(void* stream, std::uint32_t model_id, const model::Model& model, const IoBuffer& work_buf);

  const RuntimeConfig config_;
  std::unique_ptr<hal::Backend> backend_;
  const std::uint16_t epoch_;
  Reporter reporter_;
  AiCpuQueue aicpu_;
  HandleTable<Context> contexts_;
  HandleTable<Stream> streams_;
  HandleTable<Event> events_;
  model::ModelRegistry models_;
  exec::WorkBufTracker work_bufs_;
  std::atomic<std::uint64_t> next_serial_{1};
  std::atomic<std::uint32_t> op_wait_timeout_s_{120};

  mutable std::mutex devices_mu_;  // device reference counts and default contexts
  std::vector<DeviceState> devices_;
};

}  // namespace svp::runtime
