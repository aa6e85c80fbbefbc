// svp_acl_prof.h: file mode (init/start/stop/finalize with configs), subscribe mode
// (model subscriptions writing operator records to application pipes) and the decoders
// of those records. The state machines live in profiling::Profiler, reached through the
// runtime (runtime/profiling_api.h); this file checks arguments, resolves the opaque
// configs and converts errors (docs/profiling.md).
#include <cstring>

#include "acl/svp_acl_prof.h"
#include "capi/guard.h"
#include "capi/live_set.h"
#include "capi/shim.h"
#include "runtime/profiling_api.h"

using svp::capi::enum_bits;
using svp::capi::LiveSet;
using svp::capi::with_runtime;
using svp::runtime::Runtime;
namespace prof = svp::runtime::prof;

struct svp_acl_prof_config {
  prof::FileConfig config;
};

struct svp_acl_prof_subscribe_config {
  prof::SubscribeConfig config;
};

namespace {

LiveSet<svp_acl_prof_config>& configs() {
  static LiveSet<svp_acl_prof_config> set("profiling config");
  return set;
}

LiveSet<svp_acl_prof_subscribe_config>& subscribe_configs() {
  static LiveSet<svp_acl_prof_subscribe_config> set("subscribe config");
  return set;
}

constexpr std::size_t kMaxPathLength = 4096;

Status check_metrics(svp_acl_prof_aicore_metrics m) {
  const int v = enum_bits(m);
  if (v != SVP_ACL_AICORE_ARITHMETIC_UTILIZATION && v != SVP_ACL_AICORE_NONE) {
    return Error(err::kInvalidParam,
                 "aicore_metrics {} is not supported (SVP_ACL_AICORE_ARITHMETIC_UTILIZATION or SVP_ACL_AICORE_NONE)", v);
  }
  return Status::Ok();
}

// Accessors returning a value: 0 on failure, with the error recorded.
template <typename F>
uint64_t field_or_zero(const char* fn, const void* data, size_t len, uint32_t index, F&& get) {
  return guard_value<uint64_t>(fn, 0, [&]() -> Result<uint64_t> {
    prof::OpDesc d;
    SVP_RETURN_IF_ERROR(prof::op_at(data, len, index, &d));
    return get(d);
  });
}

svp_acl_error string_len(const char* fn, const void* data, size_t len, uint32_t index, size_t* out, bool name) {
  return guard(fn, [&]() -> Status {
    if (out == nullptr) return Error(err::kInvalidParam, "the output length pointer is NULL");
    prof::OpDesc d;
    SVP_RETURN_IF_ERROR(prof::op_at(data, len, index, &d));
    *out = std::strlen(name ? d.op_name : d.op_type) + 1;
    return Status::Ok();
  });
}

svp_acl_error string_copy(const char* fn, const void* data, size_t len, uint32_t index, char* dst, size_t dst_len,
                          bool name) {
  return guard(fn, [&]() -> Status {
    if (dst == nullptr) return Error(err::kInvalidParam, "the output buffer is NULL");
    prof::OpDesc d;
    SVP_RETURN_IF_ERROR(prof::op_at(data, len, index, &d));
    const char* s = name ? d.op_name : d.op_type;
    const size_t need = std::strlen(s) + 1;
    if (dst_len < need) {
      return Error(err::kInvalidParam, "the buffer holds {} bytes but the operator {} of record {} needs {}", dst_len,
                   name ? "name" : "type", index, need);
    }
    std::memcpy(dst, s, need);
    return Status::Ok();
  });
}

// The arguments of svp_acl_prof_create_config, checked, as a file-mode configuration.
Result<prof::FileConfig> file_config(const uint32_t* device_id_list, uint32_t device_nums,
                                   svp_acl_prof_aicore_metrics aicore_metrics,
                                   const svp_acl_prof_aicore_events* aicore_events, uint64_t data_type_config) {
  if (device_id_list == nullptr) return Error(err::kInvalidParam, "device_id_list is NULL");
  if (device_nums == 0 || device_nums > 64) {
    return Error(err::kInvalidParam, "device_nums {} is outside 1..64", device_nums);
  }
  SVP_RETURN_IF_ERROR(check_metrics(aicore_metrics));
  if (aicore_events != nullptr) return Error(err::kInvalidParam, "aicore_events must be NULL (reserved)");
  if (data_type_config == 0 || (data_type_config & ~uint64_t{prof::kAllDataTypes}) != 0) {
    return Error(err::kInvalidParam,
                 "data_type_config 0x{:x} must be a non-empty OR of SVP_ACL_PROF_ACL_API, _TASK_TIME, "
                 "_AICORE_METRICS, _AICPU_TRACE",
                 data_type_config);
  }
  prof::FileConfig config;
  for (uint32_t i = 0; i < device_nums; ++i) {
    for (uint32_t j = 0; j < i; ++j) {
      if (device_id_list[i] == device_id_list[j]) {
        return Error(err::kInvalidParam, "device {} appears twice in device_id_list", device_id_list[i]);
      }
    }
    config.devices.push_back(device_id_list[i]);
  }
  config.aicore_metrics = static_cast<uint32_t>(enum_bits(aicore_metrics));
  config.data_types = data_type_config;
  return config;
}

// The arguments of svp_acl_prof_create_subscribe_config, checked, as a subscription.
Result<prof::SubscribeConfig> subscribe_config(int8_t time_info_switch, svp_acl_prof_aicore_metrics aicore_metrics,
                                               const void* fd) {
  if (time_info_switch != 0 && time_info_switch != 1) {
    return Error(err::kInvalidParam, "time_info_switch {} must be 0 or 1", time_info_switch);
  }
  SVP_RETURN_IF_ERROR(check_metrics(aicore_metrics));
  if (fd == nullptr) return Error(err::kInvalidParam, "fd is NULL (pass a pointer to the pipe's write end)");
  int v;
  std::memcpy(&v, fd, sizeof v);
  if (v < 0) return Error(err::kInvalidParam, "*fd = {} is not a file descriptor", v);
  prof::SubscribeConfig config;
  config.time_info = time_info_switch == 1;
  config.aicore_metrics = static_cast<uint32_t>(enum_bits(aicore_metrics));
  config.fd = v;
  return config;
}

}  // namespace

