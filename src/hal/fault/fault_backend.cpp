#include "hal/fault/fault_backend.h"

#include <algorithm>
#include <memory>
#include <string>
#include <system_error>
#include <thread>

namespace svp::hal::softnpu {
Result<std::unique_ptr<Backend>> create_softnpu_backend(const BackendConfig& config);
}

namespace svp::hal::fault {
namespace {

// Runs the real task but fails at one segment, as a hardware fault would.
class FailingTask final : public SegmentedTask {
 public:
  FailingTask(std::shared_ptr<SegmentedTask> inner, std::size_t segment, int code)
      : inner_(std::move(inner)), segment_(segment), code_(code) {}
  std::size_t segment_count() const override { return std::max<std::size_t>(1, inner_->segment_count()); }
  Status run_segment(std::size_t index, SegmentContext& ctx) override {
    const std::size_t fail_at = std::min(segment_, segment_count() - 1);
    if (index == fail_at) return Error(code_, "injected fault in segment {} (fault backend)", index);
    return inner_->run_segment(index, ctx);
  }
  // The fault changes where the task fails, not where its segments run or what they cost.
  bool on_aicpu(std::size_t index) const override { return index < inner_->segment_count() && inner_->on_aicpu(index); }
  Nanos board_ns(std::size_t index) const override {
    return index < inner_->segment_count() ? inner_->board_ns(index) : 0;
  }
  std::uint64_t segment_macs(std::size_t index) const override {
    return index < inner_->segment_count() ? inner_->segment_macs(index) : 0;
  }

 private:
  std::shared_ptr<SegmentedTask> inner_;
  std::size_t segment_;
  int code_;
};

class FaultDevice final : public Device {
 public:
  FaultDevice(FaultBackend* owner, std::uint32_t index, Device* inner) : owner_(owner), index_(index), inner_(inner) {}

  Result<SqId> create_sq() override { return inner_->create_sq(); }
  std::size_t destroy_sq(SqId sq) override { return inner_->destroy_sq(sq); }
  Status submit(SqId sq, Entry entry) override {
    if (entry.kind == EntryKind::kTask && entry.task) entry.task = owner_->maybe_wrap(index_, sq, std::move(entry.task));
    return inner_->submit(sq, std::move(entry));
  }
  Status synchronize_sq(SqId sq, TimeoutMs t) override { return inner_->synchronize_sq(sq, t); }
  Status synchronize_all(TimeoutMs t) override { return inner_->synchronize_all(t); }
  void complete_report(SqId sq, ReportId id) override { inner_->complete_report(sq, id); }
  Result<EventId> create_event(bool timeline) override { return inner_->create_event(timeline); }
  Status destroy_event(EventId e) override { return inner_->destroy_event(e); }
  Result<EventInfo> query_event(EventId e) override { return inner_->query_event(e); }
  Status synchronize_event(EventId e, TimeoutMs t) override { return inner_->synchronize_event(e, t); }
  Result<float> elapsed_ms(EventId a, EventId b) override { return inner_->elapsed_ms(a, b); }
  Result<std::uint64_t> begin_host_record(EventId e) override { return inner_->begin_host_record(e); }
  Status complete_host_record(EventId e, std::uint64_t record, Status error) override {
    return inner_->complete_host_record(e, record, std::move(error));
  }
  Status run_aicpu(const AiCpuJob& job) override { return inner_->run_aicpu(job); }
  void set_report_sink(ReportSink* sink) override { inner_->set_report_sink(sink); }
  void set_aicpu_sink(AiCpuSink* sink) override { inner_->set_aicpu_sink(sink); }
  void set_task_observer(TaskObserver* observer) override { inner_->set_task_observer(observer); }
  std::uint32_t core_count() const override { return inner_->core_count(); }
  std::vector<CoreSample> core_usage(Nanos window) override { return inner_->core_usage(window); }

 private:
  FaultBackend* owner_;
  std::uint32_t index_;
  Device* inner_;
};

}  // namespace

FaultBackend::FaultBackend(std::unique_ptr<Backend> inner, std::uint64_t fail_every) : inner_(std::move(inner)) {
  for (std::uint32_t i = 0; i < inner_->device_count(); ++i) {
    devices_.push_back(std::make_unique<FaultDevice>(this, i, &inner_->device(i)));
  }
  if (fail_every > 0) {
    FaultRule r;
    r.nth = fail_every;
    r.every = true;
    add_rule(r);
  }
}

FaultBackend::~FaultBackend() {
  devices_.clear();
  inner_.reset();
}

std::uint32_t FaultBackend::device_count() const { return static_cast<std::uint32_t>(devices_.size()); }
Device& FaultBackend::device(std::uint32_t index) { return *devices_.at(index); }
Memory& FaultBackend::memory() { return inner_->memory(); }

void FaultBackend::add_rule(const FaultRule& rule) {
  std::lock_guard<std::mutex> lock(mu_);
  rules_.push_back(RuleState{rule, 0, false});
}

void FaultBackend::clear_rules() {
  std::lock_guard<std::mutex> lock(mu_);
  rules_.clear();
}

std::shared_ptr<SegmentedTask> FaultBackend::maybe_wrap(std::uint32_t device, SqId sq,
                                                        std::shared_ptr<SegmentedTask> task) {
  std::lock_guard<std::mutex> lock(mu_);
  for (RuleState& s : rules_) {
    const FaultRule& r = s.rule;
    if (s.spent || (r.device >= 0 && r.device != device) || (r.sq >= 0 && r.sq != sq) || r.nth == 0) continue;
    ++s.seen;
    const bool hit = r.every ? (s.seen % r.nth == 0) : (s.seen == r.nth);
    if (!hit) continue;
    if (!r.every) s.spent = true;
    ++injected_;
    return std::make_shared<FailingTask>(std::move(task), r.segment, r.code);
  }
  return task;
}

Result<std::unique_ptr<Backend>> create_fault_backend(const BackendConfig& config) {
  std::uint64_t every = 0;
  if (auto it = config.options.find("fail_every_nth_task"); it != config.options.end()) {
    const std::string& v = it->second;
    if (v.empty() || v.size() > 18 || v.find_first_not_of("0123456789") != std::string::npos) {
      return Error(err::kFileAttrInvalid, "fault backend: fail_every_nth_task must be a decimal count, got \"{}\"", v);
    }
    every = std::stoull(v);
  }
  BackendConfig inner_config = config;
  if (auto it = config.options.find("fail_thread_start"); it != config.options.end()) {
    // The n-th device thread start (1-based) fails as pthread_create does on a host out
    // of threads: svp_acl_init must return an error, not terminate.
    const std::string& v = it->second;
    if (v.empty() || v.size() > 9 || v.find_first_not_of("0123456789") != std::string::npos || v == "0") {
      return Error(err::kFileAttrInvalid, "fault backend: fail_thread_start must be a count from 1, got \"{}\"", v);
    }
    auto left = std::make_shared<std::uint64_t>(std::stoull(v));
    inner_config.start_thread = [left](std::function<void()> body) {
      if (--*left == 0) throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again));
      return std::thread(std::move(body));
    };
  }
  auto inner = softnpu::create_softnpu_backend(inner_config);
  if (!inner.ok()) return inner.status();
  return std::unique_ptr<Backend>(std::make_unique<FaultBackend>(std::move(*inner), every));
}

}  // namespace svp::hal::fault
