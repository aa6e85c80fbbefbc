#include "runtime/profiling_api.h"

#include "runtime/runtime.h"

namespace svp::runtime::prof {

using profiling::Profiler;

Status init(const std::string& result_path) { return Profiler::instance().init(result_path); }
Status finalize() { return Profiler::instance().finalize(); }
Status start(const FileConfig& config) { return Profiler::instance().start(config); }
Status stop(const FileConfig& config) { return Profiler::instance().stop(config); }
bool is_started(const FileConfig& config) { return Profiler::instance().is_started(config); }

Status subscribe(Runtime& rt, std::uint32_t model_id, const SubscribeConfig& config) {
  SVP_RETURN_IF_ERROR(rt.models().lookup(model_id).status());
  return Profiler::instance().subscribe(model_id, config);
}

Status unsubscribe(std::uint32_t model_id) { return Profiler::instance().unsubscribe(model_id); }

Result<std::uint32_t> op_count(const void* data, std::size_t len) { return profiling::op_count(data, len); }

Status op_at(const void* data, std::size_t len, std::uint32_t index, OpDesc* out) {
  return profiling::op_at(data, len, index, out);
}

}  // namespace svp::runtime::prof
