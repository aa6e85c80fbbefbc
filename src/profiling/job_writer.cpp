#include "profiling/job_writer.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>

#include <fmt/format.h>

#include "common/log.h"

namespace svp::profiling {
namespace {

namespace fs = std::filesystem;

std::atomic<std::uint32_t> g_job_counter{0};

// JSON string literal (the names come from model files: quote, backslash and control
// characters must not break a line).
std::string json_string(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('"');
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c < 0x20) {
      out += fmt::format("\\u{:04x}", c);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  out.push_back('"');
  return out;
}

const char* event_name(hal::TaskEventKind k) {
  switch (k) {
    case hal::TaskEventKind::kSubmit: return "submit";
    case hal::TaskEventKind::kStart: return "start";
    case hal::TaskEventKind::kPreempt: return "preempt";
    case hal::TaskEventKind::kResume: return "resume";
    case hal::TaskEventKind::kAiCpuPost: return "aicpu_post";
    case hal::TaskEventKind::kAiCpuStart: return "aicpu_start";
    case hal::TaskEventKind::kAiCpuEnd: return "aicpu_end";
    case hal::TaskEventKind::kEnd: return "end";
  }
  return "unknown";
}

long long core_field(std::uint32_t core) { return core == hal::kHostCore ? -1 : static_cast<long long>(core); }

std::string data_type_list(std::uint32_t t) {
  std::string out = "[";
  for (const char* name : data_type_names(t)) {
    if (out.size() > 1) out += ", ";
    out += fmt::format("\"{}\"", name);
  }
  return out + "]";
}

Status write_text(const std::string& path, const std::string& text) {
  // Written beside and renamed, so a reader never sees half a metadata file.
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return Error(err::kProfilingFailure, "cannot create {}: {}", tmp, std::strerror(errno));
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool closed = std::fclose(f) == 0;
  if (!ok || !closed) return Error(err::kProfilingFailure, "cannot write {}: {}", tmp, std::strerror(errno));
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) return Error(err::kProfilingFailure, "cannot rename {} to {}: {}", tmp, path, ec.message());
  return Status::Ok();
}

}  // namespace

std::vector<const char*> data_type_names(std::uint32_t t) {
  const std::pair<std::uint32_t, const char*> names[] = {
      {kAclApi, "acl_api"}, {kTaskTime, "task_time"}, {kAicoreMetrics, "aicore_metrics"}, {kAicpuTrace, "aicpu_trace"}};
  std::vector<const char*> out;
  for (const auto& [bit, name] : names) {
    if (t & bit) out.push_back(name);
  }
  return out;
}

const char* job_file_name(JobFile f) {
  switch (f) {
    case kFileApi: return "acl_api";
    case kFileTask: return "task";
    case kFileAicore: return "aicore";
    case kFileAicpu: return "aicpu";
    case kJobFileCount: break;
  }
  return "?";
}

std::uint32_t job_files_of(std::uint32_t t) {
  std::uint32_t files = 0;
  if (t & kAclApi) files |= 1u << kFileApi;
  if (t & (kTaskTime | kAicoreMetrics | kAicpuTrace)) files |= 1u << kFileTask;
  if (t & (kTaskTime | kAicoreMetrics)) files |= 1u << kFileAicore;
  if (t & kAicpuTrace) files |= 1u << kFileAicpu;
  return files;
}

Result<std::unique_ptr<JobWriter>> JobWriter::create(const std::string& root, const JobInfo& info) {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d%H%M%S", &tm);
  const std::string dir =
      fmt::format("{}/JOB{}_{}_{}", root, stamp, static_cast<long>(::getpid()), g_job_counter.fetch_add(1));
  std::error_code ec;
  fs::create_directories(fs::path(dir) / "data", ec);
  if (ec) return Error(err::kProfilingFailure, "cannot create profiling directory {}: {}", dir, ec.message());
  std::unique_ptr<JobWriter> w(new JobWriter(dir, info, now()));
  std::tm utc{};
  gmtime_r(&t, &utc);
  char wall[32];
  std::strftime(wall, sizeof wall, "%Y-%m-%dT%H:%M:%SZ", &utc);
  w->wall_start_ = wall;
  SVP_RETURN_IF_ERROR(w->write_info());
  const std::uint32_t types = info.data_types;
  w->info_.data_types = 0;
  w->enable(types);
  for (std::size_t f = 0; f < kJobFileCount; ++f) {
    if ((job_files_of(types) >> f & 1u) && w->files_[f] == nullptr) {
      return Error(err::kProfilingFailure, "cannot create {}/data/{}.jsonl: {}", dir, job_file_name(JobFile(f)),
                   std::strerror(errno));
    }
  }
  return w;
}

