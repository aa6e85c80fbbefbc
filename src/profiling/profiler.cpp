#include "profiling/profiler.h"

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <system_error>

#include "common/log.h"

namespace svp::profiling {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr auto kWriterPeriod = std::chrono::milliseconds(20);
constexpr auto kPipePollPeriod = std::chrono::milliseconds(2);
// A subscription being ended keeps draining while its reader makes progress; it gives
// up after this long without any.
constexpr auto kDrainStall = std::chrono::milliseconds(1000);

Status hooks_built() {
  if (kHooksBuilt) return Status::Ok();
  return Error(err::kFeatureUnsupported,
               "this library was built with SVP_ACL_PROFILING_HOOKS=OFF: profiling is compiled out");
}

bool writable_dir(const std::string& dir) {
  std::error_code ec;
  return !dir.empty() && fs::is_directory(dir, ec) && ::access(dir.c_str(), W_OK | X_OK) == 0;
}

std::string executable_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

std::string describe_types(std::uint32_t t) {
  std::string s;
  for (const char* name : data_type_names(t)) s = s + " " + name;
  return s.empty() ? " (none)" : s;
}

}  // namespace

std::atomic<std::uint32_t> Profiler::flags_{0};

std::int32_t thread_id() {
  thread_local const auto tid = static_cast<std::int32_t>(::syscall(SYS_gettid));
  return tid;
}

Profiler& Profiler::instance() {
  static Profiler* p = new Profiler();  // never destroyed: see the header
  return *p;
}

// ---- hooks -------------------------------------------------------------------------------

ExecTrace Profiler::trace_for(std::uint32_t model) {
  ExecTrace t;
  t.model = model;
  std::lock_guard<std::mutex> lock(cfg_mu_);
  t.session = session_;
  if (file_types_ & (kTaskTime | kAicoreMetrics | kAicpuTrace)) {
    const std::uint64_t n = executions_[model]++;
    if (interval_ <= 1 || n % interval_ == 0) {
      t.tasks = true;
      t.npu_ops_file = (file_types_ & (kTaskTime | kAicoreMetrics)) != 0;
      t.aicpu_ops_file = (file_types_ & kAicpuTrace) != 0;
    }
  }
  if (auto it = pipes_cfg_.find(model); it != pipes_cfg_.end()) {
    t.pipe = true;
    t.pipe_times = it->second.time_info;
  }
  return t;
}

void Profiler::record(ApiRecord r) { push(r, kFileApi, 0, false); }

void Profiler::record(OpRecord r) {
  const int file = r.to_file ? static_cast<int>(r.aicpu ? kFileAicpu : kFileAicore) : -1;
  const std::uint32_t model = r.model;
  const bool pipe = r.to_pipe;
  push(std::move(r), file, model, pipe);
}

void Profiler::on_task_event(const hal::TaskEvent& event) {
  TaskRecord r{event, 0};
  if (event.kind == hal::TaskEventKind::kAiCpuStart || event.kind == hal::TaskEventKind::kAiCpuEnd) {
    r.tid = thread_id();
  }
  push(r, kFileTask, 0, false);
}

void Profiler::push(Record r, int file, std::uint32_t pipe_model, bool to_pipe) {
  std::lock_guard<std::mutex> lock(buf_mu_);
  if (pending_.size() >= capacity_) {
    if (file >= 0) ++dropped_[static_cast<std::size_t>(file)];
    if (to_pipe) ++pipe_dropped_[pipe_model];
    return;
  }
  try {
    pending_.push_back(std::move(r));
  } catch (const std::bad_alloc&) {  // hooks run in noexcept paths: lose the record, not the process
    if (file >= 0) ++dropped_[static_cast<std::size_t>(file)];
    return;
  }
  ++pushed_;
  if (pending_.size() == capacity_ / 4) cv_.notify_one();
}

// ---- the writer ----------------------------------------------------------------------------

