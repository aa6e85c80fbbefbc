// The JOB directory of file-mode profiling (docs/profiling.md, "The JOB directory").
//
// Owned and used by the profiler's writer thread only (not thread-safe). Files are
// buffered; a record is complete on disk once finish() returns. A failed write (disk
// full, directory removed) is counted as dropped and logged once, never retried in a loop.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "profiling/records.h"

namespace svp::profiling {

enum JobFile : std::size_t { kFileApi, kFileTask, kFileAicore, kFileAicpu, kJobFileCount };
const char* job_file_name(JobFile f);  // "acl_api", "task", "aicore", "aicpu"
// The names of the data types in `data_types` ("acl_api", "task_time", ...), as info.json
// lists them.
std::vector<const char*> data_type_names(std::uint32_t data_types);
// The files a set of data types writes.
std::uint32_t job_files_of(std::uint32_t data_types);  // bit i = JobFile i

struct JobInfo {
  std::string source;  // "acl.json" or "api"
  std::vector<std::pair<std::uint32_t, std::uint32_t>> devices;  // (id, cores)
  // Per device (same order): the board clock's target, empty for host time (DeviceInfo).
  std::vector<std::string> board_clock;
  std::uint32_t data_types = 0;
  std::uint32_t interval = 1;
};

using JobCounts = std::array<std::uint64_t, kJobFileCount>;

class JobWriter {
 public:
  // Creates <root>/JOB<YYYYMMDDhhmmss>_<pid>_<n>/ with info.json and data/.
  static Result<std::unique_ptr<JobWriter>> create(const std::string& root, const JobInfo& info);
  ~JobWriter();
  JobWriter(const JobWriter&) = delete;
  JobWriter& operator=(const JobWriter&) = delete;

  // Adds data types (a later svp_acl_prof_start with more items); opens their files.
  void enable(std::uint32_t data_types);
  std::uint32_t data_types() const { return info_.data_types; }

  void write(const ApiRecord& r);
  void write(const TaskRecord& r);
  void write(const OpRecord& r);
  void flush();

  // Rewrites info.json with the final data types, writes end_info.json with the record
  // and drop counts (`dropped` = records the collector lost before they reached here),
  // and closes the files.
  Status finish(const JobCounts& dropped);
  // Model id → name, written into info.json by finish() ("models").
  void set_model_names(std::map<std::uint32_t, std::string> names) { models_ = std::move(names); }
  const std::string& dir() const { return dir_; }
  Nanos start_ns() const { return start_ns_; }

 private:
  JobWriter(std::string dir, JobInfo info, Nanos start);
  Status write_info();
  void emit(JobFile f, const std::string& line);

  std::string dir_;
  JobInfo info_;
  std::map<std::uint32_t, std::string> models_;
  Nanos start_ns_;
  std::string wall_start_;
  std::array<std::FILE*, kJobFileCount> files_{};
  JobCounts written_{};
  JobCounts failed_{};
  std::array<bool, kJobFileCount> broken_{};  // a write failed: the file is closed
};

}  // namespace svp::profiling