// ---- file mode ----------------------------------------------------------------------------

svp_acl_error svp_acl_prof_init(const char* result_path, size_t length) {
  return guard(__func__, [&]() -> Status {
    if (result_path == nullptr) return Error(err::kInvalidParam, "result_path is NULL");
    if (length == 0 || length > kMaxPathLength) {
      return Error(err::kInvalidParam, "length {} is outside 1..{}", length, kMaxPathLength);
    }
    if (strnlen(result_path, length + 1) != length) {
      return Error(err::kInvalidParam, "length {} is not strlen(result_path) ({})", length,
                   strnlen(result_path, kMaxPathLength + 1));
    }
    return with_runtime([&](Runtime&) { return prof::init(std::string(result_path, length)); });
  });
}

svp_acl_error svp_acl_prof_finalize(void) {
  return guard(__func__, [&]() -> Status {
    return with_runtime([&](Runtime&) { return prof::finalize(); });
  });
}

svp_acl_prof_config* svp_acl_prof_create_config(const uint32_t* device_id_list, uint32_t device_nums,
                                                svp_acl_prof_aicore_metrics aicore_metrics,
                                                const svp_acl_prof_aicore_events* aicore_events,
                                                uint64_t data_type_config) {
  return guard_value<svp_acl_prof_config*>(__func__, nullptr, [&]() -> Result<svp_acl_prof_config*> {
    auto config = file_config(device_id_list, device_nums, aicore_metrics, aicore_events, data_type_config);
    if (!config.ok()) return config.status();
    auto c = std::make_unique<svp_acl_prof_config>();
    c->config = std::move(*config);
    configs().add(c.get());
    return c.release();
  });
}

svp_acl_error svp_acl_prof_destroy_config(const svp_acl_prof_config* profiler_config) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(configs().check(profiler_config));
    if (prof::is_started(profiler_config->config)) {
      return Error(err::kInvalidParam, "the config is started; call svp_acl_prof_stop with it first");
    }
    SVP_RETURN_IF_ERROR(configs().remove(profiler_config));
    delete profiler_config;
    return Status::Ok();
  });
}

svp_acl_error svp_acl_prof_start(const svp_acl_prof_config* profiler_config) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(configs().check(profiler_config));
    return with_runtime([&](Runtime&) { return prof::start(profiler_config->config); });
  });
}

svp_acl_error svp_acl_prof_stop(const svp_acl_prof_config* profiler_config) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(configs().check(profiler_config));
    return with_runtime([&](Runtime&) { return prof::stop(profiler_config->config); });
  });
}

// ---- subscribe mode ------------------------------------------------------------------------