Status Profiler::ensure_writer() {
  std::lock_guard<std::mutex> lock(buf_mu_);
  if (writer_.joinable()) return Status::Ok();
  stop_ = false;
  try {
    writer_ = std::thread([this] { writer_main(); });
  } catch (const std::system_error& e) {
    return Error(err::kProfilingFailure, "cannot start the profiler's writer thread ({}): the host is out of threads",
                 e.what());
  }
  return Status::Ok();
}

void Profiler::stop_writer() {
  std::thread t;
  {
    std::lock_guard<std::mutex> lock(buf_mu_);
    if (!writer_.joinable()) return;
    stop_ = true;
    t = std::move(writer_);
  }
  cv_.notify_one();
  t.join();
}

void Profiler::writer_main() {
  // A reader that closed its end of a pipe makes write(2) raise SIGPIPE, whose default
  // action kills the process: the writer blocks it and gets EPIPE instead.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::vector<Record> batch;
  std::unique_lock<std::mutex> lock(buf_mu_);
  for (;;) {
    cv_.wait_for(lock, pipes_busy_ ? kPipePollPeriod : kWriterPeriod,
                 [&] { return stop_ || (!held_ && (urgent_ || pending_.size() >= capacity_ / 4)); });
    if (held_ && !stop_) continue;
    batch.swap(pending_);
    urgent_ = false;
    const std::uint64_t upto = pushed_;
    const bool stopping = stop_;
    lock.unlock();
    bool busy = false;
    {
      std::lock_guard<std::mutex> io(io_mu_);
      process(batch);
      for (auto& [model, pipe] : pipes_) {
        pipe->pump();
        busy = busy || !pipe->idle();
      }
      if (job_) job_->flush();
    }
    batch.clear();
    lock.lock();
    pipes_busy_ = busy;
    done_ = upto;
    done_cv_.notify_all();
    if (stopping && pending_.empty()) return;
  }
}

void Profiler::process(std::vector<Record>& batch) {
  auto device_kept = [&](std::uint32_t d) { return d < job_devices_.size() && job_devices_[d]; };
  for (Record& rec : batch) {
    if (auto* api = std::get_if<ApiRecord>(&rec)) {
      if (job_ && (job_->data_types() & kAclApi) && api->start >= job_->start_ns()) job_->write(*api);
    } else if (auto* task = std::get_if<TaskRecord>(&rec)) {
      if (job_ && (task->event.tag >> 32) == job_session_ && device_kept(task->event.device)) job_->write(*task);
    } else if (auto* op = std::get_if<OpRecord>(&rec)) {
      if (op->to_file && job_ && op->session == job_session_ && device_kept(op->device)) job_->write(*op);
      if (op->to_pipe) {
        // Executions submitted before an unsubscribe may still finish afterwards; their
        // operators have no pipe any more and are not written anywhere.
        if (auto it = pipes_.find(op->model); it != pipes_.end()) it->second->enqueue(*op);
      }
    }
  }
}

void Profiler::flush() {
  std::unique_lock<std::mutex> lock(buf_mu_);
  if (!writer_.joinable()) return;
  const std::uint64_t target = pushed_;
  urgent_ = true;
  cv_.notify_one();
  done_cv_.wait(lock, [&] { return done_ >= target || !writer_.joinable(); });
}

void Profiler::refresh_flags() {
  std::uint32_t f = 0;
  if (file_types_ & kAclApi) f |= kFlagApi;
  if ((file_types_ & (kTaskTime | kAicoreMetrics | kAicpuTrace)) || !pipes_cfg_.empty()) f |= kFlagExec;
  flags_.store(f, std::memory_order_relaxed);
}

// ---- sessions ------------------------------------------------------------------------------

