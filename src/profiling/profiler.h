// The profiler: the state machine of the three profiling modes and the collector that
// moves records from the hooks to the JOB files and subscription pipes.
//
// Modes (docs/profiling.md): file mode, started by acl.json at svp_acl_init or by
// svp_acl_prof_init/start, writes one JOB directory per session; subscribe mode writes
// operator records of subscribed models to application pipes. The two exclude each other.
//
// Threads and costs:
//   * Hooks (api_enabled/begin_execution/record/on_task_event) run on application
//     threads, NPU core threads and under the device lock. When nothing is being
//     profiled they cost one relaxed atomic load. When something is, a record is moved
//     into a bounded buffer under a short mutex; when the buffer is full the record is
//     dropped and counted — a hook never waits for the disk or a pipe.
//   * One writer thread drains the buffer into the JOB files and the pipes' queues and
//     writes pipes only as far as they accept without blocking.
//   * Control calls (the svp_acl_prof_* API, svp_acl_init/finalize, model unload) are
//     serialised among themselves; stopping a session or a subscription first waits until
//     the writer has handled every record produced before the call.
// Lock order: state_mu_ → cfg_mu_ | io_mu_ → buf_mu_; the device lock → buf_mu_.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/status.h"
#include "hal/hal.h"
#include "profiling/job_writer.h"
#include "profiling/pipe_subscription.h"
#include "profiling/records.h"

namespace svp::profiling {

// acl.json "profiler" (validated by the runtime's config parser).
struct JsonSettings {
  bool on = false;
  std::string output;        // as written; "" = absent
  std::uint32_t interval = 0;  // save once every `interval` inferences; 0 or 1 = every one
  bool aic_metrics = false;
  bool aicpu = false;
  bool acl_api = false;
};

// svp_acl_prof_config.
struct FileConfig {
  std::vector<std::uint32_t> devices;
  std::uint32_t aicore_metrics = 0;
  std::uint64_t data_types = 0;
  bool operator==(const FileConfig& o) const {
    return devices == o.devices && aicore_metrics == o.aicore_metrics && data_types == o.data_types;
  }
};

// svp_acl_prof_subscribe_config.
struct SubscribeConfig {
  bool time_info = true;
  std::uint32_t aicore_metrics = 0;
  int fd = -1;
};

struct DeviceInfo {
  std::uint32_t id = 0;
  std::uint32_t cores = 1;
  // The board clock's target (acl.json softnpu.clock "board"), empty on the host clock:
  // the device's task records then carry predicted board time (info.json says so).
  std::string board_clock;
};

class Profiler final : public hal::TaskObserver {
 public:
  // The process-wide instance (never destroyed, so late hooks on exiting threads stay safe).
  static Profiler& instance();

  // ---- hooks -------------------------------------------------------------------------
  static bool api_enabled() { return (flags_.load(std::memory_order_relaxed) & kFlagApi) != 0; }
  // What an execution of `model` submitted now records (inline: with nothing being
  // profiled this is the only profiling cost of an execution besides two bool tests).
  static ExecTrace begin_execution(std::uint32_t model) {
    if (!kHooksBuilt || (flags_.load(std::memory_order_relaxed) & kFlagExec) == 0) return ExecTrace{};
    return instance().trace_for(model);
  }
  void record(ApiRecord r);
  void record(OpRecord r);
  void on_task_event(const hal::TaskEvent& event) override;

  // ---- runtime lifecycle ---------------------------------------------------------------
  // svp_acl_init: remembers the devices and starts the acl.json session if it is on.
  // Errors: SVP_ACL_ERROR_PROFILING_FAILURE when no output directory can be written.
  Status attach(std::vector<DeviceInfo> devices, const JsonSettings& json);
  // svp_acl_finalize: ends the file session (writing end_info.json) and every
  // subscription, and stops the writer thread.
  void detach();
  // A model was unloaded: its subscription (if any) ends, with a warning.
  void model_unloaded(std::uint32_t model);
  // A model was loaded: `name` (its .om file name as svp_atc wrote it, else the model's
  // own name) labels it in the JOB's info.json, so svp_prof names models, not just ids.
  // Recorded whether or not a session is open (a model loaded before it starts runs in it).
  void model_loaded(std::uint32_t model, const std::string& name);

