// Synthetic JOB directories for the svp_prof tests, written the way docs/profiling.md
// says the runtime writes them, plus a reference scenario whose figures are worked out
// by hand in the comments below.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "svp_prof/job.h"

namespace svp::prof::test {

namespace fs = std::filesystem;
using nlohmann::json;

// A fresh directory under the system temp dir, removed with its contents.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ =
        fs::temp_directory_path() / ("svp_prof_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

inline std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::vector<std::string> read_lines(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Every time in the synthetic jobs is kT0 + a small offset: the outputs show offsets.
inline constexpr std::int64_t kT0 = 1'000'000'000;

// A JOB directory built record by record, written by write().
struct JobWriter {
  json info = {{"format", "svp-acl-profile"},
               {"version", 1},
               {"source", "api"},
               {"pid", 4242},
               {"start_ns", kT0},
               {"wall_clock_start", "2026-11-21T14:00:00Z"},
               {"devices", json::array({{{"id", 0}, {"cores", 2}}})},
               {"data_types", json::array({"acl_api", "task_time", "aicpu_trace"})},
               {"interval", 1},
               {"library", "svp-acl 0.1.0"}};
  std::map<DataFile, std::vector<std::string>> lines;  // files in the map are written
  std::map<DataFile, std::string> partial_tail;        // appended without '\n'
  bool write_end_info = true;
  std::int64_t end_ns = kT0 + 30000;
  std::map<std::string, std::int64_t> records_override;
  std::map<std::string, std::int64_t> dropped;

  void add(DataFile f, const json& record) { lines[f].push_back(record.dump()); }
  void add_raw(DataFile f, const std::string& line) { lines[f].push_back(line); }
  void enable(DataFile f) { lines[f]; }
  // Writer order is only roughly time order: tests shuffle to prove the reader sorts.
  void shuffle(DataFile f, unsigned seed) {
    std::mt19937 rng(seed);
    std::shuffle(lines[f].begin(), lines[f].end(), rng);
  }

  void write(const fs::path& dir) const {
    fs::create_directories(dir / "data");
    std::ofstream(dir / "info.json") << info.dump(2) << "\n";
    json records = json::object();
    json drop = json::object();
    for (DataFile f : kDataFiles) {
      auto it = lines.find(f);
      if (it == lines.end()) continue;
      std::ofstream out(dir / data_file_path(f), std::ios::binary);
      for (const std::string& l : it->second) out << l << "\n";
      auto tail = partial_tail.find(f);
      if (tail != partial_tail.end()) out << tail->second;
      records[data_file_key(f)] = it->second.size();
      drop[data_file_key(f)] = 0;
    }
    for (const auto& [k, v] : records_override) records[k] = v;
    for (const auto& [k, v] : dropped) drop[k] = v;
    if (write_end_info) {
      json end = {{"end_ns", end_ns}, {"complete", true}, {"records", records}, {"dropped", drop}};
      std::ofstream(dir / "end_info.json") << end.dump(2) << "\n";
    }
  }
};

// A task event at kT0 + t with the given extra fields.
inline json ev(const char* kind, std::int64_t stream, std::int64_t task, std::int64_t t, json extra = json::object(),
               std::int64_t device = 0) {
  json e = {{"ev", kind}, {"device", device}, {"stream", stream}, {"task", task}, {"t", kT0 + t}};
  e.update(extra);
  return e;
}

struct OpSpec {
  std::int64_t model;  // < 0: no model field
  const char* name;
  const char* type;
  const char* unit;
  std::int64_t stream, task, core, prio, layer, seg;
  std::int64_t begin, end;  // offsets from kT0
  std::int64_t batch = 0;
  std::int64_t device = 0;
};

inline json op(const OpSpec& s) {
  json o = {{"name", s.name},       {"type", s.type}, {"unit", s.unit},   {"device", s.device},
            {"stream", s.stream},   {"task", s.task}, {"core", s.core},   {"prio", s.prio},
            {"layer", s.layer},     {"seg", s.seg},   {"batch", s.batch}, {"start_ns", kT0 + s.begin},
            {"end_ns", kT0 + s.end}};
  if (s.model >= 0) o["model"] = s.model;
  return o;
}

inline json api(const char* name, std::int64_t tid, std::int64_t begin, std::int64_t end, std::int64_t ret) {
  return {{"name", name}, {"tid", tid}, {"start_ns", kT0 + begin}, {"end_ns", kT0 + end}, {"ret", ret}};
}

// The reference scenario: device 0 with 2 cores, offsets in ns from kT0, end_ns 30000.
//
//   A  stream 1 task 1 model 1 prio 2: submit 1000, start 2000 core 0, preempted at 5000
//      by stream 2 task 2, resumed 8000 at prio 3, end 10000.
//      queue 1000, run 3000 + 2000 = 5000, preempted 3000, max prio 3.
//   B  stream 2 task 2 model 2 prio 5: submit 4000, start 5000 core 0, end 8000.
//      queue 1000, run 3000.
//   C  stream 1 task 3 model 1 prio 2: submit 10500, start 11000 core 1, AI-CPU segment
//      posted 12000 with the core released, host thread 99 runs it 12500-14000, resumed
//      15000 on core 0, end 16000.  queue 500, run 1000 + 1000 = 2000, AI-CPU wait 3000.
//   D  stream 3 task 4 (no model) prio 0: submit 16000, start 16500 core 1, AI-CPU
//      segment posted 17000 holding core 1, thread 98 runs it 17100-18000, end 19000
//      with status 507011.  run 500 + 1000 (held) + 1000 = 2500, AI-CPU wait 1000, failed.
//   E  stream 2 task 5 model 2 prio 5: submit 20000, start 21000 core 0, no end:
//      incomplete, run 9000 up to end_ns.
//   F  stream 3 task 6 prio 1: submitted at 25000, never started.
//
// Operators (type: count, total): Conv 4 × (3000, 1000, 500, 2000) = 6500, min 500,
// max 3000, avg 1625; Relu 2 × (2000, 1000) = 3000; Gemm 3000; NMS (aicpu) 1500; Softmax
// 1000; TopK (aicpu) 900. All operators: 15900 ns, Conv's share 40.88 %.
//
// API: svp_acl_mdl_execute (tid 4243) 1000 + 600 ns; svp_acl_rt_malloc (tid 4244) 50 +
// 60 ns, the second returning 207000.
inline void add_reference_scenario(JobWriter& w) {
  const DataFile task = DataFile::kTask;
  // A
  w.add(task, ev("submit", 1, 1, 1000, {{"model", 1}, {"prio", 2}, {"segments", 2}}));
  w.add(task, ev("start", 1, 1, 2000, {{"core", 0}, {"prio", 2}}));
  w.add(task, ev("preempt", 1, 1, 5000, {{"core", 0}, {"seg", 1}, {"by_stream", 2}, {"by_task", 2}}));
  w.add(task, ev("resume", 1, 1, 8000, {{"core", 0}, {"seg", 1}, {"prio", 3}}));
  w.add(task, ev("end", 1, 1, 10000, {{"core", 0}, {"status", 0}}));
  // B
  w.add(task, ev("submit", 2, 2, 4000, {{"model", 2}, {"prio", 5}, {"segments", 1}}));
  w.add(task, ev("start", 2, 2, 5000, {{"core", 0}, {"prio", 5}}));
  w.add(task, ev("end", 2, 2, 8000, {{"core", 0}, {"status", 0}}));
  // C
  w.add(task, ev("submit", 1, 3, 10500, {{"model", 1}, {"prio", 2}, {"segments", 3}}));
  w.add(task, ev("start", 1, 3, 11000, {{"core", 1}, {"prio", 2}}));
  w.add(task, ev("aicpu_post", 1, 3, 12000, {{"seg", 1}, {"core", -1}}));
  w.add(task, ev("aicpu_start", 1, 3, 12500, {{"seg", 1}, {"tid", 99}}));
  w.add(task, ev("aicpu_end", 1, 3, 14000, {{"seg", 1}, {"tid", 99}}));
  w.add(task, ev("resume", 1, 3, 15000, {{"core", 0}, {"seg", 2}, {"prio", 2}}));
  w.add(task, ev("end", 1, 3, 16000, {{"core", 0}, {"status", 0}}));
  // D
  w.add(task, ev("submit", 3, 4, 16000, {{"prio", 0}, {"segments", 3}}));
  w.add(task, ev("start", 3, 4, 16500, {{"core", 1}, {"prio", 0}}));
  w.add(task, ev("aicpu_post", 3, 4, 17000, {{"seg", 1}, {"core", 1}}));
  w.add(task, ev("aicpu_start", 3, 4, 17100, {{"seg", 1}, {"tid", 98}}));
  w.add(task, ev("aicpu_end", 3, 4, 18000, {{"seg", 1}, {"tid", 98}}));
  w.add(task, ev("end", 3, 4, 19000, {{"core", 1}, {"status", 507011}}));
  // E, F
  w.add(task, ev("submit", 2, 5, 20000, {{"model", 2}, {"prio", 5}, {"segments", 1}}));
  w.add(task, ev("start", 2, 5, 21000, {{"core", 0}, {"prio", 5}}));
  w.add(task, ev("submit", 3, 6, 25000, {{"prio", 1}, {"segments", 1}}));

  const DataFile core = DataFile::kAicore;
  const DataFile cpu = DataFile::kAicpu;
  w.add(core, op({1, "conv1", "Conv", "npu", 1, 1, 0, 2, 0, 0, 2000, 5000}));
  w.add(core, op({1, "relu1", "Relu", "npu", 1, 1, 0, 3, 1, 1, 8000, 10000}));
  w.add(core, op({2, "fc", "Gemm", "npu", 2, 2, 0, 5, 0, 0, 5000, 8000}));
  w.add(core, op({1, "conv2", "Conv", "npu", 1, 3, 1, 2, 0, 0, 11000, 12000}));
  w.add(cpu, op({1, "nms", "NMS", "aicpu", 1, 3, -1, 2, 1, 1, 12500, 14000}));
  w.add(core, op({1, "softmax", "Softmax", "npu", 1, 3, 0, 2, 2, 2, 15000, 16000}));
  w.add(core, op({-1, "conv3", "Conv", "npu", 3, 4, 1, 0, 0, 0, 16500, 17000}));
  w.add(cpu, op({-1, "topk", "TopK", "aicpu", 3, 4, -1, 0, 1, 1, 17100, 18000}));
  w.add(core, op({-1, "relu2", "Relu", "npu", 3, 4, 1, 0, 2, 2, 18000, 19000}));
  w.add(core, op({2, "conv4", "Conv", "npu", 2, 5, 0, 5, 0, 0, 21000, 23000}));

  w.add(DataFile::kAclApi, api("svp_acl_rt_malloc", 4244, 100, 150, 0));
  w.add(DataFile::kAclApi, api("svp_acl_rt_malloc", 4244, 200, 260, 207000));
  w.add(DataFile::kAclApi, api("svp_acl_mdl_execute", 4243, 500, 1500, 0));
  w.add(DataFile::kAclApi, api("svp_acl_mdl_execute", 4243, 3000, 3600, 0));
}

// `tasks` tasks on `streams` streams of device 0, each submitted by an
// svp_acl_mdl_execute_async call and running three NPU operators; every fourth task is
// preempted once and every fifth has a released AI-CPU segment (one AI-CPU operator).
// Returns the number of operators written.
inline std::int64_t add_many_tasks(JobWriter& w, int tasks, int streams) {
  std::int64_t ops = 0;
  std::int64_t t = 1000;
  for (int i = 0; i < tasks; ++i) {
    const std::int64_t stream = i % streams;
    const std::int64_t id = i + 1;
    const std::int64_t prio = i % 8;
    const std::int64_t core = i % 2;
    w.add(DataFile::kAclApi, api("svp_acl_mdl_execute_async", 4243, t - 150, t + 50, 0));
    w.add(DataFile::kTask, ev("submit", stream, id, t, {{"model", 1 + stream}, {"prio", prio}, {"segments", 3}}));
    std::int64_t now = t + 200;
    w.add(DataFile::kTask, ev("start", stream, id, now, {{"core", core}, {"prio", prio}}));
    for (int layer = 0; layer < 3; ++layer) {
      if (layer == 1 && i % 4 == 0) {
        w.add(DataFile::kTask,
              ev("preempt", stream, id, now, {{"core", core}, {"seg", 1}, {"by_stream", stream + 1}, {"by_task", 0}}));
        now += 700;
        w.add(DataFile::kTask, ev("resume", stream, id, now, {{"core", core}, {"seg", 1}, {"prio", prio}}));
      }
      if (layer == 2 && i % 5 == 0) {
        w.add(DataFile::kTask, ev("aicpu_post", stream, id, now, {{"seg", 2}, {"core", -1}}));
        w.add(DataFile::kTask, ev("aicpu_start", stream, id, now + 50, {{"seg", 2}, {"tid", 77}}));
        w.add(DataFile::kTask, ev("aicpu_end", stream, id, now + 450, {{"seg", 2}, {"tid", 77}}));
        w.add(DataFile::kAicpu,
              op({1 + stream, "postprocess", "Custom", "aicpu", stream, id, -1, prio, 2, 2, now + 50, now + 450}));
        ++ops;
        now += 500;
        w.add(DataFile::kTask, ev("resume", stream, id, now, {{"core", core}, {"seg", 2}, {"prio", prio}}));
      }
      const char* names[] = {"conv", "relu", "fc"};
      const char* types[] = {"Conv", "Relu", "Gemm"};
      w.add(DataFile::kAicore, op({1 + stream, names[layer], types[layer], "npu", stream, id, core, prio, layer, layer,
                                   now, now + 300 + 100 * layer}));
      ++ops;
      now += 300 + 100 * layer;
    }
    w.add(DataFile::kTask, ev("end", stream, id, now, {{"core", core}, {"status", 0}}));
    t = now + 100;
  }
  w.end_ns = kT0 + t + 1000;
  return ops;
}

}  // namespace svp::prof::test