Status Profiler::open_session(const std::string& root, JobInfo info) {
  {
    std::lock_guard<std::mutex> names(names_mu_);
    session_names_ = live_names_;
  }
  info.devices.clear();
  info.board_clock.clear();
  for (const DeviceInfo& d : devices_) {
    info.devices.emplace_back(d.id, d.cores);
    info.board_clock.push_back(d.board_clock);
  }
  auto job = JobWriter::create(root, info);
  if (!job.ok()) return job.status();
  SVP_RETURN_IF_ERROR(ensure_writer());
  {
    std::lock_guard<std::mutex> lock(buf_mu_);
    dropped_ = {};
  }
  std::uint32_t session = 0;
  {
    std::lock_guard<std::mutex> cfg(cfg_mu_);
    session = ++session_;
  }
  std::lock_guard<std::mutex> io(io_mu_);
  last_job_dir_ = (*job)->dir();
  job_ = std::move(*job);
  job_session_ = session;
  SVP_LOG_INFO("profiling: collecting{} into {}", describe_types(info.data_types), last_job_dir_);
  return Status::Ok();
}

void Profiler::close_session(const char* why) {
  {
    std::lock_guard<std::mutex> cfg(cfg_mu_);
    file_types_ = 0;
    executions_.clear();
    refresh_flags();
  }
  flush();
  JobCounts dropped;
  {
    std::lock_guard<std::mutex> lock(buf_mu_);
    dropped = dropped_;
  }
  std::lock_guard<std::mutex> io(io_mu_);
  if (!job_) return;
  std::uint64_t lost = 0;
  for (auto n : dropped) lost += n;
  {
    std::lock_guard<std::mutex> names(names_mu_);
    job_->set_model_names(session_names_);
  }
  Status st = job_->finish(dropped);
  if (!st.ok()) {
    SVP_LOG_ERROR("profiling: finishing {} failed: {}", job_->dir(), st.message());
  } else if (lost > 0) {
    SVP_LOG_WARN("profiling: {} records were dropped (the collector's buffer was full); counts are in {}/end_info.json",
                 lost, job_->dir());
  }
  SVP_LOG_INFO("profiling: data written to {} ({})", job_->dir(), why);
  job_.reset();
  job_devices_.clear();
}

Status Profiler::attach(std::vector<DeviceInfo> devices, const JsonSettings& json) {
  std::lock_guard<std::mutex> lock(state_mu_);
  devices_ = std::move(devices);
  mode_ = Mode::kNone;
  if (!json.on) return Status::Ok();
  SVP_RETURN_IF_ERROR(hooks_built());
  // The seed: a relative output is relative to the working directory; a directory that
  // does not exist falls back to the application's executable directory. We create a
  // missing one instead (docs/profiling.md): data landing beside the executable is what
  // users then hunt for. The fallback stays for a directory that cannot be made or written,
  // logged as an error because nothing else would show it at the default log level.
  if (!json.output.empty()) {
    std::error_code ec;
    if (!fs::exists(json.output, ec) && fs::create_directories(json.output, ec)) {
      SVP_LOG_INFO("profiling: created acl.json profiler.output \"{}\"", json.output);
    }
  }
  std::vector<std::pair<std::string, const char*>> candidates;
  if (!json.output.empty()) candidates.emplace_back(json.output, "profiler.output");
  candidates.emplace_back(executable_dir(), "the application's directory");
  candidates.emplace_back(fs::current_path().string(), "the working directory");
  std::string root;
  for (const auto& [dir, what] : candidates) {
    if (writable_dir(dir)) {
      root = dir;
      if (!json.output.empty() && dir != json.output) {
        SVP_LOG_ERROR("profiling: acl.json profiler.output \"{}\" is not a writable directory and cannot be "
                      "created; data goes to {} ({})",
                      json.output, dir, what);
      }
      break;
    }
  }
  if (root.empty()) {
    return Error(err::kProfilingFailure,
                 "acl.json profiler.output \"{}\", the application's directory and the working directory are all "
                 "unwritable: nowhere to write profiling data",
                 json.output);
  }
  JobInfo info;
  info.source = "acl.json";
  info.data_types = kTaskTime | (json.aic_metrics ? kAicoreMetrics : 0u) | (json.aicpu ? kAicpuTrace : 0u) |
                    (json.acl_api ? kAclApi : 0u);
  info.interval = json.interval == 0 ? 1 : json.interval;
  SVP_RETURN_IF_ERROR(open_session(root, info));
  {
    std::lock_guard<std::mutex> io(io_mu_);
    job_devices_.assign(devices_.size(), true);
  }
  mode_ = Mode::kJson;
  std::lock_guard<std::mutex> cfg(cfg_mu_);
  file_types_ = info.data_types;
  interval_ = info.interval;
  executions_.clear();
  refresh_flags();
  return Status::Ok();
}

