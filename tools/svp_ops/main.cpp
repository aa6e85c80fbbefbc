// svp_ops: what the project knows about each op (src/ops) and where each target runs it
// (src/target), as Markdown (docs/ops.md) or one target's list as text.
//
//   svp_ops --markdown          the table of docs/ops.md, every target a column
//   svp_ops --target=RK3568     one target: its figures and each op's placement
#include <cstdio>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "ops/op_def.h"
#include "target/device_profile.h"

namespace {

using svp::ops::OpDef;
using svp::target::DeviceProfile;

std::string cell(const DeviceProfile& p, const OpDef& d) {
  const std::string rule = svp::target::op_support_rule(p, d.name);
  if (rule == "refused") return "—";
  if (rule.rfind("NPU up to ", 0) == 0) return fmt::format("NPU ≤{}", rule.substr(10, 3));
  return rule;
}

std::string traits(const OpDef& d) {
  std::string q = to_string(d.quant);
  if (d.quant_cube) q += ", cube";
  return q;
}

void markdown() {
  const auto& profiles = svp::target::all_profiles();
  std::string head = "| op | class |", rule = "|---|---|";
  for (const DeviceProfile& p : profiles) {
    head += fmt::format(" {} |", *p.alias ? fmt::format("{}/{}", p.name, p.alias) : std::string(p.name));
    rule += "---|";
  }
  head += " quantization | layout | fast path | MACs | timing |";
  rule += "---|---|---|---|---|";
  std::printf("%s\n%s\n", head.c_str(), rule.c_str());
  for (const OpDef& d : svp::ops::all_ops()) {
    std::string row = fmt::format("| {} | {} |", d.name, to_string(d.op_class));
    for (const DeviceProfile& p : profiles) row += fmt::format(" {} |", cell(p, d));
    const char* macs[] = {"", "conv", "conv-transpose", "gemm", "matmul", "recurrent"};
    row += fmt::format(" {} | {} | {} | {} | {} |", traits(d), to_string(d.layout), to_string(d.fast),
                       macs[static_cast<int>(d.macs)], to_string(d.timing));
    std::printf("%s\n", row.c_str());
  }
  std::printf("\nFast paths and when they apply (otherwise the reference kernel runs):\n\n");
  std::printf("| op | fast path | applies to |\n|---|---|---|\n");
  for (const OpDef& d : svp::ops::all_ops()) {
    if (d.fast != svp::ops::FastPath::kNone) std::printf("| %s | %s | %s |\n", d.name, to_string(d.fast), d.fast_note);
  }
}

int one_target(const char* name) {
  const DeviceProfile* p = svp::target::find_profile(name);
  if (p == nullptr) {
    std::fprintf(stderr, "svp_ops: --target=%s: not a known target; SVP: %s; RKNN: %s\n", name,
                 svp::target::profile_names(svp::target::Family::kSvp).c_str(),
                 svp::target::profile_names(svp::target::Family::kRknn).c_str());
    return 1;
  }
  std::printf("%s (%s): %u NPU core(s), %.1f TOPS int8, DDR %.1f GB/s, native layout %s; ops: %s (%s)\n", p->name,
              to_string(p->family), p->npu_cores, p->npu_int8_tops, p->ddr_gbps, p->native_layout, p->ops->name,
              p->ops->source);
  for (const OpDef& d : svp::ops::all_ops()) {
    std::printf("%-28s %s\n", d.name, svp::target::op_support_rule(*p, d.name).c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--markdown") == 0) {
    markdown();
    return 0;
  }
  if (argc == 2 && std::strncmp(argv[1], "--target=", 9) == 0) return one_target(argv[1] + 9);
  std::fprintf(stderr, "usage: svp_ops --markdown | --target=SOC\n");
  return 2;
}
