#include "svp_prof/job_reader.h"

#include <cstdlib>
#include <cstdint>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace svp::prof {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Typed access to one JSON object's fields. The first problem is kept (so a line with
// several bad fields is reported once, by its first) and later reads return defaults.
class Fields {
 public:
  explicit Fields(const json& obj) : obj_(obj) {}

  std::int64_t integer(const char* key) {
    const json* v = find(key, true);
    return v ? to_int(key, *v) : 0;
  }
  std::optional<std::int64_t> optional_integer(const char* key) {
    const json* v = find(key, false);
    if (!v) return std::nullopt;
    return to_int(key, *v);
  }
  std::string string(const char* key) {
    const json* v = find(key, true);
    if (!v) return {};
    if (!v->is_string()) {
      fail(std::string("field \"") + key + "\" must be a string");
      return {};
    }
    return v->get<std::string>();
  }
  bool boolean(const char* key) {
    const json* v = find(key, true);
    if (!v) return false;
    if (!v->is_boolean()) {
      fail(std::string("field \"") + key + "\" must be true or false");
      return false;
    }
    return v->get<bool>();
  }
  // A required field that is an object or array, for the caller to walk.
  const json* structured(const char* key, json::value_t type) {
    const json* v = find(key, true);
    if (v && v->type() != type) {
      fail(std::string("field \"") + key + "\" must be " + (type == json::value_t::array ? "an array" : "an object"));
      return nullptr;
    }
    return v;
  }

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  void fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
  }

 private:
  // A null value counts as absent: a writer may spell "no value" either way.
  const json* find(const char* key, bool required) {
    auto it = obj_.find(key);
    if (it == obj_.end() || it->is_null()) {
      if (required) fail(std::string("missing field \"") + key + "\"");
      return nullptr;
    }
    return &*it;
  }
  std::int64_t to_int(const char* key, const json& v) {
    if (v.is_number_unsigned()) {
      if (v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        fail(std::string("field \"") + key + "\" is out of range");
        return 0;
      }
      return static_cast<std::int64_t>(v.get<std::uint64_t>());
    }
    if (v.is_number_integer()) return v.get<std::int64_t>();
    fail(std::string("field \"") + key + "\" must be an integer");
    return 0;
  }

  const json& obj_;
  std::string error_;
};

// nlohmann's messages start with "[json.exception.parse_error.101] "; the id helps nobody.
std::string parse_error_text(const std::exception& e) {
  std::string what = e.what();
  if (!what.empty() && what[0] == '[') {
    auto close = what.find("] ");
    if (close != std::string::npos) what.erase(0, close + 2);
  }
  return what;
}

Status read_json_document(const fs::path& path, json* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error(path.string() + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  try {
    *out = json::parse(text.str());
  } catch (const json::exception& e) {
    return Status::Error(path.string() + ": malformed JSON: " + parse_error_text(e));
  }
  if (!out->is_object()) return Status::Error(path.string() + ": expected a JSON object");
  return Status::Ok();
}

Status read_info(const fs::path& dir, JobInfo* info) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return Status::Error(dir.string() + ": no such directory");
  if (!fs::is_directory(dir, ec)) return Status::Error(dir.string() + ": not a directory");
  const fs::path path = dir / "info.json";
  if (!fs::exists(path, ec)) return Status::Error(dir.string() + ": not a JOB directory (no info.json)");
  json doc;
  if (Status s = read_json_document(path, &doc); !s.ok()) return s;

  const std::string where = path.string() + ": ";
  auto format = doc.find("format");
  if (format == doc.end() || !format->is_string() || format->get<std::string>() != kFormatName) {
    return Status::Error(where + "not a JOB directory (\"format\" is " +
                         (format == doc.end() ? std::string("missing") : format->dump()) + ", expected \"" +
                         kFormatName + "\")");
  }
  Fields f(doc);
  const std::int64_t version = f.integer("version");
  if (!f.ok()) return Status::Error(where + f.error());
  if (version != kFormatVersion) {
    return Status::Error(where + "unsupported format version " + std::to_string(version) + " (svp_prof reads version " +
                         std::to_string(kFormatVersion) + ")");
  }
  info->pid = f.integer("pid");
  info->start_ns = f.integer("start_ns");
  info->interval = f.optional_integer("interval");
  if (doc.contains("source") && doc["source"].is_string()) info->source = doc["source"].get<std::string>();
  if (doc.contains("library") && doc["library"].is_string()) info->library = doc["library"].get<std::string>();
  if (doc.contains("wall_clock_start") && doc["wall_clock_start"].is_string()) {
    info->wall_clock_start = doc["wall_clock_start"].get<std::string>();
  }
  if (const json* devices = f.structured("devices", json::value_t::array)) {
    for (const json& d : *devices) {
      if (!d.is_object()) {
        f.fail("\"devices\" entries must be objects");
        break;
      }
      Fields df(d);
      DeviceInfo dev{df.integer("id"), df.integer("cores")};
      if (d.contains("task_clock") && d["task_clock"].is_string()) dev.task_clock = d["task_clock"].get<std::string>();
      if (!df.ok()) {
        f.fail("\"devices\": " + df.error());
        break;
      }
      info->devices.push_back(dev);
    }
  }
  // "models" (written since the model names were added; older JOBs have none).
  if (auto m = doc.find("models"); m != doc.end() && m->is_object()) {
    for (const auto& [key, name] : m->items()) {
      char* end = nullptr;
      const long long id = std::strtoll(key.c_str(), &end, 10);
      if (end == key.c_str() || *end != '\0' || !name.is_string()) {
        f.fail("\"models\" maps model ids to names, got \"" + key + "\": " + name.dump());
        break;
      }
      info->models[id] = name.get<std::string>();
    }
  }
  if (const json* types = f.structured("data_types", json::value_t::array)) {
    for (const json& t : *types) {
      if (!t.is_string()) {
        f.fail("\"data_types\" entries must be strings");
        break;
      }
      info->data_types.push_back(t.get<std::string>());
    }
  }
  if (!f.ok()) return Status::Error(where + f.error());
  return Status::Ok();
}