void Profiler::detach() {
  std::lock_guard<std::mutex> lock(state_mu_);
  while (!subscribed_.empty()) end_subscription(subscribed_.begin()->first, "svp_acl_finalize");
  if (mode_ == Mode::kApi && !started_.empty()) {
    SVP_LOG_WARN("profiling: svp_acl_finalize while svp_acl_prof_start was not stopped; the session is ended");
  }
  if (mode_ != Mode::kNone) close_session("svp_acl_finalize");
  started_.clear();
  ended_by_unload_.clear();
  mode_ = Mode::kNone;
  stop_writer();
  std::lock_guard<std::mutex> buf(buf_mu_);
  pending_.clear();  // late records of executions decided before the end
  pipe_dropped_.clear();
}

void Profiler::model_loaded(std::uint32_t model, const std::string& name) {
  std::lock_guard<std::mutex> lock(names_mu_);
  live_names_[model] = name;
  // An id reused within a session keeps both names: the JOB may hold executions of each.
  std::string& n = session_names_[model];
  if (n.empty() || n == name) {
    n = name;
  } else if (n.size() < 512) {
    n += " | " + name;
  }
}

void Profiler::model_unloaded(std::uint32_t model) {
  {
    std::lock_guard<std::mutex> names(names_mu_);
    live_names_.erase(model);
  }
  std::lock_guard<std::mutex> lock(state_mu_);
  if (subscribed_.count(model) == 0) return;
  // The seed's example unloads first and unsubscribes afterwards: the pipe is let go now
  // (the id may be reused by the next load), and that later unsubscribe still succeeds.
  SVP_LOG_INFO("profiling: model {} was unloaded while subscribed; its subscription ends", model);
  end_subscription(model, "model unloaded");
  ended_by_unload_.insert(model);
}

// ---- file mode API --------------------------------------------------------------------------

Status Profiler::init(const std::string& path) {
  std::lock_guard<std::mutex> lock(state_mu_);
  if (mode_ == Mode::kJson) {
    return Error(err::kProfApiConflict, "profiling is already enabled by the acl.json \"profiler\" section");
  }
  if (!subscribed_.empty()) {
    return Error(err::kProfApiConflict, "models are subscribed (subscribe mode); file-mode profiling cannot start");
  }
  if (mode_ == Mode::kApi) return Error(err::kProfAlreadyRun, "svp_acl_prof_init was already called");
  SVP_RETURN_IF_ERROR(hooks_built());
  if (!writable_dir(path)) {
    return Error(err::kInvalidParam, "result path \"{}\" is not an existing writable directory", path);
  }
  api_root_ = path;
  mode_ = Mode::kApi;
  return Status::Ok();
}

Status Profiler::start(const FileConfig& config) {
  std::lock_guard<std::mutex> lock(state_mu_);
  if (mode_ == Mode::kJson) {
    return Error(err::kProfApiConflict, "profiling is already enabled by the acl.json \"profiler\" section");
  }
  if (mode_ != Mode::kApi) return Error(err::kProfNotRun, "svp_acl_prof_init has not been called");
  for (std::uint32_t d : config.devices) {
    if (d >= devices_.size()) {
      return Error(err::kInvalidParam, "device {} in the config does not exist ({} device(s))", d, devices_.size());
    }
    for (const FileConfig& s : started_) {
      if (std::find(s.devices.begin(), s.devices.end(), d) != s.devices.end()) {
        return Error(err::kProfAlreadyRun, "profiling is already started on device {} (svp_acl_prof_stop it first)", d);
      }
    }
  }
  const auto types = static_cast<std::uint32_t>(config.data_types);
  bool fresh = false;
  {
    std::lock_guard<std::mutex> io(io_mu_);
    fresh = !job_;
  }
  if (fresh) {
    JobInfo info;
    info.source = "api";
    info.data_types = types;
    SVP_RETURN_IF_ERROR(open_session(api_root_, info));
  }
  {
    std::lock_guard<std::mutex> io(io_mu_);
    if (!fresh) job_->enable(types);
    job_devices_.resize(devices_.size(), false);
    for (std::uint32_t d : config.devices) job_devices_[d] = true;
  }
  started_.push_back(config);
  std::lock_guard<std::mutex> cfg(cfg_mu_);
  file_types_ |= types;
  interval_ = 1;
  refresh_flags();
  return Status::Ok();
}

