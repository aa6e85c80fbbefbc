// rknn_set_core_mask and rknn_set_batch_core_num: which NPU cores of a multi-core platform a
// context's runs may use (RK3588: 3 cores, RK3576: 2; the model's platform, src/target's
// npu_cores). The choice is checked against the platform and recorded (RKNN_QUERY_PERF_DETAIL
// reports it); the software NPU runs the same kernels whatever it is: the multi-core
// speed-up of the board is timing-model work (issue 27), not host time.
#include <fmt/format.h>

#include "runtime/rknn_ctx.h"

namespace svp::runtime::rknn {
namespace {

// The platforms with one core have no core selection: Rockchip's runtime supports these calls
// "only on multi-core NPU platforms".
int single_core(const char* fn, const Ctx& c) {
  return fail(fn, RKNN_ERR_FAIL,
              fmt::format("{} has one NPU core: {} is supported only on multi-core platforms (RK3588, RK3576)",
                          c.platform->name, fn));
}

}  // namespace

std::string core_mask_name(int mask) {
  switch (mask) {
    case RKNN_NPU_CORE_AUTO:
      return "RKNN_NPU_CORE_AUTO";
    case RKNN_NPU_CORE_0:
      return "RKNN_NPU_CORE_0";
    case RKNN_NPU_CORE_1:
      return "RKNN_NPU_CORE_1";
    case RKNN_NPU_CORE_2:
      return "RKNN_NPU_CORE_2";
    case RKNN_NPU_CORE_0_1:
      return "RKNN_NPU_CORE_0_1";
    case RKNN_NPU_CORE_0_1_2:
      return "RKNN_NPU_CORE_0_1_2";
    case RKNN_NPU_CORE_ALL:
      return "RKNN_NPU_CORE_ALL";
    default:
      return fmt::format("0x{:x}", mask);
  }
}

bool is_core_mask_of(int mask, std::uint32_t cores) {
  const bool named = mask == RKNN_NPU_CORE_0 || mask == RKNN_NPU_CORE_1 || mask == RKNN_NPU_CORE_2 ||
                     mask == RKNN_NPU_CORE_0_1 || mask == RKNN_NPU_CORE_0_1_2;
  return mask == RKNN_NPU_CORE_AUTO || mask == RKNN_NPU_CORE_ALL ||
         (named && (static_cast<std::uint32_t>(mask) >> cores) == 0);
}

int set_core_mask(Handle h, int mask) {
  static constexpr char fn[] = "rknn_set_core_mask";
  clear_last_error();
  Lookup l = find(fn, h);
  if (!l.ctx) return l.code;
  Ctx& c = *l.ctx;
  CallScope call(fn, c);
  const std::uint32_t cores = c.platform->npu_cores;
  if (cores <= 1) return single_core(fn, c);
  if (!is_core_mask_of(mask, cores)) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("core_mask {} is not a core mask of {} ({} cores: RKNN_NPU_CORE_AUTO, _ALL, {})",
                            core_mask_name(mask), c.platform->name, cores,
                            cores == 3 ? "_0, _1, _2, _0_1, _0_1_2" : "_0, _1, _0_1"));
  }
  c.core_mask = mask;
  return RKNN_SUCC;
}

int set_batch_core_num(Handle h, int core_num) {
  static constexpr char fn[] = "rknn_set_batch_core_num";
  clear_last_error();
  Lookup l = find(fn, h);
  if (!l.ctx) return l.code;
  Ctx& c = *l.ctx;
  CallScope call(fn, c);
  const std::uint32_t cores = c.platform->npu_cores;
  if (cores <= 1) return single_core(fn, c);
  if (core_num < 1 || static_cast<std::uint32_t>(core_num) > cores) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("core_num {} is not in 1..{} ({}'s NPU cores)", core_num, cores, c.platform->name));
  }
  c.batch_core_num = core_num;
  return RKNN_SUCC;
}

}  // namespace svp::runtime::rknn