Status read_count_map(Fields& f, const char* key, std::map<std::string, std::int64_t>* out) {
  const json* obj = f.structured(key, json::value_t::object);
  if (!obj) return Status::Ok();  // the caller reports f's error
  for (const auto& [name, value] : obj->items()) {
    Fields entry(*obj);
    std::int64_t n = entry.integer(name.c_str());
    if (!entry.ok()) {
      f.fail(std::string("\"") + key + "\": " + entry.error());
      break;
    }
    (*out)[name] = n;
  }
  return Status::Ok();
}

Status read_end_info(const fs::path& dir, EndInfo* end) {
  const fs::path path = dir / "end_info.json";
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    end->present = false;
    return Status::Ok();
  }
  json doc;
  if (Status s = read_json_document(path, &doc); !s.ok()) return s;
  Fields f(doc);
  end->present = true;
  end->end_ns = f.integer("end_ns");
  end->complete = f.boolean("complete");
  (void)read_count_map(f, "records", &end->records);
  (void)read_count_map(f, "dropped", &end->dropped);
  if (!f.ok()) return Status::Error(path.string() + ": " + f.error());
  return Status::Ok();
}

std::optional<TaskEventKind> parse_event_kind(const std::string& ev) {
  static const std::pair<const char*, TaskEventKind> kKinds[] = {
      {"submit", TaskEventKind::kSubmit},        {"start", TaskEventKind::kStart},
      {"preempt", TaskEventKind::kPreempt},      {"resume", TaskEventKind::kResume},
      {"aicpu_post", TaskEventKind::kAicpuPost}, {"aicpu_start", TaskEventKind::kAicpuStart},
      {"aicpu_end", TaskEventKind::kAicpuEnd},   {"end", TaskEventKind::kEnd},
  };
  for (const auto& [name, kind] : kKinds) {
    if (ev == name) return kind;
  }
  return std::nullopt;
}

// The fields the format lists for each event, all required except submit's "model"
// (absent for non-model tasks); without them the event cannot be placed on a timeline.
void read_event_fields(Fields& f, TaskEvent* e) {
  auto need = [&](const char* key, std::optional<std::int64_t>* out) {
    std::int64_t v = f.integer(key);
    if (f.ok()) *out = v;
  };
  switch (e->kind) {
    case TaskEventKind::kSubmit:
      e->model = f.optional_integer("model");
      need("prio", &e->prio);
      need("segments", &e->segments);
      break;
    case TaskEventKind::kStart:
      need("core", &e->core);
      need("prio", &e->prio);
      break;
    case TaskEventKind::kPreempt:
      need("core", &e->core);
      need("seg", &e->seg);
      need("by_stream", &e->by_stream);
      need("by_task", &e->by_task);
      break;
    case TaskEventKind::kResume:
      need("core", &e->core);
      need("seg", &e->seg);
      need("prio", &e->prio);
      break;
    case TaskEventKind::kAicpuPost:
      need("seg", &e->seg);
      need("core", &e->core);
      break;
    case TaskEventKind::kAicpuStart:
    case TaskEventKind::kAicpuEnd:
      need("seg", &e->seg);
      need("tid", &e->tid);
      break;
    case TaskEventKind::kEnd:
      need("core", &e->core);
      need("status", &e->status);
      break;
  }
}