Status Profiler::stop(const FileConfig& config) {
  std::lock_guard<std::mutex> lock(state_mu_);
  if (mode_ == Mode::kJson) {
    return Error(err::kProfApiConflict, "profiling is enabled by the acl.json \"profiler\" section");
  }
  if (mode_ != Mode::kApi || started_.empty()) return Error(err::kProfNotRun, "profiling has not been started");
  auto it = std::find(started_.begin(), started_.end(), config);
  if (it == started_.end()) {
    return Error(err::kInvalidParam, "this config was not started (pass the config given to svp_acl_prof_start)");
  }
  started_.erase(it);
  std::uint32_t types = 0;
  for (const FileConfig& s : started_) types |= static_cast<std::uint32_t>(s.data_types);
  {
    std::lock_guard<std::mutex> cfg(cfg_mu_);
    file_types_ = types;
    refresh_flags();
  }
  // Records of work done while the config ran are kept; the devices stop being recorded
  // once they are written.
  flush();
  std::lock_guard<std::mutex> io(io_mu_);
  for (std::uint32_t d : config.devices) {
    if (d < job_devices_.size()) job_devices_[d] = false;
  }
  return Status::Ok();
}

Status Profiler::finalize() {
  std::lock_guard<std::mutex> lock(state_mu_);
  if (mode_ == Mode::kJson) {
    return Error(err::kProfApiConflict, "profiling is enabled by the acl.json \"profiler\" section");
  }
  if (mode_ != Mode::kApi) return Error(err::kProfNotRun, "svp_acl_prof_init has not been called");
  if (!started_.empty()) {
    SVP_LOG_WARN("profiling: svp_acl_prof_finalize with {} config(s) still started; they are stopped", started_.size());
    started_.clear();
  }
  close_session("svp_acl_prof_finalize");
  mode_ = Mode::kNone;
  return Status::Ok();
}

bool Profiler::is_started(const FileConfig& config) {
  std::lock_guard<std::mutex> lock(state_mu_);
  return std::find(started_.begin(), started_.end(), config) != started_.end();
}

// ---- subscribe mode -------------------------------------------------------------------------

Status Profiler::subscribe(std::uint32_t model, const SubscribeConfig& config) {
  std::lock_guard<std::mutex> lock(state_mu_);
  if (mode_ != Mode::kNone) {
    return Error(err::kProfApiConflict, "file-mode profiling ({}) is active; subscribe mode cannot be used with it",
                 mode_ == Mode::kJson ? "acl.json" : "svp_acl_prof_init");
  }
  SVP_RETURN_IF_ERROR(hooks_built());
  ended_by_unload_.erase(model);  // a new model under a reused id
  if (subscribed_.count(model) != 0) {
    return Error(err::kProfRepeatSubscribe, "model {} is already subscribed", model);
  }
  std::size_t capacity = 0;
  {
    std::lock_guard<std::mutex> io(io_mu_);
    capacity = pipe_capacity_;
  }
  auto pipe = PipeSubscription::open(config.fd, model, capacity);
  if (!pipe.ok()) return pipe.status();
  SVP_RETURN_IF_ERROR(ensure_writer());
  {
    std::lock_guard<std::mutex> io(io_mu_);
    pipes_[model] = std::move(*pipe);
  }
  subscribed_[model] = config;
  std::lock_guard<std::mutex> cfg(cfg_mu_);
  pipes_cfg_[model] = PipeRef{config.time_info};
  refresh_flags();
  return Status::Ok();
}

