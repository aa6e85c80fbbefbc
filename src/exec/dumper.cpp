#include "exec/dumper.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/log.h"
#include "common/npy.h"

namespace svp::exec {
namespace {

constexpr std::size_t kMaxQueuedBytes = 256u << 20;

// File-name safe: ONNX layer names often hold '/' and ':'.
std::string safe_name(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '-' || c == '.';
    out += ok ? c : '_';
  }
  if (out.empty() || out == "." || out == "..") out = "_" + out;
  return out;
}

const char* npy_descr(model::DType t) {
  switch (t) {
    case model::DType::kFloat32: return "<f4";
    case model::DType::kFloat16: return "<f2";
    case model::DType::kInt8: return "|i1";
    case model::DType::kUint8: return "|u1";
    case model::DType::kInt16: return "<i2";
    case model::DType::kUint16: return "<u2";
    case model::DType::kInt32: return "<i4";
    case model::DType::kUint32: return "<u4";
    case model::DType::kInt64: return "<i8";
    case model::DType::kUint64: return "<u8";
    case model::DType::kFloat64: return "<f8";
    case model::DType::kBool: return "|b1";
  }
  return nullptr;
}

}  // namespace

Dumper& Dumper::instance() {
  static Dumper d;
  return d;
}

void Dumper::start_from_acl_json(DumpConfig config) {
  std::lock_guard<std::mutex> lock(mu_);
  mode_ = Mode::kAclJson;
  config_ = std::move(config);
  session_.fetch_add(1);
}

// A process that never calls svp_acl_finalize (the Python module keeps its runtime to the
// end) still exits cleanly: a joinable writer thread would abort in std::thread's destructor.
Dumper::~Dumper() { stop_writer(); }

void Dumper::shutdown() {
  drain();
  {
    std::lock_guard<std::mutex> lock(mu_);
    mode_ = Mode::kOff;
    config_.reset();
    session_.fetch_add(1);
  }
  stop_writer();
}

void Dumper::stop_writer() {
  std::thread writer;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    writer = std::move(writer_);
  }
  cv_.notify_all();
  if (writer.joinable()) writer.join();
  std::lock_guard<std::mutex> lock(mu_);
  stop_ = false;
}

Status Dumper::api_init() {
  std::lock_guard<std::mutex> lock(mu_);
  if (mode_ == Mode::kAclJson) {
    return Error(err::kDumpAlreadyRun, "model dump is already configured by acl.json's \"dump\" section");
  }
  if (mode_ == Mode::kApi) {
    return Error(err::kDumpAlreadyRun, "svp_acl_mdl_init_dump was already called (svp_acl_mdl_finalize_dump first)");
  }
  mode_ = Mode::kApi;
  config_.reset();
  return Status::Ok();
}

Status Dumper::api_set(const std::string& config_path) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (mode_ != Mode::kApi) {
      return Error(err::kDumpNotRun, "svp_acl_mdl_set_dump needs svp_acl_mdl_init_dump first");
    }
  }
  auto c = load_dump_config_file(config_path);
  if (!c.ok()) return c.status();
  std::lock_guard<std::mutex> lock(mu_);
  if (mode_ != Mode::kApi) return Error(err::kDumpNotRun, "model dump was finalized meanwhile");
  config_ = std::move(*c);
  session_.fetch_add(1);  // the last call wins, for models loaded from now on
  return Status::Ok();
}

Status Dumper::api_finalize() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (mode_ != Mode::kApi) {
      return Error(err::kDumpNotRun, "svp_acl_mdl_finalize_dump without svp_acl_mdl_init_dump");
    }
    mode_ = Mode::kOff;
    config_.reset();
    session_.fetch_add(1);  // models loaded under it stop dumping
  }
  drain();
  stop_writer();  // the next dump starts its own writer with its first record
  return Status::Ok();
}