svp_acl_prof_subscribe_config* svp_acl_prof_create_subscribe_config(int8_t time_info_switch,
                                                                    svp_acl_prof_aicore_metrics aicore_metrics,
                                                                    const void* fd) {
  return guard_value<svp_acl_prof_subscribe_config*>(
      __func__, nullptr, [&]() -> Result<svp_acl_prof_subscribe_config*> {
        auto config = subscribe_config(time_info_switch, aicore_metrics, fd);
        if (!config.ok()) return config.status();
        auto c = std::make_unique<svp_acl_prof_subscribe_config>();
        c->config = std::move(*config);
        subscribe_configs().add(c.get());
        return c.release();
      });
}

svp_acl_error svp_acl_prof_destroy_subscribe_config(const svp_acl_prof_subscribe_config* subscribe_config) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(subscribe_configs().remove(subscribe_config));
    delete subscribe_config;
    return Status::Ok();
  });
}

svp_acl_error svp_acl_prof_model_subscribe(uint32_t model_id, const svp_acl_prof_subscribe_config* subscribe_config) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(subscribe_configs().check(subscribe_config));
    return with_runtime([&](Runtime& rt) { return prof::subscribe(rt, model_id, subscribe_config->config); });
  });
}

svp_acl_error svp_acl_prof_model_unsubscribe(uint32_t model_id) {
  return guard(__func__, [&]() -> Status {
    return with_runtime([&](Runtime&) { return prof::unsubscribe(model_id); });
  });
}

// ---- record decoding (pure functions: no svp_acl_init needed) ------------------------------

svp_acl_error svp_acl_prof_get_op_desc_size(size_t* op_desc_size) {
  return guard(__func__, [&]() -> Status {
    if (op_desc_size == nullptr) return Error(err::kInvalidParam, "op_desc_size is NULL");
    *op_desc_size = sizeof(prof::OpDesc);
    return Status::Ok();
  });
}

svp_acl_error svp_acl_prof_get_op_num(const void* op_info, size_t op_info_len, uint32_t* op_number) {
  return guard(__func__, [&]() -> Status {
    if (op_number == nullptr) return Error(err::kInvalidParam, "op_number is NULL");
    auto n = prof::op_count(op_info, op_info_len);
    if (!n.ok()) return n.status();
    // Every record is checked here, so a buffer that is not what the pipe delivered is
    // refused before the application walks it.
    prof::OpDesc d;
    for (uint32_t i = 0; i < *n; ++i) SVP_RETURN_IF_ERROR(prof::op_at(op_info, op_info_len, i, &d));
    *op_number = *n;
    return Status::Ok();
  });
}

svp_acl_error svp_acl_prof_get_op_type_len(const void* op_info, size_t op_info_len, uint32_t index,
                                           size_t* op_type_len) {
  return string_len(__func__, op_info, op_info_len, index, op_type_len, false);
}

svp_acl_error svp_acl_prof_get_op_type(const void* op_info, size_t op_info_len, uint32_t index, char* op_type,
                                       size_t op_type_len) {
  return string_copy(__func__, op_info, op_info_len, index, op_type, op_type_len, false);
}

svp_acl_error svp_acl_prof_get_op_name_len(const void* op_info, size_t op_info_len, uint32_t index,
                                           size_t* op_name_len) {
  return string_len(__func__, op_info, op_info_len, index, op_name_len, true);
}

svp_acl_error svp_acl_prof_get_op_name(const void* op_info, size_t op_info_len, uint32_t index, char* op_name,
                                       size_t op_name_len) {
  return string_copy(__func__, op_info, op_info_len, index, op_name, op_name_len, true);
}

uint64_t svp_acl_prof_get_op_start(const void* op_info, size_t op_info_len, uint32_t index) {
  return field_or_zero(__func__, op_info, op_info_len, index, [](const prof::OpDesc& d) { return d.start_ns / 1000; });
}

uint64_t svp_acl_prof_get_op_end(const void* op_info, size_t op_info_len, uint32_t index) {
  return field_or_zero(__func__, op_info, op_info_len, index, [](const prof::OpDesc& d) { return d.end_ns / 1000; });
}

uint64_t svp_acl_prof_get_op_duration(const void* op_info, size_t op_info_len, uint32_t index) {
  return field_or_zero(__func__, op_info, op_info_len, index,
                       [](const prof::OpDesc& d) { return (d.end_ns - d.start_ns) / 1000; });
}

size_t svp_acl_prof_get_model_id(const void* op_info, size_t op_info_len, uint32_t index) {
  return static_cast<size_t>(
      field_or_zero(__func__, op_info, op_info_len, index, [](const prof::OpDesc& d) { return d.model_id; }));
}