Status Profiler::unsubscribe(std::uint32_t model) {
  std::lock_guard<std::mutex> lock(state_mu_);
  if (ended_by_unload_.erase(model) != 0) return Status::Ok();
  if (subscribed_.count(model) == 0) return Error(err::kInvalidModelId, "model {} is not subscribed", model);
  end_subscription(model, "unsubscribed");
  return Status::Ok();
}

void Profiler::end_subscription(std::uint32_t model, const char* why) {
  subscribed_.erase(model);
  {
    std::lock_guard<std::mutex> cfg(cfg_mu_);
    pipes_cfg_.erase(model);
    refresh_flags();
  }
  flush();  // every operator recorded so far is now queued on the pipe
  // Drain while the reader keeps reading; a reader that stopped reading (but did not
  // close) costs at most kDrainStall, then the rest is dropped and counted.
  auto last_progress = Clock::now();
  std::uint64_t last_written = 0;
  for (;;) {
    {
      std::lock_guard<std::mutex> io(io_mu_);
      auto it = pipes_.find(model);
      if (it == pipes_.end() || it->second->idle()) break;
      it->second->pump();
      if (it->second->idle()) break;
      if (it->second->written() != last_written) {
        last_written = it->second->written();
        last_progress = Clock::now();
      }
    }
    if (Clock::now() - last_progress > kDrainStall) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::unique_ptr<PipeSubscription> pipe;
  {
    std::lock_guard<std::mutex> io(io_mu_);
    auto it = pipes_.find(model);
    if (it != pipes_.end()) {
      pipe = std::move(it->second);
      pipes_.erase(it);
    }
  }
  std::uint64_t buffer_drops = 0;
  {
    std::lock_guard<std::mutex> buf(buf_mu_);
    if (auto it = pipe_dropped_.find(model); it != pipe_dropped_.end()) {
      buffer_drops = it->second;
      pipe_dropped_.erase(it);
    }
  }
  if (!pipe) return;
  const std::uint64_t dropped = pipe->dropped() + buffer_drops;
  if (dropped > 0) {
    SVP_LOG_WARN("profiling: subscription of model {} ended ({}): {} operator records written, {} dropped{}", model,
                 why, pipe->written(), dropped,
                 pipe->broken() ? " (the pipe's reader went away)" : " (the reader did not keep up)");
  } else {
    SVP_LOG_INFO("profiling: subscription of model {} ended ({}): {} operator records written", model, why,
                 pipe->written());
  }
}

// ---- diagnostics ----------------------------------------------------------------------------

void Profiler::hold_writer(bool hold) {
  {
    std::lock_guard<std::mutex> lock(buf_mu_);
    held_ = hold;
  }
  cv_.notify_one();
}

void Profiler::set_capacities(std::size_t buffer_records, std::size_t pipe_records) {
  {
    std::lock_guard<std::mutex> buf(buf_mu_);
    capacity_ = std::max<std::size_t>(1, buffer_records);
  }
  std::lock_guard<std::mutex> io(io_mu_);
  pipe_capacity_ = std::max<std::size_t>(1, pipe_records);
}

std::string Profiler::last_job_dir() const {
  std::lock_guard<std::mutex> io(io_mu_);
  return last_job_dir_;
}

std::uint64_t Profiler::dropped_records() const {
  std::uint64_t n = 0;
  {
    std::lock_guard<std::mutex> buf(buf_mu_);
    for (auto d : dropped_) n += d;
    for (const auto& [m, d] : pipe_dropped_) n += d;
  }
  std::lock_guard<std::mutex> io(io_mu_);
  for (const auto& [m, p] : pipes_) n += p->dropped();
  return n;
}

}  // namespace svp::profiling