  // ---- file mode (svp_acl_prof_init/start/stop/finalize) ---------------------------------
  Status init(const std::string& result_path);
  Status start(const FileConfig& config);
  Status stop(const FileConfig& config);
  Status finalize();
  bool is_started(const FileConfig& config);

  // ---- subscribe mode ------------------------------------------------------------------
  Status subscribe(std::uint32_t model, const SubscribeConfig& config);
  Status unsubscribe(std::uint32_t model);

  // ---- diagnostics and tests -------------------------------------------------------------
  // Buffer capacity in records (default 65536) and a subscription's queue (default 8192).
  void set_capacities(std::size_t buffer_records, std::size_t pipe_records);
  // Tests: while held, the writer takes nothing from the buffer (so a full buffer is
  // certain, not a race with the writer). Release before stop/finalize/unsubscribe.
  void hold_writer(bool hold);
  // The JOB directory of the current or last file session ("" if none).
  std::string last_job_dir() const;
  // Records dropped since the current session or subscriptions started (all channels).
  std::uint64_t dropped_records() const;

 private:
  Profiler() = default;
  ExecTrace trace_for(std::uint32_t model);
  enum : std::uint32_t { kFlagApi = 1, kFlagExec = 2 };
  enum class Mode { kNone, kJson, kApi };

  struct PipeRef {
    bool time_info = true;
  };

  void push(Record r, int file, std::uint32_t pipe_model, bool to_pipe);
  Status ensure_writer();  // err::kProfilingFailure when the thread cannot start
  void stop_writer();
  void writer_main();
  void process(std::vector<Record>& batch);  // requires io_mu_
  // Waits until the writer handled every record pushed before the call.
  void flush();
  void refresh_flags();  // requires cfg_mu_
  Status open_session(const std::string& root, JobInfo info);  // requires state_mu_
  void close_session(const char* why);                       // requires state_mu_
  void end_subscription(std::uint32_t model, const char* why);  // requires state_mu_

  static std::atomic<std::uint32_t> flags_;

  // Control state.
  std::mutex state_mu_;
  Mode mode_ = Mode::kNone;
  std::string api_root_;
  std::vector<FileConfig> started_;
  std::vector<DeviceInfo> devices_;
  std::map<std::uint32_t, SubscribeConfig> subscribed_;
  std::set<std::uint32_t> ended_by_unload_;  // unsubscribe of these succeeds once

  // What executions record (read by begin_execution on application threads).
  std::mutex cfg_mu_;
  std::mutex names_mu_;  // guards the two maps below only
  std::map<std::uint32_t, std::string> live_names_;   // the models loaded now
  // The models a session may have seen: those live when it opened and those loaded since
  // (an id reused within the session keeps both names).
  std::map<std::uint32_t, std::string> session_names_;
  std::uint32_t file_types_ = 0;  // data types of the running file session(s)
  std::uint32_t interval_ = 1;
  std::uint32_t session_ = 0;  // number of the current (or last) file session
  std::map<std::uint32_t, std::uint64_t> executions_;  // per model, for `interval`
  std::map<std::uint32_t, PipeRef> pipes_cfg_;

  // The writer's outputs.
  mutable std::mutex io_mu_;
  std::unique_ptr<JobWriter> job_;
  std::uint32_t job_session_ = 0;
  std::vector<bool> job_devices_;  // devices whose task/operator records the session keeps
  std::map<std::uint32_t, std::unique_ptr<PipeSubscription>> pipes_;
  std::string last_job_dir_;
  std::size_t pipe_capacity_ = 8192;

  // The buffer between hooks and the writer.
  mutable std::mutex buf_mu_;
  std::condition_variable cv_;       // wakes the writer
  std::condition_variable done_cv_;  // the writer finished a batch
  std::vector<Record> pending_;
  std::size_t capacity_ = 65536;
  std::uint64_t pushed_ = 0;
  std::uint64_t done_ = 0;
  bool urgent_ = false;
  bool stop_ = false;
  bool held_ = false;  // hold_writer
  bool pipes_busy_ = false;  // some pipe has queued records: poll often
  JobCounts dropped_{};
  std::map<std::uint32_t, std::uint64_t> pipe_dropped_;  // buffer-full drops per subscribed model
  std::thread writer_;
};

}  // namespace svp::profiling
