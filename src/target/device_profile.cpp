#include "target/device_profile.h"

#include <algorithm>

#include <fmt/format.h>

#include "ops/op_def.h"
#include "target/rknn_op_support.h"

namespace svp::target {
namespace {

// The SVP NPUs share one operator specification (the vendor ATC's): the ops marked svp_npu
// in the op table run on the NPU, with the limits below; every other op with a kernel runs
// on the AI-CPU.
const OpSupport& svp_ops() {
  static const OpSupport s{"SVP ATC operator specification",
                           {{"MatMul", Support::kNpu, 4, "up to 4-D operands"}},
                           true,
                           Support::kCpu,
                           "vendor ATC operator list (seed 003), ops with svp-acl kernels"};
  return s;
}

// NPU rates of the SVP chips: the vendors' figure where one is published (SS928V100 5.6
// TOPS for the SVP engine and Hi3516CV610 0.5 TOPS a8w8, ../shared/design/BOARD_TIME.md;
// Hi3519DV500 2.5 TOPS); for SS626V100 no public figure was found and the value is an
// assumption (the log says so). DRAM: the chip's DDR interface at its nominal rate.
// AI-CPU: one Cortex-A55-class core at ~1.4 GHz, four fp32 MACs per cycle with NEON. The
// board timing model (board_time.h) reads these figures; its efficiency factors are
// fitted, never these.
//
// RKNN targets: cores and C2 per element type are Rockchip's (RKNN.md; seed 000 table 5-1);
// their op support sets are Rockchip's SDK 2.3.2 list (rknn_op_support.cpp). Their rates
// are placeholders for the board timing model (issue 27) to fit: each row's source string
// says which figure is published and which assumed.
//
// Board timing: the NPU clocks are BOARD_TIME.md's; RK3566/RK3568 have the earlier RKNPU
// design (int8 in blocks of 8 channels where the later chips take 16: C2 above), so their
// timing factors are fitted apart from RK3588/RK3576/RK3562/RV1106's.
//
// Board memory: the DDR of a typical board of each SoC, an assumption from the boards on
// sale (not a vendor figure; the vendors publish the maximum each DDR controller takes,
// not a board size): SS928V100 and SS626V100 demo boards 4 and 2 GiB, Hi3519DV500 boards
// 2 GiB, Hi3516CV610 camera boards 256 MiB; RK3588 8 GiB, RK3576 4 GiB, RK3566/RK3562
// 2 GiB, RV1106G3 256 MiB (in the package). Configurable: acl.json softnpu.device_memory_mb.
constexpr std::uint64_t kMiB = 1024 * 1024;
constexpr std::uint64_t kGiB = 1024 * kMiB;

std::vector<DeviceProfile> build() {
  const OpSupport* svp = &svp_ops();
  return {
      {"SS928V100", "", Family::kSvp, 1, 5.6, 25.6, 5.6, 4 * kMiB, "NCHW", 0, 0, 16, svp, 4 * kGiB,
       "SVP engine 5.6 TOPS int8 (vendor brief, BOARD_TIME.md), DDR 64-bit ~25.6 GB/s; on-chip buffer assumed 4 MiB "
       "(matches the published DDR MB/frame, docs/board_time.md)",
       {"SVP", 1.0, 0.5, 0.5, "NPU clock assumed 1 GHz; A16W8 and fp16 at half the int8 rate as on Hi3516CV610"}},
      {"SS626V100", "", Family::kSvp, 1, 1.0, 10.6, 5.6, 0, "NCHW", 0, 0, 16, svp, 2 * kGiB,
       "assumed: no public NPU figure found", {"SVP", 1.0, 0.5, 0.5, "assumed"}},
      {"Hi3519DV500", "", Family::kSvp, 1, 2.5, 10.6, 5.6, 0, "NCHW", 0, 0, 16, svp, 2 * kGiB,
       "product brief (NPU), nominal DDR4 x32", {"SVP", 1.0, 0.5, 0.5, "assumed"}},
      {"Hi3516CV610", "", Family::kSvp, 1, 0.5, 4.3, 4.0, 0, "NCHW", 0, 0, 16, svp, 256 * kMiB,
       "0.5 TOPS a8w8 (vendor brief, BOARD_TIME.md), 16-bit DDR3-2133",
       {"SVP", 1.0, 0.5, 0.5, "A16W8 0.25 TOPS published (half of a8w8); clock assumed"}},
      {"RK3588", "", Family::kRknn, 3, 6.0, 25.6, 8.0, 956 * 1024, "NC1HWC2", 16, 8, 16,
       &rknn_ops(RknnOpSet::kRk3588),
       8 * kGiB,
       "6 TOPS over 3 cores (third-party figure, no Rockchip primary source found); SRAM 956 KB for the NPU "
       "(rknpu2 RK3588_NPU_SRAM_usage.md); DDR and CPU rates assumed",
       {"RKNPU", 1.0, 0.5, 0.25, "3 cores at 1 GHz (BOARD_TIME.md); int16 and fp16 rates assumed"}},
      {"RK3576", "", Family::kRknn, 2, 6.0, 17.0, 8.0, 0, "NC1HWC2", 16, 8, 16, &rknn_ops(RknnOpSet::kRk3576),
       4 * kGiB,
       "6 TOPS over 2 cores (third-party figure, no Rockchip primary source found); DDR and CPU rates assumed",
       {"RKNPU", 0.95, 0.5, 0.25, "2 cores at 950 MHz (BOARD_TIME.md); int16 and fp16 rates assumed"}},
      {"RK3566", "RK3568", Family::kRknn, 1, 1.0, 12.8, 6.0, 0, "NC1HWC2", 8, 4, 16, &rknn_ops(RknnOpSet::kRk3566),
       2 * kGiB,
       "about 1 TOPS (third-party figures say 0.8 to 1, no Rockchip primary source found); DDR and CPU rates "
       "assumed",
       {"RKNPU-RK356x", 0.9, 0.5, 0.25, "1 core at 900 MHz (BOARD_TIME.md); int16 and fp16 rates assumed"}},
      {"RK3562", "", Family::kRknn, 1, 1.0, 8.5, 6.0, 0, "NC1HWC2", 16, 8, 16, &rknn_ops(RknnOpSet::kRk3562),
       2 * kGiB,
       "assumed 1 TOPS: no public figure found; DDR and CPU rates assumed",
       {"RKNPU", 1.0, 0.5, 0.25, "assumed"}},
      {"RV1106", "RV1103", Family::kRknn, 1, 0.5, 4.3, 2.0, 0, "NC1HWC2", 16, 8, 16, &rknn_ops(RknnOpSet::kRv1106),
       256 * kMiB,
       "0.5 TOPS (third-party figure, no Rockchip primary source found); DDR and CPU rates assumed",
       {"RKNPU", 1.0, 0.5, 0.25, "assumed"}, /*zero_copy_api_only=*/true},
  };
}

const char* cpu_name(Family f) { return f == Family::kSvp ? "AI-CPU" : "CPU"; }

const OpRule* find_rule(const OpSupport& s, std::string_view op) {
  auto it = std::lower_bound(s.rules.begin(), s.rules.end(), op,
                             [](const OpRule& r, std::string_view n) { return std::string_view(r.op) < n; });
  return it != s.rules.end() && it->op == op ? &*it : nullptr;
}

Support base_support(const OpSupport& s, std::string_view op, const OpRule* rule) {
  if (rule != nullptr) return rule->where;
  if (s.npu_from_op_table && ops::op_def(op).svp_npu) return Support::kNpu;
  return s.unlisted;
}

}  // namespace

const std::vector<DeviceProfile>& all_profiles() {
  static const std::vector<DeviceProfile> profiles = build();
  return profiles;
}

const DeviceProfile* find_profile(std::string_view name) {
  for (const DeviceProfile& p : all_profiles()) {
    if (name == p.name || (*p.alias != '\0' && name == p.alias)) return &p;
  }
  return nullptr;
}

const DeviceProfile& default_profile() { return all_profiles().front(); }

std::string profile_names(Family family) {
  std::string out;
  for (const DeviceProfile& p : all_profiles()) {
    if (p.family != family) continue;
    if (!out.empty()) out += ", ";
    out += p.name;
    if (*p.alias != '\0') out += fmt::format(" ({})", p.alias);
  }
  return out;
}

Support op_support(const DeviceProfile& profile, std::string_view op, const std::vector<std::size_t>& operand_ranks,
                   std::string* why) {
  const OpRule* rule = find_rule(*profile.ops, op);
  const Support s = base_support(*profile.ops, op, rule);
  if (s != Support::kNpu || rule == nullptr || rule->max_rank == 0) return s;
  for (std::size_t r : operand_ranks) {
    if (r > rule->max_rank) {
      if (why != nullptr) *why = fmt::format("{} on {}: {}", op, profile.name, rule->note);
      return Support::kCpu;
    }
  }
  return s;
}

std::string op_support_rule(const DeviceProfile& profile, std::string_view op) {
  const OpRule* rule = find_rule(*profile.ops, op);
  switch (base_support(*profile.ops, op, rule)) {
    case Support::kCpu: return cpu_name(profile.family);
    case Support::kRefused: return "refused";
    case Support::kNpu: break;
  }
  if (rule != nullptr && rule->max_rank != 0) {
    return fmt::format("NPU up to {}-D operands, else {}", rule->max_rank, cpu_name(profile.family));
  }
  return "NPU";
}

const char* to_string(Family f) { return f == Family::kSvp ? "SVP" : "RKNN"; }

}  // namespace svp::target