// Unknown "ev" values are counted and reported once per file, not once per line.
struct UnknownEvents {
  std::uint64_t count = 0;
  std::uint64_t first_line = 0;
  std::string first_name;
};

class RecordSink {
 public:
  RecordSink(Job* job, DataFile file) : job_(job), file_(file) {}

  // Returns an empty string or what is wrong with the record.
  std::string add(const json& obj, std::uint64_t line) {
    Fields f(obj);
    switch (file_) {
      case DataFile::kAclApi: {
        ApiRecord r;
        r.name = f.string("name");
        r.tid = f.integer("tid");
        r.start_ns = f.integer("start_ns");
        r.end_ns = f.integer("end_ns");
        r.ret = f.integer("ret");
        if (f.ok() && r.end_ns < r.start_ns) f.fail("\"end_ns\" is before \"start_ns\"");
        if (!f.ok()) return f.error();
        job_->api.push_back(std::move(r));
        return {};
      }
      case DataFile::kTask: {
        const std::string ev = f.string("ev");
        if (!f.ok()) return f.error();
        std::optional<TaskEventKind> kind = parse_event_kind(ev);
        if (!kind) {
          if (unknown_.count++ == 0) {
            unknown_.first_line = line;
            unknown_.first_name = ev;
          }
          return {};
        }
        TaskEvent e;
        e.kind = *kind;
        e.line = line;
        e.device = f.integer("device");
        e.stream = f.integer("stream");
        e.task = f.integer("task");
        e.t = f.integer("t");
        for (const DeviceInfo& d : job_->info.devices) {
          if (d.id == e.device && d.board_clock()) e.t += job_->info.start_ns;  // board time since the device was set
        }
        if (f.ok()) read_event_fields(f, &e);
        if (!f.ok()) return f.error() + " (\"ev\": \"" + ev + "\")";
        job_->task_events.push_back(e);
        return {};
      }
      case DataFile::kAicore:
      case DataFile::kAicpu: {
        OpRecord r;
        r.model = f.optional_integer("model");
        r.name = f.string("name");
        r.type = f.string("type");
        r.unit = f.string("unit");
        r.device = f.integer("device");
        r.stream = f.integer("stream");
        r.task = f.integer("task");
        r.core = f.integer("core");
        r.prio = f.integer("prio");
        r.layer = f.integer("layer");
        r.seg = f.integer("seg");
        r.batch = f.integer("batch");
        r.start_ns = f.integer("start_ns");
        r.end_ns = f.integer("end_ns");
        if (f.ok() && r.end_ns < r.start_ns) f.fail("\"end_ns\" is before \"start_ns\"");
        if (!f.ok()) return f.error();
        job_->ops.push_back(std::move(r));
        return {};
      }
    }
    return {};
  }

  const UnknownEvents& unknown() const { return unknown_; }

 private:
  Job* job_;
  DataFile file_;
  UnknownEvents unknown_;
};

constexpr std::uint64_t kProgressStepBytes = 1u << 20;

Status read_data_file(const fs::path& dir, DataFile file, const ReadOptions& options, Job* job) {
  const std::string rel = data_file_path(file);
  const fs::path path = dir / rel;
  const std::string where = path.string();
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error(where + ": cannot open");
  std::error_code ec;
  const std::uint64_t total = fs::file_size(path, ec);

  RecordSink sink(job, file);
  std::string line;
  std::uint64_t lineno = 0;
  std::uint64_t done = 0;
  std::uint64_t next_progress = kProgressStepBytes;
  while (std::getline(in, line)) {
    ++lineno;
    // getline stops at end of file without setting failbit when the last line has no
    // '\n': that line was not completely written.
    const bool complete_line = !in.eof();
    done += line.size() + (complete_line ? 1 : 0);
    if (!complete_line) {
      if (job->cut_short()) {
        job->warnings.push_back(where + ":" + std::to_string(lineno) +
                                ": the last line is incomplete (collection was cut short); ignored");
        break;
      }
      return Status::Error(where + ":" + std::to_string(lineno) +
                           ": truncated: the last line does not end in a newline");
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) return Status::Error(where + ":" + std::to_string(lineno) + ": empty line");
    json obj;
    try {
      obj = json::parse(line);
    } catch (const json::exception& e) {
      return Status::Error(where + ":" + std::to_string(lineno) + ": malformed JSON: " + parse_error_text(e));
    }
    if (!obj.is_object()) return Status::Error(where + ":" + std::to_string(lineno) + ": expected a JSON object");
    std::string problem = sink.add(obj, lineno);
    if (!problem.empty()) return Status::Error(where + ":" + std::to_string(lineno) + ": " + problem);
    ++job->file_lines[static_cast<int>(file)];
    if (options.on_progress && done >= next_progress) {
      options.on_progress(rel, done, total);
      next_progress = done + kProgressStepBytes;
    }
  }
  if (in.bad()) return Status::Error(where + ": read error");
  if (options.on_progress) options.on_progress(rel, total, total);

  const UnknownEvents& unknown = sink.unknown();
  if (unknown.count > 0) {
    job->warnings.push_back(where + ": ignored " + std::to_string(unknown.count) +
                            " event(s) of unknown kind (first: line " + std::to_string(unknown.first_line) +
                            ", \"ev\": \"" + unknown.first_name + "\")");
  }
  return Status::Ok();
}

