#include "hal/hal.h"

#include <chrono>
#include <mutex>
#include <utility>

#include "hal/fence.h"

namespace svp::hal {

namespace softnpu {
Result<std::unique_ptr<Backend>> create_softnpu_backend(const BackendConfig& config);
}
namespace fault {
Result<std::unique_ptr<Backend>> create_fault_backend(const BackendConfig& config);
}

namespace {

class SteadyClock final : public Clock {
 public:
  Nanos now() const override {
    return static_cast<Nanos>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::steady_clock::now().time_since_epoch())
                                  .count());
  }
};

struct Registry {
  std::mutex mu;
  std::map<std::string, BackendFactory> factories;
  Registry() {
    // Built-ins are registered here rather than by static initialisers, which a static
    // library link would silently drop.
    factories["softnpu"] = softnpu::create_softnpu_backend;
    factories["fault"] = fault::create_fault_backend;
  }
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

std::shared_ptr<Clock> steady_clock() {
  static const std::shared_ptr<Clock> clock = std::make_shared<SteadyClock>();
  return clock;
}

Entry Entry::Task(std::shared_ptr<SegmentedTask> t, TaskSettings s) {
  Entry e;
  e.kind = EntryKind::kTask;
  e.task = std::move(t);
  e.settings = s;
  return e;
}

namespace {

Entry event_entry(EntryKind kind, EventId ev) {
  Entry e;
  e.kind = kind;
  e.event = ev;
  return e;
}

}  // namespace

Entry Entry::Record(EventId ev) { return event_entry(EntryKind::kEventRecord, ev); }
Entry Entry::Wait(EventId ev) { return event_entry(EntryKind::kEventWait, ev); }
Entry Entry::Reset(EventId ev) { return event_entry(EntryKind::kEventReset, ev); }

Entry Entry::Report(ReportId id, bool block) {
  Entry e;
  e.kind = EntryKind::kReport;
  e.report = id;
  e.block = block;
  return e;
}

Entry Entry::Release(Nanos board_time) {
  Entry e;
  e.kind = EntryKind::kRelease;
  e.release_at = board_time;
  return e;
}

void register_backend(const std::string& name, BackendFactory factory) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.factories[name] = std::move(factory);
}

Result<std::unique_ptr<Backend>> create_backend(const BackendConfig& config) {
  BackendFactory factory;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.factories.find(config.backend);
    if (it == r.factories.end()) {
      return Error(err::kFileAttrInvalid, "unknown NPU backend \"{}\" (known: softnpu, fault, and any registered by the application)",
                   config.backend);
    }
    factory = it->second;
  }
  return factory(config);
}

}  // namespace svp::hal