JobWriter::JobWriter(std::string dir, JobInfo info, Nanos start)
    : dir_(std::move(dir)), info_(std::move(info)), start_ns_(start) {}

JobWriter::~JobWriter() {
  for (std::FILE* f : files_) {
    if (f != nullptr) std::fclose(f);
  }
}

void JobWriter::enable(std::uint32_t data_types) {
  info_.data_types |= data_types;
  const std::uint32_t files = job_files_of(info_.data_types);
  for (std::size_t f = 0; f < kJobFileCount; ++f) {
    if ((files >> f & 1u) == 0 || files_[f] != nullptr || broken_[f]) continue;
    const std::string path = fmt::format("{}/data/{}.jsonl", dir_, job_file_name(JobFile(f)));
    files_[f] = std::fopen(path.c_str(), "wb");
    if (files_[f] == nullptr) {
      SVP_LOG_ERROR("profiling: cannot create {}: {}; its records are dropped", path, std::strerror(errno));
    } else {
      std::setvbuf(files_[f], nullptr, _IOFBF, 1 << 16);
    }
  }
}

Status JobWriter::write_info() {
  std::string devices;
  for (std::size_t i = 0; i < info_.devices.size(); ++i) {
    const auto& [id, cores] = info_.devices[i];
    if (!devices.empty()) devices += ", ";
    // The board clock: task records carry predicted board time (ns since the device was
    // set), not host time; the API and operator records stay host time.
    const std::string board = i < info_.board_clock.size() ? info_.board_clock[i] : std::string();
    devices += fmt::format("{{\"id\": {}, \"cores\": {}, \"task_clock\": {}}}", id, cores,
                           board.empty() ? std::string("\"host\"") : json_string("board " + board + " (predicted)"));
  }
  std::string models;
  for (const auto& [id, name] : models_) {
    models += fmt::format("{}\"{}\": {}", models.empty() ? "" : ", ", id, json_string(name));
  }
  const std::string text = fmt::format(
      "{{\n  \"format\": \"svp-acl-profile\", \"version\": 1,\n  \"source\": {},\n  \"pid\": {}, \"start_ns\": {}, "
      "\"wall_clock_start\": \"{}\",\n  \"devices\": [{}],\n  \"data_types\": {},\n  \"interval\": {},\n  "
      "\"models\": {{{}}},\n  \"library\": \"svp-acl 0.1.0\"\n}}\n",
      json_string(info_.source), static_cast<long>(::getpid()), start_ns_, wall_start_, devices,
      data_type_list(info_.data_types), info_.interval, models);
  return write_text(dir_ + "/info.json", text);
}

void JobWriter::emit(JobFile f, const std::string& line) {
  if (broken_[f]) {
    ++failed_[f];
    return;
  }
  std::FILE* file = files_[f];
  if (file == nullptr) return;  // type not enabled (records are filtered upstream)
  if (std::fwrite(line.data(), 1, line.size(), file) != line.size()) {
    // The file may now end in part of a line: stop writing it at all, so a reader sees one
    // torn last line (and a record count in end_info.json that does not match), never a
    // record glued onto half of another.
    ++failed_[f];
    broken_[f] = true;
    SVP_LOG_ERROR("profiling: writing {}/data/{}.jsonl failed ({}); its further records are counted as dropped", dir_,
                  job_file_name(f), std::strerror(errno));
    std::fclose(file);
    files_[f] = nullptr;
    return;
  }
  ++written_[f];
}