// end_info.json "records" counts the lines of each file: the only way to notice a file
// that was cut at a line boundary.
Status check_record_counts(const fs::path& dir, Job* job) {
  for (DataFile file : kDataFiles) {
    const int i = static_cast<int>(file);
    const std::string where = (dir / data_file_path(file)).string();
    auto it = job->end.records.find(data_file_key(file));
    if (!job->file_present[i]) {
      if (it != job->end.records.end() && it->second > 0) {
        return Status::Error(where + ": missing, but end_info.json counts " + std::to_string(it->second) + " records");
      }
      continue;
    }
    if (it == job->end.records.end()) {
      job->warnings.push_back((dir / "end_info.json").string() + ": no record count for \"" + data_file_key(file) +
                              "\"; " + data_file_path(file) + " cannot be checked for truncation");
      continue;
    }
    const auto lines = static_cast<std::int64_t>(job->file_lines[i]);
    if (lines < it->second) {
      return Status::Error(where + ": truncated: " + std::to_string(lines) + " records, end_info.json counts " +
                           std::to_string(it->second));
    }
    if (lines > it->second) {
      return Status::Error(where + ": " + std::to_string(lines) + " records, more than the " +
                           std::to_string(it->second) + " end_info.json counts");
    }
  }
  return Status::Ok();
}

// A data type enabled in info.json should have its files (empty when nothing happened).
void check_enabled_files(Job* job) {
  for (const std::string& type : job->info.data_types) {
    std::vector<DataFile> expected;
    if (type == "acl_api") expected = {DataFile::kAclApi};
    if (type == "task_time" || type == "aicore_metrics") expected = {DataFile::kTask, DataFile::kAicore};
    if (type == "aicpu_trace") expected = {DataFile::kAicpu};
    for (DataFile file : expected) {
      if (!job->has(file)) {
        job->warnings.push_back("data type \"" + type + "\" is enabled in info.json but " + data_file_path(file) +
                                " is missing");
      }
    }
  }
}

}  // namespace

Status read_job(const fs::path& dir, const ReadOptions& options, Job* job) {
  *job = Job{};
  job->dir = dir;
  if (Status s = read_info(dir, &job->info); !s.ok()) return s;
  if (Status s = read_end_info(dir, &job->end); !s.ok()) return s;
  if (job->cut_short()) {
    job->warnings.push_back((dir / "end_info.json").string() +
                            " is missing: collection was cut short; the report covers what was written");
  } else if (!job->end.complete) {
    job->warnings.push_back((dir / "end_info.json").string() +
                            ": \"complete\" is false: the writer did not finish normally");
  }

  for (DataFile file : kDataFiles) {
    std::error_code ec;
    const bool present = fs::is_regular_file(dir / data_file_path(file), ec);
    job->file_present[static_cast<int>(file)] = present;
    if (!present) continue;
    if (Status s = read_data_file(dir, file, options, job); !s.ok()) return s;
  }
  if (job->end.present) {
    if (Status s = check_record_counts(dir, job); !s.ok()) return s;
  }
  check_enabled_files(job);
  if (job->dropped_total() > 0) {
    std::string list;
    for (DataFile file : kDataFiles) {
      if (job->dropped(file) == 0) continue;
      list += std::string(list.empty() ? "" : ", ") + data_file_key(file) + " " + std::to_string(job->dropped(file));
    }
    job->warnings.push_back(std::to_string(job->dropped_total()) +
                            " records were dropped by the collector (buffer full): " + list);
  }
  return Status::Ok();
}

}  // namespace svp::prof
