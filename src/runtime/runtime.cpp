// Process lifetime (init/finalize), devices and memory.
#include "runtime/runtime.h"

#include <pthread.h>

#include <cstring>
#include <string>

#include "common/log.h"
#include "exec/dumper.h"
#include "profiling/profiler.h"
#include "target/device_profile.h"

namespace svp::runtime {
namespace {

// What a model is called in profiles: the .om file svp_atc wrote (--output in the command
// line the image records; applications load images from memory, so the runtime never sees
// a path), else the model's own name, else "".
std::string model_label(const model::Program& p) {
  const std::string& cl = p.compiler.command_line;
  for (const char* flag : {"--output=", "--output "}) {
    const auto at = cl.find(flag);
    if (at == std::string::npos) continue;
    std::string out = cl.substr(at + std::strlen(flag));
    out = out.substr(0, out.find(' '));
    out = out.substr(out.find_last_of('/') == std::string::npos ? 0 : out.find_last_of('/') + 1);
    if (out.empty()) continue;
    return out.size() > 3 && out.compare(out.size() - 3, 3, ".om") == 0 ? out : out + ".om";
  }
  return p.name;
}

enum class Phase { kNever, kLive, kFinalized };

std::mutex g_lifecycle_mu;  // serialises init and finalize
Phase g_phase = Phase::kNever;
std::uint16_t g_epoch = 0;
std::shared_ptr<Runtime> g_runtime;  // read with std::atomic_load

}  // namespace

// The calling thread's current context handle (validated on every use).
thread_local void* t_current_context = nullptr;

Status Runtime::init(const char* config_path) {
  log::reload_level_from_env();  // before the file's warnings are logged
  auto config = load_config(config_path);
  if (!config.ok()) {
    std::lock_guard<std::mutex> lock(g_lifecycle_mu);
    if (g_phase == Phase::kLive) return Error(err::kRepeatInitialize, "svp_acl_init was already called");
    return config.status();
  }
  return init_with_config(std::move(*config));
}

Status Runtime::init_with_config(RuntimeConfig config) {
  std::lock_guard<std::mutex> lock(g_lifecycle_mu);
  log::reload_level_from_env();
  if (g_phase == Phase::kLive) return Error(err::kRepeatInitialize, "svp_acl_init was already called");
  auto backend = hal::create_backend(config.backend);
  if (!backend.ok()) return backend.status();
  ++g_epoch;
  if (g_epoch == 0) g_epoch = 1;
  auto rt = std::make_shared<Runtime>(std::move(config), std::move(*backend), g_epoch);
  std::vector<profiling::DeviceInfo> devices;
  const hal::BackendConfig& b = rt->config().backend;
  for (std::uint32_t i = 0; i < rt->device_count(); ++i) {
    devices.push_back({i, rt->backend().device(i).core_count(), b.board_clock ? b.board_target : std::string()});
  }
  SVP_RETURN_IF_ERROR(profiling::Profiler::instance().attach(std::move(devices), rt->config().profiler));
  if (rt->config().dump) exec::Dumper::instance().start_from_acl_json(*rt->config().dump);
  std::atomic_store(&g_runtime, std::move(rt));
  g_phase = Phase::kLive;
  SVP_LOG_INFO("initialised ({} device(s), {} core(s) each)", g_runtime->device_count(),
               g_runtime->backend().device(0).core_count());
  return Status::Ok();
}

Status Runtime::finalize() {
  std::shared_ptr<Runtime> rt;
  {
    std::lock_guard<std::mutex> lock(g_lifecycle_mu);
    if (g_phase == Phase::kFinalized) return Error(err::kRepeatFinalize, "svp_acl_finalize was already called");
    if (g_phase == Phase::kNever) return Error(err::kUninitialize, "svp_acl_finalize before svp_acl_init");
    rt = std::atomic_exchange(&g_runtime, std::shared_ptr<Runtime>());
    g_phase = Phase::kFinalized;
  }
  // Wake everything still blocked on this runtime; the object itself goes away when the
  // last in-flight API call lets go of it.
  rt->reporter_.shutdown();
  for (auto& ctx : rt->contexts_.all()) {
    if (rt->contexts_.take(ctx->handle).ok()) rt->teardown_context(*ctx);
  }
  for (auto& ev : rt->events_.all()) {
    if (rt->events_.take(ev->handle).ok()) (void)rt->backend_->device(ev->device).destroy_event(ev->id);
  }
  rt->aicpu_.shutdown();
  // After the streams are gone: every task has retired, so the session's files are complete.
  profiling::Profiler::instance().detach();
  exec::Dumper::instance().shutdown();  // every dumped tensor is on disk when finalize returns
  rt->models_.clear();
  t_current_context = nullptr;
  return Status::Ok();
}

Result<std::shared_ptr<Runtime>> Runtime::get() {
  std::shared_ptr<Runtime> rt = std::atomic_load(&g_runtime);
  if (!rt) return Error(err::kUninitialize, "svp_acl_init has not been called (or svp_acl_finalize already was)");
  return rt;
}

Runtime::Runtime(RuntimeConfig config, std::unique_ptr<hal::Backend> backend, std::uint16_t epoch)
    : config_(std::move(config)),
      backend_(std::move(backend)),
      epoch_(epoch),
      reporter_(backend_.get(), config_.backend.wait),
      aicpu_(backend_.get(), config_.backend.wait),
      contexts_(0x9, epoch, "context"),
      streams_(0xA, epoch, "stream"),
      events_(0xB, epoch, "event"),
      devices_(backend_->device_count()) {
  for (std::uint32_t i = 0; i < backend_->device_count(); ++i) {
    backend_->device(i).set_report_sink(&reporter_);
    backend_->device(i).set_aicpu_sink(&aicpu_);
    backend_->device(i).set_task_observer(&profiling::Profiler::instance());
  }
}

Runtime::~Runtime() {
  reporter_.shutdown();
  aicpu_.shutdown();
  for (std::uint32_t i = 0; i < backend_->device_count(); ++i) {
    backend_->device(i).set_report_sink(nullptr);
    backend_->device(i).set_aicpu_sink(nullptr);
    backend_->device(i).set_task_observer(nullptr);
  }
  backend_.reset();
}

hal::TimeoutMs Runtime::wait_timeout() const {
  const std::uint32_t s = op_wait_timeout_s_.load();
  return s == 0 ? hal::kWaitForever : static_cast<hal::TimeoutMs>(s) * 1000;
}

Status Runtime::check_device(std::int32_t device) const {
  if (device < 0 || static_cast<std::uint32_t>(device) >= backend_->device_count()) {
    return Error(err::kInvalidDevice, "device id {} is out of range [0, {})", device, backend_->device_count());
  }
  return Status::Ok();
}

Status Runtime::set_device(std::int32_t device) {
  SVP_RETURN_IF_ERROR(check_device(device));
  std::lock_guard<std::mutex> lock(devices_mu_);
  DeviceState& ds = devices_[static_cast<std::size_t>(device)];
  if (!ds.default_context) {
    auto ctx = make_context(static_cast<std::uint32_t>(device), true);
    if (!ctx.ok()) return ctx.status();
    ds.default_context = std::move(*ctx);
  }
  ++ds.refcount;
  t_current_context = ds.default_context->handle;
  return Status::Ok();
}

Status Runtime::reset_device(std::int32_t device) {
  SVP_RETURN_IF_ERROR(check_device(device));
  std::shared_ptr<Context> doomed;
  {
    std::lock_guard<std::mutex> lock(devices_mu_);
    DeviceState& ds = devices_[static_cast<std::size_t>(device)];
    if (ds.refcount == 0) {
      SVP_LOG_WARN("reset_device({}): the device was not set by svp_acl_rt_set_device; nothing to release", device);
      return Status::Ok();
    }
    if (--ds.refcount == 0) doomed = std::move(ds.default_context);
  }
  if (doomed) {
    if (t_current_context == doomed->handle) t_current_context = nullptr;
    if (contexts_.take(doomed->handle).ok()) teardown_context(*doomed);
  }
  return Status::Ok();
}

Result<std::int32_t> Runtime::get_device() const {
  auto ctx = current_context();
  if (!ctx.ok()) return ctx.status();
  return static_cast<std::int32_t>((*ctx)->device);
}

Status Runtime::synchronize_device() {
  auto ctx = current_context();
  if (!ctx.ok()) return ctx.status();
  if (const Reporter::Running r = Reporter::running_callback(); r.active && r.device == (*ctx)->device) {
    return Error(err::kRtFailure,
                 "synchronize_device: called inside a callback of a stream of that device, which cannot finish "
                 "before the callback returns (a deadlock); synchronize from another thread, or after process_report");
  }
  return backend_->device((*ctx)->device).synchronize_all(wait_timeout());
}

Result<std::vector<hal::Device::CoreSample>> Runtime::core_usage(hal::Nanos window) {
  auto ctx = current_context();
  if (!ctx.ok()) return ctx.status();
  return backend_->device((*ctx)->device).core_usage(window);
}

Result<void*> Runtime::malloc(std::size_t size, MemoryApi api, std::size_t class_id) {
  if (size == 0) return Error(err::kInvalidParam, "allocation size must be greater than 0");
  hal::MemKind kind = hal::MemKind::kUncached;
  switch (api) {
    case MemoryApi::kMalloc: kind = hal::MemKind::kUncached; break;
    case MemoryApi::kMallocCached: kind = hal::MemKind::kCached; break;
    case MemoryApi::kMallocHost: kind = hal::MemKind::kHost; break;
    case MemoryApi::kMallocSec: kind = hal::MemKind::kSecure; break;
  }
  return backend_->memory().allocate(size, kind, class_id);
}

Status Runtime::free(const void* ptr, MemoryApi api) {
  using K = hal::MemKind;
  switch (api) {
    case MemoryApi::kMallocSec: return backend_->memory().release(ptr, {K::kSecure});
    case MemoryApi::kMallocHost: return backend_->memory().release(ptr, {K::kHost, K::kUncached, K::kCached});
    default: return backend_->memory().release(ptr, {K::kUncached, K::kCached, K::kHost});
  }
}

Status Runtime::process_aicpu_task(std::int32_t timeout_ms) {
  if (timeout_ms < -1) {
    return Error(err::kInvalidParam, "process_aicpu_task: timeout {} ms is invalid (-1 or >= 0)", timeout_ms);
  }
  if (streams_.live() == 0) {
    return Error(err::kInvalidResourceHandle,
                 "process_aicpu_task: the process has no stream yet (set a device or create a context first)");
  }
  return aicpu_.process(timeout_ms);
}

Status Runtime::mem_flush(const void* ptr, std::size_t size) { return backend_->memory().flush(ptr, size); }

Status Runtime::mem_invalidate(const void* ptr, std::size_t size) { return backend_->memory().invalidate(ptr, size); }

Result<std::uint32_t> Runtime::load_model(const void* image, std::size_t size, const model::Scheduling& scheduling) {
  const void* view = image;
  hal::Memory& memory = backend_->memory();
  if (image != nullptr && size > 0 && memory.contains(image, size)) {
    auto dev = memory.device_read(image, size);
    if (!dev.ok()) return dev.status();  // strict mode: an unflushed cached image
    view = *dev;
  }
  // Kernel fast paths with acl.json's softnpu.kernel_threads (fixed for the model's life).
  kernels::CompileOptions options;
  options.threads = static_cast<int>(config_.kernel_threads);
  options.spin = config_.kernel_spin;
  // Board clock: each segment's predicted board time on the configured target, once here.
  const target::DeviceProfile* board = nullptr;
  if (config_.backend.board_clock) {
    board = target::find_profile(config_.backend.board_target);
    if (board == nullptr) board = &target::default_profile();
  }
  auto id = models_.load(view, size, scheduling, options, board);
  if (id.ok()) {
    if (auto m = models_.get(*id); m.ok()) profiling::Profiler::instance().model_loaded(*id, model_label((*m)->program));
  }
  return id;
}

Result<model::Scheduling> Runtime::load_scheduling(const ModelConfig& config) {
  SVP_RETURN_IF_ERROR(config.check_loadable());
  model::Scheduling scheduling;
  config.apply_scheduling(&scheduling);
  return scheduling;
}

Status Runtime::unload_model(std::uint32_t id) {
  // The subscription ends first: the id may be reused by the next load.
  SVP_RETURN_IF_ERROR(models_.lookup(id).status());
  profiling::Profiler::instance().model_unloaded(id);
  return models_.unload(id);
}

Result<std::uint32_t> Runtime::model_aicpu_layers(std::uint32_t id) const {
  auto m = models_.get(id);
  if (!m.ok()) return m.status();
  return (*m)->aicpu_layers;
}

Result<bool> Runtime::model_is_recurrent(std::uint32_t id) const {
  auto m = models_.get(id);
  if (!m.ok()) return m.status();
  return (*m)->program.flags.max_total_t > 0;
}

Status Runtime::init_dump() { return exec::Dumper::instance().api_init(); }
Status Runtime::set_dump(const char* dump_cfg_path) { return exec::Dumper::instance().api_set(dump_cfg_path); }
Status Runtime::finalize_dump() { return exec::Dumper::instance().api_finalize(); }

}  // namespace svp::runtime