void JobWriter::write(const ApiRecord& r) {
  emit(kFileApi, fmt::format("{{\"name\":\"{}\",\"tid\":{},\"start_ns\":{},\"end_ns\":{},\"ret\":{}}}\n", r.name, r.tid,
                             r.start, r.end, r.ret));
}

void JobWriter::write(const TaskRecord& r) {
  const hal::TaskEvent& e = r.event;
  std::string line = fmt::format("{{\"ev\":\"{}\",\"device\":{},\"stream\":{},\"task\":{},\"t\":{}", event_name(e.kind),
                                 e.device, e.sq, e.task, e.time);
  switch (e.kind) {
    case hal::TaskEventKind::kSubmit:
      if ((e.tag & 0xffffffffu) != 0) line += fmt::format(",\"model\":{}", (e.tag & 0xffffffffu) - 1);
      line += fmt::format(",\"prio\":{},\"segments\":{}", e.priority, e.segments);
      break;
    case hal::TaskEventKind::kStart:
    case hal::TaskEventKind::kResume:
      line += fmt::format(",\"core\":{},\"seg\":{},\"prio\":{}", core_field(e.core), e.segment, e.priority);
      break;
    case hal::TaskEventKind::kPreempt:
      line += fmt::format(",\"core\":{},\"seg\":{},\"by_stream\":{},\"by_task\":{}", core_field(e.core), e.segment,
                          e.by_sq, e.by_task);
      break;
    case hal::TaskEventKind::kAiCpuPost:
      line += fmt::format(",\"seg\":{},\"core\":{}", e.segment, core_field(e.core));
      break;
    case hal::TaskEventKind::kAiCpuStart:
    case hal::TaskEventKind::kAiCpuEnd:
      line += fmt::format(",\"seg\":{},\"tid\":{}", e.segment, r.tid);
      break;
    case hal::TaskEventKind::kEnd:
      line += fmt::format(",\"core\":{},\"status\":{}", core_field(e.core), e.status);
      break;
  }
  line += "}\n";
  emit(kFileTask, line);
}

void JobWriter::write(const OpRecord& r) {
  emit(r.aicpu ? kFileAicpu : kFileAicore,
       fmt::format("{{\"model\":{},\"name\":{},\"type\":{},\"device\":{},\"stream\":{},\"task\":{},\"core\":{},"
                   "\"prio\":{},\"unit\":\"{}\",\"layer\":{},\"seg\":{},\"batch\":{},\"start_ns\":{},\"end_ns\":{}}}\n",
                   r.model, json_string(r.name), json_string(r.type), r.device, r.sq, r.task, core_field(r.core), r.priority,
                   r.aicpu ? "aicpu" : "npu", r.layer, r.segment, r.batch, r.start, r.end));
}

void JobWriter::flush() {
  for (std::FILE* f : files_) {
    if (f != nullptr) std::fflush(f);
  }
}

Status JobWriter::finish(const JobCounts& dropped) {
  Status first;
  for (std::size_t f = 0; f < kJobFileCount; ++f) {
    if (files_[f] == nullptr) continue;
    if (std::fclose(files_[f]) != 0 && first.ok()) {
      first = Error(err::kProfilingFailure, "closing {}/data/{}.jsonl failed: {}", dir_, job_file_name(JobFile(f)),
                    std::strerror(errno));
    }
    files_[f] = nullptr;
  }
  Status info = write_info();
  if (first.ok()) first = info;
  std::string records;
  std::string drops;
  for (std::size_t f = 0; f < kJobFileCount; ++f) {
    if ((job_files_of(info_.data_types) >> f & 1u) == 0) continue;
    const char* sep = records.empty() ? "" : ", ";
    records += fmt::format("{}\"{}\": {}", sep, job_file_name(JobFile(f)), written_[f]);
    drops += fmt::format("{}\"{}\": {}", sep, job_file_name(JobFile(f)), dropped[f] + failed_[f]);
  }
  Status end = write_text(dir_ + "/end_info.json",
                          fmt::format("{{\n  \"end_ns\": {}, \"complete\": true,\n  \"records\": {{{}}},\n  "
                                      "\"dropped\": {{{}}}\n}}\n",
                                      now(), records, drops));
  if (first.ok()) first = end;
  return first;
}

}  // namespace svp::profiling
