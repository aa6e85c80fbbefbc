// The profiling services of the C API (svp_acl_prof.h), reached through the runtime: file
// mode (init/start/stop/finalize), model subscriptions, and the decoders of the operator
// records a subscription writes. The state machines live in profiling::Profiler; the C
// shims (src/capi/prof.cpp) check arguments, resolve their opaque configs and call these.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/status.h"
#include "profiling/op_desc.h"
#include "profiling/profiler.h"

namespace svp::runtime {

class Runtime;

namespace prof {

using FileConfig = profiling::FileConfig;
using SubscribeConfig = profiling::SubscribeConfig;
using OpDesc = profiling::OpDesc;
inline constexpr std::uint32_t kAllDataTypes = profiling::kAllDataTypes;

// File mode (docs/profiling.md).
Status init(const std::string& result_path);
Status finalize();
Status start(const FileConfig& config);
Status stop(const FileConfig& config);
bool is_started(const FileConfig& config);

// Subscribe mode: model `model_id` must be loaded in `rt`. Errors: kInvalidModelId, those
// of Profiler::subscribe.
Status subscribe(Runtime& rt, std::uint32_t model_id, const SubscribeConfig& config);
Status unsubscribe(std::uint32_t model_id);

// Record decoding (pure functions: no svp_acl_init needed).
Result<std::uint32_t> op_count(const void* data, std::size_t len);
Status op_at(const void* data, std::size_t len, std::uint32_t index, OpDesc* out);

}  // namespace prof
}  // namespace svp::runtime
