#include "svp_prof/job.h"

#include <string>

namespace svp::prof {

const char* data_file_key(DataFile f) {
  switch (f) {
    case DataFile::kAclApi:
      return "acl_api";
    case DataFile::kTask:
      return "task";
    case DataFile::kAicore:
      return "aicore";
    case DataFile::kAicpu:
      return "aicpu";
  }
  return "?";
}

const char* data_file_path(DataFile f) {
  switch (f) {
    case DataFile::kAclApi:
      return "data/acl_api.jsonl";
    case DataFile::kTask:
      return "data/task.jsonl";
    case DataFile::kAicore:
      return "data/aicore.jsonl";
    case DataFile::kAicpu:
      return "data/aicpu.jsonl";
  }
  return "?";
}

std::string JobInfo::model_label(std::int64_t id) const {
  auto it = models.find(id);
  return it == models.end() || it->second.empty() ? std::to_string(id) : std::to_string(id) + " (" + it->second + ")";
}

bool ApiRecord::failed() const {
  constexpr std::int64_t kRtReportTimeout = 507012;  // include/svp/acl/error_codes.def
  return ret != 0 && !(ret == kRtReportTimeout && name == "svp_acl_rt_process_report");
}

const char* to_string(TaskEventKind kind) {
  switch (kind) {
    case TaskEventKind::kSubmit:
      return "submit";
    case TaskEventKind::kStart:
      return "start";
    case TaskEventKind::kPreempt:
      return "preempt";
    case TaskEventKind::kResume:
      return "resume";
    case TaskEventKind::kAicpuPost:
      return "aicpu_post";
    case TaskEventKind::kAicpuStart:
      return "aicpu_start";
    case TaskEventKind::kAicpuEnd:
      return "aicpu_end";
    case TaskEventKind::kEnd:
      return "end";
  }
  return "?";
}

std::int64_t Job::dropped(DataFile f) const {
  auto it = end.dropped.find(data_file_key(f));
  return it == end.dropped.end() ? 0 : it->second;
}

std::int64_t Job::dropped_total() const {
  std::int64_t total = 0;
  for (const auto& [key, n] : end.dropped) total += n;
  return total;
}

}  // namespace svp::prof
