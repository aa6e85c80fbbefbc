// Helpers for profiling tests: temporary result directories, JOB-directory readers, small
// models and the vendor's pipe reader loop (seed 003 §8.7, example 1).
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "acl/svp_acl_prof.h"
#include "compiler/builder.h"
#include "model_io.h"

namespace svp::test {

namespace fs = std::filesystem;
using nlohmann::json;

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/svp_prof_test_XXXXXX";
    path_ = mkdtemp(tmpl) != nullptr ? tmpl : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The JOB directories directly under `root`.
inline std::vector<fs::path> job_dirs(const std::string& root) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root, ec)) {
    if (e.is_directory() && e.path().filename().string().rfind("JOB", 0) == 0) out.push_back(e.path());
  }
  return out;
}

inline json read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

// Every line of a .jsonl file, each checked to be one complete JSON object.
inline std::vector<json> read_jsonl(const fs::path& p) {
  std::vector<json> out;
  std::ifstream in(p);
  std::string line;
  while (std::getline(in, line)) {
    out.push_back(json::parse(line));
  }
  return out;
}

// `n` layers alternating Relu and Sigmoid on a 1×4×8×8 input, one segment per layer;
// with `aicpu_at` >= 0 that layer runs on the AI-CPU.
inline svp::compiler::BuiltModel chain_model(const std::string& name, int n, int aicpu_at = -1) {
  using namespace svp::model;  // NOLINT(google-build-using-namespace)
  using namespace svp::compiler;  // NOLINT(google-build-using-namespace)
  ModelBuilder b(name);
  TensorId t = b.add_input("x", DType::kFloat32, {1, 4, 8, 8});
  for (int i = 0; i < n; ++i) {
    LayerOptions o;
    if (i == aicpu_at) o.target = Target::kAiCpu;
    t = b.add_layer(name + "_l" + std::to_string(i), i % 2 == 0 ? "Relu" : "Sigmoid", {t}, o);
  }
  b.add_output(t, "y");
  b.segment_every(1);
  return std::move(*b.build());
}

// Four one-layer segments, AI-CPU / NPU / AI-CPU / NPU, compiled preemptible with busy-wait
// AI-CPU layers: a test that serves the first AI-CPU layer knows the execution holds the
// core; a higher-priority task submitted then preempts it at a later segment boundary,
// whatever the timing (the second AI-CPU layer, which the test also serves, guarantees
// the execution is still there to be preempted).
inline svp::compiler::BuiltModel preemptible_aicpu_model(const std::string& name) {
  using namespace svp::model;  // NOLINT(google-build-using-namespace)
  using namespace svp::compiler;  // NOLINT(google-build-using-namespace)
  ModelBuilder b(name);
  TensorId t = b.add_input("x", DType::kFloat32, {1, 4, 8, 8});
  for (int i = 0; i < 4; ++i) {
    LayerOptions o;
    if (i % 2 == 0) o.target = Target::kAiCpu;
    t = b.add_layer(name + "_l" + std::to_string(i), "Relu", {t}, o);
  }
  b.add_output(t, "y");
  b.segment_every(1);
  b.set_preemptible(true);
  b.set_aicpu_busy_wait(true);
  return std::move(*b.build());
}

inline void set_model_priority(uint32_t id, int32_t priority) {
  svp_acl_mdl_config_handle* h = svp_acl_mdl_create_config_handle();
  ASSERT_EQ(svp_acl_mdl_set_config_opt(h, SVP_ACL_MDL_PRIORITY_INT32, &priority, sizeof priority), SVP_ACL_SUCCESS);
  ASSERT_EQ(svp_acl_mdl_set_model_config(id, h), SVP_ACL_SUCCESS);
  ASSERT_EQ(svp_acl_mdl_destroy_config_handle(h), SVP_ACL_SUCCESS);
}

struct OpSeen {
  std::size_t model = 0;
  std::string type;
  std::string name;
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::uint64_t duration = 0;
};

// Runs the seed's example-1 reader on a thread: read N records at a time, decode every
// record with the svp_acl_prof_get_* helpers, repeat until end-of-file.
class SeedPipeReader {
 public:
  explicit SeedPipeReader(int read_fd, unsigned delay_ms_per_read = 0)
      : fd_(read_fd), delay_ms_(delay_ms_per_read), thread_([this] { run(); }) {}
  ~SeedPipeReader() { join(); }
  void join() {
    if (thread_.joinable()) thread_.join();
  }
  std::vector<OpSeen> ops() {
    std::lock_guard<std::mutex> lock(mu_);
    return ops_;
  }
  int errors() {
    std::lock_guard<std::mutex> lock(mu_);
    return errors_;
  }

 private:
  void get_model_info(void* data, uint32_t len) {
    uint32_t op_number = 0;
    if (svp_acl_prof_get_op_num(data, len, &op_number) != SVP_ACL_SUCCESS) {
      std::lock_guard<std::mutex> lock(mu_);
      ++errors_;
      return;
    }
    for (int32_t i = 0; i < static_cast<int32_t>(op_number); i++) {
      OpSeen s;
      s.model = svp_acl_prof_get_model_id(data, len, i);
      size_t op_type_len = 0;
      svp_acl_prof_get_op_type_len(data, len, i, &op_type_len);
      std::vector<char> op_type(op_type_len);
      svp_acl_prof_get_op_type(data, len, i, op_type.data(), op_type_len);
      size_t op_name_len = 0;
      svp_acl_prof_get_op_name_len(data, len, i, &op_name_len);
      std::vector<char> op_name(op_name_len);
      svp_acl_prof_get_op_name(data, len, i, op_name.data(), op_name_len);
      s.type = op_type.data();
      s.name = op_name.data();
      s.start = svp_acl_prof_get_op_start(data, len, i);
      s.end = svp_acl_prof_get_op_end(data, len, i);
      s.duration = svp_acl_prof_get_op_duration(data, len, i);
      std::lock_guard<std::mutex> lock(mu_);
      ops_.push_back(s);
    }
  }
  void run() {
    uint64_t N = 10;
    size_t buffer_size = 0;
    svp_acl_prof_get_op_desc_size(&buffer_size);
    uint64_t read_buf_len = buffer_size * N;
    char* read_buf = static_cast<char*>(malloc(sizeof(char) * read_buf_len));
    ssize_t data_len = read(fd_, read_buf, read_buf_len);
    while (data_len > 0) {
      get_model_info(read_buf, static_cast<uint32_t>(data_len));
      memset(read_buf, 0, buffer_size);
      if (delay_ms_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms_));
      data_len = read(fd_, read_buf, read_buf_len);
    }
    free(read_buf);
  }

  int fd_;
  unsigned delay_ms_;
  std::mutex mu_;
  std::vector<OpSeen> ops_;
  int errors_ = 0;
  std::thread thread_;
};

}  // namespace svp::test
