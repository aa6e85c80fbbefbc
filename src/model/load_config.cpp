#include "model/load_config.h"

#include <cstring>

namespace svp::model {
namespace {

const char* attr_name(int attr) {
  static const char* const kNames[] = {
      "PRIORITY_INT32",       "LOAD_TYPE_SIZET",        "PATH_PTR",          "MEM_ADDR_PTR",
      "MEM_SIZET",            "WEIGHT_ADDR_PTR",        "WEIGHT_SIZET",      "WORKSPACE_ADDR_PTR",
      "WORKSPACE_SIZET",      "INPUTQ_NUM_SIZET",       "INPUTQ_ADDR_PTR",   "OUTPUTQ_NUM_SIZET",
      "OUTPUTQ_ADDR_PTR",     "PRIORITY_PREEMP_EN_BOOL", "PRIORITY_UP_STEP_TIMEOUT_UINT32",
      "PRIORITY_UP_TOP_TIMEOUT_UINT32"};
  return attr >= 0 && attr <= kAttrTopTimeout ? kNames[attr] : "?";
}

Status check_size(int attr, std::size_t got, std::size_t want) {
  if (got != want) {
    return Error(err::kInvalidParam, "SVP_ACL_MDL_{} takes a {}-byte value, got value_size {}", attr_name(attr), want,
                 got);
  }
  return Status::Ok();
}

Status check_timeout(int attr, std::uint32_t ms) {
  if (ms != 0 && (ms < 15 || ms >= 600000)) {
    return Error(err::kInvalidParam, "SVP_ACL_MDL_{} = {} ms is outside 0 (off) or [15, 600000)", attr_name(attr), ms);
  }
  return Status::Ok();
}

template <typename T>
T read(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <typename T>
void write(void* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

}  // namespace

Status LoadConfig::set(int attr, const void* value, std::size_t size) {
  if (value == nullptr) return Error(err::kInvalidParam, "attribute value pointer is NULL");
  switch (attr) {
    case kAttrPriority: {
      SVP_RETURN_IF_ERROR(check_size(attr, size, sizeof(std::int32_t)));
      const auto p = read<std::int32_t>(value);
      if (p < 0 || p > 7) return Error(err::kInvalidParam, "priority {} is outside 0..7", p);
      scheduling.priority = p;
      break;
    }
    case kAttrLoadType: {
      SVP_RETURN_IF_ERROR(check_size(attr, size, sizeof(std::size_t)));
      const auto t = read<std::size_t>(value);
      if (t < 1 || t > 6) return Error(err::kInvalidParam, "load type {} is not an SVP_ACL_MDL_LOAD_FROM_* value", t);
      load_type = t;
      break;
    }
    case kAttrMemAddr:
      SVP_RETURN_IF_ERROR(check_size(attr, size, sizeof(void*)));
      mem = read<const void*>(value);
      break;
    case kAttrMemSize:
      SVP_RETURN_IF_ERROR(check_size(attr, size, sizeof(std::size_t)));
      mem_size = read<std::size_t>(value);
      break;
    case kAttrPreemptEnable: {
      // The vendor sample passes a 4-byte hi_bool; a C bool is 1 byte.
      std::uint32_t v = 0;
      if (size == 1) {
        v = read<std::uint8_t>(value);
      } else if (size == 4) {
        v = read<std::uint32_t>(value);
      } else {
        return Error(err::kInvalidParam, "SVP_ACL_MDL_PRIORITY_PREEMP_EN_BOOL takes a 1- or 4-byte value, got {}", size);
      }
      if (v > 1) return Error(err::kInvalidParam, "SVP_ACL_MDL_PRIORITY_PREEMP_EN_BOOL must be 0 or 1, got {}", v);
      scheduling.preempt_enable = v == 1;
      break;
    }
    case kAttrStepTimeout:
    case kAttrTopTimeout: {
      SVP_RETURN_IF_ERROR(check_size(attr, size, sizeof(std::uint32_t)));
      const auto ms = read<std::uint32_t>(value);
      SVP_RETURN_IF_ERROR(check_timeout(attr, ms));
      const std::uint32_t other = attr == kAttrStepTimeout ? scheduling.top_timeout_ms : scheduling.step_timeout_ms;
      if (ms != 0 && other != 0) {
        return Error(err::kInvalidParam, "STEP and TOP priority promotion cannot both be enabled; set the other to 0 first");
      }
      (attr == kAttrStepTimeout ? scheduling.step_timeout_ms : scheduling.top_timeout_ms) = ms;
      break;
    }
    case kAttrPath:
    case kAttrWeightAddr:
    case kAttrWeightSize:
    case kAttrWorkspaceAddr:
    case kAttrWorkspaceSize:
    case kAttrInputQNum:
    case kAttrInputQAddr:
    case kAttrOutputQNum:
    case kAttrOutputQAddr:
      return Error(err::kApiNotSupport, "SVP_ACL_MDL_{} is not supported by the SVP NPU (as in the vendor SDK)",
                   attr_name(attr));
    default:
      return Error(err::kInvalidParam, "unknown model config attribute {}", attr);
  }
  set_mask |= 1u << attr;
  return Status::Ok();
}

Status LoadConfig::get(int attr, void* value, std::size_t size) const {
  if (value == nullptr) return Error(err::kInvalidParam, "attribute value pointer is NULL");
  switch (attr) {
    case kAttrPriority:
      SVP_RETURN_IF_ERROR(check_size(attr, size, sizeof(std::int32_t)));
      write(value, scheduling.priority);
      return Status::Ok();
    case kAttrPreemptEnable:
      if (size == 1) {
        write(value, static_cast<std::uint8_t>(scheduling.preempt_enable));
      } else if (size == 4) {
        write(value, static_cast<std::uint32_t>(scheduling.preempt_enable));
      } else {
        return Error(err::kInvalidParam, "SVP_ACL_MDL_PRIORITY_PREEMP_EN_BOOL takes a 1- or 4-byte value, got {}", size);
      }
      return Status::Ok();
    case kAttrStepTimeout:
    case kAttrTopTimeout:
      SVP_RETURN_IF_ERROR(check_size(attr, size, sizeof(std::uint32_t)));
      write(value, attr == kAttrStepTimeout ? scheduling.step_timeout_ms : scheduling.top_timeout_ms);
      return Status::Ok();
    case kAttrLoadType:
    case kAttrMemAddr:
    case kAttrMemSize:
      if (!is_set(static_cast<ConfigAttr>(attr))) {
        return Error(err::kInvalidParam, "SVP_ACL_MDL_{} has not been set on this handle", attr_name(attr));
      }
      if (attr == kAttrMemAddr) {
        SVP_RETURN_IF_ERROR(check_size(attr, size, sizeof(void*)));
        write(value, mem);
      } else {
        SVP_RETURN_IF_ERROR(check_size(attr, size, sizeof(std::size_t)));
        write(value, attr == kAttrLoadType ? load_type : mem_size);
      }
      return Status::Ok();
    default:
      if (attr >= kAttrPath && attr <= kAttrOutputQAddr) {
        return Error(err::kApiNotSupport, "SVP_ACL_MDL_{} is not supported by the SVP NPU", attr_name(attr));
      }
      return Error(err::kInvalidParam, "unknown model config attribute {}", attr);
  }
}

Status LoadConfig::check_loadable() const {
  if (!is_set(kAttrLoadType)) return Error(err::kInvalidParam, "SVP_ACL_MDL_LOAD_TYPE_SIZET is required");
  if (load_type != kLoadFromMem) {
    return Error(err::kApiNotSupport, "load type {} is not supported; only SVP_ACL_MDL_LOAD_FROM_MEM (3) is", load_type);
  }
  if (!is_set(kAttrMemAddr) || mem == nullptr) {
    return Error(err::kInvalidParam, "SVP_ACL_MDL_MEM_ADDR_PTR is required for SVP_ACL_MDL_LOAD_FROM_MEM");
  }
  if (!is_set(kAttrMemSize) || mem_size == 0) {
    return Error(err::kInvalidParam, "SVP_ACL_MDL_MEM_SIZET is required for SVP_ACL_MDL_LOAD_FROM_MEM");
  }
  return Status::Ok();
}

void LoadConfig::apply_scheduling(Scheduling* s) const {
  if (is_set(kAttrPriority)) s->priority = scheduling.priority;
  if (is_set(kAttrPreemptEnable)) s->preempt_enable = scheduling.preempt_enable;
  // A promotion mode switched on here replaces the model's other mode (never both).
  if (is_set(kAttrStepTimeout)) {
    s->step_timeout_ms = scheduling.step_timeout_ms;
    if (s->step_timeout_ms != 0) s->top_timeout_ms = 0;
  }
  if (is_set(kAttrTopTimeout)) {
    s->top_timeout_ms = scheduling.top_timeout_ms;
    if (s->top_timeout_ms != 0) s->step_timeout_ms = 0;
  }
}

}  // namespace svp::model
