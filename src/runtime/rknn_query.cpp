// rknn_query: the commands' answers from a context's attributes, memory and last run.
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "runtime/rknn_ctx.h"

namespace svp::runtime::rknn {
namespace {

template <typename T>
int copy_struct(const char* fn, void* info, std::uint32_t size, const T& value, const char* what) {
  if (size < sizeof(T)) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("size {} is smaller than sizeof({}) = {}", size, what, sizeof(T)));
  }
  std::memcpy(info, &value, sizeof(T));
  return RKNN_SUCC;
}

int query_attr(const char* fn, const std::vector<Io>& list, void* info, std::uint32_t size, const char* which) {
  if (size < sizeof(rknn_tensor_attr)) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("size {} is smaller than sizeof(rknn_tensor_attr) = {}", size, sizeof(rknn_tensor_attr)));
  }
  auto* attr = static_cast<rknn_tensor_attr*>(info);
  if (attr->index >= list.size()) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("{} index {} is out of range (the model has {} {}s)", which, attr->index, list.size(), which));
  }
  *attr = list[attr->index].attr;
  return RKNN_SUCC;
}

int query_native(const char* fn, const Ctx& c, bool input, bool nhwc, void* info, std::uint32_t size) {
  const std::vector<Io>& list = input ? c.inputs : c.outputs;
  const int r = query_attr(fn, list, info, size, input ? "input" : "output");
  if (r != RKNN_SUCC) return r;
  auto* attr = static_cast<rknn_tensor_attr*>(info);
  *attr = native_attr(*attr, list[attr->index].desc.dims, input, nhwc, *c.platform);
  return RKNN_SUCC;
}

}  // namespace

int query(Handle h, int cmd, void* info, std::uint32_t size) {
  static constexpr char fn[] = "rknn_query";
  Lookup l = find(fn, h);
  if (!l.ctx) return l.code;
  Ctx& c = *l.ctx;
  std::lock_guard<std::mutex> lock(c.mu);
  switch (cmd) {
    case RKNN_QUERY_IN_OUT_NUM: {
      rknn_input_output_num n{};
      n.n_input = static_cast<std::uint32_t>(c.inputs.size());
      n.n_output = static_cast<std::uint32_t>(c.outputs.size());
      return copy_struct(fn, info, size, n, "rknn_input_output_num");
    }
    case RKNN_QUERY_INPUT_ATTR: return query_attr(fn, c.inputs, info, size, "input");
    case RKNN_QUERY_OUTPUT_ATTR: return query_attr(fn, c.outputs, info, size, "output");
    case RKNN_QUERY_SDK_VERSION: {
      rknn_sdk_version v{};
      // The API level served, and who serves it (the board reports its runtime build and
      // its kernel driver's version).
      std::snprintf(v.api_version, sizeof v.api_version, "2.3.2 (svp-acl)");
      std::snprintf(v.drv_version, sizeof v.drv_version, "svp-acl software NPU");
      return copy_struct(fn, info, size, v, "rknn_sdk_version");
    }
    case RKNN_QUERY_MEM_SIZE: {
      rknn_mem_size m{};
      m.total_weight_size = static_cast<std::uint32_t>(c.weights_bytes);
      m.total_internal_size = static_cast<std::uint32_t>(c.task_desc.size + c.work_desc.size);
      m.total_dma_allocated_size = c.device_bytes + c.weights_bytes;
      return copy_struct(fn, info, size, m, "rknn_mem_size");
    }
    case RKNN_QUERY_CUSTOM_STRING: {
      rknn_custom_string s{};  // svp-acl models carry no custom string yet
      return copy_struct(fn, info, size, s, "rknn_custom_string");
    }
    case RKNN_QUERY_NATIVE_INPUT_ATTR: return query_native(fn, c, true, false, info, size);
    case RKNN_QUERY_NATIVE_OUTPUT_ATTR: return query_native(fn, c, false, false, info, size);
    case RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR: return query_native(fn, c, true, true, info, size);
    case RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR: return query_native(fn, c, false, true, info, size);
    case RKNN_QUERY_PERF_DETAIL:
    case RKNN_QUERY_PERF_RUN:
    case RKNN_QUERY_DEVICE_MEM_INFO:
    case RKNN_QUERY_INPUT_DYNAMIC_RANGE:
    case RKNN_QUERY_CURRENT_INPUT_ATTR:
    case RKNN_QUERY_CURRENT_OUTPUT_ATTR:
    case RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR:
    case RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR:
      return not_implemented(fn, fmt::format("query command {}", cmd));
    default:
      return fail(fn, RKNN_ERR_PARAM_INVALID, fmt::format("cmd {} is not an rknn_query_cmd (0..{})", cmd,
                                                          static_cast<int>(RKNN_QUERY_CMD_MAX) - 1));
  }
}

}  // namespace svp::runtime::rknn
