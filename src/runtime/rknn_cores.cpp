// rknn_set_core_mask and rknn_set_batch_core_num: which NPU cores of a multi-core platform a
// context's runs use (RK3588: 3 cores, RK3576: 2; the model's platform, src/target's
// npu_cores), and each core's load (RKNN_QUERY_SVP_NPU_LOAD). The software NPU's device has
// the platform's cores (rknn_context.cpp); a context's runs go to the cores core_use() names:
// one core (a single-core mask, or any idle one for AUTO), or all the cores of a multi-core
// mask at once (docs/rknn.md "Multi-core").
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

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

CoreUse core_use_of(int core_mask, std::uint32_t platform_cores, int batch_core_num) {
  const std::uint32_t cores = std::min<std::uint32_t>(platform_cores, 32);
  const std::uint32_t all = cores >= 32 ? ~std::uint32_t{0} : (std::uint32_t{1} << cores) - 1;
  CoreUse u;
  if (cores <= 1) return u;
  if (core_mask == RKNN_NPU_CORE_AUTO) {
    // AUTO runs "in single-core mode on an idle core"; rknn_set_batch_core_num(n) makes a
    // run use n cores: the first n (the vendor names no order).
    if (batch_core_num > 1) {
      u.mask = all & ((std::uint32_t{1} << batch_core_num) - 1);
      u.split = true;
    }
    return u;
  }
  u.mask = core_mask == RKNN_NPU_CORE_ALL ? all : static_cast<std::uint32_t>(core_mask) & all;
  u.split = (u.mask & (u.mask - 1)) != 0;  // more than one core: the work is split across them
  return u;
}

CoreUse core_use(const Ctx& c) { return core_use_of(c.core_mask, c.platform->npu_cores, c.batch_core_num); }

int npu_load(const char* fn, Ctx& c, rknn_svp_npu_load* out) {
  CurrentContextScope keep(*c.rt);
  Status s = c.rt->set_current_context(c.rt_context);
  if (!s.ok()) return fail(fn, RKNN_ERR_CTX_INVALID, s.message());
  auto status = c.rt->core_status(RKNN_SVP_MAX_NPU_CORES);
  if (!status.ok()) return fail(fn, RKNN_ERR_FAIL, "the NPU's load could not be read: " + status.status().message());
  std::memset(out, 0, sizeof *out);
  out->n_cores = static_cast<std::uint32_t>(status->size());
  std::string text = "NPU load: ";
  for (std::size_t k = 0; k < status->size(); ++k) {
    out->load[k] = std::min<std::uint32_t>((*status)[k].utilization, 100);
    text += fmt::format("{} Core{}: {}%", k == 0 ? "" : ",", k, out->load[k]);
  }
  std::snprintf(out->text, sizeof out->text, "%s", text.c_str());
  return RKNN_SUCC;
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