std::shared_ptr<DumpPlan> Dumper::plan_for(const model::Program& program, std::uint32_t model_id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!config_) return nullptr;
  const DumpConfig& c = *config_;
  const std::string name = program.name.empty() ? fmt::format("model{}", model_id) : program.name;
  const DumpConfig::Entry* entry = nullptr;
  if (!c.list.empty()) {
    for (const auto& e : c.list) {
      if (e.model_name == name) entry = &e;
    }
    if (entry == nullptr) return nullptr;
  }
  auto plan = std::make_shared<DumpPlan>();
  plan->model_name = name;
  plan->model_id = model_id;
  plan->inputs = c.inputs;
  plan->outputs = c.outputs;
  plan->session = session_.load();
  plan->steps = c.steps;
  plan->dir = (std::filesystem::path(c.path) / safe_name(name)).string();
  plan->layers.assign(program.layers.size(), entry == nullptr || entry->layers.empty());
  if (entry != nullptr) {
    for (const std::string& want : entry->layers) {
      bool found = false;
      for (std::size_t i = 0; i < program.layers.size(); ++i) {
        if (program.layers[i].name == want) plan->layers[i] = found = true;
      }
      if (!found) SVP_LOG_WARN("model dump: model \"{}\" has no layer \"{}\" (dump_list)", name, want);
    }
  }
  std::error_code ec;
  std::filesystem::create_directories(plan->dir, ec);
  if (ec) {
    SVP_LOG_WARN("model dump: cannot create {} ({}); model \"{}\" is not dumped", plan->dir, ec.message(), name);
    return nullptr;
  }
  return plan;
}

void Dumper::write(DumpRecord record) {
  std::unique_lock<std::mutex> lock(mu_);
  space_cv_.wait(lock, [&] { return queued_bytes_ < kMaxQueuedBytes || queue_.empty(); });
  queued_bytes_ += record.bytes.size();
  queue_.push_back(std::move(record));
  if (!writer_.joinable()) writer_ = std::thread([this] { writer_main(); });
  cv_.notify_one();
}

void Dumper::drain() {
  std::unique_lock<std::mutex> lock(mu_);
  space_cv_.wait(lock, [&] { return queue_.empty() && !busy_; });
}

void Dumper::writer_main() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stop_ and nothing left
    DumpRecord r = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    write_one(r);
    lock.lock();
    busy_ = false;
    queued_bytes_ -= r.bytes.size();
    space_cv_.notify_all();
  }
}

void Dumper::write_one(const DumpRecord& r) {
  const DumpPlan& plan = *r.plan;
  // Two loaded instances of one model share the model's directory: the model id keeps
  // their executions apart.
  const std::string exec_dir = fmt::format("{}/exec{:06}", plan.model_id, r.execution);
  std::string file;
  bool ok = true;
  if (!r.bytes.empty()) {
    const char* descr = npy_descr(r.dtype);
    std::string base = fmt::format("{}.{}.{}", safe_name(r.layer), r.input ? "input" : "output", r.index);
    if (r.batch > 1) base += fmt::format(".b{}", r.batch_item);
    file = exec_dir + "/" + base + ".npy";
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(plan.dir) / exec_dir, ec);
    std::ofstream out(std::filesystem::path(plan.dir) / file, std::ios::binary);
    if (descr == nullptr || ec || !out) {
      ok = false;
    } else {
      const std::string h = npy::header(descr, r.dims);
      out.write(h.data(), static_cast<std::streamsize>(h.size()));
      out.write(reinterpret_cast<const char*>(r.bytes.data()), static_cast<std::streamsize>(r.bytes.size()));
      ok = static_cast<bool>(out);
    }
  }
  nlohmann::json line = {{"model", plan.model_name},
                         {"model_id", plan.model_id},
                         {"execution", r.execution},
                         {"batch_item", r.batch_item},
                         {"layer", r.layer},
                         {"op", r.op},
                         {"io", r.input ? "input" : "output"},
                         {"index", r.index},
                         {"tensor", r.tensor},
                         {"dtype", model::dtype_name(r.dtype)},
                         {"dims", r.dims}};
  if (!r.quant.empty()) {
    line["scale"] = r.quant.scale;
    line["zero_point"] = r.quant.zero_point;
    line["axis"] = r.quant.axis;
  }
  if (ok && !file.empty()) {
    line["file"] = file;
  } else {
    line["file"] = nullptr;
    line["note"] = r.note.empty() ? "the file could not be written" : r.note;
  }
  std::ofstream index(std::filesystem::path(plan.dir) / "index.jsonl", std::ios::app);
  index << line.dump() << '\n';
  if (ok && index) {
    written_.fetch_add(1);
  } else {
    if (failed_.fetch_add(1) == 0) SVP_LOG_WARN("model dump: writing into {} failed", plan.dir);
  }
}

}  // namespace svp::exec
