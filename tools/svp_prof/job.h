// The contents of a profiling JOB directory (docs/profiling.md, "The JOB directory
// (format version 1)") after reading and validation: header files and records, with
// times still in the writer's nanoseconds.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace svp::prof {

inline constexpr int kFormatVersion = 1;
inline constexpr const char* kFormatName = "svp-acl-profile";

struct DeviceInfo {
  std::int64_t id = 0;
  std::int64_t cores = 0;
  // "host", or "board <SoC> (predicted)": the device ran on the board clock and its task
  // records carry predicted board time since the device was set (docs/profiling.md); the
  // reader places them from start_ns on, so relative times are board times.
  std::string task_clock = "host";
  bool board_clock() const { return task_clock.rfind("board", 0) == 0; }
};

// info.json
struct JobInfo {
  std::string source;  // "acl.json" or "api"
  std::int64_t pid = 0;
  std::int64_t start_ns = 0;  // every relative time in the outputs counts from here
  std::string wall_clock_start;
  std::vector<DeviceInfo> devices;
  std::vector<std::string> data_types;
  std::optional<std::int64_t> interval;
  std::string library;
  std::map<std::int64_t, std::string> models;  // "models": id → .om file name (optional)

  // "3 (resnet50.om)", or "3" when the JOB does not name it.
  std::string model_label(std::int64_t id) const;
};

// The data files, in the order of the keys of end_info.json "records" and "dropped".
enum class DataFile { kAclApi = 0, kTask = 1, kAicore = 2, kAicpu = 3 };
inline constexpr std::array<DataFile, 4> kDataFiles = {DataFile::kAclApi, DataFile::kTask, DataFile::kAicore,
                                                       DataFile::kAicpu};
const char* data_file_key(DataFile f);   // "acl_api", "task", "aicore", "aicpu"
const char* data_file_path(DataFile f);  // "data/acl_api.jsonl", ...

// end_info.json; absent when collection was cut short.
struct EndInfo {
  bool present = false;
  std::int64_t end_ns = 0;
  bool complete = false;
  std::map<std::string, std::int64_t> records;
  std::map<std::string, std::int64_t> dropped;
};

// data/acl_api.jsonl
struct ApiRecord {
  std::string name;
  std::int64_t tid = 0;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::int64_t ret = 0;

  // The call failed: a non-zero ret, except a polling timeout. A thread serving AI-CPU
  // callbacks calls svp_acl_rt_process_report with a timeout in a loop and gets
  // SVP_ACL_ERROR_RT_REPORT_TIMEOUT whenever nothing was due; that is the API working.
  bool failed() const;
};

enum class TaskEventKind { kSubmit, kStart, kPreempt, kResume, kAicpuPost, kAicpuStart, kAicpuEnd, kEnd };
const char* to_string(TaskEventKind kind);

// data/task.jsonl. Which optional fields are set depends on `kind` (the reader checks
// that the fields the format requires for that kind are present).
struct TaskEvent {
  TaskEventKind kind = TaskEventKind::kSubmit;
  std::int64_t device = 0;
  std::int64_t stream = 0;
  std::int64_t task = 0;
  std::int64_t t = 0;
  std::optional<std::int64_t> model;
  std::optional<std::int64_t> prio;
  std::optional<std::int64_t> segments;
  std::optional<std::int64_t> core;
  std::optional<std::int64_t> seg;
  std::optional<std::int64_t> by_stream;
  std::optional<std::int64_t> by_task;
  std::optional<std::int64_t> tid;
  std::optional<std::int64_t> status;
  std::uint64_t line = 0;  // 1-based line in task.jsonl, for messages
};

// data/aicore.jsonl and data/aicpu.jsonl
struct OpRecord {
  std::optional<std::int64_t> model;
  std::string name;
  std::string type;
  std::string unit;  // "npu" or "aicpu"
  std::int64_t device = 0;
  std::int64_t stream = 0;
  std::int64_t task = 0;
  std::int64_t core = 0;  // -1: an application thread ran the AI-CPU operator
  std::int64_t prio = 0;
  std::int64_t layer = 0;
  std::int64_t seg = 0;
  std::int64_t batch = 0;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
};

struct Job {
  std::filesystem::path dir;
  JobInfo info;
  EndInfo end;
  std::array<bool, 4> file_present{};         // indexed by DataFile
  std::array<std::uint64_t, 4> file_lines{};  // records read from each file
  std::vector<ApiRecord> api;
  std::vector<TaskEvent> task_events;
  std::vector<OpRecord> ops;  // aicore.jsonl records, then aicpu.jsonl records
  // Problems that do not stop the report (cut short, unknown events, ...), for stderr
  // and the report.
  std::vector<std::string> warnings;

  bool cut_short() const { return !end.present; }
  bool has(DataFile f) const { return file_present[static_cast<int>(f)]; }
  std::int64_t dropped(DataFile f) const;  // 0 when unknown
  std::int64_t dropped_total() const;
};

}  // namespace svp::prof
